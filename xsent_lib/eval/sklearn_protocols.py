"""SentEval's ``usepytorch=False`` protocols: its scikit-learn logistic regression, minus overhead.

SentEval fits one ``LogisticRegression(C=c)`` from zero for every fold and every C of its grid. Here
the model is the same (scikit-learn's objective: mean log-loss + ||W||^2 / (2 C n), intercept not
penalised; one weight vector for two classes, a softmax over the classes present otherwise), and so
are the solver (scipy's L-BFGS-B with scikit-learn's options: 100 iterations, gradient tolerance
1e-4, 50 line-search steps), the start (zeros), the folds (``StratifiedKFold(shuffle=True)`` seeded
as SentEval seeds it, on the rows in SentEval's length-sorted order,
:func:`~xsent_lib.eval.transfer.senteval_row_order`) and the rounding (per C, to 2 decimals in
percent, before the best C is picked): a fit's iterates equal scikit-learn's to 1e-16, converged or
not. What differs is the cost: the loss and gradient are called without scikit-learn's per-fit
checks and set-up (most of a fit's time at SentEval's sizes: these fits take 10-30 L-BFGS steps), on
one BLAS thread for small problems. Starting each C from the previous C's solution was measured too
and dropped: 5-10% faster on MR, but a fit stopped by the iteration limit then stops elsewhere than
SentEval's, which moved a chance-level TREC by 1-2 points (``benchmarks/bench_senteval_dropin.py``
measures ours against SentEval).
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit
from sklearn.model_selection import StratifiedKFold

from xsent_lib.base.threads import single_thread
from xsent_lib.eval.classifier import SMALL_WORK

SENTEVAL_FOLD_SEED = 1111  # SentEval's InnerKFoldClassifier seeds both of its splitters with 1111
# scikit-learn's lbfgs settings for LogisticRegression (max_iter=100, tol=1e-4: SentEval's)
LBFGS_OPTIONS = {"maxiter": 100, "maxls": 50, "gtol": 1e-4, "ftol": 64 * np.finfo(float).eps}


class LogReg:
    """scikit-learn's ``LogisticRegression(C)`` (lbfgs, its defaults) fitted by scipy directly.

    ``theta`` holds one row per weight vector (one for two classes, one per class present
    otherwise), the intercept last.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    def __init__(self, classes: np.ndarray) -> None:
        self.classes = np.asarray(classes)
        self.theta: np.ndarray | None = None
        self.n_iter = 0

    def _loss_grad(
        self, flat: np.ndarray, x: np.ndarray, y: np.ndarray, l2: float
    ) -> tuple[float, np.ndarray]:
        theta = flat.reshape(-1, x.shape[1] + 1)
        w, b = theta[:, :-1], theta[:, -1]
        z = x @ w.T + b  # (n, K)
        if theta.shape[0] == 1:
            zz = z[:, 0]
            loss = -np.mean(log_expit(np.where(y == 1, zz, -zz)))
            resid = (expit(zz) - y)[:, None]
        else:
            rows = np.arange(y.size)
            z -= z.max(1, keepdims=True)  # scipy's logsumexp checks its input: slower than the fit
            e = np.exp(z)
            total = e.sum(1)
            loss = np.mean(np.log(total) - z[rows, y])
            resid = e / total[:, None]
            resid[rows, y] -= 1.0
        grad = np.empty_like(theta)
        grad[:, :-1] = resid.T @ x / y.size + l2 * w
        grad[:, -1] = resid.mean(0)
        return loss + 0.5 * l2 * float((w * w).sum()), grad.ravel()

    def fit(self, x: np.ndarray, y: np.ndarray, c: float) -> LogReg:
        """Fit on rows ``x`` (float64) with labels ``y`` (values of ``classes``) at C = ``c``.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        idx = np.searchsorted(self.classes, y)
        rows = 1 if self.classes.size == 2 else self.classes.size
        start = np.zeros((rows, x.shape[1] + 1))
        res = minimize(
            self._loss_grad,
            start.ravel(),
            args=(x, idx, 1.0 / (c * y.size)),
            jac=True,
            method="L-BFGS-B",
            options=LBFGS_OPTIONS,
        )
        self.theta, self.n_iter = res.x.reshape(rows, -1), int(res.nit)
        return self

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Predicted classes of rows ``x``.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        z = x @ self.theta[:, :-1].T + self.theta[:, -1]
        return self.classes[(z[:, 0] > 0).astype(np.int64) if z.shape[1] == 1 else z.argmax(1)]

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """Probabilities (n, len(classes)) of rows ``x``.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        z = x @ self.theta[:, :-1].T + self.theta[:, -1]
        if z.shape[1] == 1:
            p = expit(z[:, 0])
            return np.stack([1 - p, p], 1)
        e = np.exp(z - z.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)


