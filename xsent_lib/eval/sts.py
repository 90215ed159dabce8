"""Unsupervised STS: cosine of the two embeddings against the gold score, per subset and aggregated.

Papers report different averages under the same name, so every aggregate is named in code:

* ``mean``  - plain average of the per-subset correlations;
* ``wmean`` - average weighted by subset size (SentEval's ``all`` -> ``wmean``);
* ``all``   - one correlation over the concatenation of every subset (SimCSE's "all" setting).

Per-subset numbers (correlations and sizes) are kept so that ``mean`` and ``wmean`` can be recomputed
with :func:`sts_aggregates`. The same task evaluates cross-lingual STS: the two sides of a pair are
simply in two languages (STS 2017 ar-en, es-en, tr-en).
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from scipy.stats import pearsonr, spearmanr

STS_AGGREGATES = ("mean", "wmean", "all")


def cosine_rows(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Row-wise cosine similarity of two (n, d) arrays (zero vectors give 0).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    u, v = np.asarray(u, np.float64), np.asarray(v, np.float64)
    if u.shape != v.shape or u.ndim != 2:
        raise ValueError(f"u and v must be (n, d) arrays of the same shape, got {u.shape} and {v.shape}.")
    norms = np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1)
    return np.einsum("ij,ij->i", u, v) / np.where(norms == 0, 1.0, norms)


def correlations(pred: np.ndarray, gold: np.ndarray) -> dict:
    """Pearson and Spearman correlation of predictions and gold scores, with the sample size.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    pred, gold = np.asarray(pred, np.float64), np.asarray(gold, np.float64)
    if pred.shape != gold.shape or pred.ndim != 1 or pred.size < 2:
        raise ValueError(f"need two 1-D arrays of the same length >= 2, got {pred.shape} and {gold.shape}.")
    return {"pearson": float(pearsonr(pred, gold)[0]), "spearman": float(spearmanr(pred, gold)[0]),
            "n": int(pred.size)}


def sts_aggregates(subsets: dict[str, dict]) -> dict:
    """``mean`` and ``wmean`` of Pearson and Spearman from per-subset results ``{name: {pearson, spearman, n}}``.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if not subsets:
        raise ValueError("no subsets to aggregate.")
    n = np.array([s["n"] for s in subsets.values()], dtype=np.float64)
    out = {}
    for stat in ("pearson", "spearman"):
        vals = np.array([s[stat] for s in subsets.values()])
        out.setdefault("mean", {})[stat] = float(vals.mean())
        out.setdefault("wmean", {})[stat] = float((vals * n).sum() / n.sum())
    return out


class STSTask:
    """STS12-16 / STS 2017 style: each split of a ``PairTask`` with float labels is one subset (all test data).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    def __init__(self, data: Any, name: str | None = None) -> None:
        if not hasattr(data, "splits") or not isinstance(data.splits, dict) or not data.splits:
            raise TypeError("STSTask needs a PairTask-like container with a non-empty dict .splits.")
        self.data = data
        self.name = name or getattr(data, "name", "STS")

    def sentences(self) -> list[str]:
        """Both sides of every subset.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        return [s for p in self.data.splits.values() for s in (*p.first, *p.second)]

    def run(self, ev) -> dict:
        """Cosine vs gold for each subset, the named aggregates, and the pooled ``all`` correlation.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        subsets, preds, golds = {}, [], []
        for key, pairs in self.data.splits.items():
            sim = cosine_rows(ev.encode(list(pairs.first)), ev.encode(list(pairs.second)))
            gold = np.asarray(pairs.labels, dtype=np.float64)
            subsets[key] = correlations(sim, gold)
            preds.append(sim)
            golds.append(gold)
        pooled = correlations(np.concatenate(preds), np.concatenate(golds))
        return {"subsets": subsets, **sts_aggregates(subsets),
                "all": {"pearson": pooled["pearson"], "spearman": pooled["spearman"]},
                "metric": "cosine-unsupervised", "aggregates": list(STS_AGGREGATES)}
