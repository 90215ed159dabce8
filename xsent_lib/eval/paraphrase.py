"""Evaluations of chapter 8: STS from cosine similarity, and bitext mining with gold pairs hidden
among noise.

BUCC 2018 hides a few percent of aligned sentences in two large monolingual corpora. Without the
BUCC files we plant the same problem in held-out bitext (:func:`planted_mining_corpus`): ``n_gold``
pairs keep both sides, ``n_noise`` other pairs lend only their source and ``n_noise`` more only
their target, so the noise sentences have no translation on the other side; both sides are shuffled.
Mining, the threshold chosen on a dev corpus and F1 on a test corpus are
:func:`~xsent_lib.eval.bitext.bucc_evaluate`'s (margin scores).
Book: chapter 8 (Paraphrastic embeddings from bitext).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from xsent_lib.eval.bitext import bucc_evaluate
from xsent_lib.eval.sts import correlations, cosine_rows

Encode = Callable[[list[str]], np.ndarray]


def unique_pairs(src: Sequence[str], tgt: Sequence[str]) -> np.ndarray:
    """Indices of the pairs whose source and target both occur exactly once in ``src`` and ``tgt``.

    A repeated sentence (a heading, a boilerplate line) would make a gold pair ambiguous, so mining
    corpora are drawn from these pairs only.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    if len(src) != len(tgt):
        raise ValueError(f"src and tgt must be aligned, got {len(src)} and {len(tgt)} sentences.")
    _, s_inv, s_cnt = np.unique(np.asarray(src, dtype=object).astype(str), return_inverse=True,
                                return_counts=True)
    _, t_inv, t_cnt = np.unique(np.asarray(tgt, dtype=object).astype(str), return_inverse=True,
                                return_counts=True)
    return np.flatnonzero((s_cnt[s_inv] == 1) & (t_cnt[t_inv] == 1))


def planted_mining_corpus(src: Sequence[str], tgt: Sequence[str], n_gold: int, n_noise: int,
                          rng: np.random.Generator) -> tuple[list[str], list[str], np.ndarray]:
    """Two corpora with ``n_gold`` translation pairs hidden among ``n_noise`` unaligned sentences
    per side.

    Returns ``(source corpus, target corpus, gold)`` with ``gold`` an ``(n_gold, 2)`` array of
    (source index, target index). Pairs are drawn from :func:`unique_pairs` of the aligned
    ``src``/``tgt``.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    if n_gold < 1 or n_noise < 0:
        raise ValueError(f"need n_gold >= 1 and n_noise >= 0, got {n_gold} and {n_noise}.")
    pool = unique_pairs(src, tgt)
    need = n_gold + 2 * n_noise
    if len(pool) < need:
        raise ValueError(f"need {need} distinct pairs for {n_gold} gold and 2 x {n_noise} "
                         f"noise sentences, the bitext has {len(pool)}.")
    chosen = rng.choice(pool, size=need, replace=False)
    gold, src_only, tgt_only = (chosen[:n_gold], chosen[n_gold: n_gold + n_noise],
                                chosen[n_gold + n_noise:])
    src_rows = np.concatenate([gold, src_only])
    tgt_rows = np.concatenate([gold, tgt_only])
    s_perm, t_perm = rng.permutation(len(src_rows)), rng.permutation(len(tgt_rows))
    s_pos, t_pos = np.empty_like(s_perm), np.empty_like(t_perm)
    s_pos[s_perm], t_pos[t_perm] = np.arange(len(s_perm)), np.arange(len(t_perm))
    pairs = np.stack([s_pos[:n_gold], t_pos[:n_gold]], axis=1)
    return [src[i] for i in src_rows[s_perm]], [tgt[i] for i in tgt_rows[t_perm]], pairs


def mining_f1(encode: Encode, dev: tuple[Sequence[str], Sequence[str], np.ndarray],
              test: tuple[Sequence[str], Sequence[str], np.ndarray],
              **options: Any) -> dict[str, Any]:
    """Encode planted dev and test corpora, pick the margin threshold on dev, report test P/R/F1
    (percent).

    ``options`` go to :func:`~xsent_lib.eval.bitext.bucc_evaluate` (``k``, ``mode``, ``strategy``).
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    def embed(split: tuple[Sequence[str], Sequence[str], np.ndarray]) -> tuple[
            np.ndarray, np.ndarray, np.ndarray]:
        return (np.asarray(encode(list(split[0])), np.float32),
                np.asarray(encode(list(split[1])), np.float32), np.asarray(split[2]))

    return bucc_evaluate(embed(dev), embed(test), **options)


def sts_pearson(encode: Encode, first: Sequence[str], second: Sequence[str],
                gold: Sequence[float]) -> dict[str, float]:
    """Pearson's r and Spearman's rho (x100) of the cosine of the two embeddings against the gold
    scores.

    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    if not (len(first) == len(second) == len(gold)):
        raise ValueError(f"first, second and gold must have one entry per pair, got {len(first)}, "
                         f"{len(second)}, {len(gold)}.")
    sim = cosine_rows(np.asarray(encode(list(first))), np.asarray(encode(list(second))))
    res = correlations(sim, np.asarray(gold, np.float64))
    return {"pearson": 100 * res["pearson"], "spearman": 100 * res["spearman"], "n": res["n"]}
