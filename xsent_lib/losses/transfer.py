"""Representation transfer: regress a student encoder's vectors onto a frozen teacher's vectors.

Aldarmaki & Diab (2019) train a new-language encoder so that ``Enc_src(x_src)`` matches the frozen
English encoder's ``Enc_en(x_en)`` for each translation pair, with an L1 loss (L2 and cosine gave
"no notable difference"). XNLI's X-BiLSTM mimics the English encoder the same way (with L_align,
see :mod:`xsent_lib.losses.alignment`). The teacher is always detached here, so no gradient can
reach the pivot encoder even if the caller forgot ``torch.no_grad()``.

Book: chapter 7 (Joint vs transfer vs mapping).
"""
from __future__ import annotations

from typing import Literal

import torch
import torch.nn.functional as F

from xsent_lib.losses.alignment import Reduction, reduce_loss, require_pair

TransferKind = Literal["l1", "l2", "cosine"]
TRANSFER_KINDS: tuple[str, ...] = ("l1", "l2", "cosine")


def transfer_loss(student: torch.Tensor, teacher: torch.Tensor, *, kind: TransferKind = "l1",
                  reduction: Reduction = "mean") -> torch.Tensor:
    """Distance of student rows to the (detached) teacher rows, one value per pair, then reduced.

    - ``"l1"``: ``||s - t||_1`` (the paper's choice);
    - ``"l2"``: ``||s - t||_2^2``, the squared Euclidean distance;
    - ``"cosine"``: ``1 - cos(s, t)``.

    Per-pair values sum over dimensions and ``"mean"`` averages over pairs; the paper does not say
    whether it sums or averages, so this is our choice (it only rescales the learning rate).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    require_pair(student, teacher, "student", "teacher")
    target = teacher.detach()
    if kind == "l1":
        per_row = (student - target).abs().sum(dim=1)
    elif kind == "l2":
        per_row = (student - target).pow(2).sum(dim=1)
    elif kind == "cosine":
        per_row = 1.0 - F.cosine_similarity(student, target, dim=1, eps=1e-8)
    else:
        raise ValueError(f"kind={kind!r} is not one of {TRANSFER_KINDS}.")
    return reduce_loss(per_row, reduction)
