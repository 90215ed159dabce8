"""Wang et al.'s two objectives for learning sentence embeddings from monolingual documents.

Stage 1, sentence-context classification: the encoder reads ``concat(C_k^-(s_i), s, C_k^+(s_i))``,
a sentence with the ``k`` sentences before and after it, and a *linear* classifier decides whether
``s`` is the true ``s_i`` (label 1) or a random sentence of the same language (label 0). The paper
prints the loss as a sum of probabilities; we train the binary cross-entropy it obviously means.

Stage 2, coherence regression: pairs of similar sentences (any languages) are mined with CSLS
(:mod:`xsent_lib.align.mining`), each sentence is swapped into the other's context, and a *linear*
regressor predicts the pair's cosine from the encoding of the swapped text (mean squared error).
Rounds of "mine, then regress" repeat.

Everything here works on sentence *indices* into a corpus in reading order, plus a token matrix;
the encoder, classifier and regressor are the caller's.

Book: chapter 9 (Multilingual embeddings from monolingual text).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from xsent_lib.losses.alignment import Reduction, reduce_loss


def int_vector(name: str, x: np.ndarray) -> np.ndarray:
    """``x`` as a 1-D integer array, or a clear error naming ``name``.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    x = np.asarray(x)
    if x.ndim != 1 or not np.issubdtype(x.dtype, np.integer):
        raise ValueError(f"{name} must be a 1-D integer array, got shape {x.shape} {x.dtype}.")
    return x


def context_windows(doc_ids: np.ndarray, k: int = 1,
                    centers: np.ndarray | None = None) -> np.ndarray:
    """Indices ``[i-k, ..., i, ..., i+k]`` for each centre ``i``, with ``-1`` where the window
    leaves the document.

    ``doc_ids`` gives the document of every sentence of the corpus in reading order (documents
    contiguous). The paper never gives ``k``; ``k = 1`` (one sentence on each side) is our default,
    which keeps concatenations well under its 150-token limit. Windows never cross documents.
    Returns ``(n_centers, 2k+1)`` int64; column ``k`` is the centre.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    doc_ids = int_vector("doc_ids", doc_ids)
    if k < 0:
        raise ValueError(f"k (context size) must be >= 0, got {k}.")
    n = len(doc_ids)
    centers = np.arange(n) if centers is None else int_vector("centers", centers)
    if centers.size and (centers.min() < 0 or centers.max() >= n):
        raise ValueError(f"centers must index sentences in [0, {n}).")
    win = centers[:, None] + np.arange(-k, k + 1)[None, :]
    inside = (win >= 0) & (win < n)
    same_doc = inside & (doc_ids[np.clip(win, 0, n - 1)] == doc_ids[centers][:, None])
    return np.where(same_doc, win, -1).astype(np.int64)


def sample_same_group(centers: np.ndarray, group_ids: np.ndarray,
                      rng: np.random.Generator) -> np.ndarray:
    """For each centre ``i`` a uniformly random other sentence ``j != i`` with ``group_ids[j] ==
    group_ids[i]``.

    Used with language ids: the paper says "random index over the whole corpus", but a negative from
    another language would make the "monolingual" task trivial, so we stay inside the language.
    Vectorised: rank within the group, draw an offset, skip the centre itself.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    centers, group_ids = int_vector("centers", centers), int_vector("group_ids", group_ids)
    order = np.argsort(group_ids, kind="stable")
    groups, starts, counts = np.unique(group_ids[order], return_index=True, return_counts=True)
    rank = np.empty(len(group_ids), dtype=np.int64)
    rank[order] = np.arange(len(group_ids)) - np.repeat(starts, counts)
    g = np.searchsorted(groups, group_ids[centers])
    if bool((counts[g] < 2).any()):
        raise ValueError("a group (language) has a single sentence, so no negative can be "
                         "drawn for it.")
    offset = rng.integers(0, counts[g] - 1)
    offset = offset + (offset >= rank[centers])
    return order[starts[g] + offset]


@dataclass(frozen=True)
class ContextExamples:
    """Windows of sentence indices (``-1`` = none) with labels or regression targets.

    ``windows`` is ``(n, 2k+1)``; column ``k`` holds the sentence placed in the context.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """

    windows: np.ndarray
    targets: np.ndarray


