"""BUCC-style bitext mining: margin-scored candidates, a threshold chosen on dev, F1 against gold
pairs.

Protocol (Artetxe & Schwenk 2019, as in the LASER mining code; the papers leave the details open, so
these are our choices): each side's best partner by margin among its ``k=4`` cosine neighbours, in
both directions; strategy ``max`` keeps the union of the two directions and makes it one-to-one
greedily by decreasing score; a pair is proposed when its score is at least the threshold, which is
the score that maximises F1 on the dev split (BUCC's "sample" data) and is applied unchanged to the
test split.
Book: chapter 9 (Multilingual embeddings from monolingual text).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from xsent_lib.base.neighbors import MARGIN_MODES, bidirectional_margin_knn

STRATEGIES = ("forward", "backward", "intersect", "max")


def _as_pairs(pairs: Any, name: str) -> np.ndarray:
    arr = np.asarray(pairs, dtype=np.int64).reshape(-1, 2) if len(pairs) \
        else np.zeros((0, 2), np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2 or (arr < 0).any():
        raise ValueError(f"{name} must be an (n, 2) array of non-negative (source, "
                         "target) indices.")
    return arr


def _pair_keys(pairs: np.ndarray, n_tgt: int) -> np.ndarray:
    return pairs[:, 0] * np.int64(n_tgt) + pairs[:, 1]


def greedy_one_to_one(pairs: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Mask of the pairs kept by greedy one-to-one matching in decreasing score (ties: first
    listed).

    Computed in rounds without a Python loop over pairs: a pair is taken when it is the best
    remaining pair of both its source and its target; pairs touching a taken side are dropped;
    repeat. This gives exactly the sequential greedy result, since a pair that beats all its
    neighbours is chosen by it too.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    pairs = _as_pairs(pairs, "pairs")
    scores = np.asarray(scores, np.float64)
    if scores.shape != (pairs.shape[0],):
        raise ValueError(f"scores must have one value per pair ({pairs.shape[0]}), got shape "
                         f"{scores.shape}.")
    rank = np.empty(len(scores), np.int64)
    rank[np.lexsort((np.arange(len(scores)), -scores))] = np.arange(len(scores))
    alive = np.ones(len(scores), bool)
    kept = np.zeros(len(scores), bool)
    while alive.any():
        idx = np.flatnonzero(alive)
        best_src = np.full(pairs[:, 0].max() + 1, np.iinfo(np.int64).max)
        best_tgt = np.full(pairs[:, 1].max() + 1, np.iinfo(np.int64).max)
        np.minimum.at(best_src, pairs[idx, 0], rank[idx])
        np.minimum.at(best_tgt, pairs[idx, 1], rank[idx])
        take = idx[(best_src[pairs[idx, 0]] == rank[idx]) & (best_tgt[pairs[idx, 1]] == rank[idx])]
        kept[take] = True
        used_src = np.zeros(best_src.size, bool)
        used_tgt = np.zeros(best_tgt.size, bool)
        used_src[pairs[take, 0]] = True
        used_tgt[pairs[take, 1]] = True
        alive &= ~(used_src[pairs[:, 0]] | used_tgt[pairs[:, 1]])
    return kept


def mine_bitext(
    x: np.ndarray, y: np.ndarray, k: int = 4, mode: str = "ratio", strategy: str = "max",
    **search: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Candidate pairs ``(n, 2)`` of (x index, y index) and their margin scores, best first.

    ``strategy``: ``forward`` (each x's best y), ``backward`` (each y's best x), ``intersect``
    (pairs found in both directions), ``max`` (union of both, greedily one-to-one by score).
    ``search`` goes to :func:`~xsent_lib.base.neighbors.knn` (``use_faiss``, ``block``,
    ``precision``, ``device``; default: the chapter's).
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}.")
    if mode not in MARGIN_MODES:
        raise ValueError(f"mode must be one of {MARGIN_MODES}, got {mode!r}.")
    s_xy, i_xy, s_yx, i_yx = bidirectional_margin_knn(x, y, k, mode, **search)
    n_x, n_y = len(i_xy), len(i_yx)
    fwd = np.stack([np.arange(n_x), i_xy], 1)
    bwd = np.stack([i_yx, np.arange(n_y)], 1)
    if strategy == "forward":
        pairs, scores = fwd, s_xy
    elif strategy == "backward":
        pairs, scores = bwd, s_yx
    elif strategy == "intersect":
        both = np.isin(_pair_keys(fwd, n_y), _pair_keys(bwd, n_y))
        pairs, scores = fwd[both], s_xy[both]
    else:
        pairs, scores = np.vstack([fwd, bwd]), np.concatenate([s_xy, s_yx])
        keep = greedy_one_to_one(pairs, scores)
        pairs, scores = pairs[keep], scores[keep]
    order = np.argsort(-scores, kind="stable")
    return pairs[order], scores[order].astype(np.float64)


def f1_at_threshold(pairs: np.ndarray, scores: np.ndarray, gold: np.ndarray,
                    threshold: float) -> dict:
    """Precision, recall and F1 (percent) of the candidate pairs scoring at least ``threshold``.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    pairs, gold = _as_pairs(pairs, "pairs"), _as_pairs(gold, "gold")
    if gold.shape[0] == 0:
        raise ValueError("gold has no pairs: F1 is undefined.")
    n_tgt = int(max(pairs[:, 1].max(initial=0), gold[:, 1].max())) + 1
    chosen = pairs[np.asarray(scores) >= threshold]
    tp = int(np.isin(_pair_keys(chosen, n_tgt), _pair_keys(np.unique(gold, axis=0), n_tgt)).sum())
    p = tp / len(chosen) if len(chosen) else 0.0
    r = tp / len(np.unique(gold, axis=0))
    f1 = 0.0 if tp == 0 else 2 * p * r / (p + r)
    return {"precision": 100 * p, "recall": 100 * r, "f1": 100 * f1, "n_proposed": int(len(chosen)),
            "n_gold": int(len(np.unique(gold, axis=0))), "threshold": float(threshold)}


