"""Per-language inputs of small sentence encoders: a text pipeline and a lookup table started from
the language's own monolingual word vectors, one table shared by several languages, and seeded
random tables.

Book: chapter 7 (Joint vs transfer vs mapping).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from xsent_lib.data.word_spaces import LanguageSpace, cbow_space
from xsent_lib.text import BOS_TOKEN, EOS_TOKEN, TextPipeline, WordTokenizer


@dataclass
class LanguageSetup:
    """One language's text pipeline (``<s>``/``</s>`` added) and word vectors: CBOW vectors trained
    on its monolingual text (the paper's per-language fastText), which start every lookup table of
    that language (``weights``, one row per vocabulary entry) and feed the SIF baselines.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """

    pipeline: TextPipeline
    space: LanguageSpace
    weights: np.ndarray


def random_table(n_words: int, dim: int, seed: int | Sequence[int]) -> np.ndarray:
    """A float32 ``[n_words, dim]`` lookup table drawn from N(0, 0.1²) with
    ``np.random.default_rng(seed)``, the padding row 0 zero.

    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    if n_words < 1 or dim < 1:
        raise ValueError(f"need n_words >= 1 and dim >= 1, got {n_words} and {dim}.")
    weights = np.random.default_rng(seed).normal(0, 0.1, (n_words, dim))
    weights[0] = 0.0
    return weights.astype(np.float32)


def language_setup(lang: str, texts: Sequence[str], mono: Sequence[str], dim: int,
                   seed: int) -> LanguageSetup:
    """``lang``'s pipeline over ``texts`` (everything the language's encoders will read), ``dim``-d
    CBOW vectors trained on ``mono`` (``seed``, 5 epochs, every word kept), and a lookup table that
    holds a word's CBOW vector where it has one and a seeded random row (:func:`random_table`)
    elsewhere.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    pipeline = TextPipeline.fit(list(texts), WordTokenizer(), bos=BOS_TOKEN, eos=EOS_TOKEN)
    space = cbow_space(lang, list(mono), dim=dim, seed=seed, epochs=5, min_count=1)
    weights = random_table(len(pipeline.vocab), dim, [seed, len(lang)])
    for i, word in enumerate(pipeline.vocab.itos):
        row = space.word2id.get(word)
        if row is not None:
            weights[i] = space.vectors[row]
    weights[0] = 0.0
    return LanguageSetup(pipeline, space, weights)


def shared_setup(setups: Mapping[str, LanguageSetup], texts: Sequence[str]) -> LanguageSetup:
    """One pipeline over ``texts`` (every language's) and one lookup table holding each language's
    rows side by side (a word in several vocabularies takes the last language's row; a word in none
    a random one), for an encoder shared by all languages; its word space is the first language's.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    if not setups:
        raise ValueError("need the setup of at least one language.")
    pipeline = TextPipeline.fit(list(texts), WordTokenizer(), bos=BOS_TOKEN, eos=EOS_TOKEN)
    first = next(iter(setups.values()))
    weights = random_table(len(pipeline.vocab), first.weights.shape[1], 0)
    for setup in setups.values():
        for i, word in enumerate(setup.pipeline.vocab.itos[2:], start=2):
            j = pipeline.vocab.stoi.get(word)
            if j is not None:
                weights[j] = setup.weights[i]
    weights[0] = 0.0
    return LanguageSetup(pipeline, first.space, weights)


def random_setups(texts: Mapping[str, Sequence[str]], max_vocab: int, dim: int,
                  seed: int) -> dict[str, tuple[TextPipeline, np.ndarray]]:
    """Per key of ``texts`` (a language), a pipeline over its texts (``<s>``/``</s>`` added, at most
    ``max_vocab`` entries) and a random lookup table (:func:`random_table` with seed ``[seed,
    vocabulary size]``); under ``"shared"`` the same over all the texts with twice the entries, for
    an encoder shared by every language.
    Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """
    def fit(sentences: Sequence[str], size: int) -> TextPipeline:
        return TextPipeline.fit(list(sentences), WordTokenizer(), max_size=size, bos=BOS_TOKEN,
                                eos=EOS_TOKEN)

    pipelines = {key: fit(sentences, max_vocab) for key, sentences in texts.items()}
    pipelines["shared"] = fit([s for sentences in texts.values() for s in sentences], 2 * max_vocab)
    return {key: (p, random_table(len(p.vocab), dim, [seed, len(p.vocab)]))
            for key, p in pipelines.items()}
