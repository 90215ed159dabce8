"""Masks over padded batches, masked mean / max pooling, and the check every batch of token ids
passes.

Padding never changes a sentence's vector: pooling here only ever reads the first ``length``
positions.
Book: chapter 3 (InferSent: sentence encoders).
"""
from __future__ import annotations

import torch

# Target id that every token-level loss skips (padding, unmasked positions): torch's own default.
IGNORE_INDEX = -100


def length_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    """Boolean ``[B, max_len]`` mask, True at real tokens (position < length).

    Book: chapter 3 (InferSent: sentence encoders).
    """
    return torch.arange(max_len, device=lengths.device)[None, :] < lengths[:, None]


def masked_mean(states: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Mean over the first ``lengths[b]`` time steps of ``states[B, T, D]`` (divides by the true
    length).

    Book: chapter 3 (InferSent: BiLSTM-mean).
    """
    mask = length_mask(lengths.to(states.device), states.shape[1]).unsqueeze(-1)
    total = states.masked_fill(~mask, 0.0).sum(dim=1)
    return total / lengths.to(device=states.device, dtype=states.dtype).clamp_min(1).unsqueeze(-1)


def masked_max(states: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Max over the first ``lengths[b]`` time steps of ``states[B, T, D]``; padding can never win.

    Padded positions are set to -inf before the max, so the result is the same whatever else is
    in the batch (the InferSent v1 padding bug, issue #51, cannot happen). Lengths must be >= 1.
    Book: chapter 3 (InferSent: BiLSTM-max).
    """
    mask = length_mask(lengths.to(states.device), states.shape[1]).unsqueeze(-1)
    return states.masked_fill(~mask, float("-inf")).amax(dim=1)


def check_batch(token_ids: torch.Tensor, lengths: torch.Tensor, min_length: int = 1) -> None:
    """Raise a clear error unless ``token_ids[B, T]`` and ``lengths[B]`` are a consistent padded
    batch.

    Book: chapter 3 (InferSent: sentence encoders).
    """
    if not isinstance(token_ids, torch.Tensor) or not isinstance(lengths, torch.Tensor):
        raise TypeError("forward(token_ids, lengths) takes two torch tensors; use pad_batch(...) "
                        "to build them.")
    if token_ids.dim() != 2 or lengths.dim() != 1 or lengths.shape[0] != token_ids.shape[0]:
        raise ValueError(
            f"expected token_ids [B, T] and lengths [B], got {tuple(token_ids.shape)} and "
            f"{tuple(lengths.shape)}."
        )
    if token_ids.dtype != torch.long or lengths.dtype != torch.long:
        raise TypeError(f"token_ids and lengths must be int64 (LongTensor), got {token_ids.dtype} "
                        f"and {lengths.dtype}.")
    if token_ids.shape[0] == 0:
        raise ValueError("empty batch: token_ids has no rows.")
    lo, hi = int(lengths.min()), int(lengths.max())
    if lo < min_length or hi > token_ids.shape[1]:
        raise ValueError(
            f"lengths must lie in [{min_length}, T={token_ids.shape[1]}], got min {lo} max {hi}; "
            "every sentence needs at least one token (TextPipeline maps empty sentences to <unk>)."
        )
