"""Chapter 8's evaluations of a trained encoder: STS and mining F1 (planted corpora or BUCC 2018),
the retrieval probe of how spread the sentence vectors are, and the language-choice study (SP
overlap against English STS and mining, Table 5 and Figure 1).

Book: chapter 8 (Paraphrastic embeddings from bitext).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from xsent_lib.base.threads import single_thread
from xsent_lib.data.bitext_split import Bitext, load_pair
from xsent_lib.data.bucc_splits import bucc_splits
from xsent_lib.encoders import RecurrentEncoder
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.eval.paraphrase import mining_f1, planted_mining_corpus, sts_pearson
from xsent_lib.text import TextPipeline
from xsent_lib.train.paraphrase_models import (
    BitextSchedule,
    EncoderShape,
    build_paraphrase_encoder,
    train_bitext_encoder,
)


def encode_fn(encoder: SentenceEncoder) -> Any:
    """``encode(list[str]) -> array`` on the CPU, the form the evaluations take.

    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    return lambda sentences: encoder.encode(sentences, batch_size=256, device="cpu")


def mining_splits(
    data: Bitext, *, gold: int, noise: int, seed: int
) -> dict[str, tuple[list[str], list[str], np.ndarray]]:
    """Planted dev and test mining corpora from the held-out pairs (disjoint halves): ``gold`` pairs
    hidden among ``noise`` unaligned sentences per side in each.

    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    half = len(data.held_src) // 2
    rng = np.random.default_rng(seed)
    return {
        split: planted_mining_corpus(data.held_src[a:b], data.held_tgt[a:b], gold, noise, rng)
        for split, (a, b) in (("dev", (0, half)), ("test", (half, len(data.held_src))))
    }


def bucc_table(
    models: Mapping[tuple[str, str], SentenceEncoder],
    data_dir: str | Path,
    *,
    max_sentences: int | None = None,
    seed: int = 0,
) -> tuple[dict[str, dict[str, float]], dict[str, str]]:
    """Table 3 on BUCC 2018 (any profile whose ``data_dir`` has it): mining F1 of every model of
    ``models`` (keyed ``(pair, label)`` as in the chapter) on the BUCC splits of its pair
    (:func:`bucc_splits`, at most ``max_sentences`` per side and split, via :func:`evaluate`).
    Returns ``({label: {"en-fr": F1, ...}}, {"en-fr": protocol and what was kept})``; pairs without
    BUCC files in ``data_dir`` are skipped with a note, and pairs whose files allow no protocol are
    skipped with the reason printed and kept as their protocol (``"skipped: ..."``): the chapter has
    trained its models by then, and one incomplete folder should not throw the other pairs' results
    away.
    Book: chapter 8 (Paraphrastic embeddings from bitext: mining).
    """
    table: dict[str, dict[str, float]] = {}
    protocols: dict[str, str] = {}
    splits: dict[str, dict[str, Any] | None] = {}
    for (pair, label), enc in models.items():
        if pair not in splits:
            try:
                splits[pair] = (
                    bucc_splits(data_dir, pair, max_sentences=max_sentences, seed=seed)
                    if pair.count("-") >= 2 and "synthetic" not in pair
                    else None
                )
            except FileNotFoundError as err:
                splits[pair] = None
                protocols["en-" + pair.split("-")[-1]] = f"skipped: {err}"
                print(
                    f"NOTE: BUCC 2018 files for {pair} cannot be scored, its BUCC column stays "
                    f"empty: {err}"
                )
                continue
            if splits[pair] is None:
                print(
                    f"NOTE: no BUCC 2018 files for {pair} in {data_dir}; its BUCC column stays "
                    "empty."
                )
            else:
                protocols[splits[pair]["pair"]] = (
                    f"{splits[pair]['protocol']} (kept {splits[pair]['kept']})"
                )
        found = splits[pair]
        if found is not None:
            table.setdefault(label, {})[found["pair"]] = evaluate(enc, {}, {"bucc": found})[
                "mining bucc"
            ]
    return table, protocols


def merge_bucc(
    planted: Mapping[str, Mapping[str, float]],
    bucc: Mapping[str, Mapping[str, float]],
) -> dict[str, dict[str, float]]:
    """Table 3 with both mining settings: BUCC F1 under the paper's column names (``"en-fr"``), and
    our planted F1 of the same column renamed ``"en-fr (planted)"`` wherever a BUCC number takes its
    place.
    Book: chapter 8 (Paraphrastic embeddings from bitext: mining).
    """
    taken = {c for row in bucc.values() for c in row}
    out: dict[str, dict[str, float]] = {}
    for label in dict.fromkeys([*planted, *bucc]):
        row = {
            (f"{c} (planted)" if c in taken else c): v for c, v in planted.get(label, {}).items()
        }
        out[label] = {**dict(bucc.get(label, {})), **row}
    return out


def evaluate(
    encoder: SentenceEncoder, sts: Mapping[str, Any], mining: Mapping[str, Mapping] | None = None
) -> dict:
    """STS Pearson x100 on every set of ``sts`` (``STSSet``-like: ``a``, ``b``, ``score``) and
    mining F1.

    Runs on one thread (small batches; two spinning threads lose on a busy machine).

    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    enc = encode_fn(encoder)
    with single_thread():
        out: dict[str, Any] = {
            f"sts {k}": sts_pearson(enc, s.a, s.b, s.score)["pearson"] for k, s in sts.items()
        }
        for name, splits in (mining or {}).items():
            out[f"mining {name}"] = mining_f1(enc, splits["dev"], splits["test"])["f1"]
    return out


