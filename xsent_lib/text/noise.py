"""Input noise on token-id batches: word shuffling (Wieting et al.'s regulariser for BLSTM-SP).

With probability ``rate`` a sentence's words are put in a uniformly random order; the other
sentences are left alone. A *word* is a run of tokens that starts at a word-start token: with
word-level tokens every token starts a word, with sentencepiece the pieces marked ``▁`` start one,
so a word's pieces stay together and in order (the paper shuffles words; shuffling pieces would also
scramble the inside of words). The shuffle is one stable ``argsort`` of per-token keys, so a whole
padded batch is permuted without a Python loop: a token's key is its word's random key in a shuffled
sentence, its word index otherwise, and ``+inf`` on padding.
Book: chapter 8 (Paraphrastic embeddings from bitext).
"""
from __future__ import annotations

from collections.abc import Sequence

import torch

WORD_START = "\u2581"  # sentencepiece's word-boundary marker


def word_start_table(tokens: Sequence[str], marker: str = WORD_START) -> torch.Tensor:
    """Boolean tensor ``[vocab]``: does the token with this id begin a word?

    Tokens beginning with ``marker`` (sentencepiece's ``▁``) start a word; so do special tokens
    written ``<...>`` (padding, unknown, sentence marks), which are words on their own.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    if isinstance(tokens, str) or not all(isinstance(t, str) for t in tokens):
        raise TypeError("tokens must be a sequence of strings (the vocabulary in id order).")
    return torch.tensor([t.startswith(marker) or (t.startswith("<") and t.endswith(">"))
                         for t in tokens],
                        dtype=torch.bool)


def _check(token_ids: torch.Tensor, lengths: torch.Tensor) -> None:
    if token_ids.dim() != 2 or lengths.dim() != 1 or lengths.shape[0] != token_ids.shape[0]:
        raise ValueError(f"need token_ids [B, T] and lengths [B], got {tuple(token_ids.shape)} and "
                         f"{tuple(lengths.shape)}.")
    if lengths.numel() and (int(lengths.min()) < 0 or int(lengths.max()) > token_ids.shape[1]):
        raise ValueError(f"lengths must lie in [0, {token_ids.shape[1]}].")


def word_index(token_ids: torch.Tensor, lengths: torch.Tensor,
               word_starts: torch.Tensor | None = None) -> torch.Tensor:
    """Index of the word each token belongs to, ``[B, T]`` (``-1`` on padding).

    ``word_starts`` is a :func:`word_start_table` indexed by token id; ``None`` means every token is
    a word. A sentence whose first token is not a word start still opens its first word there.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    _check(token_ids, lengths)
    positions = torch.arange(token_ids.shape[1], device=token_ids.device)
    valid = positions[None, :] < lengths[:, None].to(token_ids.device)
    starts = torch.ones_like(token_ids, dtype=torch.bool) if word_starts is None else \
        word_starts.to(token_ids.device)[token_ids]
    starts = starts.clone()
    starts[:, 0] = True
    idx = torch.cumsum(starts.long(), dim=1) - 1
    return torch.where(valid, idx, torch.full_like(idx, -1))


def shuffle_words_with_keys(token_ids: torch.Tensor, lengths: torch.Tensor, chosen: torch.Tensor,
                            keys: torch.Tensor,
                            word_starts: torch.Tensor | None = None) -> torch.Tensor:
    """The deterministic core of :func:`shuffle_words`: reorder the words of the ``chosen`` rows by
    ``keys``.

    ``chosen`` is a boolean ``[B]``; ``keys`` a float ``[B, T]`` holding one key per word (word
    ``j`` of row ``b`` goes by ``keys[b, j]``, ascending; ties keep the original order). Padding
    stays in place.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    widx = word_index(token_ids, lengths, word_starts)
    if chosen.shape != lengths.shape or keys.shape != token_ids.shape:
        raise ValueError(f"chosen must be [B] and keys [B, T], got {tuple(chosen.shape)} and "
                         f"{tuple(keys.shape)}.")
    valid = widx >= 0
    word_key = torch.gather(keys.to(torch.float64), 1, widx.clamp(min=0))
    order_key = torch.where(chosen[:, None].to(token_ids.device), word_key, widx.to(torch.float64))
    order_key = torch.where(valid, order_key, torch.full_like(order_key, float("inf")))
    perm = torch.sort(order_key, dim=1, stable=True).indices
    return torch.gather(token_ids, 1, perm)


def shuffle_words(token_ids: torch.Tensor, lengths: torch.Tensor, rate: float = 0.3, *,
                  word_starts: torch.Tensor | None = None,
                  generator: torch.Generator | None = None) -> torch.Tensor:
    """With probability ``rate`` per sentence, put its words in a uniformly random order (Wieting et
    al.: 0.3).

    ``token_ids`` is a padded ``[B, T]`` batch with ``lengths`` ``[B]``; returns a new tensor with
    the same multiset of tokens per row and the padding untouched. ``word_starts`` (from
    :func:`word_start_table`) groups sentencepieces into words; ``None`` treats each token as a
    word. Uses ``generator`` when given, else torch's global generator (seeded by the training
    loop).
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"rate must lie in [0, 1], got {rate!r}.")
    _check(token_ids, lengths)
    b, t = token_ids.shape
    chosen = torch.rand(b, generator=generator) < rate
    keys = torch.rand(b, t, generator=generator, dtype=torch.float64)
    return shuffle_words_with_keys(token_ids, lengths, chosen.to(token_ids.device),
                                   keys.to(token_ids.device), word_starts)