def select_threshold(pairs: np.ndarray, scores: np.ndarray,
                     gold: np.ndarray) -> tuple[float, float]:
    """The threshold maximising F1 over all cut points of the sorted scores: ``(threshold, best F1
    %)``.

    Precision and recall at every cut come from one cumulative sum; the threshold is the score of
    the last pair kept (pairs with that exact score are kept too). NaN scores raise a ValueError
    naming the first.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    pairs, gold = _as_pairs(pairs, "pairs"), np.unique(_as_pairs(gold, "gold"), axis=0)
    scores = np.asarray(scores, np.float64)
    if len(pairs) == 0 or len(gold) == 0:
        raise ValueError("need at least one candidate pair and one gold pair to choose "
                         "a threshold.")
    if scores.shape != (len(pairs),):
        raise ValueError(f"scores must hold one score per candidate pair ({len(pairs)}), got shape "
                         f"{scores.shape}.")
    nan = np.flatnonzero(np.isnan(scores))
    if nan.size:
        raise ValueError(f"scores hold {nan.size} NaN values (the first at candidate "
                         f"{nan[0]}, pair {pairs[nan[0]].tolist()}); a NaN cannot be ordered, so "
                         "no threshold can be chosen. Check the embeddings and the margin scores.")
    order = np.argsort(-scores, kind="stable")
    s = scores[order]
    n_tgt = int(max(pairs[:, 1].max(), gold[:, 1].max())) + 1
    hit = np.isin(_pair_keys(pairs[order], n_tgt), _pair_keys(gold, n_tgt))
    tp = np.cumsum(hit)
    # a cut can only fall after the last pair of a run of equal scores
    last = np.r_[s[1:] != s[:-1], True]
    n = np.arange(1, len(s) + 1)
    f1 = np.where(tp > 0, 2 * tp / (n + len(gold)), 0.0)
    f1 = np.where(last, f1, -1.0)
    best = int(np.argmax(f1))
    return float(s[best]), 100 * float(f1[best])


def bucc_evaluate(
    dev: tuple[np.ndarray, np.ndarray, np.ndarray],
    test: tuple[np.ndarray, np.ndarray, np.ndarray],
    k: int = 4, mode: str = "ratio", strategy: str = "max", **search: Any,
) -> dict:
    """Mine dev and test ``(x_emb, y_emb, gold_pairs)``, choose the threshold on dev, report test
    P/R/F1.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    dp, ds = mine_bitext(dev[0], dev[1], k, mode, strategy, **search)
    threshold, dev_f1 = select_threshold(dp, ds, dev[2])
    tp, ts = mine_bitext(test[0], test[1], k, mode, strategy, **search)
    res = f1_at_threshold(tp, ts, test[2], threshold)
    return {**res, "dev_f1": dev_f1, "mode": mode, "strategy": strategy, "k": k}


class BUCCTask:
    """Bitext mining task: two monolingual corpora per split with gold pairs hidden among unaligned
    sentences.

    ``splits`` maps ``"dev"`` and ``"test"`` to ``(source_sentences, target_sentences,
    gold_pairs)``.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """

    def __init__(self, splits: dict, name: str = "BUCC", k: int = 4, mode: str = "ratio",
                 strategy: str = "max") -> None:
        if not isinstance(splits, dict) or not {"dev", "test"} <= set(splits):
            raise ValueError("BUCCTask needs splits {'dev': (src, tgt, gold), 'test': (src, "
                             "tgt, gold)}.")
        if mode not in MARGIN_MODES or strategy not in STRATEGIES:
            raise ValueError(f"mode must be in {MARGIN_MODES} and strategy in {STRATEGIES}.")
        self.splits, self.name, self.k, self.mode, self.strategy = splits, name, k, mode, strategy

    def sentences(self) -> list[str]:
        """Both corpora of both splits.

        Book: chapter 9 (Multilingual embeddings from monolingual text).
        """
        return [s for src, tgt, _ in self.splits.values() for s in (*src, *tgt)]

    def run(self, ev) -> dict:
        """Encode the corpora and run :func:`bucc_evaluate`.

        Book: chapter 9 (Multilingual embeddings from monolingual text).
        """
        enc = {k: (ev.encode(list(s)), ev.encode(list(t)), np.asarray(g)) for k,
               (s, t, g) in self.splits.items()}
        return bucc_evaluate(enc["dev"], enc["test"], self.k, self.mode, self.strategy)
