"""Cross-lingual language-model objectives of XLM (Lample & Conneau, 2019): CLM, MLM and TLM.

- CLM predicts each token from the tokens before it (a causal attention mask, no context carried
  across batches).
- MLM picks 15% of the real tokens of a batch, replaces 80% of them by ``[MASK]``, 10% by a random
  token and keeps 10%, and predicts the originals. As in XLM the positions to predict are drawn
  without replacement from a multinomial whose weights are ``frequency ** -0.5`` (pass
  ``token_weights=None`` for BERT's uniform choice). Padding and special tokens are never picked.
- TLM concatenates a parallel pair, resets the positions of the second sentence to 0, gives every
  token its language id, and applies MLM to both sides at once.
- Batches are drawn per language with ``q_i = p_i**alpha / sum_j p_j**alpha``.

Every random draw takes an optional seeded ``torch.Generator``; nothing loops over tokens in Python.
Book: chapter 10 (Cross-lingual language models, XLM).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import torch

from xsent_lib.base.masking import check_batch, length_mask
from xsent_lib.losses.seq2seq import IGNORE_INDEX, sequence_cross_entropy, sequence_nll


class LanguageModel(Protocol):
    """What the LM losses need from a model: per-token states and a tied output projection.

    :class:`xsent_lib.encoders.transformer.TransformerSentenceEncoder` provides both.
    Book: chapter 10 (Cross-lingual language models, XLM).
    """

    def hidden_states(
        self,
        token_ids: torch.Tensor,
        lengths: torch.Tensor,
        langs: torch.Tensor | None = None,
        positions: torch.Tensor | None = None,
        causal: bool = False,
    ) -> torch.Tensor:
        """Per-token states ``[B, T, d]`` (``causal=True``: each token sees only its left context).

        Book: chapter 10 (Cross-lingual language models, XLM).
        """

    def lm_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """Vocabulary logits ``[..., V]`` of states ``[..., d]``.

        Book: chapter 10 (Cross-lingual language models, XLM).
        """


@dataclass(frozen=True)
class MaskedBatch:
    """An MLM-corrupted batch: model inputs, prediction targets and the chosen positions.

    ``targets`` holds the original id at each chosen position and ``IGNORE_INDEX`` elsewhere;
    ``replaced_by`` is 0 (``[MASK]``), 1 (random token) or 2 (kept) at chosen positions, -1
    elsewhere. ``chosen``, when given, lists the flat indices of the ``selected`` positions in
    ascending order: :func:`mlm_loss` then gathers them by index, without the host reading how
    many there are (a boolean gather waits for the device).
    Book: chapter 10 (Cross-lingual language models, XLM).
    """

    inputs: torch.Tensor
    targets: torch.Tensor
    selected: torch.Tensor
    replaced_by: torch.Tensor
    chosen: torch.Tensor | None = None


@dataclass(frozen=True)
class PairBatch:
    """A TLM batch: each row is a source sentence followed by its translation.

    ``positions`` restart at 0 where the translation starts; ``langs`` holds the language id of
    every token (padding carries the source language; it is masked out of attention anyway);
    ``split`` is the length of the source part of each row.
    Book: chapter 10 (Cross-lingual language models, XLM: TLM).
    """

    token_ids: torch.Tensor
    lengths: torch.Tensor
    positions: torch.Tensor
    langs: torch.Tensor
    split: torch.Tensor


def clm_targets(token_ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Next-token targets: ``targets[b, t] = token_ids[b, t+1]``, ``IGNORE_INDEX`` past the sentence
    end.

    The last real token of each row has no target (nothing follows it in the batch), so a row of
    length ``n`` yields ``n - 1`` predictions.
    Book: chapter 10 (Cross-lingual language models, XLM: CLM).
    """
    check_batch(token_ids, lengths)
    shifted = torch.full_like(token_ids, IGNORE_INDEX)
    shifted[:, :-1] = token_ids[:, 1:]
    keep = length_mask(lengths - 1, token_ids.shape[1])
    return torch.where(keep, shifted, torch.full_like(shifted, IGNORE_INDEX))


def clm_loss(
    model: LanguageModel,
    token_ids: torch.Tensor,
    lengths: torch.Tensor,
    langs: torch.Tensor | None = None,
) -> torch.Tensor:
    """Causal LM loss ``-mean_t log P(w_t | w_<t)`` over the real tokens of a batch.

    Book: chapter 10 (Cross-lingual language models, XLM: CLM).
    """
    if getattr(model, "dense_batch", False):  # trusted, no padding: all but the last predict
        hidden = model.hidden_states(token_ids, lengths, langs=langs, causal=True)
        return _mean_nll(model, model.lm_logits(hidden[:, :-1].reshape(-1, hidden.shape[-1])),
                         token_ids[:, 1:].reshape(-1).to(hidden.device))
    targets = clm_targets(token_ids, lengths)
    if not getattr(model, "inputs_trusted", False) and int(lengths.max()) < 2:
        raise ValueError("CLM needs sentences of at least 2 tokens (one to read, one to predict).")
    hidden = model.hidden_states(token_ids, lengths, langs=langs, causal=True)
    keep = targets != IGNORE_INDEX
    return _mean_nll(model, model.lm_logits(hidden[keep]), targets[keep])


