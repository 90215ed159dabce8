"""Supervised transfer tasks on frozen embeddings: classification, pair classification, relatedness.

Tasks wrap the data containers of :mod:`xsent_lib.data.formats.containers` (anything with ``name``,
``splits`` and ``label_names``). The protocol follows the splits, as in SentEval: one split
``"all"`` means nested k-fold CV (MR, CR, SUBJ, MPQA); ``train`` + ``test`` means k-fold CV on train
then test (TREC, MRPC); ``train`` + ``dev`` + ``test`` means select on dev, report test (SST, SICK,
SNLI, STS-B). Accuracies are in percent, correlations in [-1, 1], as SentEval reports them.
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import torch

from xsent_lib.eval.classifier import Metric, masked_pearson
from xsent_lib.eval.protocols import cv_then_test, nested_cv, one_hot, split_select
from xsent_lib.eval.sts import correlations

PAIR_FEATURES = ("full", "senteval")


def pair_features(u: np.ndarray, v: np.ndarray, kind: str = "full") -> np.ndarray:
    """Features of a sentence pair: ``full`` = ``[u, v, |u-v|, u*v]`` (thesis, InferSent, XNLI);
    ``senteval`` = ``[|u-v|, u*v]`` (what SentEval's code uses for SICK and STS-B).

    Book: chapter 3 (InferSent).
    """
    if kind not in PAIR_FEATURES:
        raise ValueError(f"kind must be one of {PAIR_FEATURES}, got {kind!r}.")
    if u.shape != v.shape:
        raise ValueError(f"u and v must have the same shape, got {u.shape} and {v.shape}.")
    parts = [np.abs(u - v), u * v]
    out = np.hstack([u, v, *parts] if kind == "full" else parts)
    return out.astype(np.result_type(out.dtype, np.float32))  # float64 stays float64


def relatedness_targets(scores: np.ndarray, low: int, n_classes: int) -> np.ndarray:
    """Tai et al. (2015) target distribution over the integer scores ``low .. low+n_classes-1``.

    A score ``y`` puts mass ``y - floor(y)`` on ``floor(y) + 1`` and ``floor(y) - y + 1`` on
    ``floor(y)``, so the expected class equals ``y``. Scores must lie inside the range.
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


def senteval_relatedness_targets(scores: np.ndarray, n_classes: int = 5) -> np.ndarray:
    """SentEval's ``encode_labels`` (``senteval/sick.py``, SICK-R and STS-B): 5-class targets.

    The classes stand for the scores ``1 .. n_classes``; a score ``y`` puts ``y - floor(y)`` on the
    class of ``floor(y) + 1`` and ``floor(y) - y + 1`` on that of ``floor(y)``, if the class exists.
    Inside ``[1, n_classes]`` this is :func:`relatedness_targets` with ``low=1``. Below 1 (STS-B's
    0-1 scores) the class of 0 does not exist: the row gets ``y`` on class 1 and nothing else, so it
    sums to ``y``, not 1 (a score of 0 gives an all-zero row). Scores must lie in [0, n_classes].
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    y = np.asarray(scores, dtype=np.float64)
    if y.ndim != 1 or (y < 0).any() or (y > n_classes).any():
        raise ValueError(f"scores must be a 1-D array inside [0, {n_classes}].")
    floor = np.floor(y).astype(np.int64)
    out = np.zeros((y.size, n_classes), np.float32)
    rows = np.arange(y.size)
    # class index floor stands for the score floor + 1, index floor - 1 for the score floor
    up, down = floor < n_classes, floor >= 1
    out[rows[up], floor[up]] = (y - floor)[up]
    out[rows[down], floor[down] - 1] = (floor - y + 1)[down]
    return out


def scores_pearson_metric(gold: np.ndarray, values: np.ndarray) -> Metric:
    """A selection metric: Pearson r between each model's expected score ``probs @ values`` and the
    ``gold`` scores of the masked rows (SentEval's early stopping on dev Pearson against the raw dev
    scores).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    g = torch.as_tensor(np.asarray(gold, np.float32))
    v = torch.as_tensor(np.asarray(values, np.float32))

    def metric(probs: torch.Tensor, targets: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return masked_pearson(probs @ v.to(probs.device), g.to(probs.device), mask)

    return metric


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
    raise ValueError(f"task {name!r} has splits {sorted(keys)}; expected 'all', or 'train' + "
                     "'test' (+ 'dev').")


def senteval_row_order(split: Any) -> np.ndarray:
    """The order SentEval's task code puts a split's rows in before its classifier sees them: sorted
    by token count (of both sentences, first then second, for pairs), then label, ties kept in file
    order.

    Its ``StratifiedKFold`` folds are drawn on that order and its fits sum the rows in it (which
    moves unconverged fits), so ours use it too.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    sides = [split.sentences] if hasattr(split, "sentences") else [split.first, split.second]
    lengths = [np.fromiter((len(s.split()) for s in side), np.int64, len(side)) for side in sides]
    return np.lexsort((np.asarray(split.labels), *reversed(lengths)))


def _classify(splits: dict, feats: dict, labels: dict, n_classes: int, cfg, protocol: str) -> dict:
    if cfg.solver == "sklearn":  # SentEval's row order: its folds, and its sums in its order
        key = "all" if protocol == "cv" else "train"
        order = senteval_row_order(splits[key])
        feats, labels = {**feats, key: feats[key][order]}, {**labels, key: labels[key][order]}
    if protocol == "cv":
        return nested_cv(feats["all"], labels["all"], n_classes, cfg)
    if protocol == "cv_test":
        return cv_then_test(feats["train"], labels["train"], feats["test"], labels["test"],
                            n_classes, cfg)
    res = split_select(feats["train"], one_hot(labels["train"], n_classes), feats["dev"],
                       one_hot(labels["dev"], n_classes), feats["test"], cfg)
    pred = res["test_probs"].argmax(-1)
    return {"devacc": 100 * res["dev"], "acc": 100 * float((pred == labels["test"]).mean()),
            "ndev": len(labels["dev"]), "ntest": len(labels["test"]), "protocol": "train/dev/test",
            "selected": res["selected"], "predictions": pred}


class TransferTask:
    """A sentence classification task (MR, CR, SUBJ, MPQA, TREC, SST): classifier on frozen
    embeddings.

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
    """Entailment (SICK-E, SNLI) and paraphrase detection (MRPC) on pair features of frozen
    embeddings.

    ``features`` defaults to SentEval's ``[|u-v|, u*v]`` (what its code uses for SICK-E and MRPC);
    ``"full"`` gives ``[u, v, |u-v|, u*v]`` (InferSent's NLI classifier, SentEval's SNLI task).
    Binary tasks also report F1 of class 1 (the paraphrase class of MRPC), as the thesis's tables
    do.
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
        feats = {k: pair_features(ev.encode(list(v.first)), ev.encode(list(v.second)),
                                  self.features)
                 for k, v in self.splits.items()}
        n_classes = _n_classes(self.data, list(labels.values()))
        res = _classify(self.splits, feats, labels, n_classes, ev.classifier_config(),
                        self.protocol)
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


ENCODINGS = ("senteval", "range")


class RelatednessTask:
    """SICK-R / STS-B: predict a distribution over integer scores, report Pearson/Spearman.

    Two target encodings (``encoding``):

    * ``"range"``: one class per integer of the score range ``score_range=(low, high)`` (or the
      training scores' floor of the minimum to ceiling of the maximum), Tai et al.'s distribution
      (:func:`relatedness_targets`): SICK 1..5 (5 classes), STS-B 0..5 (6 classes);
    * ``"senteval"``: SentEval's ``encode_labels`` (:func:`senteval_relatedness_targets`): always 5
      classes for the scores 1..5, predictions in [1, 5]; STS-B's scores below 1 get targets that
      sum to the score. For SICK (scores 1..5) both encodings are the same.

    ``None`` (the default) follows the evaluation: ``"senteval"`` under SentEval's params (``SE``),
    ``"range"`` under ours. The classifier (logistic regression on ``features``) is early-stopped
    and selected on dev Pearson against the dev scores; the prediction is the expected score.
    :func:`compare_relatedness_encodings` scores both. Splits of single labelled sentences
    (``.sentences``, e.g. a mean human rating) are scored the same way on the sentence vector
    (``features`` is ``"sentence"``).
    Book: chapter 3 (InferSent).
    """

    def __init__(self, data: Any, name: str | None = None, features: str = "senteval",
                 score_range: tuple[int, int] | None = None, encoding: str | None = None) -> None:
        if encoding is not None and encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {ENCODINGS} or None (follow the "
                             f"evaluation), got {encoding!r}.")
        self.data, self.features, self.encoding = data, features, encoding
        self.splits = _splits(data, "RelatednessTask")
        self.name = name or getattr(data, "name", "relatedness")
        if not {"train", "dev", "test"} <= set(self.splits):
            raise ValueError(f"relatedness task {self.name!r} needs train, dev and test splits, "
                             f"got {sorted(self.splits)}.")
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
        return pair_features(ev.encode(list(split.first)), ev.encode(list(split.second)),
                             self.features)

    def encoding_for(self, ev) -> str:
        """The encoding this task uses under evaluation ``ev`` (see the class docstring).

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        if self.encoding is not None:
            return self.encoding
        return "senteval" if getattr(ev, "senteval_style", False) else "range"

    def targets(self, split: str, encoding: str) -> tuple[np.ndarray, np.ndarray]:
        """Targets (n, C) of ``split`` under ``encoding``, and the score of each class (C,).

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        scores = np.asarray(self.splits[split].labels, float)
        if encoding == "senteval":
            return senteval_relatedness_targets(scores), np.arange(1.0, 6.0)
        high = self.low + self.n_classes - 1
        values = self.low + np.arange(self.n_classes, dtype=np.float64)
        return relatedness_targets(scores.clip(self.low, high), self.low, self.n_classes), values

    def score(self, features: dict[str, np.ndarray], encoding: str, config=None,
              seed: int = 1111) -> dict:
        """Fit the distribution head on train features under ``encoding``, select on dev Pearson,
        score test.

        ``features`` maps train/dev/test to feature rows (as ``run`` builds them); ``config`` is a
        :class:`~xsent_lib.eval.classifier_config.ClassifierConfig` (our batched heads), or None for
        SentEval's own regressor (:func:`senteval_relatedness_head`, seeded with ``seed``, on the
        training rows in SentEval's order). Constant test predictions (e.g. a constant encoder) are
        refused as in STS (:func:`~xsent_lib.eval.sts.correlations`).
        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        if encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {ENCODINGS}, got {encoding!r}.")
        t_train, values = self.targets("train", encoding)
        t_dev = self.targets("dev", encoding)[0]
        dev_scores = np.asarray(self.splits["dev"].labels, float)
        if config is None:
            order = senteval_row_order(self.splits["train"])
            dev, pred = senteval_relatedness_head(features["train"][order], t_train[order],
                                                  features["dev"], dev_scores, features["test"],
                                                  values, seed)
            selected: Any = {"nhid": 0, "dropout": 0.0, "l2": 0.0}
        else:
            gold_sel = np.concatenate([np.asarray(self.splits["train"].labels, float), dev_scores])
            res = split_select(features["train"], t_train, features["dev"], t_dev,
                               features["test"], config, scores_pearson_metric(gold_sel, values))
            dev, pred, selected = res["dev"], res["test_probs"] @ values, res["selected"]
        gold = np.asarray(self.splits["test"].labels, dtype=np.float64)
        corr = correlations(pred, gold, name=f"{self.name} test", what="relatedness task")
        return {"devpearson": dev, "pearson": corr["pearson"], "yhat": pred,
                "spearman": corr["spearman"], "mse": float(np.mean((pred - gold) ** 2)),
                "ndev": len(dev_scores), "ntest": int(gold.size), "selected": selected,
                "n_classes": int(values.size), "encoding": encoding, "features": self.features,
                "metric": "trained-regressor"}

    def run(self, ev) -> dict:
        """Encode every split, then :meth:`score` under :meth:`encoding_for` ``ev``.

        Book: chapter 3 (InferSent).
        """
        f = {k: self._features(ev, self.splits[k]) for k in ("train", "dev", "test")}
        return self.score(f, self.encoding_for(ev), *_head(ev))


def _head(ev) -> tuple:
    """``score``'s (config, seed) under ``ev``: SentEval's own regressor under SentEval's params."""
    if getattr(ev, "senteval_style", False):
        ev._note("SICK-R / STS-B: SentEval's relatedness regressor (senteval_relatedness_head: "
                 "softmax regression, squared error, Adam, batch 64, no L2, epochs of 50 passes, "
                 "stop at the 4th epoch without a better dev Pearson) whatever "
                 "params['classifier'] says.")
        return None, int(ev.params.seed)
    return ev.classifier_config(), int(ev.params.seed)


def senteval_relatedness_head(x_train: np.ndarray, t_train: np.ndarray, x_dev: np.ndarray,
                              dev_scores: np.ndarray, x_test: np.ndarray, values: np.ndarray,
                              seed: int = 1111) -> tuple[float, np.ndarray]:
    """SentEval's relatedness regressor (``senteval/tools/relatedness.py``), step for step.

    A linear layer and a softmax over the classes of ``values`` (initialised from ``seed`` as
    SentEval's ``torch.manual_seed`` does, without touching the global generator), trained with
    Adam (lr 1e-3, no weight decay) on the mean squared error to ``t_train`` in minibatches of 64
    (row orders from ``numpy.random.RandomState(seed)``, as SentEval's seeded global generator
    gives them), 50 passes per epoch; after each epoch the dev Pearson of the expected score
    against ``dev_scores`` keeps the best model, and the 4th epoch without a better one (in all,
    not in a row) ends training, as do 1000 passes. Returns (best dev Pearson, test predictions).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = torch.nn.Sequential(torch.nn.Linear(x_train.shape[1], len(values)),
                                    torch.nn.Softmax(dim=-1))
    adam = torch.optim.Adam(model.parameters(), weight_decay=0.0)
    rng = np.random.RandomState(seed)
    x, t = torch.from_numpy(x_train).float(), torch.from_numpy(np.asarray(t_train)).float()
    xd, xt = torch.from_numpy(x_dev).float(), torch.from_numpy(x_test).float()
    best, best_state, misses, passes = -1.0, None, 0, 0
    while misses < 4 and passes <= 1000:
        for _ in range(50):
            perm = rng.permutation(len(x))
            for i in range(0, len(x), 64):
                idx = torch.from_numpy(perm[i : i + 64])
                loss = torch.nn.functional.mse_loss(model(x[idx]), t[idx])
                adam.zero_grad()
                loss.backward()
                adam.step()
        passes += 50
        with torch.no_grad():
            r = float(np.nan_to_num(np.corrcoef(model(xd).numpy() @ values, dev_scores)[0, 1]))
        if r > best:
            best, best_state = r, {k: v.clone() for k, v in model.state_dict().items()}
        else:
            misses += 1
    model.load_state_dict(best_state)
    with torch.no_grad():
        return best, model(xt).double().numpy() @ values


def compare_relatedness_encodings(task: RelatednessTask, ev) -> dict:
    """Score a relatedness task under both target encodings on the same features and classifier.

    ``ev`` is an :class:`~xsent_lib.eval.engine.Evaluation` (its ``prepare`` is called, its
    classifier config used for both). Returns ``{"senteval": result, "range": result, "pearson_gap":
    range - senteval, "n_below_1": test scores below 1}``: on STS-B, SentEval's 5 classes cannot
    predict scores below 1 and train those rows towards targets that do not sum to 1, the 6 classes
    of the range can.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if not isinstance(task, RelatednessTask):
        raise TypeError(f"task must be a RelatednessTask, got {type(task).__name__}.")
    ev._task = task
    try:
        if ev.prepare is not None:
            ev.prepare(ev.params, ev._tokens(task.sentences()))
        f = {k: task._features(ev, task.splits[k]) for k in ("train", "dev", "test")}
        head = _head(ev)
        out = {enc: task.score(f, enc, *head) for enc in ENCODINGS}
    finally:
        ev._task = None
    gold = np.asarray(task.splits["test"].labels, float)
    return {**out, "pearson_gap": out["range"]["pearson"] - out["senteval"]["pearson"],
            "n_below_1": int((gold < 1).sum())}


def transfer_aggregates(results: dict[str, dict], key: str = "dev") -> dict:
    """The thesis's aggregates over transfer tasks: ``macro`` (plain mean) and ``micro`` (weighted
    by size).

    ``results`` maps task names to result dicts from :meth:`Evaluation.eval`; ``key="dev"``
    aggregates dev scores over dev sizes (the thesis's model-selection numbers), ``"test"`` test
    scores over test sizes. Classification tasks contribute their accuracy, relatedness tasks their
    Pearson x 100 (our choice: the thesis does not say how SICK-R / STS-B enter the average); tasks
    without these (STS, probing, retrieval) are skipped and listed under ``"skipped"``. A NaN or
    infinite score, or a size of 0, raises a ValueError naming the task.
    Book: chapter 3 (InferSent).
    """
    if key not in ("dev", "test"):
        raise ValueError(f"key must be 'dev' or 'test', got {key!r}.")
    acc_key, pearson_key, n_key = ("devacc", "devpearson", "ndev") if key == "dev" \
        else ("acc", "pearson", "ntest")
    scores, sizes, used, skipped = [], [], [], []
    for name, res in results.items():
        score_key = acc_key if acc_key in res else pearson_key
        if score_key not in res or n_key not in res:
            skipped.append(name)
            continue
        score, size = float(res[score_key]), float(res[n_key])
        if not np.isfinite(score) or not size > 0:
            raise ValueError(f"task {name!r}: {score_key}={res[score_key]!r}, "
                             f"{n_key}={res[n_key]!r}; refusing to average an undefined score or "
                             "an empty split (rerun the task, or leave it out).")
        scores.append(score if score_key == acc_key else 100 * score)
        sizes.append(size)
        used.append(name)
    if not scores:
        raise ValueError("no transfer task results with accuracy/Pearson and sizes to aggregate.")
    s, n = np.array(scores), np.array(sizes)
    return {"macro": float(s.mean()), "micro": float((s * n).sum() / n.sum()), "tasks": used,
            "skipped": skipped, "split": key}
