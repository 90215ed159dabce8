"""A bounded distance that keeps XNLI's L_align finite, and the bound it guarantees.

``L_align = d(x, y) - lam * (d(x_c, y) + d(x, y_c))`` is unbounded below whenever ``d`` is: the
target encoder can lower it forever by pushing its vectors away from the contrastive English vectors
faster than they move away from their own translation (with in-batch negatives a vector can be drawn
as the negative of several pairs, so this happens in practice for lam >= 0.5 and in some batches
already below). The paper names no safeguard. Ours is a saturating distance,

    d_c(x, y) = c * tanh(||x - y||_2 / c),

which equals the L2 distance for pairs much closer than ``c`` (the positive pairs once aligned),
keeps a non-zero gradient everywhere, and never exceeds ``c``, so ``L_align >= -2 * lam * c`` for
every batch.
Book: chapter 6 (XNLI and aligned encoders).
"""
from __future__ import annotations

import math

import torch

from xsent_lib.losses.alignment import DistanceFn, l2_distance


def bounded_l2(cap: float) -> DistanceFn:
    """The saturating L2 distance ``cap * tanh(||x - y|| / cap)`` (row-wise, shape ``(batch,)``),
    below ``cap``.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    if not (isinstance(cap, (int, float)) and math.isfinite(cap) and cap > 0):
        raise ValueError(f"cap must be a positive finite number (a distance scale), got {cap!r}.")
    cap = float(cap)

    def distance(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return cap * torch.tanh(l2_distance(x, y) / cap)

    distance.__name__ = f"bounded_l2_{cap:g}"
    return distance


def alignment_lower_bound(lam: float, cap: float) -> float:
    """The lowest value ``L_align`` can take with :func:`bounded_l2` of ``cap``: ``-2 * lam * cap``.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    if lam < 0 or cap <= 0:
        raise ValueError(f"lam must be >= 0 and cap > 0, got lam={lam!r}, cap={cap!r}.")
    return -2.0 * float(lam) * float(cap)
