"""Hubness of a retrieval method: which target each query retrieves first, and how unevenly.

Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xsent_lib.base.neighbors import csls_knn, inverted_softmax_knn, knn
from xsent_lib.base.runtime import DeviceLike

RETRIEVAL_METHODS = ("nn", "isf", "csls")


def top1_targets(mapped_src: np.ndarray, tgt: np.ndarray, method: str, *,
                 queries: np.ndarray | None = None,
                 k_csls: int = 10, beta: float = 30.0, device: DeviceLike = None) -> np.ndarray:
    """The target row each query retrieves first with ``nn``, ``isf`` or ``csls`` (all targets
    searched), on ``device`` (``None``: the chapter's).

    Book: chapter 5 (Word translation without parallel data).
    """
    n = np.asarray(mapped_src).shape[0]
    rows = np.arange(n) if queries is None else np.asarray(queries)
    if method == "nn":
        return knn(np.asarray(mapped_src)[rows], tgt, 1, device=device)[1][:, 0]
    if method == "csls":
        return csls_knn(mapped_src, tgt, k_csls, 1, queries=rows, device=device)[1][:, 0]
    if method == "isf":
        return inverted_softmax_knn(mapped_src, tgt, beta, 1, queries=rows, device=device)[1][:, 0]
    raise ValueError(f"method must be one of {RETRIEVAL_METHODS}, got {method!r}.")


def hub_counts(top1: np.ndarray, n_targets: int) -> np.ndarray:
    """How many queries retrieve each target first (the k-occurrence N_1 of Radovanovic et al.).

    A hub is a target that is many queries' nearest neighbour; with no hubness every count would be
    close to ``n_queries / n_targets``.
    Book: chapter 5 (Word translation without parallel data).
    """
    top1 = np.asarray(top1)
    if top1.ndim != 1 or not np.issubdtype(top1.dtype, np.integer):
        raise ValueError(f"top1 must be a 1-D integer array of target rows, got {top1.shape} "
                         f"{top1.dtype}.")
    if top1.size and (top1.min() < 0 or top1.max() >= n_targets):
        raise ValueError(f"top1 holds rows outside [0, {n_targets}).")
    return np.bincount(top1, minlength=n_targets)


def hubness_summary(counts: np.ndarray, words: Sequence[str], n_top: int = 5) -> dict:
    """A hubness profile: share of targets never retrieved, the largest counts, skewness, the top
    hubs.

    Book: chapter 5 (Word translation without parallel data).
    """
    counts = np.asarray(counts)
    if counts.ndim != 1 or len(counts) != len(words):
        raise ValueError(f"counts ({counts.shape}) must have one entry per word ({len(words)}).")
    c = counts.astype(np.float64)
    sd = c.std()
    order = np.argsort(-counts, kind="stable")[:n_top]
    return {"queries": int(counts.sum()), "targets": int(len(counts)),
            "never retrieved (%)": 100.0 * float((counts == 0).mean()),
            "retrieved by the top 1% of targets (%)": 100.0 * float(
                np.sort(counts)[::-1][: max(1, len(counts) // 100)].sum() / max(1, counts.sum())),
            "max count": int(counts.max()),
            "skewness": float(((c - c.mean()) ** 3).mean() / sd ** 3) if sd else 0.0,
            "top hubs": ", ".join(f"{words[i]} ({counts[i]})" for i in order)}
