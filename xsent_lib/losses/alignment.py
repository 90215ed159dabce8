"""Sentence-embedding alignment losses of XNLI: L_align with contrastive terms, and the ranking
alternative.

A target-language encoder learns to put the translation ``y`` of an English sentence where the
frozen English encoder puts ``x``. Conneau et al. (2018c) use

    L_align(x, y) = dist(x, y) - lambda * (dist(x_c, y) + dist(x, y_c)),   lambda = 0.25,

where ``x_c`` / ``y_c`` are random other sentences of the batch, and report that the margin-ranking
alternative ``max(0, a - dist(x, y_c) + dist(x, y)) + max(0, a - dist(x_c, y) + dist(x, y))`` works
poorly for them. Both losses live here with a pluggable distance.

Book: chapter 6 (XNLI and aligned encoders).
"""
from __future__ import annotations

from typing import Callable, Literal, Union

import torch
import torch.nn.functional as F

DistanceFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
Distance = Union[Literal["l2", "cosine"], DistanceFn]
Reduction = Literal["mean", "sum", "none"]

_REDUCTIONS = ("mean", "sum", "none")


def require_pair(x: torch.Tensor, y: torch.Tensor, x_name: str = "x", y_name: str = "y") -> None:
    """Check that ``x`` and ``y`` are floating torch tensors of the same ``(batch, dim)`` shape.

    Raises ``TypeError`` for non-tensors or integer tensors and ``ValueError`` for shape mismatches,
    naming the offending argument so that the caller knows what to fix.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    for name, t in ((x_name, x), (y_name, y)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor of shape (batch, dim), got "
                            f"{type(t).__name__}.")
        if not t.is_floating_point():
            raise TypeError(f"{name} must be a floating-point tensor, got dtype {t.dtype}.")
        if t.dim() != 2:
            raise ValueError(f"{name} must be 2-D (batch, dim), got shape {tuple(t.shape)}.")
    if x.shape != y.shape:
        raise ValueError(
            f"{x_name} and {y_name} must have the same shape (row i of one is paired with row i of "
            f"the other), got {tuple(x.shape)} and {tuple(y.shape)}."
        )


def reduce_loss(per_row: torch.Tensor, reduction: Reduction) -> torch.Tensor:
    """Apply ``reduction`` (``"mean"``, ``"sum"`` or ``"none"``) to a vector of per-example losses.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    if reduction == "mean":
        return per_row.mean()
    if reduction == "sum":
        return per_row.sum()
    if reduction == "none":
        return per_row
    raise ValueError(f"reduction={reduction!r} is not one of {_REDUCTIONS}.")


def l2_distance(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Row-wise Euclidean distance ``||x_i - y_i||_2`` (the XNLI paper's choice), shape
    ``(batch,)``.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return torch.linalg.vector_norm(x - y, dim=1)


def cosine_distance(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Row-wise cosine distance ``1 - cos(x_i, y_i)``, shape ``(batch,)``; zero rows count as cosine
    0.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return 1.0 - F.cosine_similarity(x, y, dim=1, eps=1e-8)


_DISTANCES: dict[str, DistanceFn] = {"l2": l2_distance, "cosine": cosine_distance}


def resolve_distance(distance: Distance) -> DistanceFn:
    """Turn ``"l2"``, ``"cosine"`` or a callable ``(x, y) -> (batch,)`` into a distance function.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    if callable(distance):
        return distance
    if distance in _DISTANCES:
        return _DISTANCES[distance]
    raise ValueError(f"distance={distance!r} is not understood; use one of {sorted(_DISTANCES)} "
                     "or a callable.")


def sample_other_indices(batch_size: int, generator: torch.Generator | None = None,
                         device: torch.device | str = "cpu") -> torch.Tensor:
    """For each row ``i`` draw an index ``j != i`` uniformly among the other rows of the batch.

    Vectorised: ``j = (i + r) mod B`` with ``r`` uniform in ``{1, ..., B-1}``, which is uniform over
    ``j != i``. Pass a seeded ``torch.Generator`` (on CPU) for reproducible negatives.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    if batch_size < 2:
        raise ValueError("contrastive sampling needs a batch of at least 2 pairs, got "
                         f"batch_size={batch_size}.")
    offsets = torch.randint(1, batch_size, (batch_size,), generator=generator)
    return ((torch.arange(batch_size) + offsets) % batch_size).to(device)


def _negatives(x: torch.Tensor, y: torch.Tensor, x_c: torch.Tensor | None, y_c: torch.Tensor | None,
               generator: torch.Generator | None) -> tuple[torch.Tensor, torch.Tensor]:
    """Return the given contrastive rows, or draw them from the batch (independently for x and
    y)."""
    if x_c is None:
        x_c = x[sample_other_indices(x.shape[0], generator, x.device)]
    else:
        require_pair(x_c, x, "x_c", "x")
    if y_c is None:
        y_c = y[sample_other_indices(y.shape[0], generator, y.device)]
    else:
        require_pair(y_c, y, "y_c", "y")
    return x_c, y_c


def alignment_loss(x: torch.Tensor, y: torch.Tensor, *, x_c: torch.Tensor | None = None,
                   y_c: torch.Tensor | None = None, lam: float = 0.25, distance: Distance = "l2",
                   generator: torch.Generator | None = None,
                   reduction: Reduction = "mean") -> torch.Tensor:
    """XNLI's ``L_align = dist(x, y) - lam * (dist(x_c, y) + dist(x, y_c))`` over a batch of pairs.

    ``x`` holds the (frozen, English) source embeddings and ``y`` their translations' embeddings,
    row ``i`` paired with row ``i``. When ``x_c`` / ``y_c`` are not given, each row gets a random
    *other* row of the batch as its contrastive sentence, drawn with ``generator``. ``lam = 0.25``
    is the paper's best value; ``lam = 0`` gives the plain distance. Detaching ``x`` (the English
    side stays fixed) is the caller's job. The negative term is unbounded below, as in the paper:
    keep ``lam`` small.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    require_pair(x, y)
    if lam < 0:
        raise ValueError(f"lam must be >= 0 (weight of the contrastive terms), got {lam}.")
    dist = resolve_distance(distance)
    positive = dist(x, y)
    if lam == 0:
        return reduce_loss(positive, reduction)
    x_c, y_c = _negatives(x, y, x_c, y_c, generator)
    return reduce_loss(positive - lam * (dist(x_c, y) + dist(x, y_c)), reduction)


def ranking_loss(x: torch.Tensor, y: torch.Tensor, *, x_c: torch.Tensor | None = None,
                 y_c: torch.Tensor | None = None, margin: float = 1.0, distance: Distance = "l2",
                 generator: torch.Generator | None = None,
                 reduction: Reduction = "mean") -> torch.Tensor:
    """The ranking alternative ``max(0, a - d(x, y_c) + d(x, y)) + max(0, a - d(x_c, y) + d(x,
    y))``.

    The paper does not give the margin ``a``; we pick ``1.0`` (sensible for L2 distances of
    unit-scale embeddings; use about 0.4 with ``distance="cosine"``). Negatives are drawn as in
    :func:`alignment_loss`.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    require_pair(x, y)
    if margin < 0:
        raise ValueError(f"margin must be >= 0, got {margin}.")
    dist = resolve_distance(distance)
    x_c, y_c = _negatives(x, y, x_c, y_c, generator)
    positive = dist(x, y)
    per_row = F.relu(margin - dist(x, y_c) + positive) + F.relu(margin - dist(x_c, y) + positive)
    return reduce_loss(per_row, reduction)
