"""Batching token-id sequences: padding, CSR offsets and length buckets.

Book: chapter 1 (Data: tokenisation and vocabularies).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch


def _lengths_of(seqs: Sequence[np.ndarray]) -> np.ndarray:
    return np.fromiter((len(s) for s in seqs), dtype=np.int64, count=len(seqs))


def pad_batch(seqs: Sequence[np.ndarray], pad_id: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad id arrays into ``LongTensor[B, T]`` (T = longest) and return their lengths
    ``LongTensor[B]``.

    One concatenate and one masked scatter, no per-sentence Python work. Empty sequences are
    allowed here (length 0); encoders that need at least one token say so in ``forward``.
    Book: chapter 1 (Data: tokenisation and vocabularies).
    """
    if isinstance(seqs, (np.ndarray, torch.Tensor)) and np.ndim(seqs) == 1:
        raise TypeError(
            "pad_batch takes a list of id arrays, one per sentence, not one flat array.")
    if len(seqs) == 0:
        raise ValueError("pad_batch needs at least one sequence.")
    lengths = _lengths_of(seqs)
    width = int(lengths.max())
    out = np.full((len(seqs), width), pad_id, dtype=np.int64)
    if width:
        mask = np.arange(width)[None, :] < lengths[:, None]
        out[mask] = np.concatenate([np.asarray(s, dtype=np.int64).ravel() for s in seqs])
    return torch.from_numpy(out), torch.from_numpy(lengths)


def flatten_ids(seqs: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Concatenate id arrays into CSR form: flat ids and ``B + 1`` offsets (``offsets[0] == 0``).

    Sentence ``i`` is ``flat[offsets[i]:offsets[i + 1]]``; ``nn.EmbeddingBag`` takes
    ``offsets[:-1]``.
    Book: chapter 1 (Data: tokenisation and vocabularies).
    """
    lengths = _lengths_of(seqs)
    offsets = np.zeros(len(seqs) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    flat = np.concatenate([np.asarray(s, dtype=np.int64).ravel()
                           for s in seqs]) if len(seqs) else np.zeros(0, np.int64)
    return flat, offsets


def pad_csr(flat: np.ndarray, offsets: np.ndarray, rows: np.ndarray,
            pad_id: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Pad the sentences ``rows`` of a CSR batch (``flat``, ``offsets``) into ``LongTensor[B, T]``
    plus lengths.

    A single fancy-indexing gather, equivalent to ``pad_batch([flat[offsets[i]:offsets[i+1]] for i
    in rows])``.
    Book: chapter 1 (Data: tokenisation and vocabularies).
    """
    rows = np.asarray(rows, dtype=np.int64)
    if rows.ndim != 1 or rows.size == 0:
        raise ValueError("rows must be a non-empty one-dimensional array of sentence indices.")
    starts = offsets[rows]
    lengths = offsets[rows + 1] - starts
    width = int(lengths.max())
    steps = np.arange(width)
    mask = steps[None, :] < lengths[:, None]
    out = np.full((rows.size, width), pad_id, dtype=np.int64)
    out[mask] = flat[(starts[:, None] + steps[None, :])[mask]]
    return torch.from_numpy(out), torch.from_numpy(lengths.astype(np.int64))


def length_buckets(lengths: Sequence[int] | np.ndarray, batch_size: int) -> list[np.ndarray]:
    """Indices grouped into batches of similar length: sort by length (longest first), chunk.

    Each returned array holds original positions, itself ordered by non-increasing length, so a
    batch can be packed with ``enforce_sorted=True`` and padding per batch is minimal. The sort is
    stable, so equal lengths keep their input order and the result is deterministic.
    Book: chapter 1 (Data: tokenisation and vocabularies).
    """
    if (not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool)
            or batch_size < 1):
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}.")
    lengths = np.asarray(lengths)
    if lengths.ndim != 1:
        raise ValueError(f"lengths must be one-dimensional, got shape {lengths.shape}.")
    order = np.argsort(-lengths.astype(np.int64), kind="stable")
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


def shuffled_length_batches(lengths: Sequence[int] | np.ndarray, batch_size: int,
                            rng: np.random.Generator, window_batches: int = 50) -> list[np.ndarray]:
    """Training batches of similar length in random order: one epoch's worth of row indices.

    The rows are shuffled, cut into windows of ``window_batches`` batches, each window sorted by
    length (longest first, stable) and chunked into batches, and the batches are shuffled. Every row
    appears in exactly one batch; sorting only inside windows keeps little padding and still mixes
    lengths across the epoch. Deterministic for a given ``rng`` state.
    Book: chapter 3 (InferSent: the training loop).
    """
    if (not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool)
            or batch_size < 1):
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}.")
    if window_batches < 1:
        raise ValueError(f"window_batches must be >= 1, got {window_batches!r}.")
    lengths = np.asarray(lengths)
    if lengths.ndim != 1:
        raise ValueError(f"lengths must be one-dimensional, got shape {lengths.shape}.")
    order = rng.permutation(len(lengths))
    window = batch_size * window_batches
    groups = []
    for start in range(0, len(order), window):
        chunk = order[start: start + window]
        chunk = chunk[np.argsort(-lengths[chunk], kind="stable")]
        groups += [chunk[i: i + batch_size] for i in range(0, len(chunk), batch_size)]
    return [groups[g] for g in rng.permutation(len(groups))]
