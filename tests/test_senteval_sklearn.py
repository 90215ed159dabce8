"""SentEval's usepytorch=False path: scikit-learn's model and lbfgs on SentEval's folds, equal to
SentEval's loops written out (one LogisticRegression per fold and C), and close to the previous
batched exact solver."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold

from xsent_lib.eval.classifier import ClassifierConfig
from xsent_lib.eval.engine import SENTEVAL_SKLEARN_C
from xsent_lib.eval.protocols import cv_then_test, nested_cv, one_hot, split_select

SKLEARN = ClassifierConfig.full(solver="sklearn", penalty="C", l2=SENTEVAL_SKLEARN_C["cv"], kfold=5)
EXACT = ClassifierConfig.full(solver="exact", penalty="C", l2=SENTEVAL_SKLEARN_C["cv"], kfold=5)


def _data(seed: int, n: int = 300, dim: int = 10, n_classes: int = 2):
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((n_classes, dim))
    y = rng.integers(0, n_classes, n)
    x = (centers[y] * 0.5 + rng.standard_normal((n, dim))).astype(np.float32)
    return x.astype(
        np.float64
    ), y  # float32 values (what the engine keeps), scikit-learn in float64


def _cv_scores(x, y, grid, k, seed):
    """SentEval's loop: for each C, a cold fit per fold; mean accuracy in percent rounded to 2."""
    skf = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    return [
        round(
            100
            * np.mean(
                [
                    LogisticRegression(C=c, random_state=seed).fit(x[a], y[a]).score(x[b], y[b])
                    for a, b in skf.split(x, y)
                ]
            ),
            2,
        )
        for c in grid
    ]


def _senteval_inner_kfold(x, y, grid, k):
    skf = StratifiedKFold(n_splits=k, shuffle=True, random_state=1111)
    dev, test = [], []
    for tr, te in skf.split(x, y):
        scores = _cv_scores(x[tr], y[tr], grid, k, 1111)
        best = grid[int(np.argmax(scores))]
        dev.append(max(scores))
        clf = LogisticRegression(C=best, random_state=1111).fit(x[tr], y[tr])
        test.append(round(100 * clf.score(x[te], y[te]), 2))
    return round(float(np.mean(dev)), 2), round(float(np.mean(test)), 2)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_nested_cv_equals_sentevals_inner_kfold(n_classes):
    x, y = _data(n_classes, n_classes=n_classes)
    ours = nested_cv(x, y, n_classes, SKLEARN)
    dev, acc = _senteval_inner_kfold(x, y, SKLEARN.l2, 5)
    assert round(ours["devacc"], 2) == dev
    assert round(float(np.mean([round(a, 2) for a in ours["fold_acc"]])), 2) == acc


def test_cv_then_test_and_split_equal_sentevals_loops():
    x, y = _data(7, n=400, n_classes=3)
    tr, te = slice(0, 300), slice(300, 400)
    grid = SENTEVAL_SKLEARN_C["cv_test"]
    cfg = ClassifierConfig.full(solver="sklearn", penalty="C", l2=grid, kfold=5)
    ours = cv_then_test(x[tr], y[tr], x[te], y[te], 3, cfg)
    scores = _cv_scores(x[tr], y[tr], grid, 5, cfg.seed)
    best = grid[int(np.argmax(scores))]
    clf = LogisticRegression(C=best, random_state=1111).fit(x[tr], y[tr])
    assert ours["devacc"] == max(scores) and ours["selected"]["l2"] == best
    assert ours["acc"] == pytest.approx(100 * clf.score(x[te], y[te]), abs=1e-9)
    dv, ts = slice(300, 350), slice(350, 400)
    res = split_select(x[tr], one_hot(y[tr], 3), x[dv], one_hot(y[dv], 3), x[ts], SKLEARN)
    dev = [
        round(100 * LogisticRegression(C=c).fit(x[tr], y[tr]).score(x[dv], y[dv]), 2)
        for c in SKLEARN.l2
    ]
    assert (
        round(100 * res["dev"], 2) == max(dev)
        and res["selected"]["l2"] == SKLEARN.l2[int(np.argmax(dev))]
    )
    ref = LogisticRegression(C=res["selected"]["l2"]).fit(x[tr], y[tr]).predict(x[ts])
    assert (res["test_probs"].argmax(1) == ref).all()


def test_sklearn_path_agrees_with_the_previous_exact_solver():
    x, y = _data(3, n=400)
    new, old = nested_cv(x, y, 2, SKLEARN), nested_cv(x, y, 2, EXACT)
    # other folds (SentEval's, not ours), another solver: the same difficulty within a few points
    assert new["acc"] == pytest.approx(old["acc"], abs=3.0)
    assert new["devacc"] == pytest.approx(old["devacc"], abs=3.0)


def test_sklearn_solver_needs_c_and_accuracy():
    with pytest.raises(ValueError, match="penalty='C'"):
        ClassifierConfig.full(solver="sklearn")
    x, y = _data(1, n=60)
    t = one_hot(y, 2)
    with pytest.raises(ValueError, match="dev accuracy"):
        split_select(
            x[:40], t[:40], x[40:50], t[40:50], x[50:], SKLEARN, metric=lambda p, t, m: m.sum(1)
        )
