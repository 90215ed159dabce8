"""Learning-rate schedules of the papers, applied by :func:`xsent_lib.train.fit`.

A schedule sets the learning rate of every parameter group after each step and after each epoch;
after an epoch it may also ask training to stop (InferSent stops when the rate falls below 1e-5).
Book: chapter 3 (InferSent: training schedule).
"""
from __future__ import annotations

import math

import torch


class Schedule:
    """Constant learning rate; the base every schedule extends.

    ``start`` records the base rate and the planned number of steps; ``after_step`` and
    ``after_epoch`` update the rate; ``after_epoch`` returns a stop reason or None.
    Book: chapter 3 (InferSent: training schedule).
    """

    needs_dev: bool = False

    def __init__(self) -> None:
        self.base_lr = 0.0
        self.total_steps: int | None = None

    def start(self, optimizer: torch.optim.Optimizer, total_steps: int | None) -> None:
        """Remember the optimizer's initial rate and the planned number of steps (None if unknown).

        Book: chapter 3 (InferSent: training schedule).
        """
        self.base_lr = float(optimizer.param_groups[0]["lr"])
        self.total_steps = total_steps
        self.after_step(optimizer, 0)

    def after_step(self, optimizer: torch.optim.Optimizer, step: int) -> None:
        """Set the rate for the step after ``step`` optimizer steps (constant: nothing to do).

        Book: chapter 3 (InferSent: training schedule).
        """

    def after_epoch(self, optimizer: torch.optim.Optimizer, epoch: int,
                    dev_improved: bool | None) -> str | None:
        """Update the rate after an epoch; return a reason to stop, or None to go on.

        Book: chapter 3 (InferSent: training schedule).
        """
        return None

    @staticmethod
    def set_lr(optimizer: torch.optim.Optimizer, lr: float) -> None:
        """Write ``lr`` into every parameter group.

        Book: chapter 3 (InferSent: training schedule).
        """
        for group in optimizer.param_groups:
            group["lr"] = lr


class InferSentSchedule(Schedule):
    """SGD schedule of InferSent: divide by ``shrink`` when dev accuracy drops, decay each epoch,
    stop below ``min_lr``.

    After each epoch: if the dev score did not beat the best so far, the rate is divided by 5
    (the thesis says "decreases"; the reference code compares with the best, and so do we); training
    stops once the rate is below 1e-5; otherwise the rate is multiplied by 0.99 for the next epoch
    (the thesis' "weight decay of 0.99" is this per-epoch rate decay, per the reference code).
    Book: chapter 3 (InferSent: training schedule).
    """

    needs_dev = True

    def __init__(self, decay: float = 0.99, shrink: float = 5.0, min_lr: float = 1e-5) -> None:
        super().__init__()
        if not (0.0 < decay <= 1.0) or shrink < 1.0 or min_lr < 0.0:
            raise ValueError(f"need 0 < decay <= 1, shrink >= 1 and min_lr >= 0, got {decay}, "
                             f"{shrink}, {min_lr}.")
        self.decay, self.shrink, self.min_lr = decay, shrink, min_lr

    def after_epoch(self, optimizer: torch.optim.Optimizer, epoch: int,
                    dev_improved: bool | None) -> str | None:
        """Shrink on a dev drop, stop below ``min_lr``, else decay (see the class docstring).

        Book: chapter 3 (InferSent: training schedule).
        """
        lr = float(optimizer.param_groups[0]["lr"])
        if dev_improved is False:
            lr /= self.shrink
            self.set_lr(optimizer, lr)
            if lr < self.min_lr:
                return "min_lr"
        self.set_lr(optimizer, lr * self.decay)
        return None


class LinearDecay(Schedule):
    """Linear warm-up over ``warmup_steps`` then linear decay to 0 at the last planned step.

    Wang et al. (2019) train with "learning rate 1e-4 with linear decay" (no warm-up given: 0 here).
    Book: chapter 9 (Multilingual embeddings from monolingual text, Wang et al.).
    """

    def __init__(self, warmup_steps: int = 0) -> None:
        super().__init__()
        if not isinstance(warmup_steps, int) or warmup_steps < 0:
            raise ValueError(f"warmup_steps must be a non-negative integer, got {warmup_steps!r}.")
        self.warmup_steps = warmup_steps

    def start(self, optimizer: torch.optim.Optimizer, total_steps: int | None) -> None:
        """Needs the planned number of steps (``len(train_batches) * epochs``).

        Book: chapter 9 (Multilingual embeddings from monolingual text, Wang et al.).
        """
        if total_steps is None:
            raise ValueError("LinearDecay needs to know the number of steps: pass train_batches "
                             "with a len().")
        super().start(optimizer, total_steps)

    def after_step(self, optimizer: torch.optim.Optimizer, step: int) -> None:
        """Rate ``base * min(1, (step+1)/warmup) * (1 - step/total)``.

        Book: chapter 9 (Multilingual embeddings from monolingual text, Wang et al.).
        """
        total = max(int(self.total_steps or 1), 1)
        warm = min(1.0, (step + 1) / self.warmup_steps) if self.warmup_steps else 1.0
        self.set_lr(optimizer, self.base_lr * warm * max(0.0, 1.0 - step / total))


class WarmupInverseSqrt(Schedule):
    """Linear warm-up to the base rate over ``warmup_steps``, then decay as ``1/sqrt(step)``.

    The Transformer schedule of Vaswani et al. that XLM uses with Adam ("linear warm-up"); XLM's
    warm-up length is not in the thesis, 4000 steps is the Vaswani value.
    Book: chapter 10 (Cross-lingual language models, XLM: training details).
    """

    def __init__(self, warmup_steps: int = 4000) -> None:
        super().__init__()
        if not isinstance(warmup_steps, int) or warmup_steps < 1:
            raise ValueError(f"warmup_steps must be a positive integer, got {warmup_steps!r}.")
        self.warmup_steps = warmup_steps

    def after_step(self, optimizer: torch.optim.Optimizer, step: int) -> None:
        """Rate ``base * min((step+1)/warmup, sqrt(warmup/(step+1)))``.

        Book: chapter 10 (Cross-lingual language models, XLM: training details).
        """
        t = step + 1
        self.set_lr(optimizer,
                    self.base_lr * min(t / self.warmup_steps, math.sqrt(self.warmup_steps / t)))


def make_schedule(schedule: str | Schedule) -> Schedule:
    """A schedule from its name (``constant``, ``infersent``, ``linear``, ``warmup_inverse_sqrt``)
    or as given.

    Book: chapter 3 (InferSent: training schedule).
    """
    if isinstance(schedule, Schedule):
        return schedule
    named = {
        "constant": Schedule,
        "infersent": InferSentSchedule,
        "linear": LinearDecay,
        "warmup_inverse_sqrt": WarmupInverseSqrt,
    }
    if schedule not in named:
        raise ValueError(
            f"schedule must be a Schedule or one of {sorted(named)}, got {schedule!r}.")
    return named[schedule]()
