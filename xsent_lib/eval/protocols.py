"""Model-selection protocols on frozen features: nested k-fold CV, k-fold CV then test,
train/dev/test.

Each protocol builds one training mask per (fold, grid point) and trains them all at once with
:class:`~xsent_lib.eval.classifier.BatchedClassifier`. Scores are returned in percent, as SentEval
does.
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

import numpy as np
import torch

from xsent_lib.base.runtime import TORCH_MAX_SEED, check_seed
from xsent_lib.eval.classifier import ClassifierConfig, Metric, accuracy_metric, make_classifier
from xsent_lib.eval.sklearn_protocols import sklearn_cv_then_test, sklearn_nested_cv, sklearn_split


def stratified_folds(labels: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Fold id in ``[0, k)`` for each row: every class is shuffled (seeded) and dealt round-robin.

    ``seed`` is an int in ``[0, 2**64 - 1]`` (the nested CV passes ``config.seed + 1 + fold``).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.size < k:
        raise ValueError(f"need a 1-D label array with at least k={k} rows, got shape "
                         f"{labels.shape}.")
    rng = np.random.default_rng(check_seed(seed, "stratified_folds seed", TORCH_MAX_SEED))
    order = rng.permutation(labels.size)
    # grouped by class, shuffled inside each class
    order = order[np.argsort(labels[order], kind="stable")]
    folds = np.empty(labels.size, dtype=np.int64)
    folds[order] = np.arange(labels.size) % k
    return folds


def one_hot(labels: np.ndarray, n_classes: int) -> np.ndarray:
    """(n,) int labels -> (n, C) float32 one-hot targets, with a clear error for out-of-range ids.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    labels = np.asarray(labels)
    if not np.issubdtype(labels.dtype, np.integer):
        raise TypeError(f"class labels must be integers, got dtype {labels.dtype}.")
    if labels.size and (labels.min() < 0 or labels.max() >= n_classes):
        raise ValueError(f"labels must lie in [0, {n_classes}), got [{labels.min()}, "
                         f"{labels.max()}].")
    return np.eye(n_classes, dtype=np.float32)[labels]


def _check_features(x: np.ndarray, n: int, name: str) -> np.ndarray:
    x = np.asarray(x)
    x = x if x.dtype == np.float64 else x.astype(np.float32)  # float64 kept for SentEval's fits
    if x.ndim != 2 or x.shape[0] != n:
        raise ValueError(f"{name} must be a 2-D array with one row per example ({n}), got "
                         f"shape {x.shape}.")
    if n == 0:
        raise ValueError(f"{name} has no rows: its split is empty, and a score over no examples is "
                         "NaN; check the task's data files.")
    if not np.isfinite(x).all():
        raise ValueError(f"{name} contains NaN or infinite values; check the batcher output.")
    return x


def _check_classes(labels: np.ndarray, name: str) -> None:
    """Refuse training labels of a single class: every classifier would score 100% on them, whatever
    the encoder."""
    classes = np.unique(labels)
    if classes.size < 2:
        raise ValueError(f"{name} holds only one class "
                         f"({', '.join(map(str, classes.tolist())) or 'none'}) in its "
                         f"{labels.size} rows; a classification task needs at least two classes "
                         "(check the data files: one class file may be empty or truncated).")


