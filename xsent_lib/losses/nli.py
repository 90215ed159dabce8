"""Cross-entropy and accuracy for 3-way NLI classification from the ``[u, v, |u-v|, u*v]``
classifier.

The classifier head itself lives in ``xsent_lib.encoders.heads``; it returns logits of shape
``(batch, n_classes)``. InferSent, XNLI and Aldarmaki & Diab's joint InferSent all train it with
plain cross-entropy. XNLI pairs without a 3-vote consensus carry the label ``-``; give them the
label ``ignore_index`` and they are left out of both the loss and the accuracy.

Book: chapter 3 (InferSent).
"""
from __future__ import annotations

from typing import Literal

import torch
import torch.nn.functional as F

from xsent_lib.base.masking import IGNORE_INDEX


def _check_logits_labels(logits: torch.Tensor, labels: torch.Tensor, ignore_index: int) -> None:
    """Raise a clear error unless ``logits`` is (batch, C) float and ``labels`` (batch,) integer in
    range."""
    if not isinstance(logits, torch.Tensor) or not isinstance(labels, torch.Tensor):
        raise TypeError(f"logits and labels must be torch tensors, got {type(logits).__name__} "
                        f"and {type(labels).__name__}.")
    if logits.dim() != 2 or not logits.is_floating_point():
        raise ValueError(f"logits must be a float tensor of shape (batch, n_classes), got "
                         f"{tuple(logits.shape)} {logits.dtype}.")
    if labels.dim() != 1 or labels.is_floating_point() or labels.dtype == torch.bool:
        raise ValueError("labels must be an integer tensor of shape (batch,), got "
                         f"{tuple(labels.shape)} {labels.dtype}.")
    if labels.shape[0] != logits.shape[0]:
        raise ValueError(f"logits has {logits.shape[0]} rows but labels has {labels.shape[0]}: one "
                         "label per pair.")
    kept = labels[labels != ignore_index]
    if kept.numel() and (kept.min() < 0 or kept.max() >= logits.shape[1]):
        raise ValueError(f"labels must lie in [0, {logits.shape[1]}) (or equal "
                         f"ignore_index={ignore_index}), got values in [{int(kept.min())}, "
                         f"{int(kept.max())}].")


def nli_loss(logits: torch.Tensor, labels: torch.Tensor, *,
             class_weights: torch.Tensor | None = None,
             label_smoothing: float = 0.0, ignore_index: int = IGNORE_INDEX,
             reduction: Literal["mean", "sum", "none"] = "mean") -> torch.Tensor:
    """Cross-entropy of NLI logits ``(batch, n_classes)`` against integer labels ``(batch,)``.

    This is the only loss InferSent trains with. ``label_smoothing`` defaults to 0 as in the
    papers; ``ignore_index`` rows (XNLI's ``-`` label) are skipped. A batch where every row is
    ignored has no defined mean and raises instead of returning NaN.
    Book: chapter 3 (InferSent).
    """
    _check_logits_labels(logits, labels, ignore_index)
    if reduction == "mean" and not bool((labels != ignore_index).any()):
        raise ValueError("every label in the batch equals ignore_index; there is "
                         "nothing to average.")
    if not 0.0 <= label_smoothing < 1.0:
        raise ValueError(f"label_smoothing must be in [0, 1), got {label_smoothing}.")
    if class_weights is not None and class_weights.shape != (logits.shape[1],):
        raise ValueError(f"class_weights must have shape ({logits.shape[1]},), got "
                         f"{tuple(class_weights.shape)}.")
    return F.cross_entropy(logits, labels.long(), weight=class_weights, ignore_index=ignore_index,
                           label_smoothing=label_smoothing, reduction=reduction)


def nli_accuracy(logits: torch.Tensor, labels: torch.Tensor, *,
                 ignore_index: int = IGNORE_INDEX) -> float:
    """Fraction of non-ignored pairs whose arg-max logit equals the gold label.

    Book: chapter 3 (InferSent).
    """
    _check_logits_labels(logits, labels, ignore_index)
    kept = labels != ignore_index
    if not bool(kept.any()):
        raise ValueError("every label in the batch equals ignore_index; accuracy is undefined.")
    correct = logits.argmax(dim=1)[kept] == labels[kept]
    return float(correct.float().mean())