def build_context_examples(doc_ids: np.ndarray, lang_ids: np.ndarray, *, k: int = 1,
                           centers: np.ndarray | None = None, seed: int = 0) -> ContextExamples:
    """Stage-1 examples: every centre once with its own sentence (1) and once with a random one (0).

    Negatives replace the centre by :func:`sample_same_group` over ``lang_ids``; positives and
    negatives alternate (1:1, the paper's implied ratio).
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    doc_ids, lang_ids = int_vector("doc_ids", doc_ids), int_vector("lang_ids", lang_ids)
    if len(doc_ids) != len(lang_ids):
        raise ValueError("doc_ids and lang_ids must have one entry per sentence, got "
                         f"{len(doc_ids)} and {len(lang_ids)}.")
    pos = context_windows(doc_ids, k, centers)
    neg = pos.copy()
    neg[:, k] = sample_same_group(pos[:, k], lang_ids, np.random.default_rng(seed))
    windows = np.stack([pos, neg], axis=1).reshape(-1, pos.shape[1])
    labels = np.tile(np.array([1.0, 0.0], dtype=np.float32), len(pos))
    return ContextExamples(windows, labels)


def concat_windows(tokens: torch.Tensor, lengths: torch.Tensor, windows: torch.Tensor | np.ndarray,
                   *, maxlen: int = 150, pad_id: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Concatenate the sentences of each window into one token sequence, clipped to ``maxlen``.

    ``tokens`` is the corpus' padded ``(n_sentences, L)`` id matrix and ``lengths`` its ``(n,)``
    true lengths; ``-1`` entries of ``windows`` are skipped. No separator is inserted (the paper
    describes none) and sequences longer than ``maxlen = 150`` (the paper's limit) lose their tail.
    Vectorised: one gather, a cumulative sum for the output positions, one scatter. Returns ``(ids,
    lengths)`` with ``ids`` of shape ``(n_windows, maxlen)``.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    if tokens.dim() != 2 or lengths.shape != (tokens.shape[0],):
        raise ValueError(f"tokens must be (n, L) and lengths (n,), got {tuple(tokens.shape)} and "
                         f"{tuple(lengths.shape)}.")
    if maxlen < 1:
        raise ValueError(f"maxlen must be >= 1, got {maxlen}.")
    windows = torch.as_tensor(windows, device=tokens.device).long()
    if windows.dim() != 2 or (windows >= tokens.shape[0]).any() or (windows < -1).any():
        raise ValueError(f"windows must be (n, W) with entries in [-1, {tokens.shape[0]}).")
    n_win, width = windows.shape
    L = tokens.shape[1]
    safe = windows.clamp(min=0)
    sent_len = torch.where(windows >= 0, lengths.to(tokens.device)[safe], torch.zeros_like(safe))
    mask = (torch.arange(L, device=tokens.device)[None, None, :]
            < sent_len[..., None]).reshape(n_win, width * L)
    flat = tokens[safe].reshape(n_win, width * L)
    pos = mask.long().cumsum(dim=1) - 1
    keep = mask & (pos < maxlen)
    out = torch.full((n_win, maxlen), pad_id, dtype=tokens.dtype, device=tokens.device)
    rows = torch.arange(n_win, device=tokens.device)[:, None].expand_as(pos)
    out[rows[keep], pos[keep]] = flat[keep]
    return out, sent_len.sum(dim=1).clamp(max=maxlen)


def context_classification_loss(logits: torch.Tensor, labels: torch.Tensor, *,
                                reduction: Reduction = "mean") -> torch.Tensor:
    """Binary cross-entropy of the linear classifier's logits ``(n,)`` (or ``(n, 1)``) against 0/1
    labels.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    logits = logits.squeeze(-1) if logits.dim() == 2 and logits.shape[1] == 1 else logits
    if logits.dim() != 1 or labels.shape != logits.shape:
        raise ValueError("logits must be (n,) or (n, 1) and labels (n,), got "
                         f"{tuple(logits.shape)} and {tuple(labels.shape)}.")
    if bool(((labels != 0) & (labels != 1)).any()):
        raise ValueError("labels must be 0 (random sentence) or 1 (true sentence).")
    per_row = F.binary_cross_entropy_with_logits(logits, labels.to(logits.dtype), reduction="none")
    return reduce_loss(per_row, reduction)


def coherence_regression_loss(predicted: torch.Tensor, target: torch.Tensor, *,
                              reduction: Reduction = "mean") -> torch.Tensor:
    """Squared error between the linear regressor's scores ``(n,)`` (or ``(n, 1)``) and the mined
    cosines.

    The paper sums over the data; ``"mean"`` (our default) only rescales the learning rate.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    predicted = predicted.squeeze(-1) if predicted.dim() == 2 and predicted.shape[1] == 1 \
        else predicted
    if predicted.dim() != 1 or target.shape != predicted.shape:
        raise ValueError("predicted must be (n,) or (n, 1) and target (n,), got "
                         f"{tuple(predicted.shape)} and {tuple(target.shape)}.")
    return reduce_loss((predicted - target.to(predicted.dtype).detach()) ** 2, reduction)
