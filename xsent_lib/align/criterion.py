"""MUSE's unsupervised validation criterion: how close the frequent words land to their CSLS
translations.

Translate the ``n_words`` most frequent source words with CSLS, keep the translations that are
themselves frequent target words (MUSE's rule: target row at most ``n_words``), then average the
cosine between each mapped word and its translation. Higher is better. Without any dictionary it
tracks word-translation accuracy well enough to stop training, select models and tune
hyper-parameters (Figure 4.2).

Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

import numpy as np

from xsent_lib.base.neighbors import csls_knn, l2_normalize
from xsent_lib.base.runtime import DeviceLike

CRITERION_RULES = ("muse", "all")
EMPTY_CRITERION = -1e9  # MUSE's value when no translation survives the rank cut


def csls_translations(mapped_src: np.ndarray, tgt: np.ndarray, *, n_words: int = 10_000,
                      k_neighbors: int = 10, use_faiss: bool = True,
                      device: DeviceLike = None) -> tuple[np.ndarray, np.ndarray]:
    """CSLS translation (target row) of each of the first ``n_words`` source rows: ``(source rows,
    target rows)``.

    Rows must be sorted by frequency, most frequent first (as in fastText files). The CSLS
    neighbourhoods use every source and target row. The search runs on ``device``
    (``None``: the chapter's).
    Book: chapter 5 (Word translation without parallel data).
    """
    if n_words < 1:
        raise ValueError(f"n_words must be >= 1, got {n_words}.")
    queries = np.arange(min(int(n_words), np.asarray(mapped_src).shape[0]))
    _, idx = csls_knn(mapped_src, tgt, k_neighbors, 1, queries=queries, use_faiss=use_faiss,
                      device=device)
    return queries, idx[:, 0]


def unsupervised_criterion(mapped_src: np.ndarray, tgt: np.ndarray, *,
                           n_words: int = 10_000, k_neighbors: int = 10,
                           rule: str = "muse", use_faiss: bool = True,
                           device: DeviceLike = None) -> float:
    """Mean cosine of frequent mapped source words and their CSLS translations.

    The ``n_words`` most frequent source words are translated with CSLS over the whole target
    vocabulary. ``rule="muse"`` (MUSE's ``dist_mean_cosine``, where ``dico_max_rank`` is both the
    number of queries and the rank cut) then keeps only translations whose target row is at most
    ``n_words`` (0-based, MUSE's ``<=``); ``rule="all"`` averages every translation (this
    library's rule before it matched MUSE). With no translation kept the value is
    :data:`EMPTY_CRITERION` (MUSE's ``-1e9``). ``n_words = 10,000`` and ``k_neighbors = 10`` are
    the thesis values. The CSLS search runs on ``device`` (``None``: the chapter's).
    Book: chapter 5 (Word translation without parallel data).
    """
    if rule not in CRITERION_RULES:
        raise ValueError(f"rule must be one of {CRITERION_RULES}, got {rule!r}.")
    rows, translations = csls_translations(mapped_src, tgt, n_words=n_words,
                                           k_neighbors=k_neighbors, use_faiss=use_faiss,
                                           device=device)
    if rule == "muse":
        keep = translations <= n_words
        rows, translations = rows[keep], translations[keep]
        if rows.size == 0:
            return EMPTY_CRITERION
    a = l2_normalize(np.asarray(mapped_src)[rows])
    b = l2_normalize(np.asarray(tgt)[translations])
    return float(np.mean(np.sum(a.astype(np.float64) * b, axis=1)))
