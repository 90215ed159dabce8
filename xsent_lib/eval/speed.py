"""Encoding speed: sentences per second of any encoder, timed the same way on a fixed number of CPU
threads.

Wieting et al. (Table 4) time 128,000 sentences in batches of 128 on one GPU. We time what this
machine has: each encoder runs over the same batches of 128 sentences with torch (and BLAS) limited
to ``threads`` threads, after a warm-up pass; the best of ``repeats`` passes is kept (the least
disturbed by other work). Two regimes are timed: *text to vector* (tokenisation included, the only
fair one for an encoder we cannot open, such as USE) and *model only* (token ids already padded or
packed).
Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Iterator

import numpy as np
import torch
from threadpoolctl import threadpool_limits

from xsent_lib.text.batching import pad_csr


@contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """Run the block with torch and BLAS limited to ``n`` threads; the previous torch setting is
    restored.

    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"threads must be a positive integer, got {n!r}.")
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        with threadpool_limits(limits=n):
            yield
    finally:
        torch.set_num_threads(before)


def sentences_per_second(encode_batch: Callable[[Any], Any], batches: Sequence[Any],
                         n_sentences: int, *,
                         repeats: int = 3, warmup: bool = True) -> dict[str, float]:
    """Time ``encode_batch`` over all ``batches`` (holding ``n_sentences`` sentences): best and
    median rate.

    Returns ``{"best": sentences/s of the fastest pass, "median": of the median pass, "seconds": the
    fastest pass}``. The caller sets the thread count (see :func:`torch_threads`).
    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """
    if not batches or n_sentences < 1:
        raise ValueError("need at least one batch and one sentence to time.")
    if not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be a positive integer, got {repeats!r}.")
    if warmup:
        encode_batch(batches[0])
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for batch in batches:
            encode_batch(batch)
        times.append(time.perf_counter() - t0)
    best, median = min(times), float(np.median(times))
    return {"best": n_sentences / max(best, 1e-12), "median": n_sentences / max(median, 1e-12),
            "seconds": best}


