"""Procrustes refinement: induce a dictionary from mutual CSLS nearest neighbours, re-fit, repeat.

After the adversarial stage, the frequent words that are each other's CSLS nearest neighbour in both
directions make a synthetic dictionary of reliable anchors; orthogonal Procrustes on it gives a
better map, and the step can be iterated (the thesis reports under 1% gain past the first round).
Each iterate is scored with the unsupervised criterion and the best one is kept.

Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from xsent_lib.align.criterion import unsupervised_criterion
from xsent_lib.align.procrustes import apply_map, procrustes
from xsent_lib.base.neighbors import csls_knn
from xsent_lib.base.runtime import DeviceLike

DICTIONARY_RULES = ("muse", "cut")


def mutual_nn_dictionary(mapped_src: np.ndarray, tgt: np.ndarray, *, max_rank: int = 15_000,
                         k_neighbors: int = 10, rule: str = "muse",
                         use_faiss: bool = True, device: DeviceLike = None) -> np.ndarray:
    """Pairs ``(i, j)`` of frequent words where ``j`` is ``i``'s CSLS neighbour and ``i`` is
    ``j``'s.

    Rows must be sorted by frequency. ``rule="muse"`` follows MUSE's ``build_dictionary``
    (``S2T&T2S``): the ``max_rank`` most frequent words of each side are the queries, their CSLS
    neighbours are searched among *all* rows of the other side (CSLS terms over the full
    vocabularies), a pair is kept when the neighbour's row is at most ``max_rank`` (MUSE's ``<=``),
    and a pair must be found in both directions. ``rule="cut"`` (this library's rule before it
    matched MUSE) first cuts both vocabularies to their first ``max_rank`` rows and searches inside
    the cut, so a word whose true neighbour is rarer is paired with the best frequent one instead
    (and may then look mutual), with CSLS terms of the smaller vocabularies; the two rules coincide
    when neither vocabulary is longer than ``max_rank`` (chapter 5 measures both). ``max_rank =
    15,000`` follows MUSE's code. The searches run on ``device`` (``None``: the chapter's). Returns
    ``(n, 2)`` int64, sorted by ``i``.
    Book: chapter 5 (Word translation without parallel data).
    """
    mapped_src, tgt = np.asarray(mapped_src), np.asarray(tgt)
    if max_rank < 1:
        raise ValueError(f"max_rank must be >= 1, got {max_rank}.")
    if rule not in DICTIONARY_RULES:
        raise ValueError(f"rule must be one of {DICTIONARY_RULES}, got {rule!r}.")
    if rule == "cut":
        S, T = mapped_src[:max_rank], tgt[:max_rank]
        s2t = csls_knn(S, T, k_neighbors, 1, use_faiss=use_faiss, device=device)[1][:, 0]
        t2s = csls_knn(T, S, k_neighbors, 1, use_faiss=use_faiss, device=device)[1][:, 0]
        rows = np.arange(len(S))
        mutual = t2s[s2t] == rows
        return np.stack([rows[mutual], s2t[mutual]], axis=1).astype(np.int64)
    n_src, n_tgt = min(max_rank, len(mapped_src)), min(max_rank, len(tgt))
    kw = dict(use_faiss=use_faiss, device=device)
    s2t = csls_knn(mapped_src, tgt, k_neighbors, 1, queries=np.arange(n_src), **kw)[1][:, 0]
    t2s = csls_knn(tgt, mapped_src, k_neighbors, 1, queries=np.arange(n_tgt), **kw)[1][:, 0]
    rows = np.arange(n_src)
    # (i, s2t[i]) is in T2S's candidates when s2t[i] was a T2S query (row < n_tgt) that found i
    # (i < n_src <= max_rank, so the rank cut holds on both sides).
    queried = s2t < n_tgt
    mutual = np.zeros(n_src, dtype=bool)
    mutual[queried] = t2s[s2t[queried]] == rows[queried]
    return np.stack([rows[mutual], s2t[mutual]], axis=1).astype(np.int64)


@dataclass
class RefinementResult:
    """The best map found, and per iteration the dictionary size and the criterion.

    ``history[0]`` describes the starting map (``n_pairs`` 0); ``best_iteration`` indexes
    ``history``.
    Book: chapter 5 (Word translation without parallel data).
    """

    W: np.ndarray
    best_iteration: int
    history: list[dict] = field(default_factory=list)


def refine(src: np.ndarray, tgt: np.ndarray, W: np.ndarray, *, n_iter: int = 5,
           max_rank: int = 15_000, k_neighbors: int = 10, criterion_words: int = 10_000,
           rule: str = "muse", use_faiss: bool = True,
           device: DeviceLike = None) -> RefinementResult:
    """Iterate "mutual-CSLS dictionary -> Procrustes" ``n_iter`` times from the map ``W``.

    The map with the best criterion is kept. ``n_iter = 5`` follows MUSE's code. ``rule`` picks
    both the dictionary rule (:func:`mutual_nn_dictionary`: ``"muse"`` or ``"cut"``) and the
    criterion's (``"muse"`` or, with ``"cut"``, the old average over all translations ``"all"``).
    Procrustes is fitted on the embeddings as given: normalise or centre them beforehand
    if the pipeline does. A round whose dictionary has fewer than 2 pairs stops the
    iteration (nothing can be fitted). Every search runs on ``device`` (``None``: the chapter's).
    Book: chapter 5 (Word translation without parallel data).
    """
    src, tgt, W = np.asarray(src), np.asarray(tgt), np.asarray(W)
    if W.shape != (tgt.shape[1], src.shape[1]):
        want = (tgt.shape[1], src.shape[1])
        raise ValueError(f"W must have shape (tgt dim, src dim) = {want}, got {W.shape}.")
    if n_iter < 1:
        raise ValueError(f"n_iter must be >= 1, got {n_iter}.")
    if rule not in DICTIONARY_RULES:
        raise ValueError(f"rule must be one of {DICTIONARY_RULES}, got {rule!r}.")

    def score(map_: np.ndarray) -> float:
        return unsupervised_criterion(apply_map(src, map_), tgt, n_words=criterion_words,
                                      k_neighbors=k_neighbors, use_faiss=use_faiss, device=device,
                                      rule="muse" if rule == "muse" else "all")

    best_W, best_score = W, score(W)
    history = [{"iteration": 0, "n_pairs": 0, "criterion": best_score}]
    best_iteration = 0
    for it in range(1, n_iter + 1):
        dico = mutual_nn_dictionary(apply_map(src, W), tgt, max_rank=max_rank,
                                    k_neighbors=k_neighbors, rule=rule, use_faiss=use_faiss,
                                    device=device)
        if len(dico) < 2:
            break
        W = procrustes(src[dico[:, 0]], tgt[dico[:, 1]])
        crit = score(W)
        history.append({"iteration": it, "n_pairs": int(len(dico)), "criterion": crit})
        if crit > best_score:
            best_W, best_score, best_iteration = W, crit, it
    return RefinementResult(best_W, best_iteration, history)