def nested_cv(
    x: np.ndarray, labels: np.ndarray, n_classes: int, config: ClassifierConfig
) -> dict:
    """SentEval's inner k-fold protocol (MR, CR, SUBJ, MPQA): nested CV over the grid.

    For each of ``k`` outer folds, an inner ``k``-fold CV on the other folds picks the grid point
    with the best mean inner accuracy; a model with that setting is trained on all outer-training
    rows and tested on the outer fold. ``devacc`` is the mean best inner accuracy, ``acc`` the mean
    outer accuracy. All k*k*|grid| inner models and the k outer models are trained in two batched
    runs. Labels of a single class are refused (any classifier would score 100%).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    labels = np.asarray(labels)
    x = _check_features(x, labels.size, "x")
    _check_classes(labels, "labels")
    if config.solver == "sklearn":
        return sklearn_nested_cv(x, labels, config.l2, config.kfold)
    k, grid = config.kfold, config.grid()
    targets = one_hot(labels, n_classes)
    outer = stratified_folds(labels, k, config.seed)
    inner = np.full((k, labels.size), -1)
    for o in range(k):  # k small loops building fold ids; the training itself is one batched run
        rest = outer != o
        inner[o, rest] = stratified_folds(labels[rest], k, config.seed + 1 + o)
    settings, train, evaluate = [], [], []
    for o in range(k):
        for i in range(k):
            for g in grid:
                settings.append(g)
                train.append((outer != o) & (inner[o] != i))
                evaluate.append((outer != o) & (inner[o] == i))
    train, evaluate = np.array(train), np.array(evaluate)
    inner_acc = _fit_and_score(x, targets, settings, train, None, evaluate, config, accuracy_metric)
    inner_acc = inner_acc.reshape(k, k, len(grid)).mean(1)
    best = inner_acc.argmax(1)
    outer_settings = [grid[b] for b in best]
    outer_train = np.array([outer != o for o in range(k)])
    outer_test = ~outer_train
    test_acc = _fit_and_score(x, targets, outer_settings, outer_train, None, outer_test, config,
                              accuracy_metric)
    return {"devacc": 100 * float(inner_acc.max(1).mean()), "acc": 100 * float(test_acc.mean()),
            "ndev": int(labels.size), "ntest": int(labels.size), "protocol": f"nested {k}-fold CV",
            "selected": outer_settings, "fold_acc": (100 * test_acc).tolist()}


def cv_then_test(
    x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, y_test: np.ndarray,
    n_classes: int, config: ClassifierConfig,
) -> dict:
    """k-fold CV on the training set picks the grid point; one model on all training rows is tested
    (TREC, MRPC).

    Returns ``devacc`` (best mean CV accuracy), ``acc`` (test), the selected setting, and the test
    predictions under ``"predictions"`` for metrics such as F1.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    y_train, y_test = np.asarray(y_train), np.asarray(y_test)
    x_train = _check_features(x_train, y_train.size, "x_train")
    x_test = _check_features(x_test, y_test.size, "x_test")
    _check_classes(y_train, "y_train")
    if config.solver == "sklearn":
        return sklearn_cv_then_test(x_train, y_train, x_test, y_test, config.l2, config.kfold,
                                    config.seed)
    k, grid = config.kfold, config.grid()
    targets = one_hot(y_train, n_classes)
    folds = stratified_folds(y_train, k, config.seed)
    settings = [g for _ in range(k) for g in grid]
    train = np.array([folds != f for f in range(k) for _ in grid])
    cv = _fit_and_score(x_train, targets, settings, train, None, ~train, config, accuracy_metric)
    cv = cv.reshape(k, len(grid)).mean(0)
    best = grid[int(cv.argmax())]
    clf = make_classifier(x_train.shape[1], n_classes, [best], config)
    clf.fit(x_train, targets, np.ones((1, y_train.size), bool))
    pred = clf.predict_proba(x_test)[0].argmax(-1)
    return {"devacc": 100 * float(cv.max()), "acc": 100 * float((pred == y_test).mean()),
            "ndev": int(y_train.size), "ntest": int(y_test.size),
            "protocol": f"{k}-fold CV on train, then test", "selected": best, "predictions": pred}


def split_select(
    x_train: np.ndarray, t_train: np.ndarray, x_dev: np.ndarray, t_dev: np.ndarray,
    x_test: np.ndarray, config: ClassifierConfig, metric: Metric = accuracy_metric,
) -> dict:
    """Train one model per grid point on train, early-stop and select on dev by ``metric``, predict
    test.

    ``t_*`` are (n, C) targets (one-hot or soft). Returns the dev score of every grid point, the
    selected setting, and the test class probabilities of the selected model under ``"test_probs"``.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    x_train = _check_features(x_train, len(t_train), "x_train")
    x_dev = _check_features(x_dev, len(t_dev), "x_dev")
    x_test = _check_features(x_test, np.shape(x_test)[0], "x_test")
    if x_test.shape[1] != x_train.shape[1]:
        raise ValueError(f"x_test has dimension {x_test.shape[1]}, x_train {x_train.shape[1]}; "
                         "encode both alike.")
    if config.solver == "sklearn":
        if metric is not accuracy_metric:
            raise ValueError("solver='sklearn' selects C on dev accuracy (SentEval's "
                             "SplitClassifier); other metrics need solver='exact' or 'adam'.")
        return sklearn_split(x_train, t_train.argmax(1), x_dev, t_dev.argmax(1), x_test, config.l2,
                             t_train.shape[1])
    grid = config.grid()
    x = np.vstack([x_train, x_dev])
    t = np.vstack([t_train, t_dev]).astype(np.float32)
    n_tr = x_train.shape[0]
    is_train = np.arange(x.shape[0]) < n_tr
    train = np.tile(is_train, (len(grid), 1))
    clf = make_classifier(x.shape[1], t.shape[1], grid, config).fit(x, t, train, ~train, metric)
    best = int(np.argmax(clf.val_score))
    return {"dev_scores": clf.val_score.tolist(), "dev": float(clf.val_score[best]),
            "selected": grid[best], "test_probs": clf.predict_proba(x_test)[best]}


def _fit_and_score(x, targets, settings, train, val, evaluate, config, metric) -> np.ndarray:
    """Fit one batched run and score each model on its ``evaluate`` rows."""
    clf = make_classifier(x.shape[1], targets.shape[1], settings, config)
    clf.fit(x, targets, train, val, metric)
    probs = torch.as_tensor(clf.predict_proba(x))
    return metric(probs, torch.as_tensor(targets),
                  torch.as_tensor(evaluate, dtype=torch.float32)).numpy()