def c_path_scores(
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_eval: np.ndarray,
    y_eval: np.ndarray,
    grid: tuple[float, ...],
) -> tuple[np.ndarray, list[LogReg]]:
    """Accuracy (fraction) on ``x_eval`` of the logistic regression at every C of ``grid``, and
    the fitted model of each C, both in ``grid``'s order.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    classes = np.unique(y_train)
    acc = np.empty(len(grid))
    models = []
    for j, c in enumerate(grid):
        models.append(LogReg(classes).fit(x_train, y_train, float(c)))
        acc[j] = float((models[j].predict(x_eval) == y_eval).mean())
    return acc, models


def _threads(x: np.ndarray):
    """One BLAS thread below :data:`~xsent_lib.eval.classifier.SMALL_WORK` rows x features: on small
    problems more threads only wait on each other (20-40x slower fits on a loaded 2-core machine).
    """
    return single_thread(x.size < SMALL_WORK, blas=True)


def _folds(y: np.ndarray, k: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    return list(
        StratifiedKFold(n_splits=k, shuffle=True, random_state=seed).split(np.zeros(len(y)), y)
    )


def _cv_grid(
    x: np.ndarray, y: np.ndarray, grid: tuple[float, ...], k: int, seed: int
) -> tuple[int, float]:
    """k-fold CV along the grid: best index and its rounded mean score (percent)."""
    accs = [c_path_scores(x[tr], y[tr], x[te], y[te], grid)[0] for tr, te in _folds(y, k, seed)]
    scores = np.round(100 * np.mean(accs, axis=0), 2)
    best = int(np.argmax(scores))
    return best, float(scores[best])


def sklearn_nested_cv(
    x: np.ndarray,
    labels: np.ndarray,
    grid: tuple[float, ...],
    kfold: int,
    seed: int = SENTEVAL_FOLD_SEED,
) -> dict:
    """SentEval's ``InnerKFoldClassifier`` with ``usepytorch=False`` (MR, CR, SUBJ, MPQA).

    Outer and inner folds are SentEval's (both splitters seeded ``seed``: 1111 whatever the params
    say, as SentEval hard-codes it); the C of each outer fold is picked by inner CV, its model
    (fitted on all of the outer training rows) is tested on the outer fold. ``devacc``: mean
    of the folds' best inner scores; ``acc``: mean outer accuracy; ``fold_acc``: each outer fold's
    accuracy (percent).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    labels, x = np.asarray(labels), np.asarray(x, np.float64)
    dev, test, chosen = [], [], []
    with _threads(x):
        for tr, te in _folds(labels, kfold, seed):
            best, score = _cv_grid(x[tr], labels[tr], grid, kfold, seed)
            model = LogReg(np.unique(labels[tr])).fit(x[tr], labels[tr], float(grid[best]))
            dev.append(score)
            test.append(100 * float((model.predict(x[te]) == labels[te]).mean()))
            chosen.append(float(grid[best]))
    return {
        "devacc": float(np.mean(dev)),
        "acc": float(np.mean(test)),
        "ndev": int(labels.size),
        "ntest": int(labels.size),
        "protocol": f"nested {kfold}-fold CV (scikit-learn)",
        "selected": [{"nhid": 0, "dropout": 0.0, "l2": c} for c in chosen],
        "fold_acc": test,
    }


def sklearn_cv_then_test(
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_test: np.ndarray,
    y_test: np.ndarray,
    grid: tuple[float, ...],
    kfold: int,
    seed: int = SENTEVAL_FOLD_SEED,
) -> dict:
    """SentEval's ``KFoldClassifier`` with ``usepytorch=False`` (TREC, MRPC): CV on train picks C,
    one model on all of train is tested.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    y_train, y_test = np.asarray(y_train), np.asarray(y_test)
    x_train = np.asarray(x_train, np.float64)
    with _threads(x_train):
        best, score = _cv_grid(x_train, y_train, grid, kfold, seed)
        model = LogReg(np.unique(y_train)).fit(x_train, y_train, float(grid[best]))
    pred = model.predict(np.asarray(x_test, np.float64))
    return {
        "devacc": score,
        "acc": 100 * float((pred == y_test).mean()),
        "ndev": int(y_train.size),
        "ntest": int(y_test.size),
        "protocol": f"{kfold}-fold CV on train, then test (scikit-learn)",
        "selected": {"nhid": 0, "dropout": 0.0, "l2": float(grid[best])},
        "predictions": pred,
    }


def sklearn_split(
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_dev: np.ndarray,
    y_dev: np.ndarray,
    x_test: np.ndarray,
    grid: tuple[float, ...],
    n_classes: int,
) -> dict:
    """SentEval's ``SplitClassifier`` with ``usepytorch=False`` (SST, SICK-E, probing): one fit per
    C, C picked on dev accuracy rounded as SentEval rounds it; that C's model
    gives the test class probabilities (``test_probs``, (n, n_classes); classes absent from train
    get 0).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    f64 = [np.asarray(a, np.float64) for a in (x_train, x_dev, x_test)]
    with _threads(f64[0]):
        acc, models = c_path_scores(f64[0], np.asarray(y_train), f64[1], np.asarray(y_dev), grid)
    best = int(np.argmax(np.round(100 * acc, 2)))
    probs = np.zeros((len(x_test), n_classes), np.float32)
    probs[:, models[best].classes] = models[best].predict_proba(f64[2])
    return {
        "dev_scores": acc.tolist(),
        "dev": float(acc[best]),
        "selected": {"nhid": 0, "dropout": 0.0, "l2": float(grid[best])},
        "test_probs": probs,
    }