def text_batches(sentences: Sequence[str], batch_size: int = 128) -> list[list[str]]:
    """``sentences`` cut into consecutive batches of ``batch_size`` (the paper's 128).

    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}.")
    sentences = list(sentences)
    return [sentences[i: i + batch_size] for i in range(0, len(sentences), batch_size)]


def model_only(encoder: torch.nn.Module, sentences: Sequence[str],
               batch_size: int = 128) -> tuple[Callable[[Any], Any], list[Any]]:
    """A forward function and pre-tokenised batches, to time an encoder without its tokeniser.

    Encoders with ``forward_flat`` (bags of vectors) get packed CSR batches and their fused lookup;
    the others get padded ``(ids, lengths)`` batches. The forward runs in eval mode under inference
    mode.
    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """
    pipeline = getattr(encoder, "pipeline", None)
    if pipeline is None:
        raise ValueError("model_only needs an encoder with a text pipeline (encoder.pipeline).")
    encoder.eval()
    batches = []
    flat_mode = hasattr(encoder, "forward_flat")
    for chunk in text_batches(sentences, batch_size):
        flat, offsets = pipeline.encode_flat(chunk)
        if flat_mode:
            batches.append((torch.from_numpy(flat), torch.from_numpy(offsets)))
        else:
            batches.append(pad_csr(flat, offsets, np.arange(len(chunk))))
    step = encoder.forward_flat if flat_mode else encoder

    def run(batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        with torch.inference_mode():
            return step(*batch)

    return run, batches


def speed_table(text_encoders: Mapping[str, Callable[[int], Callable[[list[str]], Any]]],
                sentences: Sequence[str], *, threads: Sequence[int] = (1, 2), batch_size: int = 128,
                repeats: int = 3, models: Mapping[str, torch.nn.Module] | None = None,
                sentence_counts: Mapping[str, int] | None = None) -> list[dict[str, Any]]:
    """Sentences per second of every encoder at every thread count: one row per (encoder, regime,
    threads).

    ``text_encoders[name](threads)`` returns an ``encode(list[str])`` function (a factory, since
    some encoders fix their thread count when built); ``models[name]`` are torch encoders also timed
    model only. ``sentence_counts[name]`` times a slow encoder on the first sentences only (rates
    stay comparable).
    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """
    sentences = list(sentences)
    if not sentences:
        raise ValueError("speed_table needs sentences to encode.")
    counts = dict(sentence_counts or {})
    rows = []
    for name, factory in text_encoders.items():
        subset = sentences[: counts.get(name, len(sentences))]
        batches = text_batches(subset, batch_size)
        for n in threads:
            with torch_threads(n):
                rate = sentences_per_second(factory(n), batches, len(subset), repeats=repeats)
            rows.append({"encoder": name, "regime": "text to vector", "threads": n,
                         "sentences": len(subset),
                         "sentences/s": rate["best"], "median sentences/s": rate["median"]})
    for name, model in (models or {}).items():
        subset = sentences[: counts.get(name, len(sentences))]
        run, batches = model_only(model, subset, batch_size)
        for n in threads:
            with torch_threads(n):
                rate = sentences_per_second(run, batches, len(subset), repeats=repeats)
            rows.append({"encoder": name, "regime": "model only", "threads": n,
                         "sentences": len(subset),
                         "sentences/s": rate["best"], "median sentences/s": rate["median"]})
    return rows


def hardware(device: torch.device | str = "cpu") -> dict[str, Any]:
    """The machine a speed table was measured on: CPU model and logical cores, torch version and,
    when ``device`` is a CUDA device, the GPU's name (``"gpu": None`` otherwise).

    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """
    import os
    import platform

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            names = [line.split(":", 1)[1].strip() for line in handle
                     if line.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    device = torch.device(device)
    gpu = torch.cuda.get_device_name(device) if device.type == "cuda" else None
    return {"cpu": cpu, "logical cores": os.cpu_count(), "torch": torch.__version__, "gpu": gpu}


def device_speed_table(models: Mapping[str, torch.nn.Module], sentences: Sequence[str],
                       device: torch.device | str, *, batch_size: int = 128, repeats: int = 3,
                       sentence_counts: Mapping[str, int] | None = None) -> list[dict[str, Any]]:
    """Sentences per second of torch encoders on ``device`` (a GPU in the book; any torch device
    works): *text to vector* (``encoder.encode`` of each batch of ``batch_size``, tokenisation on
    the CPU included) and *model only* (the batches of :func:`model_only` moved to ``device`` before
    timing). On CUDA every pass ends with ``torch.cuda.synchronize`` so the clock sees the kernels
    finish. The encoders are moved back to the CPU afterwards. Rows as :func:`speed_table`'s, with
    ``"device"`` and ``threads = None``.
    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """
    device = torch.device(device)
    sentences = list(sentences)
    if not sentences:
        raise ValueError("device_speed_table needs sentences to encode.")
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    counts = dict(sentence_counts or {})
    rows = []
    for name, model in models.items():
        subset = sentences[: counts.get(name, len(sentences))]
        model.to(device)

        def text(batch: list[str], model: Any = model) -> None:
            model.encode(batch, batch_size=batch_size, device=device)
            sync()

        run, batches = model_only(model, subset, batch_size)
        batches = [tuple(t.to(device) for t in b) for b in batches]

        def forward(batch: Any, run: Any = run) -> None:
            run(batch)
            sync()

        for regime, fn, items in (("text to vector", text, text_batches(subset, batch_size)),
                                  ("model only", forward, batches)):
            rate = sentences_per_second(fn, items, len(subset), repeats=repeats)
            rows.append({"encoder": name, "regime": regime, "threads": None, "device": str(device),
                         "sentences": len(subset), "sentences/s": rate["best"],
                         "median sentences/s": rate["median"]})
        model.cpu()
    return rows