def _mean_nll(model: LanguageModel, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """:func:`sequence_cross_entropy`; inside the model's trusted batches (built by the library,
    never without a target) without its check that reads the target count back to the host."""
    if getattr(model, "inputs_trusted", False):
        total, count = sequence_nll(logits, targets)
        return total / count
    return sequence_cross_entropy(logits, targets)


def frequency_smoothed_weights(
    counts: Sequence[int] | np.ndarray | torch.Tensor,
    exponent: float = 0.5,
    special_ids: Sequence[int] = (0,),
) -> torch.Tensor:
    """Per-token sampling weights ``max(count, 1) ** -exponent`` (0 for special ids).

    XLM draws the tokens to predict with weights proportional to ``sqrt(1 / frequency)``, i.e.
    ``exponent=0.5``; this subsamples frequent words. Tokens never counted get the weight of a
    count of 1. Pass ``Vocab.counts`` for ``counts``.
    Book: chapter 10 (Cross-lingual language models, XLM: MLM target sampling).
    """
    counts_t = torch.as_tensor(np.asarray(counts), dtype=torch.float64)
    if counts_t.dim() != 1 or counts_t.numel() == 0 or bool((counts_t < 0).any()):
        raise ValueError("counts must be a non-empty 1-D array of non-negative token counts "
                         "(Vocab.counts).")
    if not exponent >= 0:
        raise ValueError(f"exponent must be >= 0, got {exponent!r}.")
    weights = counts_t.clamp(min=1.0).pow(-float(exponent))
    specials = torch.as_tensor(list(special_ids), dtype=torch.long)
    if specials.numel() and (int(specials.min()) < 0 or int(specials.max()) >= counts_t.numel()):
        raise ValueError(f"special_ids must be ids in [0, {counts_t.numel()}), got "
                         f"{list(special_ids)}.")
    weights[specials] = 0.0
    return weights.float()


def mlm_mask(
    token_ids: torch.Tensor,
    lengths: torch.Tensor,
    *,
    vocab_size: int,
    mask_id: int,
    special_ids: Sequence[int] = (0,),
    token_weights: torch.Tensor | None = None,
    mask_prob: float = 0.15,
    p_mask: float = 0.8,
    p_random: float = 0.1,
    generator: torch.Generator | None = None,
) -> MaskedBatch:
    """Corrupt a batch for masked-LM training (BERT's 80/10/10 scheme, XLM's target sampling).

    Exactly ``round(mask_prob * n)`` positions are chosen among the ``n`` eligible tokens of the
    batch (inside ``lengths`` and not in ``special_ids``; at least one when ``n > 0``), without
    replacement, with probability proportional to ``token_weights[token]`` (uniform when None; see
    :func:`frequency_smoothed_weights`). Of the chosen positions a fraction ``p_mask`` becomes
    ``mask_id``, ``p_random`` a random non-special token drawn uniformly, and the rest stay as they
    were. Random draws come from ``generator`` (the global torch RNG when None).
    Book: chapter 10 (Cross-lingual language models, XLM: MLM).
    """
    check_batch(token_ids, lengths)
    if not (0.0 < mask_prob <= 1.0):
        raise ValueError(f"mask_prob must lie in (0, 1], got {mask_prob!r}.")
    if p_mask < 0 or p_random < 0 or p_mask + p_random > 1:
        raise ValueError("p_mask and p_random must be >= 0 with p_mask + p_random <= 1, got "
                         f"{p_mask}, {p_random}.")
    specials = sorted({int(i) for i in special_ids} | {int(mask_id)})
    if not (0 <= mask_id < vocab_size) or any(not (0 <= i < vocab_size) for i in specials):
        raise ValueError(f"mask_id {mask_id} and special_ids {list(special_ids)} must be ids in "
                         f"[0, {vocab_size}).")
    if token_ids.numel() and int(token_ids.max()) >= vocab_size:
        raise ValueError(f"token_ids contain id {int(token_ids.max())} >= vocab_size={vocab_size}.")
    device = token_ids.device
    gen_device = generator.device if generator is not None else device
    is_special = torch.zeros(vocab_size, dtype=torch.bool, device=device)
    is_special[torch.tensor(specials, device=device)] = True

    if token_weights is None:
        weights = (~is_special).float()
    else:
        if token_weights.shape != (vocab_size,):
            raise ValueError(f"token_weights must have shape [{vocab_size}], got "
                             f"{tuple(token_weights.shape)}.")
        weights = token_weights.to(device=device, dtype=torch.float32).masked_fill(is_special, 0.0)
    eligible = length_mask(lengths, token_ids.shape[1]) & ~is_special[token_ids]
    flat_weights = torch.where(eligible, weights[token_ids],
                               torch.zeros((), device=device)).reshape(-1)
    n_candidates = int((flat_weights > 0).sum())
    if n_candidates == 0:
        raise ValueError("No token of this batch can be masked (all are padding, special, or "
                         "zero-weight).")
    n_select = min(max(1, round(mask_prob * int(eligible.sum()))), n_candidates)
    chosen = torch.multinomial(flat_weights.to(gen_device), n_select, replacement=False,
                               generator=generator)
    chosen = chosen.to(device)

    draw = torch.rand(n_select, generator=generator, device=gen_device).to(device)
    how = torch.full((n_select,), 2, dtype=torch.long, device=device)
    how[draw < p_mask + p_random] = 1
    how[draw < p_mask] = 0
    normal_ids = torch.nonzero(~is_special).squeeze(1)
    if normal_ids.numel() == 0:
        raise ValueError("Every vocabulary id is special; there is no random token to draw.")
    random_pick = torch.randint(normal_ids.numel(), (n_select,), generator=generator,
                                device=gen_device).to(device)

    flat_ids = token_ids.reshape(-1)
    original = flat_ids[chosen]
    replacement = torch.where(how == 0, torch.full_like(original, mask_id), original)
    replacement = torch.where(how == 1, normal_ids[random_pick], replacement)

    inputs = flat_ids.clone()
    inputs[chosen] = replacement
    targets = torch.full_like(flat_ids, IGNORE_INDEX)
    targets[chosen] = original
    replaced_by = torch.full_like(flat_ids, -1)
    replaced_by[chosen] = how
    selected = torch.zeros_like(flat_ids, dtype=torch.bool)
    selected[chosen] = True
    shape = token_ids.shape
    return MaskedBatch(inputs.view(shape), targets.view(shape), selected.view(shape),
                       replaced_by.view(shape), torch.sort(chosen).values)


def mlm_loss(
    model: LanguageModel,
    masked: MaskedBatch,
    lengths: torch.Tensor,
    langs: torch.Tensor | None = None,
    positions: torch.Tensor | None = None,
) -> torch.Tensor:
    """Masked-LM loss ``-mean_{t in chosen} log P(w_t | corrupted input)``.

    Only the chosen positions go through the output projection (the vocabulary softmax is the
    expensive part), gathered by ``masked.chosen`` when the batch lists them. For TLM pass the
    ``langs`` and ``positions`` of a :class:`PairBatch`.
    Book: chapter 10 (Cross-lingual language models, XLM: MLM and TLM).
    """
    hidden = model.hidden_states(masked.inputs, lengths, langs=langs, positions=positions)
    if masked.chosen is None:
        return _mean_nll(model, model.lm_logits(hidden[masked.selected]),
                         masked.targets[masked.selected])
    picked = hidden.reshape(-1, hidden.shape[-1]).index_select(0, masked.chosen)
    return _mean_nll(model, model.lm_logits(picked),
                     masked.targets.reshape(-1).index_select(0, masked.chosen))


def tlm_concat(
    src_ids: torch.Tensor,
    src_lengths: torch.Tensor,
    tgt_ids: torch.Tensor,
    tgt_lengths: torch.Tensor,
    *,
    src_lang: int | torch.Tensor,
    tgt_lang: int | torch.Tensor,
    pad_id: int = 0,
) -> PairBatch:
    """Concatenate each source sentence with its translation into one row, for TLM.

    Row ``b`` is ``src[b, :ls] + tgt[b, :lt]`` followed by padding; positions run ``0..ls-1`` then
    restart ``0..lt-1`` (XLM resets the target positions to ease alignment); language ids are
    ``src_lang`` on the first part and ``tgt_lang`` on the second (ints, or LongTensors ``[B]``).
    Add any separator tokens (e.g. ``</s>``) when tokenising; this function keeps the tokens as
    given.
    Book: chapter 10 (Cross-lingual language models, XLM: TLM).
    """
    check_batch(src_ids, src_lengths)
    check_batch(tgt_ids, tgt_lengths)
    if src_ids.shape[0] != tgt_ids.shape[0]:
        raise ValueError(f"src and tgt batches differ in size: {src_ids.shape[0]} vs "
                         f"{tgt_ids.shape[0]}.")
    batch, device = src_ids.shape[0], src_ids.device
    src_lang_t = torch.as_tensor(src_lang, dtype=torch.long, device=device).expand(batch)
    tgt_lang_t = torch.as_tensor(tgt_lang, dtype=torch.long, device=device).expand(batch)
    total = src_lengths + tgt_lengths
    steps = torch.arange(int(total.max()), device=device).unsqueeze(0)
    split = src_lengths.unsqueeze(1)
    in_src = steps < split
    valid = steps < total.unsqueeze(1)
    src_part = src_ids.gather(1, steps.clamp(max=src_ids.shape[1] - 1).expand(batch, -1))
    tgt_pos = (steps - split).clamp(min=0, max=tgt_ids.shape[1] - 1)
    tgt_part = tgt_ids.gather(1, tgt_pos)
    token_ids = torch.where(in_src, src_part, tgt_part).masked_fill(~valid, pad_id)
    positions = torch.where(in_src, steps.expand(batch, -1), steps - split).masked_fill(~valid, 0)
    langs = torch.where(in_src | ~valid, src_lang_t.unsqueeze(1), tgt_lang_t.unsqueeze(1))
    return PairBatch(token_ids, total, positions, langs, src_lengths.clone())


def token_streams(flat_ids: torch.Tensor, stream_len: int = 256) -> torch.Tensor:
    """Cut a concatenated corpus (1-D ids, sentences joined with their separators) into rows of
    ``stream_len``.

    XLM trains CLM/MLM on such streams (256 tokens) rather than on single sentences; the ragged
    tail shorter than ``stream_len`` is dropped.
    Book: chapter 10 (Cross-lingual language models, XLM: text streams).
    """
    if not isinstance(flat_ids, torch.Tensor) or flat_ids.dim() != 1:
        raise TypeError("flat_ids must be a 1-D tensor of token ids (the corpus joined "
                        "end to end).")
    if not isinstance(stream_len, int) or stream_len < 2:
        raise ValueError(f"stream_len must be an integer >= 2, got {stream_len!r}.")
    n_rows = flat_ids.numel() // stream_len
    if n_rows == 0:
        raise ValueError(f"The corpus has {flat_ids.numel()} tokens, fewer than one stream of "
                         f"{stream_len}.")
    return flat_ids[: n_rows * stream_len].view(n_rows, stream_len)


def language_sampling_probs(counts: Sequence[float] | np.ndarray, alpha: float) -> np.ndarray:
    """Smoothed language distribution ``q_i = p_i**alpha / sum_j p_j**alpha`` with ``p_i = n_i /
    sum_k n_k``.

    ``alpha < 1`` upsamples low-resource languages: XLM uses 0.5 to sample sentences for the
    shared BPE and 0.7 to pick the language of each CLM/MLM batch. ``alpha = 1`` keeps the corpus
    proportions; ``alpha = 0`` is uniform over the languages that have data. A language with
    ``n_i = 0`` always gets probability 0.
    Book: chapter 10 (Cross-lingual language models, XLM: language sampling).
    """
    n = np.asarray(counts, dtype=np.float64)
    if n.ndim != 1 or n.size == 0 or not np.isfinite(n).all() or (n < 0).any() or n.sum() <= 0:
        raise ValueError("counts must be a non-empty 1-D array of non-negative sentence counts "
                         "with a positive sum.")
    if not (np.isfinite(alpha) and alpha >= 0):
        raise ValueError(f"alpha must be a finite number >= 0, got {alpha!r}.")
    p = n / n.sum()
    smoothed = np.where(p > 0, np.power(p, alpha, where=p > 0, out=np.zeros_like(p)), 0.0)
    return smoothed / smoothed.sum()


def sample_languages(
    probs: Sequence[float] | np.ndarray, n_draws: int, generator: torch.Generator | None = None
) -> torch.Tensor:
    """Draw ``n_draws`` language indices (one per batch) from ``probs``, e.g.
    :func:`language_sampling_probs`.

    Book: chapter 10 (Cross-lingual language models, XLM: language sampling).
    """
    q = torch.as_tensor(np.asarray(probs, dtype=np.float64))
    if q.dim() != 1 or bool((q < 0).any()) or not abs(float(q.sum()) - 1.0) < 1e-6:
        raise ValueError("probs must be a 1-D probability vector (non-negative, summing to 1).")
    if not isinstance(n_draws, int) or n_draws < 1:
        raise ValueError(f"n_draws must be a positive integer, got {n_draws!r}.")
    return torch.multinomial(q, n_draws, replacement=True, generator=generator)
