"""Token-level sequence cross-entropy and perplexity for decoders and language models.

Padding (or any position whose target is ``ignore_index``) contributes nothing; the loss is the
mean over the real target tokens of the whole batch, so a long sentence weighs more than a short
one, as in the seq2seq training tasks of Conneau et al. (2018) and Aldarmaki & Diab (2019).
Book: chapter 4 (Probing: the seq2seq training tasks).
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from xsent_lib.base.masking import IGNORE_INDEX
from xsent_lib.encoders.decoder import Seq2Seq, teacher_forcing_pair


def _check_logits_targets(logits: torch.Tensor, targets: torch.Tensor) -> None:
    if not isinstance(logits, torch.Tensor) or not isinstance(targets, torch.Tensor):
        raise TypeError("logits and targets must be torch tensors.")
    if logits.dim() != targets.dim() + 1 or logits.shape[:-1] != targets.shape:
        raise ValueError(
            "logits must be targets' shape plus a vocabulary axis, got logits "
            f"{tuple(logits.shape)} and targets {tuple(targets.shape)}."
        )
    if targets.dtype != torch.long:
        raise TypeError(f"targets must be a LongTensor of token ids, got {targets.dtype}.")


def sequence_nll(
    logits: torch.Tensor, targets: torch.Tensor, *, ignore_index: int = IGNORE_INDEX
) -> tuple[torch.Tensor, torch.Tensor]:
    """Summed negative log-likelihood over the kept tokens, and how many tokens were kept.

    ``logits`` is ``[..., V]`` and ``targets`` ``[...]``; positions whose target equals
    ``ignore_index`` (pass ``pad_id`` to ignore padding) are skipped. Accumulate both numbers over a
    dev set and call :func:`perplexity` for a corpus-level value.
    Book: chapter 4 (Probing: the seq2seq training tasks).
    """
    _check_logits_targets(logits, targets)
    flat_logits = logits.reshape(-1, logits.shape[-1]).float()
    flat_targets = targets.reshape(-1)
    total = F.cross_entropy(flat_logits, flat_targets, ignore_index=ignore_index, reduction="sum")
    return total, (flat_targets != ignore_index).sum()


def sequence_cross_entropy(
    logits: torch.Tensor, targets: torch.Tensor, *, ignore_index: int = IGNORE_INDEX
) -> torch.Tensor:
    """Mean token cross-entropy over the tokens whose target is not ``ignore_index``.

    This is the per-token average of ``-log p(y_t | ...)`` over the whole batch (not a mean of
    per-sentence means). A batch with no kept token is an error rather than a silent NaN.
    Book: chapter 4 (Probing: the seq2seq training tasks).
    """
    total, count = sequence_nll(logits, targets, ignore_index=ignore_index)
    if int(count) == 0:
        raise ValueError(f"Every target equals ignore_index={ignore_index}; there is no "
                         "token to score.")
    return total / count


def perplexity(total_nll: float | torch.Tensor, n_tokens: int | torch.Tensor) -> float:
    """Corpus perplexity ``exp(total_nll / n_tokens)`` from summed NLL (natural log) and a token
    count.

    Book: chapter 10 (Cross-lingual language models: perplexity as stopping criterion).
    """
    total, count = float(total_nll), int(n_tokens)
    if count <= 0:
        raise ValueError(f"n_tokens must be positive, got {count}.")
    if total < 0 or math.isnan(total):
        raise ValueError("total_nll must be a non-negative summed negative log-likelihood, "
                         f"got {total}.")
    return math.exp(total / count)


def seq2seq_loss(
    model: Seq2Seq, src_ids: torch.Tensor, src_lengths: torch.Tensor, tgt_ids: torch.Tensor,
    tgt_lengths: torch.Tensor
) -> torch.Tensor:
    """Token-averaged cross-entropy of ``tgt + EOS`` under teacher forcing (padding ignored).

    Book: chapter 4 (Probing: the seq2seq training tasks).
    """
    dec = model.decoder
    inputs, targets = teacher_forcing_pair(tgt_ids, tgt_lengths, bos_id=dec.bos_id,
                                           eos_id=dec.eos_id, pad_id=dec.pad_id)
    return sequence_cross_entropy(model(src_ids, src_lengths, inputs), targets)
