"""How the batched classifiers are trained and tuned: :class:`ClassifierConfig` (the thesis's and
SentEval's settings, validated) and SentEval's optimiser strings (:func:`parse_optim`).
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import product

import numpy as np
import torch

from xsent_lib.base.runtime import LIBRARY_MAX_SEED, check_seed


@dataclass(frozen=True)
class ClassifierConfig:
    """How the classifiers on top of frozen embeddings are trained and tuned.

    ``nhid=(0,)`` is logistic regression; positive values give one Sigmoid hidden layer (the
    thesis's choice; the SentEval README says Tanh). ``l2`` is the penalty grid (thesis/SentEval
    PyTorch grid 10^-5..10^-2), searched together with ``nhid`` and ``dropout``. Adam with ``lr``
    and minibatches of ``batch_size``; every "epoch" is ``epoch_size`` passes, and training stops
    when the validation score has not improved for ``tenacity`` epochs (or after ``max_epochs``); on
    small data an epoch is stretched to at least ``min_steps_per_epoch`` minibatch steps (our
    choice: SentEval's smallest task has 1.5k rows, the book's toy tasks a few hundred, where a few
    passes would leave the MLP untrained). Models not given a validation set hold out
    ``validation_split`` of their training rows for early stopping, as SentEval does. Logistic
    regression (all ``nhid`` 0) is solved exactly by default (``solver='exact'``, see
    :class:`BatchedLogReg`); ``solver='adam'`` trains it like the MLP, the thesis's way;
    ``solver='sklearn'`` (with ``penalty='C'``) is SentEval's ``usepytorch=False`` path:
    scikit-learn's logistic regression on SentEval's folds, its lbfgs called without scikit-learn's
    per-fit overhead (:mod:`xsent_lib.eval.sklearn_protocols`). ``loss='mse'`` trains on the squared
    error of the softmax output (SentEval's relatedness regressor) instead of cross-entropy;
    ``stale_count='total'`` stops after ``tenacity`` epochs without a better validation score in all
    (SentEval's relatedness regressor), not in a row (``'consecutive'``). Use :meth:`full` (the
    thesis's standard configuration) or :meth:`fast` (SentEval's prototyping one). Every float must
    be finite and of the right sign (``lr`` > 0, ``l2`` >= 0, ``dropout`` in [0, 1)), and ``seed``
    an int in ``[0, 2**32 - 1]``; anything else raises a ValueError naming the field.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    nhid: tuple[int, ...] = (0,)
    dropout: tuple[float, ...] = (0.0,)
    l2: tuple[float, ...] = (1e-5, 1e-4, 1e-3, 1e-2)
    lr: float = 1e-3
    batch_size: int = 64
    epoch_size: int = 4
    tenacity: int = 5
    max_epochs: int = 50
    min_steps_per_epoch: int = 50
    validation_split: float = 0.1
    kfold: int = 10
    seed: int = 1111
    solver: str = "exact"
    optim: str = "adam"
    penalty: str = "l2"
    loss: str = "ce"
    stale_count: str = "consecutive"
    device: str = field(default="auto")

    def __post_init__(self) -> None:
        if not self.nhid or any((not isinstance(h, (int, np.integer))) or h < 0 for h in self.nhid):
            raise ValueError("nhid must be a non-empty tuple of non-negative ints, got "
                             f"{self.nhid!r}.")
        if (0 in self.nhid) and any(h > 0 for h in self.nhid):
            raise ValueError("nhid mixes 0 (logistic regression) with hidden sizes; evaluate them "
                             "as two configs.")
        if not self.dropout or any(not _real(p) or not 0.0 <= p < 1.0 for p in self.dropout):
            raise ValueError(f"dropout values must lie in [0, 1), got {self.dropout!r}.")
        if not self.l2 or any(not _real(v) or not 0 <= v < np.inf for v in self.l2):
            raise ValueError("l2 must be a non-empty tuple of finite non-negative penalties, got "
                             f"{self.l2!r}.")
        if not _real(self.lr) or not 0 < self.lr < np.inf:
            raise ValueError(f"lr must be a finite positive learning rate, got {self.lr!r}.")
        check_seed(self.seed, "ClassifierConfig.seed", LIBRARY_MAX_SEED)
        if self.kfold < 2:
            raise ValueError(f"kfold must be at least 2, got {self.kfold}.")
        for name in ("batch_size", "epoch_size", "tenacity", "max_epochs", "min_steps_per_epoch"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be a positive integer, got {getattr(self, name)!r}.")
        if self.solver not in SOLVERS:
            raise ValueError(f"solver must be 'exact' (L-BFGS to the optimum), 'adam' (minibatch, "
                             "early stopping) or 'sklearn' (SentEval's scikit-learn path), got "
                             f"{self.solver!r}.")
        if self.solver == "sklearn" and self.penalty != "C":
            raise ValueError("solver='sklearn' is SentEval's scikit-learn logistic regression: its "
                             "l2 values are scikit-learn's C, so it needs penalty='C'.")
        if self.stale_count not in STALE_COUNTS:
            raise ValueError(f"stale_count must be one of {STALE_COUNTS}, got "
                             f"{self.stale_count!r}.")
        if self.loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, got {self.loss!r}.")
        if self.loss == "mse" and self.solver != "adam":
            raise ValueError("loss='mse' (SentEval's relatedness regressor) needs solver='adam'.")
        parse_optim(self.optim)
        if self.penalty not in PENALTIES:
            raise ValueError(f"penalty must be one of {PENALTIES} ('C': the l2 values are "
                             "scikit-learn's C, as SentEval's usepytorch=False runs), got "
                             f"{self.penalty!r}.")
        mlp = any(h > 0 for h in self.nhid)
        if self.penalty == "C" and (self.solver == "adam" or mlp or min(self.l2) <= 0):
            raise ValueError("penalty='C' is scikit-learn's logistic regression: it needs "
                             "solver='exact' or 'sklearn', nhid=(0,) and positive C values in l2.")
        if not _real(self.validation_split) or not 0.0 < self.validation_split < 1.0:
            raise ValueError(f"validation_split must lie in (0, 1), got {self.validation_split!r}.")

    @classmethod
    def full(cls, **overrides) -> ClassifierConfig:
        """The thesis's standard setting: LR, Adam, batch 64, tenacity 5, epoch_size 4, 10 folds, 4
        L2 values.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        return replace(cls(), **overrides)

    @classmethod
    def fast(cls, **overrides) -> ClassifierConfig:
        """SentEval's prototyping setting, smaller: batch 128, tenacity 3, epoch_size 2, 5 folds, 2
        L2 values.

        SentEval's prototyping config uses RMSprop; we keep Adam so that fast and full differ only
        in budget.
        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        base = cls(l2=(1e-4, 1e-2), batch_size=128, epoch_size=2, tenacity=3, max_epochs=30,
                   kfold=5)
        return replace(base, **overrides)

    @classmethod
    def probe(cls, mode: str = "full", **overrides) -> ClassifierConfig:
        """The probing MLP: Sigmoid hidden layer, nhid in {50,100,200}, dropout in {0,0.1,0.2}, L2
        grid.

        ``mode='fast'`` keeps nhid 50, dropout {0, 0.1} and two L2 values.
        Book: chapter 4 (Probing).
        """
        if mode == "full":
            return replace(cls(nhid=(50, 100, 200), dropout=(0.0, 0.1, 0.2)), **overrides)
        if mode == "fast":
            return replace(cls.fast(nhid=(50,), dropout=(0.0, 0.1)), **overrides)
        raise ValueError(f"mode must be 'full' or 'fast', got {mode!r}.")

    def grid(self) -> list[dict]:
        """Every (nhid, dropout, l2) combination, in a fixed order.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        dropouts = self.dropout if any(h > 0 for h in self.nhid) else (0.0,)
        return [{"nhid": int(h), "dropout": float(p), "l2": float(v)}
                for h, p, v in product(self.nhid, dropouts, self.l2)]


def _real(value: object) -> bool:
    """A real number (int or float, numpy's too), not a bool or a string; NaN passes here and fails
    the range test."""
    return isinstance(value, (int, float, np.integer, np.floating)) \
        and not isinstance(value, (bool, np.bool_))


PENALTIES = ("l2", "C")
SOLVERS = ("exact", "adam", "sklearn")
# "ce": cross-entropy against the targets; "mse": squared error of the softmax output against them
# (SentEval's relatedness regressor, senteval.tools.relatedness).
LOSSES = ("ce", "mse")
# Early stopping counts "consecutive" epochs without a better validation score (reset on a better
# one), or the "total" of such epochs (SentEval's relatedness regressor never resets its count).
STALE_COUNTS = ("consecutive", "total")
OPTIMIZERS = {"adam": torch.optim.Adam, "adamax": torch.optim.Adamax,
              "adagrad": torch.optim.Adagrad,
              "adadelta": torch.optim.Adadelta, "rmsprop": torch.optim.RMSprop,
              "sgd": torch.optim.SGD, "asgd": torch.optim.ASGD, "rprop": torch.optim.Rprop}


def parse_optim(spec: str) -> tuple[type, dict]:
    """SentEval's optimiser string (``"adam"``, ``"rmsprop"``, ``"sgd,lr=0.1"``) -> (torch optimiser
    class, options).

    Every optimiser listed is element-wise, so the batched models stay independent. ``sgd`` needs
    ``lr``.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"optim must be a string such as 'adam' or 'sgd,lr=0.1', got {spec!r}.")
    name, *opts = spec.split(",")
    if name not in OPTIMIZERS:
        raise ValueError(f"unknown optimiser {name!r} in optim={spec!r}; SentEval's are "
                         f"{sorted(OPTIMIZERS)}.")
    options = {}
    for opt in opts:
        key, _, value = opt.partition("=")
        try:
            options[key] = float(value)
        except ValueError:
            raise ValueError(f"optim={spec!r}: option {opt!r} must read key=number.") from None
    if name == "sgd" and "lr" not in options:
        raise ValueError(f"optim={spec!r}: sgd needs a learning rate, e.g. 'sgd,lr=0.1'.")
    return OPTIMIZERS[name], options
