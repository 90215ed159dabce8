"""XLM's text side (Lample & Conneau, 2019): one shared subword vocabulary, and the streams and
bitext pairs pretraining reads.

* :func:`shared_vocabulary` learns one sentencepiece model for all languages on sentences drawn with
  XLM's smoothed language distribution ``q_i ∝ p_i ** alpha`` (alpha 0.5 in the paper), so a small
  language is not cut into characters; :func:`vocabulary_stats` measures how finely each language is
  cut.
* :func:`build_lm_corpus` turns monolingual text into streams (sentences joined by ``</s>``, cut
  into rows of ``stream_len`` tokens) and bitext into id pairs for TLM, holding out streams to
  measure perplexity.

Pretraining on an :class:`LMCorpus` is :mod:`xsent_lib.train.xlm`.

Book: chapter 10 (Cross-lingual language models, XLM).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from xsent_lib.losses.lm import language_sampling_probs, token_streams
from xsent_lib.text import EOS_TOKEN, PAD_TOKEN, UNK_TOKEN, TextPipeline, Vocab, train_sentencepiece

MASK_TOKEN = "<mask>"
#: specials of the shared vocabulary, ids 0..3: padding, unknown piece, sentence end (XLM's
#: ``</s>``), mask
XLM_SPECIALS = (PAD_TOKEN, UNK_TOKEN, EOS_TOKEN, MASK_TOKEN)


# --------------------------------------------------------------------------------------- vocabulary
def sample_sentences(corpora: Mapping[str, Sequence[str]], n: int, alpha: float,
                     seed: int = 0) -> list[str]:
    """``n`` sentences drawn from ``corpora`` (language -> sentences) with XLM's
    ``q_i ∝ p_i ** alpha``.

    The language of each draw follows :func:`~xsent_lib.losses.lm.language_sampling_probs`; within a
    language sentences are drawn uniformly (with replacement once a small language is exhausted).
    Book: chapter 10 (Cross-lingual language models, XLM: the shared vocabulary).
    """
    langs = [lang for lang in corpora if len(corpora[lang])]
    if not langs:
        raise ValueError("corpora holds no sentence; pass {language: [sentences, ...]}.")
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}.")
    q = language_sampling_probs([len(corpora[lang]) for lang in langs], alpha)
    rng = np.random.default_rng(seed)
    per_lang = rng.multinomial(n, q)
    out: list[str] = []
    for lang, k in zip(langs, per_lang):
        text = corpora[lang]
        idx = rng.choice(len(text), size=int(k), replace=bool(k > len(text)))
        out += [text[i] for i in idx]
    rng.shuffle(out)
    return out


def shared_vocabulary(corpora: Mapping[str, Sequence[str]], vocab_size: int, workdir: str | Path, *,
                      alpha: float = 0.5, n_sample: int | None = None, seed: int = 0,
                      model_type: str = "bpe") -> TextPipeline:
    """One sentencepiece vocabulary for every language, learned on :func:`sample_sentences`
    (``alpha``).

    XLM learns 80k-95k BPE codes with fastBPE on sentences sampled with alpha = 0.5; here
    sentencepiece's BPE (``model_type``) with ``vocab_size`` pieces, trained offline in ``workdir``.
    ``n_sample`` defaults to all sentences. The returned pipeline ends every sentence with ``</s>``;
    its vocabulary holds :data:`XLM_SPECIALS` then the pieces seen in ``corpora``, with their counts
    over all of ``corpora`` (the MLM target weights read them).
    Book: chapter 10 (Cross-lingual language models, XLM: the shared vocabulary).
    """
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    total = sum(len(v) for v in corpora.values())
    sample = sample_sentences(corpora, n_sample or total, alpha, seed)
    tokenizer = train_sentencepiece(sample, vocab_size, workdir / f"xlm-a{alpha:g}-{vocab_size}",
                                    seed=seed, model_type=model_type)
    pieces = tokenizer.tokenize_batch([s for text in corpora.values() for s in text])
    vocab = Vocab.build(pieces, specials=XLM_SPECIALS)
    return TextPipeline(tokenizer, vocab, eos=EOS_TOKEN)


def vocabulary_stats(pipeline: TextPipeline,
                     corpora: Mapping[str, Sequence[str]]) -> dict[str, dict[str, float]]:
    """Per language: pieces per word, share of words cut into single characters, share of unknown
    pieces.

    A language the vocabulary under-serves is cut into more, shorter pieces.
    Book: chapter 10 (Cross-lingual language models, XLM: the shared vocabulary).
    """
    out = {}
    for lang, text in corpora.items():
        words = [w for s in text for w in s.split()]
        if not words:
            continue
        pieces = pipeline.tokenizer.tokenize_batch(words)
        n_pieces = sum(len(p) for p in pieces)
        chars = sum(1 for p in pieces if len(p) > 1
                    and all(len(x.lstrip("\u2581")) <= 1 for x in p))
        unk = sum(1 for p in pieces for x in p if x not in pipeline.vocab)
        out[lang] = {"pieces per word": n_pieces / len(words),
                     "words cut into characters": chars / len(words),
                     "unknown pieces": unk / max(n_pieces, 1)}
    return out


# --------------------------------------------------------------------------------------------- data
@dataclass
class LMCorpus:
    """Everything pretraining reads: per-language streams, held-out streams, bitext pairs, piece
    counts.

    ``streams[lang]`` / ``heldout[lang]`` are LongTensors ``[rows, stream_len]``; ``pairs[(a, b)]``
    are two lists of id arrays (each sentence ends with ``</s>``); ``lang_ids`` maps a language to
    its embedding id; ``n_sentences`` counts the monolingual sentences (the ``p_i`` of the sampling
    formula).
    Book: chapter 10 (Cross-lingual language models, XLM: text streams).
    """

    pipeline: TextPipeline
    lang_ids: dict[str, int]
    streams: dict[str, torch.Tensor]
    heldout: dict[str, torch.Tensor]
    pairs: dict[tuple[str, str], tuple[list[np.ndarray], list[np.ndarray]]]
    n_sentences: dict[str, int]
    stream_len: int

    @property
    def mask_id(self) -> int:
        """Id of ``<mask>``. Book: chapter 10 (Cross-lingual language models, XLM)."""
        return self.pipeline.vocab.stoi[MASK_TOKEN]

    @property
    def special_ids(self) -> tuple[int, ...]:
        """Ids never masked: padding, unknown, ``</s>``, ``<mask>``. Book: chapter 10 (XLM)."""
        return tuple(self.pipeline.vocab.stoi[t] for t in XLM_SPECIALS)

    def tokens(self) -> dict[str, int]:
        """Training tokens per language (streams) and per bitext pair. Book: chapter 10 (XLM)."""
        out = {lang: int(s.numel()) for lang, s in self.streams.items()}
        out.update({f"{a}-{b}": int(sum(len(x) for x in src) + sum(len(y) for y in tgt))
                    for (a, b), (src, tgt) in self.pairs.items()})
        return out


def build_lm_corpus(pipeline: TextPipeline, monolingual: Mapping[str, Sequence[str]],
                    bitext: Mapping[tuple[str, str],
                                    tuple[Sequence[str], Sequence[str]]] | None = None, *,
                    languages: Sequence[str] | None = None, stream_len: int = 64,
                    heldout_rows: int = 8, max_pair_len: int | None = None) -> LMCorpus:
    """Encode text for pretraining: streams per language (the last ``heldout_rows`` rows held out)
    and bitext.

    ``languages`` fixes the language ids (default: the monolingual languages, then those only in the
    bitext); a language keeps its id in every model of a chapter when the same list is passed.
    ``max_pair_len`` truncates each side of a pair (keeping its ``</s>``) so a TLM row fits the
    model.
    Book: chapter 10 (Cross-lingual language models, XLM: text streams).
    """
    bitext = dict(bitext or {})
    order = list(languages) if languages is not None else list(dict.fromkeys(
        [*monolingual, *[x for pair in bitext for x in pair]]))
    lang_ids = {lang: i for i, lang in enumerate(order)}
    for lang in [*monolingual, *[x for pair in bitext for x in pair]]:
        if lang not in lang_ids:
            raise ValueError(f"language {lang!r} has text but is not in languages={order}.")
    streams, heldout = {}, {}
    for lang, text in monolingual.items():
        flat, _ = pipeline.encode_flat(list(text))
        rows = token_streams(torch.as_tensor(flat), stream_len)
        if rows.shape[0] <= heldout_rows:
            raise ValueError(f"{lang}: {rows.shape[0]} streams of {stream_len} tokens, need more "
                             f"than heldout_rows={heldout_rows}; give more text or shorter "
                             "streams.")
        streams[lang], heldout[lang] = rows[:-heldout_rows], rows[-heldout_rows:]
    eos = pipeline.vocab.stoi[EOS_TOKEN]
    pairs = {}
    for (a, b), (src, tgt) in bitext.items():
        if len(src) != len(tgt) or not len(src):
            raise ValueError(f"bitext {a}-{b}: {len(src)} source and {len(tgt)} target sentences; "
                             "need equal, > 0.")
        enc = [pipeline.encode(list(side)) for side in (src, tgt)]
        if max_pair_len is not None:
            enc = [[x if len(x) <= max_pair_len else np.append(x[: max_pair_len - 1], eos)
                    for x in side]
                   for side in enc]
        pairs[(a, b)] = (enc[0], enc[1])
    return LMCorpus(pipeline, lang_ids, streams, heldout, pairs,
                    {k: len(v) for k, v in monolingual.items()}, stream_len)
