"""In-batch InfoNCE over translation pairs: the modern contrastive baseline none of the seed papers
used.

Each source row ``x_i`` must pick its own translation ``y_i`` among all targets of the batch: ``-log
softmax_j(cos(x_i, y_j) / tau)[i]``. With ``symmetric=True`` the target-to-source direction is added
and the two are averaged. It is Wieting et al.'s margin objective with every in-batch sentence as a
negative instead of only the hardest one, and a soft-max instead of a hinge.

Book: chapter 8 (Paraphrastic embeddings from bitext).
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from xsent_lib.losses.alignment import Reduction, reduce_loss, require_pair


def similarity_logits(x: torch.Tensor, y: torch.Tensor, *, temperature: float = 0.05,
                      normalize: bool = True) -> torch.Tensor:
    """The ``(batch, batch)`` matrix ``S_ij / tau`` with ``S`` the cosine (or dot product if not
    normalising).

    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    require_pair(x, y)
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}.")
    if normalize:
        x, y = F.normalize(x, dim=1), F.normalize(y, dim=1)
    return x @ y.T / temperature


def info_nce_loss(x: torch.Tensor, y: torch.Tensor, *, temperature: float = 0.05,
                  symmetric: bool = True,
                  normalize: bool = True, reduction: Reduction = "mean") -> torch.Tensor:
    """In-batch InfoNCE: cross-entropy of ``similarity_logits(x, y)`` with the diagonal as the
    targets.

    ``temperature = 0.05`` follows SimCSE-style practice (no seed paper fixes one). With
    ``symmetric=True`` the loss is ``(CE(S) + CE(S^T)) / 2`` per pair, so both languages act as
    queries. Rows with ``reduction="none"`` are the per-pair losses.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    if x.dim() == 2 and x.shape[0] < 2:
        raise ValueError("InfoNCE needs at least 2 pairs in the batch (the others are the "
                         f"negatives), got {x.shape[0]}.")
    logits = similarity_logits(x, y, temperature=temperature, normalize=normalize)
    targets = torch.arange(logits.shape[0], device=logits.device)
    per_row = F.cross_entropy(logits, targets, reduction="none")
    if symmetric:
        per_row = 0.5 * (per_row + F.cross_entropy(logits.T, targets, reduction="none"))
    return reduce_loss(per_row, reduction)
