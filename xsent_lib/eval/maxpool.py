"""Which words a max-pooling encoder keeps: per token, the share of embedding dimensions whose
maximum it holds.

Book: chapter 3 (InferSent: visualising max-pooling).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from xsent_lib.encoders import RecurrentEncoder
from xsent_lib.text import BOS_TOKEN, EOS_TOKEN
from xsent_lib.text.batching import length_buckets, pad_csr

# Words that carry no content in the max-pool analysis (determiners, auxiliaries, negation,
# connectives, prepositions, pronouns, punctuation); every other word of a sentence counts as a
# content word.
FUNCTION_WORDS: frozenset[str] = frozenset(
    "a an the this that these those some any no not n't do does did will would can could should is "
    "are was were be been being am has have had and but or because when after before while if so "
    "then there here who whom which whose what in on at of to from by with without for into onto "
    "over under behind near above below beside between through across along around up down off out "
    "he she it they we you i him her them us me his its their our your my earlier tomorrow "
    "yesterday today now . , ; : ! ? ' \"".split())


@dataclass
class MaxPoolAttribution:
    """For one sentence: its tokens (with ``<s>``/``</s>``) and how many max-pooled dimensions each
    one wins.

    ``counts`` sums to the embedding size; ``percent`` is what the thesis's Figures 3.6-3.9 plot.
    Book: chapter 3 (InferSent: visualising max-pooling).
    """

    sentence: str
    tokens: list[str]
    counts: np.ndarray

    @property
    def percent(self) -> np.ndarray:
        """Share of the dimensions won by each token, in percent.

        Book: chapter 3 (InferSent: visualising max-pooling).
        """
        return 100.0 * self.counts / max(int(self.counts.sum()), 1)


def maxpool_attribution(encoder: RecurrentEncoder, sentences: Sequence[str],
                        batch_size: int = 256) -> list[MaxPoolAttribution]:
    """Count, for each sentence, the max-pooled dimensions whose maximum is reached at
    each time step.

    Uses :meth:`RecurrentEncoder.max_pool_positions` (the first maximum wins a tie; padding
    never wins) and one ``bincount`` per batch. Unknown words keep their spelling in
    ``tokens`` (the encoder reads ``<unk>``).
    Book: chapter 3 (InferSent: visualising max-pooling).
    """
    if not isinstance(encoder, RecurrentEncoder) or encoder.pooling != "max":
        raise TypeError("maxpool_attribution needs a max-pooling RecurrentEncoder, "
                        "e.g. build_encoder('bilstm-max', ...).")
    if encoder.pipeline is None:
        raise ValueError("the encoder has no text pipeline; attach_pipeline(...) first.")
    pipe = encoder.pipeline
    words = pipe.tokenize(sentences)
    head, tail = [pipe.bos] if pipe.bos else [], [pipe.eos] if pipe.eos else []
    tokens = [head + (w or [pipe.vocab.unk_token]) + tail for w in words]
    flat, offsets = pipe.encode_flat(list(sentences))
    lengths = np.diff(offsets)
    if any(len(t) != n for t, n in zip(tokens, lengths.tolist())):
        raise RuntimeError("token and id sequence lengths disagree; the pipeline changed.")
    device = next(encoder.parameters()).device
    counts: list[np.ndarray | None] = [None] * len(tokens)
    was_training = encoder.training
    encoder.eval()
    try:
        with torch.inference_mode():
            for idx in length_buckets(lengths, batch_size):
                ids, lens = pad_csr(flat, offsets, idx)
                pos = encoder.max_pool_positions(ids.to(device), lens.to(device)).cpu().numpy()
                width = ids.shape[1]
                flat_pos = (np.arange(len(idx))[:, None] * width + pos).ravel()  # [batch, dim]
                hist = np.bincount(flat_pos, minlength=len(idx) * width)
                for row, i in enumerate(idx.tolist()):
                    counts[i] = hist.reshape(len(idx), width)[row, : lengths[i]]
    finally:
        encoder.train(was_training)
    return [MaxPoolAttribution(s, t, c) for s, t, c in zip(sentences, tokens, counts)]


def maxpool_summary(attributions: Sequence[MaxPoolAttribution],
                    function_words: frozenset[str] = FUNCTION_WORDS) -> dict[str, float]:
    """How concentrated max-pooling is, averaged over sentences (all shares in percent).

    ``boundary`` = dimensions won by ``<s>``/``</s>``; ``content`` = won by content words (not in
    ``function_words``), against ``content_tokens`` = the share of positions that hold content words
    (what an even spread would give); ``top_word`` = the share of the single best token.
    Book: chapter 3 (InferSent: visualising max-pooling).
    """
    if not attributions:
        raise ValueError("no attributions to summarise.")
    boundary, content, content_tokens, top = [], [], [], []
    for a in attributions:
        share = a.percent
        is_boundary = np.array([t in (BOS_TOKEN, EOS_TOKEN) for t in a.tokens])
        is_content = np.array([t not in function_words for t in a.tokens]) & ~is_boundary
        boundary.append(share[is_boundary].sum())
        content.append(share[is_content].sum())
        content_tokens.append(100.0 * is_content.mean())
        top.append(share.max())
    return {"boundary": float(np.mean(boundary)), "content": float(np.mean(content)),
            "content_tokens": float(np.mean(content_tokens)), "top_word": float(np.mean(top)),
            "n_sentences": len(attributions)}


def maxpool_items(encoders: Mapping[str, RecurrentEncoder], sentences: Sequence[str],
                  titles: Sequence[str]) -> list[dict[str, Any]]:
    """Gallery items for :func:`xsent_lib.viz.infersent.maxpool_gallery`: per sentence its tokens
    and, for each named encoder, the percentage of dimensions each token wins.

    Book: chapter 3 (InferSent: visualising max-pooling).
    """
    if len(titles) != len(sentences):
        raise ValueError(f"need one title per sentence, got {len(titles)} titles for "
                         f"{len(sentences)} sentences.")
    per_model = {m: maxpool_attribution(enc, list(sentences)) for m, enc in encoders.items()}
    first = next(iter(per_model.values()))
    return [{"title": title, "tokens": first[i].tokens,
             "percents": {m: per_model[m][i].percent for m in per_model}}
            for i, title in enumerate(titles)]
