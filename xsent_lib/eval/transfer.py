"""Supervised transfer tasks on frozen embeddings: classification, pair classification, relatedness.

Tasks wrap the data containers of :mod:`xsent_lib.data.formats.containers` (anything with ``name``,
``splits`` and ``label_names``). The protocol follows the splits, as in SentEval: one split ``"all"``
means nested k-fold CV (MR, CR, SUBJ, MPQA); ``train`` + ``test`` means k-fold CV on train then test
(TREC, MRPC); ``train`` + ``dev`` + ``test`` means select on dev, report test (SST, SICK, SNLI, STS-B).
Accuracies are in percent, correlations in [-1, 1], as SentEval reports them.
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from xsent_lib.eval.classifier import pearson_metric
from xsent_lib.eval.protocols import cv_then_test, nested_cv, one_hot, split_select
from xsent_lib.eval.sts import correlations

PAIR_FEATURES = ("full", "senteval")


def pair_features(u: np.ndarray, v: np.ndarray, kind: str = "full") -> np.ndarray:
    """Features of a sentence pair: ``full`` = ``[u, v, |u-v|, u*v]`` (thesis, InferSent, XNLI); ``senteval`` =
    ``[|u-v|, u*v]`` (what SentEval's code uses for SICK and STS-B).

    Book: chapter 3 (InferSent).
    """
    if kind not in PAIR_FEATURES:
        raise ValueError(f"kind must be one of {PAIR_FEATURES}, got {kind!r}.")
    if u.shape != v.shape:
        raise ValueError(f"u and v must have the same shape, got {u.shape} and {v.shape}.")
    parts = [np.abs(u - v), u * v]
    return np.hstack([u, v, *parts] if kind == "full" else parts).astype(np.float32)


def relatedness_targets(scores: np.ndarray, low: int, n_classes: int) -> np.ndarray:
    """Tai et al. (2015) target distribution over the integer scores ``low .. low+n_classes-1``.

    A score ``y`` puts mass ``y - floor(y)`` on ``floor(y) + 1`` and ``floor(y) - y + 1`` on ``floor(y)``,
    so the expected class equals ``y``. Scores must lie inside the range.
    Book: chapter 3 (InferSent).
    """
    y = np.asarray(scores, dtype=np.float64) - low
    if y.ndim != 1 or (y < 0).any() or (y > n_classes - 1).any():
        raise ValueError(f"scores must be a 1-D array inside [{low}, {low + n_classes - 1}].")
    floor = np.minimum(np.floor(y).astype(np.int64), n_classes - 2)
    out = np.zeros((y.size, n_classes), np.float32)
    rows = np.arange(y.size)
    out[rows, floor + 1] = y - floor
    out[rows, floor] = floor - y + 1
    return out


def _splits(data: Any, kind: str) -> dict:
    if not hasattr(data, "splits") or not isinstance(data.splits, dict) or not data.splits:
        raise TypeError(f"{kind} needs a data container with a non-empty dict .splits "
                        "(see xsent_lib.data.formats.containers).")
    return data.splits


def _n_classes(data: Any, labels: list[np.ndarray]) -> int:
    names = getattr(data, "label_names", ())
    return len(names) if names else int(max(int(np.max(y)) for y in labels)) + 1


def _check_protocol(splits: dict, name: str) -> str:
    keys = set(splits)
    if keys == {"all"}:
        return "cv"
    if {"train", "test"} <= keys:
        return "split" if "dev" in keys else "cv_test"
    raise ValueError(f"task {name!r} has splits {sorted(keys)}; expected 'all', or 'train' + 'test' (+ 'dev').")


def _classify(splits: dict, feats: dict, labels: dict, n_classes: int, cfg, protocol: str) -> dict:
    if protocol == "cv":
        return nested_cv(feats["all"], labels["all"], n_classes, cfg)
    if protocol == "cv_test":
        return cv_then_test(feats["train"], labels["train"], feats["test"], labels["test"], n_classes, cfg)
    res = split_select(feats["train"], one_hot(labels["train"], n_classes), feats["dev"],
                       one_hot(labels["dev"], n_classes), feats["test"], cfg)
    pred = res["test_probs"].argmax(-1)
    return {"devacc": 100 * res["dev"], "acc": 100 * float((pred == labels["test"]).mean()),
            "ndev": len(labels["dev"]), "ntest": len(labels["test"]), "protocol": "train/dev/test",
            "selected": res["selected"], "predictions": pred}


class TransferTask:
    """A sentence classification task (MR, CR, SUBJ, MPQA, TREC, SST): classifier on frozen embeddings.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    def __init__(self, data: Any, name: str | None = None) -> None:
        self.data = data
        self.splits = _splits(data, "TransferTask")
        self.name = name or getattr(data, "name", "transfer")
        self.protocol = _check_protocol(self.splits, self.name)

    def sentences(self) -> list[str]:
        """All sentences of all splits.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        return [s for split in self.splits.values() for s in split.sentences]

    def run(self, ev) -> dict:
        """Encode every split, then train/select/test by the task's protocol.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        labels = {k: np.asarray(v.labels) for k, v in self.splits.items()}
        feats = {k: ev.encode(list(v.sentences)) for k, v in self.splits.items()}
        res = _classify(self.splits, feats, labels, _n_classes(self.data, list(labels.values())),
                        ev.classifier_config(), self.protocol)
        res.pop("predictions", None)
        return res


class PairClassificationTask:
    """Entailment (SICK-E, SNLI) and paraphrase detection (MRPC) on pair features of frozen embeddings.

    ``features`` defaults to SentEval's ``[|u-v|, u*v]`` (what its code uses for SICK-E and MRPC);
    ``"full"`` gives ``[u, v, |u-v|, u*v]`` (InferSent's NLI classifier, SentEval's SNLI task).
    Binary tasks also report F1 of class 1 (the paraphrase class of MRPC), as the thesis's tables do.
    Book: chapter 3 (InferSent).
    """

    def __init__(self, data: Any, name: str | None = None, features: str = "senteval") -> None:
        if features not in PAIR_FEATURES:
            raise ValueError(f"features must be one of {PAIR_FEATURES}, got {features!r}.")
        self.data, self.features = data, features
        self.splits = _splits(data, "PairClassificationTask")
        self.name = name or getattr(data, "name", "pairs")
        self.protocol = _check_protocol(self.splits, self.name)

    def sentences(self) -> list[str]:
        """All first and second sentences of all splits.

        Book: chapter 3 (InferSent).
        """
        return [s for p in self.splits.values() for s in (*p.first, *p.second)]

    def run(self, ev) -> dict:
        """Encode both sides, build pair features, classify by the task's protocol.

        Book: chapter 3 (InferSent).
        """
        labels = {k: np.asarray(v.labels) for k, v in self.splits.items()}
        feats = {k: pair_features(ev.encode(list(v.first)), ev.encode(list(v.second)), self.features)
                 for k, v in self.splits.items()}
        n_classes = _n_classes(self.data, list(labels.values()))
        res = _classify(self.splits, feats, labels, n_classes, ev.classifier_config(), self.protocol)
        pred = res.pop("predictions", None)
        if n_classes == 2 and pred is not None:
            res["f1"] = 100 * binary_f1(pred, labels["test"])
        res["features"] = self.features
        return res


def binary_f1(pred: np.ndarray, gold: np.ndarray) -> float:
    """F1 of the positive class (label 1); 0 when there is no true positive.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    pred, gold = np.asarray(pred) == 1, np.asarray(gold) == 1
    tp = float((pred & gold).sum())
    return 0.0 if tp == 0 else 2 * tp / (pred.sum() + gold.sum())


class RelatednessTask:
    """SICK-R / STS-B: predict the distribution over integer scores (Tai et al.), report Pearson/Spearman.

    The score range is ``score_range=(low, high)`` (integers) or taken from the training scores
    (floor of the minimum, ceiling of the maximum): SICK gives 1..5 (5 classes), STS-B 0..5 (6 classes;
    SentEval squeezes STS-B into 5 classes, correlations do not depend on that choice). The classifier
    (logistic regression on ``features``) is selected on dev Pearson; the prediction is the expected score.
    Splits of single labelled sentences (``.sentences``, e.g. a mean human rating) are scored the same way
    on the sentence vector itself (``features`` is then ``"sentence"``).
    Book: chapter 3 (InferSent).
    """

    def __init__(self, data: Any, name: str | None = None, features: str = "senteval",
                 score_range: tuple[int, int] | None = None) -> None:
        self.data, self.features = data, features
        self.splits = _splits(data, "RelatednessTask")
        self.name = name or getattr(data, "name", "relatedness")
        if not {"train", "dev", "test"} <= set(self.splits):
            raise ValueError(f"relatedness task {self.name!r} needs train, dev and test splits, got {sorted(self.splits)}.")
        self.single = all(hasattr(self.splits[k], "sentences") for k in ("train", "dev", "test"))
        if self.single:
            self.features = "sentence"
        train = np.asarray(self.splits["train"].labels, dtype=np.float64)
        low, high = score_range or (int(np.floor(train.min())), int(np.ceil(train.max())))
        if high <= low:
            raise ValueError(f"score range must have high > low, got ({low}, {high}).")
        self.low, self.n_classes = int(low), int(high - low + 1)

    def sentences(self) -> list[str]:
        """All sentences of all splits (both sides of pairs).

        Book: chapter 3 (InferSent).
        """
        if self.single:
            return [s for p in self.splits.values() for s in p.sentences]
        return [s for p in self.splits.values() for s in (*p.first, *p.second)]

    def _features(self, ev, split: Any) -> np.ndarray:
        if self.single:
            return ev.encode(list(split.sentences))
        return pair_features(ev.encode(list(split.first)), ev.encode(list(split.second)), self.features)

    def run(self, ev) -> dict:
        """Fit the distribution head on train, select L2 on dev Pearson, score the test set.

        Constant test predictions (e.g. a constant encoder) are refused as in STS
        (:func:`~xsent_lib.eval.sts.correlations`): their correlation is undefined, not a score.
        Book: chapter 3 (InferSent).
        """
        f = {k: self._features(ev, self.splits[k]) for k in ("train", "dev", "test")}
        t = {k: relatedness_targets(np.asarray(self.splits[k].labels, float).clip(self.low, self.low + self.n_classes - 1),
                                    self.low, self.n_classes) for k in ("train", "dev")}
        res = split_select(f["train"], t["train"], f["dev"], t["dev"], f["test"], ev.classifier_config(), pearson_metric)
        pred = res["test_probs"] @ (self.low + np.arange(self.n_classes))
        gold = np.asarray(self.splits["test"].labels, dtype=np.float64)
        corr = correlations(pred, gold, name=f"{self.name} test", what="relatedness task")
        return {"devpearson": res["dev"], "pearson": corr["pearson"], "yhat": pred,
                "spearman": corr["spearman"], "mse": float(np.mean((pred - gold) ** 2)),
                "ndev": len(self.splits["dev"].labels), "ntest": int(gold.size), "selected": res["selected"],
                "n_classes": self.n_classes, "features": self.features, "metric": "trained-regressor"}


def transfer_aggregates(results: dict[str, dict], key: str = "dev") -> dict:
    """The thesis's aggregates over transfer tasks: ``macro`` (plain mean) and ``micro`` (weighted by size).

    ``results`` maps task names to result dicts from :meth:`Evaluation.eval`; ``key="dev"`` aggregates dev
    scores over dev sizes (the thesis's model-selection numbers), ``"test"`` test scores over test sizes.
    Classification tasks contribute their accuracy, relatedness tasks their Pearson x 100 (our choice:
    the thesis does not say how SICK-R / STS-B enter the average); tasks without these (STS, probing,
    retrieval) are skipped and listed under ``"skipped"``. A NaN or infinite score, or a size of 0, raises a
    ValueError naming the task.
    Book: chapter 3 (InferSent).
    """
    if key not in ("dev", "test"):
        raise ValueError(f"key must be 'dev' or 'test', got {key!r}.")
    acc_key, pearson_key, n_key = ("devacc", "devpearson", "ndev") if key == "dev" else ("acc", "pearson", "ntest")
    scores, sizes, used, skipped = [], [], [], []
    for name, res in results.items():
        score_key = acc_key if acc_key in res else pearson_key
        if score_key not in res or n_key not in res:
            skipped.append(name)
            continue
        score, size = float(res[score_key]), float(res[n_key])
        if not np.isfinite(score) or not size > 0:
            raise ValueError(f"task {name!r}: {score_key}={res[score_key]!r}, {n_key}={res[n_key]!r}; refusing to "
                             "average an undefined score or an empty split (rerun the task, or leave it out).")
        scores.append(score if score_key == acc_key else 100 * score)
        sizes.append(size)
        used.append(name)
    if not scores:
        raise ValueError("no transfer task results with accuracy/Pearson and sizes to aggregate.")
    s, n = np.array(scores), np.array(sizes)
    return {"macro": float(s.mean()), "micro": float((s * n).sum() / n.sum()), "tasks": used, "skipped": skipped,
            "split": key}
