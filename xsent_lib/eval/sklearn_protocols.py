"""SentEval's ``usepytorch=False`` protocols on scikit-learn, warm-started along the C grid.

SentEval fits one ``LogisticRegression(C=c)`` from zero for every fold and every C of its grid. These
functions fit the same models on the same folds (SentEval's ``StratifiedKFold(shuffle=True)`` seeds) with
the same solver (lbfgs, scikit-learn's defaults), but walk the C grid upwards in one estimator with
``warm_start=True``: each fit starts from the optimum of the next smaller C, and the final model of a
protocol starts from the mean of its folds' solutions at the chosen C. Every fit still stops on
scikit-learn's own test, so the selected C and the accuracies are SentEval's up to the solver's tolerance
(a test item here and there), in a fraction of the solver's iterations. Scores are rounded as SentEval
rounds them (per C, to 2 decimals in percent) before the best C is picked, so ties break as there.
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

import copy
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold

SENTEVAL_FOLD_SEED = 1111  # SentEval's InnerKFoldClassifier seeds both of its splitters with 1111


def _fit(model: LogisticRegression, x: np.ndarray, y: np.ndarray) -> LogisticRegression:
    """Fit without scikit-learn's convergence warnings (SentEval's unconverged fits count as fitted)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(x, y)


def _start(seed: int, c: float, init: LogisticRegression | None = None) -> LogisticRegression:
    """A warm-starting estimator at ``c``, starting from ``init``'s solution when given."""
    model = LogisticRegression(C=c, random_state=seed, warm_start=True)
    if init is not None:
        model.coef_, model.intercept_ = init.coef_.copy(), init.intercept_.copy()
    return model


def c_path_scores(x_train: np.ndarray, y_train: np.ndarray, x_eval: np.ndarray, y_eval: np.ndarray,
                  grid: tuple[float, ...], seed: int = SENTEVAL_FOLD_SEED
                  ) -> tuple[np.ndarray, list[LogisticRegression]]:
    """Accuracy (fraction) on ``x_eval`` of a logistic regression at every C of ``grid``, warm-started
    upwards, and the fitted model of each C, both in ``grid``'s order.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    order = np.argsort(grid, kind="stable")
    acc = np.empty(len(grid))
    models: list = [None] * len(grid)
    model = _start(seed, float(grid[order[0]]))
    for j in order:
        model.set_params(C=float(grid[j]))
        _fit(model, x_train, y_train)
        acc[j] = model.score(x_eval, y_eval)
        models[j] = copy.copy(model)  # a refit assigns new coef_ arrays: shallow copies stay intact
    return acc, models


def _folds(y: np.ndarray, k: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    return list(StratifiedKFold(n_splits=k, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))


def _cv_grid(x: np.ndarray, y: np.ndarray, grid: tuple[float, ...], k: int, seed: int
             ) -> tuple[int, float, LogisticRegression]:
    """k-fold CV along the grid: best index, its rounded mean score (percent), and an estimator at that
    C holding the mean of the folds' solutions (the start of the final fit)."""
    accs, fits = [], []
    for tr, te in _folds(y, k, seed):
        acc, models = c_path_scores(x[tr], y[tr], x[te], y[te], grid, seed)
        accs.append(acc)
        fits.append(models)
    scores = np.round(100 * np.mean(accs, axis=0), 2)
    best = int(np.argmax(scores))
    start = copy.copy(fits[0][best])
    start.coef_ = np.mean([m[best].coef_ for m in fits], 0)
    start.intercept_ = np.mean([m[best].intercept_ for m in fits], 0)
    return best, float(scores[best]), start


def sklearn_nested_cv(x: np.ndarray, labels: np.ndarray, grid: tuple[float, ...], kfold: int,
                      seed: int = SENTEVAL_FOLD_SEED) -> dict:
    """SentEval's ``InnerKFoldClassifier`` with ``usepytorch=False`` (MR, CR, SUBJ, MPQA).

    Outer and inner folds are SentEval's (both splitters seeded ``seed``: 1111 whatever the params say,
    as SentEval hard-codes it); the C of each
    outer fold is picked by inner CV, its model (warm-started from the inner folds' mean solution) is
    tested on the outer fold. ``devacc``: mean of the folds' best inner scores; ``acc``: mean outer
    accuracy; ``fold_acc``: each outer fold's accuracy (percent).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    labels = np.asarray(labels)
    dev, test, chosen = [], [], []
    for tr, te in _folds(labels, kfold, seed):
        best, score, init = _cv_grid(x[tr], labels[tr], grid, kfold, seed)
        model = _fit(_start(seed, float(grid[best]), init), x[tr], labels[tr])
        dev.append(score)
        test.append(100 * model.score(x[te], labels[te]))
        chosen.append(float(grid[best]))
    return {"devacc": float(np.mean(dev)), "acc": float(np.mean(test)), "ndev": int(labels.size),
            "ntest": int(labels.size), "protocol": f"nested {kfold}-fold CV (scikit-learn)",
            "selected": [{"nhid": 0, "dropout": 0.0, "l2": c} for c in chosen], "fold_acc": test}


def sklearn_cv_then_test(x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray,
                         y_test: np.ndarray, grid: tuple[float, ...], kfold: int,
                         seed: int = SENTEVAL_FOLD_SEED) -> dict:
    """SentEval's ``KFoldClassifier`` with ``usepytorch=False`` (TREC, MRPC): CV on train picks C, one
    model on all of train (warm-started from the folds' mean solution) is tested.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    y_train, y_test = np.asarray(y_train), np.asarray(y_test)
    best, score, init = _cv_grid(x_train, y_train, grid, kfold, seed)
    pred = _fit(_start(seed, float(grid[best]), init), x_train, y_train).predict(x_test)
    return {"devacc": score, "acc": 100 * float((pred == y_test).mean()), "ndev": int(y_train.size),
            "ntest": int(y_test.size), "protocol": f"{kfold}-fold CV on train, then test (scikit-learn)",
            "selected": {"nhid": 0, "dropout": 0.0, "l2": float(grid[best])}, "predictions": pred}


def sklearn_split(x_train: np.ndarray, y_train: np.ndarray, x_dev: np.ndarray, y_dev: np.ndarray,
                  x_test: np.ndarray, grid: tuple[float, ...], n_classes: int,
                  seed: int = SENTEVAL_FOLD_SEED) -> dict:
    """SentEval's ``SplitClassifier`` with ``usepytorch=False`` (SST, SICK-E, probing): one fit per C
    (warm-started upwards), C picked on dev accuracy rounded as SentEval rounds it; that C's model
    gives the test class probabilities (``test_probs``, (n, n_classes); classes absent from train get 0).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    acc, models = c_path_scores(x_train, np.asarray(y_train), x_dev, np.asarray(y_dev), grid, seed)
    best = int(np.argmax(np.round(100 * acc, 2)))
    probs = np.zeros((len(x_test), n_classes), np.float32)
    probs[:, models[best].classes_] = models[best].predict_proba(x_test)
    return {"dev_scores": acc.tolist(), "dev": float(acc[best]),
            "selected": {"nhid": 0, "dropout": 0.0, "l2": float(grid[best])}, "test_probs": probs}
