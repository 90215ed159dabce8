"""Unsupervised STS: cosine of the two embeddings against the gold score, per subset and aggregated.

Papers report different averages under the same name, so every aggregate is named in code:

* ``mean``  - plain average of the per-subset correlations;
* ``wmean`` - average weighted by subset size (SentEval's ``all`` -> ``wmean``);
* ``all``   - one correlation over the concatenation of every subset (SimCSE's "all" setting).

Per-subset numbers (correlations and sizes) are kept so that ``mean`` and ``wmean`` can be
recomputed with :func:`sts_aggregates`. The same task evaluates cross-lingual STS: the two sides of
a pair are simply in two languages (STS 2017 ar-en, es-en, tr-en).
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from scipy.stats import pearsonr, spearmanr

STS_AGGREGATES = ("mean", "wmean", "all")
# Scores whose spread is at most this fraction of their magnitude count as constant: a collapsed
# encoder (every vector a multiple of one vector) gives cosines that differ only by rounding (about
# 1e-16, 1e-7 in float32).
CONSTANT_RTOL = 1e-6


def cosine_rows(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Row-wise cosine similarity of two (n, d) arrays (zero vectors give 0).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    u, v = np.asarray(u, np.float64), np.asarray(v, np.float64)
    if u.shape != v.shape or u.ndim != 2:
        raise ValueError(f"u and v must be (n, d) arrays of the same shape, got {u.shape} "
                         f"and {v.shape}.")
    norms = np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1)
    return np.einsum("ij,ij->i", u, v) / np.where(norms == 0, 1.0, norms)


def correlations(pred: np.ndarray, gold: np.ndarray, *, name: str = "",
                 what: str = "STS subset") -> dict:
    """Pearson and Spearman correlation of predictions and gold scores, with the sample size.

    A correlation is undefined when either side is constant or holds NaN; instead of returning
    ``nan`` as a score this raises a ValueError naming the subset (``name``; ``what`` says what it
    is) and the cause. Constant means a spread within rounding: at most :data:`CONSTANT_RTOL` of the
    largest magnitude, so a collapsed encoder (cosines 1 up to rounding) is refused like an exactly
    constant one, not scored on noise.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    pred, gold = np.asarray(pred, np.float64), np.asarray(gold, np.float64)
    where = f"{what} {name!r}" if name else "correlation"
    if pred.shape != gold.shape or pred.ndim != 1 or pred.size < 2:
        raise ValueError(f"{where}: need two 1-D arrays of the same length >= 2, got {pred.shape} "
                         f"and {gold.shape}.")
    for side, values in (("predictions", pred), ("gold scores", gold)):
        bad = int((~np.isfinite(values)).sum())
        if bad:
            raise ValueError(f"{where}: {bad} of {values.size} {side} are NaN or infinite; the "
                             "correlation would be NaN. Check the data (gold) or the encoder "
                             "(predictions).")
        spread = float(np.ptp(values))
        if spread <= CONSTANT_RTOL * float(np.abs(values).max()):
            raise ValueError(f"{where}: the {side} are constant (all {values.size} equal "
                             f"{values[0]:.6g} up to a spread of {spread:.3g}, within rounding), "
                             "so the Pearson and Spearman correlations are undefined "
                             "(zero variance). "
                             + ("An encoder that gives every pair the same score (e.g. all-zero, "
                                "identical or collinear embeddings) cannot be scored." if side
                                == "predictions" else "The subset cannot rank anything; drop it."))
    return {"pearson": float(pearsonr(pred, gold)[0]), "spearman": float(spearmanr(pred, gold)[0]),
            "n": int(pred.size)}


def sts_aggregates(subsets: dict[str, dict]) -> dict:
    """``mean`` and ``wmean`` of Pearson and Spearman from per-subset results ``{name: {pearson,
    spearman, n}}``.

    A NaN or infinite correlation, or a size below 1, is refused with a ValueError naming the
    subset: an average over an undefined number is not a result.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if not subsets:
        raise ValueError("no subsets to aggregate.")
    for key, s in subsets.items():
        if not s.get("n", 0) >= 1:
            raise ValueError(f"STS subset {key!r}: size n={s.get('n')!r} must be >= 1 to "
                             "be averaged.")
        for stat in ("pearson", "spearman"):
            if not np.isfinite(s[stat]):
                raise ValueError(f"STS subset {key!r}: {stat} is {s[stat]!r}; refusing to average "
                                 "an undefined correlation (recompute the subset, or leave it out "
                                 "on purpose).")
    n = np.array([s["n"] for s in subsets.values()], dtype=np.float64)
    out: dict = {}
    for stat in ("pearson", "spearman"):
        vals = np.array([s[stat] for s in subsets.values()], dtype=np.float64)
        out.setdefault("mean", {})[stat] = float(vals.mean())
        out.setdefault("wmean", {})[stat] = float((vals * n).sum() / n.sum())
    return out


class STSTask:
    """STS12-16 / STS 2017 style: each split of a ``PairTask`` with float labels is one subset (all
    test data).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    def __init__(self, data: Any, name: str | None = None) -> None:
        if not hasattr(data, "splits") or not isinstance(data.splits, dict) or not data.splits:
            raise TypeError("STSTask needs a PairTask-like container with a non-empty "
                            "dict .splits.")
        self.data = data
        self.name = name or getattr(data, "name", "STS")

    def sentences(self) -> list[str]:
        """Both sides of every subset.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        return [s for p in self.data.splits.values() for s in (*p.first, *p.second)]

    def run(self, ev: Any) -> dict:
        """Cosine (or ``ev.similarity``) vs gold for each subset, the named aggregates, the pooled
        ``all`` correlation.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        subsets, preds, golds, pvalues = {}, [], [], {}
        similarity = getattr(ev, "similarity", cosine_rows)
        for key, pairs in self.data.splits.items():
            sim = similarity(ev.encode(list(pairs.first)), ev.encode(list(pairs.second)))
            gold = np.asarray(pairs.labels, dtype=np.float64)
            subsets[key] = correlations(sim, gold, name=key)
            pvalues[key] = {"pearson": float(pearsonr(sim, gold)[1]),
                            "spearman": float(spearmanr(sim, gold)[1])}
            preds.append(sim)
            golds.append(gold)
        pooled = correlations(np.concatenate(preds), np.concatenate(golds), name="all (pooled)")
        return {"subsets": subsets, **sts_aggregates(subsets),
                "all": {"pearson": pooled["pearson"], "spearman": pooled["spearman"]},
                "metric": "cosine-unsupervised", "aggregates": list(STS_AGGREGATES),
                "pvalues": pvalues}
