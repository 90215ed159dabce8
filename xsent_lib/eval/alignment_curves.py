"""Scores of a cross-lingual sentence space in every language direction: translation retrieval P@1 and
cross-lingual classification transfer, the two measures of Aldarmaki & Diab's alignment curves.

Book: chapter 7 (Joint vs transfer vs mapping).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from xsent_lib.base.neighbors import knn
from xsent_lib.eval.crosslingual import sentence_retrieval


def direction(a: str, b: str) -> str:
    """The label of direction ``a`` -> ``b``, e.g. ``"en→xa"``. Book: chapter 7 (Joint vs transfer vs mapping)."""
    return f"{a}→{b}"


def retrieval_directions(vectors: Mapping[str, np.ndarray]) -> dict[str, float]:
    """P@1 (percent) of translation retrieval by cosine nearest neighbour for every ordered pair of languages.

    ``vectors[lang]`` holds the vectors of one multi-parallel test set (row ``i`` of every language renders
    the same sentence). Book: chapter 7 (Joint vs transfer vs mapping).
    """
    langs = list(vectors)
    if len(langs) < 2:
        raise ValueError(f"need vectors for at least two languages, got {langs}.")
    sizes = {lang: np.asarray(v).shape for lang, v in vectors.items()}
    if len({s[0] for s in sizes.values()}) != 1 or any(len(s) != 2 for s in sizes.values()):
        raise ValueError(f"every language needs one row per test sentence (same count), got shapes {sizes}.")
    out = {}
    for i, a in enumerate(langs):
        for b in langs[i + 1:]:
            res = sentence_retrieval(vectors[a], vectors[b], methods=("nn",), ks=(1,))
            out[direction(a, b)] = float(res["src_to_tgt"]["nn"]["p@1"])
            out[direction(b, a)] = float(res["tgt_to_src"]["nn"]["p@1"])
    return out


def classification_directions(train: Mapping[str, tuple[np.ndarray, np.ndarray]],
                              test: Mapping[str, tuple[np.ndarray, np.ndarray]], *, c: float = 1.0,
                              seed: int = 0) -> dict[str, float]:
    """Cross-lingual classification transfer: a logistic regression trained on ``train[a] = (features, labels)``
    is tested on ``test[b]`` for every pair of different languages; accuracy in percent per ``"a→b"``.

    The paper's CLDC protocol (train on one language, test on the others) with a linear classifier instead
    of its (unspecified) MLP, on standardised features (mean and scale of the training language). Book: chapter 7 (Joint vs transfer vs mapping).
    """
    if not train or not test:
        raise ValueError("train and test must each map at least one language to (features, labels).")
    out = {}
    for a, (xa, ya) in train.items():
        xa, ya = np.asarray(xa), np.asarray(ya)
        if xa.ndim != 2 or len(xa) != len(ya) or len(np.unique(ya)) < 2:
            raise ValueError(f"train[{a!r}] needs a 2-D feature matrix and one label per row, with two classes at least.")
        clf = make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=1000, random_state=seed)).fit(xa, ya)
        for b, (xb, yb) in test.items():
            if b != a:
                out[direction(a, b)] = 100.0 * float((clf.predict(np.asarray(xb)) == np.asarray(yb)).mean())
    return out


def mean_over(scores: Mapping[str, float], directions: list[str] | None = None) -> float:
    """Average of ``scores`` over ``directions`` (all by default). Book: chapter 7 (Joint vs transfer vs mapping)."""
    keys = list(scores) if directions is None else directions
    if not keys:
        raise ValueError("no direction to average over.")
    return float(np.mean([scores[k] for k in keys]))


def nearest_neighbours(queries: np.ndarray, pool: np.ndarray, k: int = 3,
                       exclude_same_row: bool = False) -> np.ndarray:
    """Row indices of the ``k`` nearest ``pool`` rows by cosine for each query (``exclude_same_row``: a query
    never returns its own row, for a query set that is the pool itself). Book: chapter 7 (Joint vs transfer vs
    mapping: Tables 1-2).
    """
    queries, pool = np.asarray(queries, np.float32), np.asarray(pool, np.float32)
    extra = 1 if exclude_same_row else 0
    _, idx = knn(queries, pool, min(k + extra, len(pool)), use_faiss=False)
    if not exclude_same_row:
        return idx[:, :k]
    return np.stack([[j for j in row if j != i][:k] for i, row in enumerate(idx)])
