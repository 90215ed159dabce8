"""Input word vectors for sentence encoders: a vocabulary with GloVe (or random) vectors, and our
own skip-gram.

Book: chapter 3 (InferSent).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

import numpy as np

from xsent_lib.data.corpora import load_monolingual
from xsent_lib.data.formats.vectors import WordVectors
from xsent_lib.data.wordvecs import train_wordvecs
from xsent_lib.text import (
    BOS_TOKEN,
    EOS_TOKEN,
    PAD_TOKEN,
    UNK_TOKEN,
    TextPipeline,
    Vocab,
    WordTokenizer,
)


@dataclass
class WordSetup:
    """The vocabulary and input word vectors shared by every encoder of the chapter.

    ``pipeline`` adds InferSent's ``<s>``/``</s>``; ``bow_pipeline`` has the same vocabulary without
    them (for the bag-of-words baseline). ``weights`` is ``[len(vocab), dim]``; ``frozen`` says
    whether the encoders keep them fixed (GloVe, as in the thesis) or train them (random vectors, no
    GloVe at hand). ``coverage`` is the share of the corpus's word occurrences that have their own
    vector.
    Book: chapter 3 (InferSent).
    """

    pipeline: TextPipeline
    bow_pipeline: TextPipeline
    weights: np.ndarray
    frozen: bool
    source: str
    coverage: float

    @property
    def dim(self) -> int:
        """Word-vector dimension. Book: chapter 3 (InferSent)."""
        return int(self.weights.shape[1])


def build_word_setup(sentences: Sequence[str], vectors: WordVectors | None = None, dim: int = 50,
                     extra_words: int = 0, seed: int = 0, source: str = "GloVe") -> WordSetup:
    """Vocabulary + word vectors for ``sentences``: pretrained and frozen when ``vectors`` is given,
    else random.

    With ``vectors`` (lower-cased GloVe), the vocabulary holds every corpus word that has a vector
    plus the ``extra_words`` most frequent words of ``vectors`` (so sentences typed later are
    covered); other words map to ``<unk>`` (InferSent drops them instead). ``<unk>``, ``<s>``,
    ``</s>`` get seeded random vectors with the spread of the pretrained ones. Without ``vectors``
    every corpus word gets an N(0, 1) vector of size ``dim`` that the encoders train. ``source``
    names the pretrained vectors in :attr:`WordSetup.source`.
    Book: chapter 3 (InferSent).
    """
    tokenizer = WordTokenizer(lowercase=True)
    token_lists = tokenizer.tokenize_batch(sentences)
    counts = Counter(chain.from_iterable(token_lists))
    if not counts:
        raise ValueError("the sentences hold no word; pass the corpus the encoders will read.")
    specials = [PAD_TOKEN, UNK_TOKEN, BOS_TOKEN, EOS_TOKEN]
    rng = np.random.default_rng(seed)
    if vectors is None:
        vocab = Vocab.build(token_lists, specials=specials)
        weights = rng.normal(0.0, 1.0, (len(vocab), dim)).astype(np.float32)
        source = f"random N(0, 1) {dim}-d vectors, trained with the encoder"
        frozen, coverage = False, 1.0
    else:
        if not isinstance(vectors, WordVectors):
            raise TypeError("vectors must be WordVectors (e.g. load_glove50()), got "
                            f"{type(vectors).__name__}.")
        known = sorted((w for w in counts if w in vectors.word2id), key=lambda w: (-counts[w], w))
        extra = [w for w in vectors.words[: max(int(extra_words), 0)] if w not in counts
                 and w not in specials]
        tokens = specials + [w for w in known if w not in specials] + extra
        vocab = Vocab(tokens, [0] * len(specials) + [counts.get(w, 0)
                                                     for w in tokens[len(specials):]])
        rows = np.fromiter((vectors.word2id[w] for w in tokens[len(specials):]), np.int64,
                           len(tokens) - len(specials))
        spread = float(vectors.vectors[rows].std()) if rows.size else 1.0
        weights = np.vstack([rng.normal(0.0, spread, (len(specials), vectors.vectors.shape[1])),
                             vectors.vectors[rows]]).astype(np.float32)
        frozen, source = True, f"{source} {vectors.vectors.shape[1]}-d vectors, fixed"
        coverage = sum(counts[w] for w in known) / sum(counts.values())
    weights[0] = 0.0
    pipeline = TextPipeline(tokenizer, vocab, bos=BOS_TOKEN, eos=EOS_TOKEN)
    return WordSetup(pipeline, TextPipeline(tokenizer, vocab), weights, frozen, source,
                     float(coverage))


OWN_SOURCES: tuple[tuple[str, str], ...] = (("brown", "text"), ("fortunes-en", "text"))


def own_word_vectors(text: Sequence[str] | None = None, dim: int = 50, seed: int = 0,
                     cache_dir: str | Path | None = None) -> tuple[WordVectors, list[str]]:
    """Our own skip-gram vectors (standing in for fastText) and the text they were trained on.

    ``text`` when given (the smoke profile's synthetic English), else the Brown corpus and English
    fortunes (:data:`OWN_SOURCES`, about 1.6M words: mixed genres, a cheap train; the vectors are
    cached by :func:`~xsent_lib.data.wordvecs.train_wordvecs`). The same text gives SIF its word
    counts. Our choice: 50 dimensions like GloVe 6B 50d, so the two bags differ only in their
    training data.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if text is None:
        text = load_monolingual("en", OWN_SOURCES, cache_dir=cache_dir)
        return train_wordvecs("en", sources=OWN_SOURCES, dim=dim, seed=seed,
                              cache_dir=cache_dir), text
    text = list(text)
    return train_wordvecs("en", sentences=text, dim=dim, seed=seed, cache_dir=cache_dir), text


def probing_word_setup(texts: Sequence[str], vectors: WordVectors | None = None, dim: int = 50,
                       seed: int = 0, source: str = "GloVe 6B") -> WordSetup:
    """Vocabulary and frozen input word vectors for every encoder of the chapter.

    With ``vectors`` (GloVe 50d when cached) every word of ``texts`` that has a vector is
    kept; without, skip-gram vectors of size ``dim`` are trained on ``texts`` themselves
    (gensim, seeded, cached). Other words map to ``<unk>``.
    Book: chapter 4 (Probing: the encoders).
    """
    if vectors is None:
        vectors = train_wordvecs("en", sentences=list(texts), dim=dim, min_count=1, seed=seed)
        source = "skip-gram (gensim) on the chapter's own sentences"
    return build_word_setup(texts, vectors, dim=dim, seed=seed, source=source)