def sp_overlap(tokenizer: Any, english: Sequence[str], other: Sequence[str]) -> dict[str, float]:
    """The paper's SP overlap: the share of the sentencepieces of the English text that also occur
    in the other.

    The paper leaves open whether pieces are counted as types or as tokens, so both are returned:
    ``"types"`` (distinct English pieces found in the other side) and ``"tokens"`` (English piece
    occurrences whose piece occurs in the other side).
    Book: chapter 8 (Paraphrastic embeddings from bitext: language choice).
    """
    flat_en, _ = tokenizer.encode_ids_flat(list(english))
    flat_xx, _ = tokenizer.encode_ids_flat(list(other))
    if flat_en.size == 0:
        raise ValueError("sp_overlap needs English text with at least one piece.")
    seen = np.zeros(int(max(flat_en.max(), flat_xx.max(initial=0))) + 1, dtype=bool)
    seen[flat_xx] = True
    types = np.unique(flat_en)
    return {"types": float(seen[types].mean()), "tokens": float(seen[flat_en].mean())}


def language_choice(
    *,
    pairs: Sequence[str],
    vocabs: Sequence[int],
    n_train: int,
    gold: int,
    noise: int,
    shape: EncoderShape,
    schedule: BitextSchedule,
    sts: Any,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Table 5 / Figure 1 on our languages: one SP model per language pair and vocabulary size.

    For each pair of ``pairs`` and size of ``vocabs``: a joint sentencepiece model and an SP
    averaging encoder trained on ``n_train`` pairs (``schedule``), its English STS (Pearson x100 on
    ``sts``), its mining F1 on held-out lines of the same pair (``gold`` gold among ``noise`` per
    side) and the SP overlap of its training text (:func:`sp_overlap`). Pairs missing from the data
    cache are skipped with a note. Returns one row per (pair, size).
    Book: chapter 8 (Paraphrastic embeddings from bitext: language choice).
    """
    rows = []
    for name in pairs:
        try:
            data = load_pair(name, n_train, seed, n_held=4 * (gold + noise))
        except FileNotFoundError as err:
            print(f"NOTE: {name} is not in the data cache ({err}); skipped.")
            continue
        splits = mining_splits(data, gold=gold, noise=noise, seed=seed)
        for vocab in vocabs:
            enc = build_paraphrase_encoder(
                "sp", data.train_src + data.train_tgt, shape, vocab=vocab, seed=seed
            )
            assert enc.pipeline is not None
            overlap = sp_overlap(enc.pipeline.tokenizer, data.train_src, data.train_tgt)
            t0 = time.perf_counter()
            train_bitext_encoder(enc, data, schedule, seed=seed)
            scores = evaluate(enc, {"en-en": sts}, {name: splits})
            rows.append(
                {
                    "pair": name,
                    "language": name.rsplit("-", 1)[-1],
                    "vocab": vocab,
                    "pieces": len(enc.pipeline.vocab) - 1,
                    "SP overlap (types)": 100 * overlap["types"],
                    "SP overlap (tokens)": 100 * overlap["tokens"],
                    "STS en-en": scores["sts en-en"],
                    "mining F1": scores[f"mining {name}"],
                    "seconds": time.perf_counter() - t0,
                }
            )
    return rows


def spearman_table(
    rows: Sequence[Mapping[str, Any]], x: str, ys: Sequence[str]
) -> dict[str, float | None]:
    """Spearman's rho x100 between column ``x`` and each column of ``ys`` over ``rows`` (None below
    4 rows).

    Book: chapter 8 (Paraphrastic embeddings from bitext: language choice).
    """
    from scipy.stats import spearmanr

    if len(rows) < 4:
        return {y: None for y in ys}
    xs = [r[x] for r in rows]
    return {y: float(100 * spearmanr(xs, [r[y] for r in rows]).statistic) for y in ys}


def retrieval_probe(encode: Any, src: Sequence[str], tgt: Sequence[str]) -> dict[str, float]:
    """Direction spread and retrieval on aligned ``src``/``tgt``: the mean cosine of unrelated pairs
    (near 1: every sentence points one way, the collapse that pins the margin loss at delta), of
    translations, and src->tgt retrieval P@1 (nearest target by cosine).
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    if len(src) != len(tgt) or len(src) < 2:
        raise ValueError(
            f"need two aligned lists of at least 2 sentences, got {len(src)} and {len(tgt)}."
        )
    s, t = np.asarray(encode(list(src)), np.float64), np.asarray(encode(list(tgt)), np.float64)
    s /= np.linalg.norm(s, axis=1, keepdims=True) + 1e-12
    t /= np.linalg.norm(t, axis=1, keepdims=True) + 1e-12
    sim = s @ t.T
    return {
        "cos unrelated": float(sim[~np.eye(len(s), dtype=bool)].mean()),
        "cos translation": float(np.diag(sim).mean()),
        "P@1": 100 * float((sim.argmax(1) == np.arange(len(s))).mean()),
    }


