"""What a training run returns: per-epoch losses, dev scores, learning rates and wall times.

Book: chapter 3 (InferSent: training curves).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class History:
    """The record of one :func:`xsent_lib.train.fit` run, one entry per finished epoch.

    ``lr`` is the rate in force during the epoch, ``wall_time`` its seconds (dev evaluation and
    callbacks included), ``steps`` the optimizer steps done by its end, ``examples`` the examples
    seen in it (first dimension of each batch's first tensor). ``evals[name]`` lists
    ``{"step", "epoch", "value"}`` records of each periodic callback (step 0 = before training).
    ``stop_reason`` is ``"max_epochs"``, ``"early_stopping"`` or ``"min_lr"``.
    Book: chapter 3 (InferSent: training curves).
    """

    epoch: list[int] = field(default_factory=list)
    train_loss: list[float] = field(default_factory=list)
    dev: list[float | None] = field(default_factory=list)
    lr: list[float] = field(default_factory=list)
    wall_time: list[float] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    examples: list[int] = field(default_factory=list)
    evals: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    best_epoch: int | None = None
    best_dev: float | None = None
    stop_reason: str = "max_epochs"
    device: str = "cpu"

    def to_dict(self) -> dict[str, Any]:
        """Plain lists and numbers, ready for JSON or a ``weights_only`` checkpoint.

        Book: chapter 11 (Reproducibility report).
        """
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> History:
        """Rebuild a history from :meth:`to_dict` output.

        Book: chapter 11 (Reproducibility report).
        """
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown History fields {sorted(unknown)}; was this written by "
                             "History.to_dict?")
        return cls(**data)
