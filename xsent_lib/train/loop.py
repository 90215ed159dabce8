"""The one seeded training loop every chapter uses.

``fit(model, loss_fn, train_batches, ...)`` moves the model to the chosen device, builds the
optimizer, runs epochs of ``loss = loss_fn(model, batch)`` steps with optional gradient clipping
and CUDA mixed precision, evaluates on a dev function after each epoch (learning-rate schedule,
early stopping, best-weights tracking and checkpoints), calls periodic evaluation callbacks, and
returns a :class:`~xsent_lib.train.history.History`. Two CPU runs with the same seed, model
initialisation and batches give bit-identical weights; dev and callback evaluations run with the
random state saved and restored, so adding a probe never changes the training trajectory.
Book: chapter 3 (InferSent: the training loop).
"""
from __future__ import annotations

import contextlib
import math
import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from xsent_lib.base.runtime import pick_device, seed_everything
from xsent_lib.train.checkpoint import save_checkpoint
from xsent_lib.train.history import History
from xsent_lib.train.schedules import Schedule, make_schedule

DEFAULT_LR = {"sgd": 0.1, "adam": 1e-3}
AMP_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


def move_to_device(batch: Any, device: torch.device) -> Any:
    """Move every tensor inside a batch (tensor, tuple, list or dict, nested) to ``device``.

    Book: chapter 3 (InferSent: the training loop).
    """
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=True)
    if isinstance(batch, Mapping):
        return {k: move_to_device(v, device) for k, v in batch.items()}
    if isinstance(batch, tuple):
        return tuple(move_to_device(v, device) for v in batch)
    if isinstance(batch, list):
        return [move_to_device(v, device) for v in batch]
    return batch


def batch_size_of(batch: Any) -> int:
    """Number of examples in a batch: the first dimension of its first tensor (0 if it has none).

    Book: chapter 3 (InferSent: the training loop).
    """
    if isinstance(batch, torch.Tensor):
        return int(batch.shape[0]) if batch.dim() else 1
    items = (batch.values() if isinstance(batch, Mapping)
             else batch if isinstance(batch, (tuple, list)) else ())
    for item in items:
        n = batch_size_of(item)
        if n:
            return n
    return 0


@contextlib.contextmanager
def preserved_rng(device: torch.device) -> Iterator[None]:
    """Run a block (an evaluation) and then put every random generator back as it was.

    Covers Python's ``random``, NumPy's global generator and torch's CPU (and CUDA) generators.
    Book: chapter 3 (InferSent: the training loop).
    """
    py_state, np_state = random.getstate(), np.random.get_state()
    devices = ([device.index if device.index is not None else torch.cuda.current_device()]
               if device.type == "cuda" else [])
    with torch.random.fork_rng(devices=devices, device_type="cuda"):
        try:
            yield
        finally:
            random.setstate(py_state)
            np.random.set_state(np_state)


def _make_optimizer(
    model: nn.Module, optimizer: str | torch.optim.Optimizer, lr: float | None, momentum: float,
    weight_decay: float
) -> torch.optim.Optimizer:
    if isinstance(optimizer, torch.optim.Optimizer):
        if lr is not None:
            raise ValueError("lr is taken from the given optimizer instance; do not pass lr= as "
                             "well.")
        return optimizer
    if optimizer not in DEFAULT_LR:
        raise ValueError("optimizer must be 'sgd', 'adam' or a torch.optim.Optimizer, got "
                         f"{optimizer!r}.")
    params = [p for p in model.parameters() if p.requires_grad]
    if not params:
        raise ValueError("the model has no trainable parameter (all have requires_grad=False).")
    lr = DEFAULT_LR[optimizer] if lr is None else lr
    if not (isinstance(lr, (int, float)) and lr > 0):
        raise ValueError(f"lr must be a positive number, got {lr!r}.")
    if optimizer == "sgd":
        return torch.optim.SGD(params, lr=lr, momentum=momentum, weight_decay=weight_decay)
    fused = all(p.is_cuda for p in params)  # one kernel for all parameters on CUDA; CPU unchanged
    return torch.optim.Adam(params, lr=lr, weight_decay=weight_decay, fused=fused or None)


def _amp_dtype(amp: str | None, device: torch.device) -> torch.dtype | None:
    if amp is None:
        return None
    if amp == "auto":
        if device.type == "cuda" and torch.cuda.is_bf16_supported():
            return torch.bfloat16
        return None
    if amp not in AMP_DTYPES:
        raise ValueError(f"amp must be None, 'auto', 'bf16' or 'fp16', got {amp!r}.")
    if device.type != "cuda":
        raise ValueError(f"amp={amp!r} (mixed precision) runs only on CUDA, but device is "
                         f"{device}; use amp=None or 'auto'.")
    return AMP_DTYPES[amp]


