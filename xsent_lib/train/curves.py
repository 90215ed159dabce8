"""Curves during training: a probe and a task score evaluated a few times by ``fit``'s callbacks.

The callbacks run with the random state saved and restored, so a curve never changes training.
Book: chapter 4 (Probing: per-epoch curves).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import nn

from xsent_lib.train.history import History
from xsent_lib.train.loop import fit

Callback = Callable[[nn.Module], Any]


def curve_callbacks(probe: Callback, score: Callback, steps_per_epoch: int, epochs: int,
                    points: int) -> tuple[dict[str, Callback], int]:
    """``fit``'s ``callbacks`` and ``eval_every`` for ``points`` evaluations (plus one at step 0).

    ``probe(model) -> {task: accuracy}`` and ``score(model) -> float`` are evaluated together.
    Book: chapter 4 (Probing: per-epoch curves).
    """
    every = max(1, steps_per_epoch * epochs // max(points, 1))
    return {"probing": probe, "score": score}, every


def training_curve(history: History, steps_per_epoch: int, score_name: str) -> dict[str, Any]:
    """The curve recorded by :func:`curve_callbacks`: ``x`` in epochs, ``probing`` per task.

    Returns ``{"x", "score_name", "score", "probing": {task: [accuracy]}}``.
    Book: chapter 4 (Probing: per-epoch curves).
    """
    probes = history.evals["probing"]
    return {"x": [r["step"] / steps_per_epoch for r in probes], "score_name": score_name,
            "score": [r["value"] for r in history.evals["score"]],
            "probing": {t: [r["value"][t] for r in probes] for t in probes[0]["value"]}}


def fit_with_curve(model: nn.Module, loss_fn: Callable[[nn.Module, Any], torch.Tensor],
                   batches: Callable[[int], Sequence[Any]], *, epochs: int,
                   probe: Callable[[nn.Module], Any] | None, score: Callback, score_name: str,
                   points: int, **fit_kwargs: Any) -> tuple[History, dict[str, Any], float]:
    """:func:`fit` the model, probing its ``model.encoder`` ``points`` times when ``probe`` is
    given.

    Returns the history, the curve of :func:`training_curve` (empty without ``probe``) and the
    seconds spent in ``fit``. ``fit_kwargs`` go to :func:`fit` as they are.
    Book: chapter 4 (Probing: per-epoch curves).
    """
    steps = len(batches(0))
    callbacks, every = None, None
    if probe is not None:
        callbacks, every = curve_callbacks(lambda m: probe(m.encoder), score, steps, epochs, points)
    start = time.perf_counter()
    history = fit(model, loss_fn, batches, epochs=epochs, callbacks=callbacks, eval_every=every,
                  **fit_kwargs)
    seconds = time.perf_counter() - start
    return history, training_curve(history, steps, score_name) if probe is not None else {}, seconds