def blstm_init_probe(
    pipeline: TextPipeline,
    shape: EncoderShape,
    src: Sequence[str],
    tgt: Sequence[str],
    *,
    scales: Sequence[float] = (0.1, 1.0),
    seed: int = 0,
) -> dict[float, dict[str, float]]:
    """:func:`retrieval_probe` of untrained BLSTM-SP encoders (``pipeline``'s pieces) whose
    embeddings are N(0, scale^2), one per scale: how close to one direction every sentence starts.
    Book: chapter 8 (Paraphrastic embeddings from bitext: why BLSTM-SP needs the paper's init).
    """
    out = {}
    for scale in scales:
        torch.manual_seed(seed)
        enc = RecurrentEncoder(
            len(pipeline.vocab), shape.dim, shape.blstm_hidden, pooling="mean", pipeline=pipeline
        )
        with torch.no_grad():
            enc.embedding.weight.mul_(float(scale))  # build_embedding draws N(0, 1)
        enc.eval()
        with single_thread():
            out[float(scale)] = retrieval_probe(encode_fn(enc), src, tgt)
    return out


#: the paper's split of its languages by SP overlap (Table 5's clusters, 0.3 judged from its Figure
#: 1)
OVERLAP_SPLIT = 30.0


def overlap_clusters(
    rows: Sequence[Mapping[str, Any]], *, overlap: str, score: str, split: float = OVERLAP_SPLIT
) -> dict[str, dict[str, Any]]:
    """Table 5's rows on the language-choice rows: Spearman's rho x100 of ``overlap`` (percent)
    against ``score`` over all rows and within the two clusters split at ``split`` percent, keyed by
    the paper's row labels, each with the number of rows it has (rho is None below 4 rows).
    Book: chapter 8 (Paraphrastic embeddings from bitext: language choice).
    """
    groups = {
        "All Lang.": list(rows),
        "Lang. (SP Ovl. ≤ 0.3)": [r for r in rows if r[overlap] <= split],
        "Lang. (SP Ovl. > 0.3)": [r for r in rows if r[overlap] > split],
    }
    return {
        label: {"rho": spearman_table(group, overlap, [score])[score], "rows": len(group)}
        for label, group in groups.items()
    }