def _batches_for_epoch(train_batches: Any, epoch: int) -> Iterable[Any]:
    return train_batches(epoch) if callable(train_batches) else train_batches


def fit(
    model: nn.Module,
    loss_fn: Callable[[nn.Module, Any], torch.Tensor],
    train_batches: Iterable[Any] | Callable[[int], Iterable[Any]],
    *,
    optimizer: str | torch.optim.Optimizer = "adam",
    lr: float | None = None,
    epochs: int = 10,
    device: str | torch.device = "auto",
    seed: int = 0,
    dev_fn: Callable[[nn.Module], float] | None = None,
    dev_mode: str = "max",
    patience: int | None = None,
    schedule: str | Schedule = "constant",
    momentum: float = 0.0,
    weight_decay: float = 0.0,
    clip_norm: float | None = None,
    amp: str | None = None,
    progress: bool = True,
    callbacks: Mapping[str, Callable[[nn.Module], Any]] | None = None,
    eval_every: int | None = None,
    checkpoint_path: str | Path | None = None,
    restore_best: bool = True,
) -> History:
    """Train ``model`` by minimising ``loss_fn(model, batch)`` over ``train_batches`` for ``epochs``
    epochs.

    - ``train_batches``: a re-iterable collection of batches (list, DataLoader), or a function
      ``epoch -> batches`` (to reshuffle each epoch with its own seed). Tensors inside a batch
      (tuples, lists, dicts) are moved to the device.
    - ``optimizer``: ``"sgd"`` (default lr 0.1, InferSent), ``"adam"`` (default lr 1e-3), or an
      optimizer instance; only parameters with ``requires_grad`` are trained.
    - ``dev_fn(model) -> float`` runs in eval mode after each epoch; ``dev_mode`` says whether
      higher (``"max"``, accuracy) or lower (``"min"``, perplexity) is better. The best weights are
      kept and restored at the end (``restore_best``) and written to ``checkpoint_path`` if given
      (without ``dev_fn`` the last epoch is written).
    - ``patience``: stop after that many epochs without a dev improvement.
    - ``schedule``: ``"constant"``, ``"infersent"`` (lr/5 on a dev drop, x0.99 per epoch, stop
      below 1e-5; InferSent uses it with ``optimizer="sgd", lr=0.1, clip_norm=5``), ``"linear"``,
      ``"warmup_inverse_sqrt"`` or a :class:`~xsent_lib.train.schedules.Schedule`.
    - ``clip_norm``: clip the global gradient norm; ``amp``: ``"bf16"``/``"fp16"`` autocast on CUDA
      only (``"auto"``: bf16 when CUDA supports it, else full precision).
    - ``callbacks``: ``{name: fn(model)}`` evaluated in eval mode before training and then every
      ``eval_every`` steps (each epoch end when None); results land in ``history.evals[name]``.
    ``seed`` seeds Python, NumPy and torch at the start (seed before building the model too).
    Book: chapter 3 (InferSent: the training loop).
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}.")
    if not callable(loss_fn):
        raise TypeError("loss_fn must be a function (model, batch) -> scalar loss tensor.")
    if not isinstance(epochs, int) or epochs < 1:
        raise ValueError(f"epochs must be a positive integer, got {epochs!r}.")
    if dev_mode not in ("max", "min"):
        raise ValueError(f"dev_mode must be 'max' or 'min', got {dev_mode!r}.")
    if patience is not None and (not isinstance(patience, int) or patience < 1):
        raise ValueError(f"patience must be None or a positive integer, got {patience!r}.")
    if patience is not None and dev_fn is None:
        raise ValueError("early stopping (patience=...) needs a dev_fn to watch.")
    if eval_every is not None and (not isinstance(eval_every, int) or eval_every < 1):
        raise ValueError(f"eval_every must be None or a positive integer, got {eval_every!r}.")
    if clip_norm is not None and not clip_norm > 0:
        raise ValueError(f"clip_norm must be None or positive, got {clip_norm!r}.")
    if not callable(train_batches) and isinstance(train_batches, Iterator) and epochs > 1:
        raise TypeError(
            "train_batches is a one-shot iterator, so epochs after the first would be empty; pass "
            "a list, a DataLoader, or a function epoch -> batches."
        )
    callbacks = dict(callbacks or {})
    for name, fn in callbacks.items():
        if not callable(fn):
            raise TypeError(f"callback {name!r} must be a function model -> value.")
    sched = make_schedule(schedule)
    if sched.needs_dev and dev_fn is None:
        raise ValueError(f"schedule {type(sched).__name__} reacts to the dev score; pass dev_fn=.")

    seed_everything(seed)
    dev = pick_device(device)
    model.to(dev)
    opt = _make_optimizer(model, optimizer, lr, momentum, weight_decay)
    amp_dtype = _amp_dtype(amp, dev)
    scaler = torch.amp.GradScaler("cuda") if amp_dtype == torch.float16 else None
    total_steps = len(train_batches) * epochs if hasattr(train_batches, "__len__") else None
    sched.start(opt, total_steps)
    params = [p for group in opt.param_groups for p in group["params"]]
    history = History(device=str(dev), evals={name: [] for name in callbacks})
    best_state: dict[str, torch.Tensor] | None = None
    bad_epochs = 0
    step = 0

    def evaluate(fn: Callable[[nn.Module], Any]) -> Any:
        was_training = model.training
        model.eval()
        try:
            with preserved_rng(dev):
                return fn(model)
        finally:
            model.train(was_training)

    def run_callbacks(epoch: int) -> None:
        for name, fn in callbacks.items():
            history.evals[name].append({"step": step, "epoch": epoch, "value": evaluate(fn)})

    run_callbacks(0)
    for epoch in range(1, epochs + 1):
        t0 = time.perf_counter()
        epoch_lr = float(opt.param_groups[0]["lr"])
        model.train()
        loss_sum = torch.zeros((), device=dev)
        n_batches = n_examples = 0
        bar = tqdm(_batches_for_epoch(train_batches, epoch), desc=f"epoch {epoch}",
                   disable=not progress, leave=False)
        for batch in bar:
            batch = move_to_device(batch, dev)
            with torch.autocast(dev.type, dtype=amp_dtype, enabled=amp_dtype is not None):
                loss = loss_fn(model, batch)
            if not isinstance(loss, torch.Tensor) or loss.dim() != 0:
                raise TypeError("loss_fn must return a scalar (0-dim) loss tensor.")
            opt.zero_grad(set_to_none=True)
            if scaler is not None:
                scaler.scale(loss).backward()
                scaler.unscale_(opt)
            else:
                loss.backward()
            if clip_norm is not None:
                nn.utils.clip_grad_norm_(params, clip_norm)
            if scaler is not None:
                scaler.step(opt)
                scaler.update()
            else:
                opt.step()
            step += 1
            sched.after_step(opt, step)
            loss_sum += loss.detach().float()
            n_batches += 1
            n_examples += batch_size_of(batch)
            if progress and n_batches % 20 == 0:
                bar.set_postfix(loss=f"{float(loss_sum) / n_batches:.4f}")
            if eval_every is not None and step % eval_every == 0:
                run_callbacks(epoch)
        if n_batches == 0:
            raise ValueError(f"epoch {epoch} got no batch; is train_batches empty?")
        mean_loss = float(loss_sum) / n_batches
        if not math.isfinite(mean_loss):
            raise FloatingPointError(f"the training loss became {mean_loss} in epoch {epoch}; "
                                     "lower lr or clip gradients.")

        dev_score = None
        improved: bool | None = None
        if dev_fn is not None:
            dev_score = float(evaluate(dev_fn))
            best = history.best_dev
            improved = best is None or (dev_score > best if dev_mode == "max" else dev_score < best)
            if improved:
                history.best_dev, history.best_epoch, bad_epochs = dev_score, epoch, 0
                best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
                if checkpoint_path is not None:
                    save_checkpoint(checkpoint_path, model, opt, epoch=epoch, dev=dev_score)
            else:
                bad_epochs += 1
        elif checkpoint_path is not None:
            save_checkpoint(checkpoint_path, model, opt, epoch=epoch)
        if eval_every is None:
            run_callbacks(epoch)
        stop = sched.after_epoch(opt, epoch, improved)
        if stop is None and patience is not None and bad_epochs >= patience:
            stop = "early_stopping"

        history.epoch.append(epoch)
        history.train_loss.append(mean_loss)
        history.dev.append(dev_score)
        history.lr.append(epoch_lr)
        history.wall_time.append(time.perf_counter() - t0)
        history.steps.append(step)
        history.examples.append(n_examples)
        if stop is not None:
            history.stop_reason = stop
            break
    if restore_best and best_state is not None:
        model.load_state_dict(best_state)
    return history
