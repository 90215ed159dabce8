"""One seeded training loop for every chapter: schedules, early stopping, callbacks, checkpoints.

Book: chapter 3 (InferSent: the training loop).
"""
from __future__ import annotations

from xsent_lib.train.checkpoint import load_checkpoint, save_checkpoint
from xsent_lib.train.history import History
from xsent_lib.train.loop import batch_size_of, fit, move_to_device, preserved_rng
from xsent_lib.train.schedules import (
    InferSentSchedule,
    LinearDecay,
    Schedule,
    WarmupInverseSqrt,
    make_schedule,
)

__all__ = [
    "History",
    "InferSentSchedule",
    "LinearDecay",
    "Schedule",
    "WarmupInverseSqrt",
    "batch_size_of",
    "fit",
    "load_checkpoint",
    "make_schedule",
    "move_to_device",
    "preserved_rng",
    "save_checkpoint",
]
