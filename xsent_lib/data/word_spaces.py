"""Monolingual word spaces for word translation: frequency-ordered vocabularies with preprocessed
vectors.

A :class:`LanguageSpace` is one language's words (most frequent first) and unit-length, centred
vectors. The builders train them with gensim on cached monolingual text (:func:`real_space`), on
given sentences (:func:`sentences_space`, :func:`cbow_space`) or on a synthetic world's language
(:func:`synthetic_space`); word-vector training is data-side, so the spaces live in ``data``.
Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

import os
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from xsent_lib.base.neighbors import l2_normalize
from xsent_lib.text.tokenizers import word_tokens

if TYPE_CHECKING:
    from xsent_lib.data.synthetic import SyntheticWorld


def center_and_normalize(vectors: np.ndarray, *, center: bool = True) -> np.ndarray:
    """Unit-length rows, then (``center``) subtract the mean and renormalise: float32 ``(n, d)``.

    The thesis does not preprocess (MUSE's code defaults to none); on our small-corpus vectors the
    mean vector is large and shared by all words, and removing it makes cosines (and so NN, CSLS and
    the criterion) compare what differs between words. Later MUSE versions offer the same
    ``renorm,center,renorm`` option.
    Book: chapter 5 (Word translation without parallel data).
    """
    x = np.asarray(vectors)
    if x.ndim != 2 or x.shape[0] < 2 or not np.issubdtype(x.dtype, np.floating):
        raise ValueError(f"vectors must be a float (n_words >= 2, dim) matrix, got shape {x.shape} "
                         f"{x.dtype}.")
    x = l2_normalize(x)
    return l2_normalize(x - x.mean(axis=0)) if center else x


@dataclass
class LanguageSpace:
    """One language's word vectors: words in frequency order, preprocessed float32 vectors, word ->
    row.

    Book: chapter 5 (Word translation without parallel data).
    """

    lang: str
    words: list[str]
    vectors: np.ndarray
    word2id: dict[str, int] = field(repr=False, default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.words) != len(self.vectors):
            raise ValueError(f"{self.lang}: {len(self.words)} words but {len(self.vectors)} "
                             "vectors.")
        if not self.word2id:
            self.word2id = {w: i for i, w in enumerate(self.words)}

    def __len__(self) -> int:
        return len(self.words)

    @property
    def dim(self) -> int:
        """Vector dimension. Book: chapter 5 (Word translation without parallel data)."""
        return int(self.vectors.shape[1])


def make_space(lang: str, words: Sequence[str], vectors: np.ndarray, *,
               max_vocab: int | None = None,
               center: bool = True) -> LanguageSpace:
    """Keep the ``max_vocab`` most frequent rows and preprocess them with
    :func:`center_and_normalize`.

    Book: chapter 5 (Word translation without parallel data).
    """
    if max_vocab is not None and max_vocab < 2:
        raise ValueError(f"max_vocab must be >= 2 or None, got {max_vocab}.")
    n = len(words) if max_vocab is None else min(len(words), max_vocab)
    return LanguageSpace(lang, list(words[:n]),
                         center_and_normalize(np.asarray(vectors)[:n], center=center))


def language_seed(lang: str, seed: int = 0) -> int:
    """A gensim seed of its own for each language: ``seed + crc32(lang) % 10000``.

    gensim draws the starting vectors row by row in frequency order from one seeded generator, so
    two languages trained with the same seed would start their rank-``i`` words from the same random
    vector, a small spurious "translation" signal between unrelated words that survives training
    for rare words. Distinct seeds remove it.
    Book: chapter 5 (Word translation without parallel data).
    """
    return int(seed) + zlib.crc32(lang.encode("utf-8")) % 10_000


def real_space(lang: str, *, dim: int = 100, max_vocab: int | None = 50_000,
               seed: int | None = None,
               epochs: int = 5, sources: Sequence[tuple[str, str]] | None = None,
               cache_dir: str | os.PathLike[str] | None = None) -> LanguageSpace:
    """Skip-gram vectors of ``lang`` on its cached monolingual text (trained once, then loaded), as
    a space.

    Uses :func:`xsent_lib.data.wordvecs.train_wordvecs` with ``workers=1`` (bit-reproducible) and,
    by default, the gensim seed :func:`language_seed` of the language. MUSE uses 300-d fastText on
    Wikipedia; with 0.5-4M tokens per language we default to 100 dimensions, which train three times
    faster (the book profile's choice; the thesis value is 300).
    Book: chapter 5 (Word translation without parallel data).
    """
    from xsent_lib.data.wordvecs import train_wordvecs

    seed = language_seed(lang) if seed is None else seed
    wv = train_wordvecs(lang, sources=sources, dim=dim, epochs=epochs, seed=seed,
                        cache_dir=cache_dir)
    return make_space(lang, wv.words, wv.vectors, max_vocab=max_vocab)


def text_tokens(lang: str, *, sources: Sequence[tuple[str, str]] | None = None,
                cache_dir: str | os.PathLike[str] | None = None) -> int:
    """How many word tokens the text of :func:`real_space` holds for ``lang`` (its default sources).

    Book: chapter 5 (Word translation without parallel data).
    """
    from xsent_lib.data.corpora.monolingual import MONOLINGUAL_SOURCES, load_monolingual

    chosen = list(sources) if sources is not None else list(MONOLINGUAL_SOURCES[lang])
    return sum(len(word_tokens(line))
               for line in load_monolingual(lang, chosen, cache_dir=cache_dir))


def synthetic_space(world: SyntheticWorld, lang: str, *, n_sentences: int = 20_000, dim: int = 32,
                    seed: int = 0,
                    epochs: int = 5, min_count: int = 3,
                    cache_dir: str | os.PathLike[str] | None = None
                    ) -> LanguageSpace:
    """Skip-gram vectors trained on ``n_sentences`` monolingual sentences of a synthetic-world
    language.

    The corpora of two languages are independent draws (comparable, not parallel). Sub-sampling is
    set to 1e-3 (the text is tiny, gensim's 1e-4 default would discard most tokens).
    Book: chapter 5 (Word translation without parallel data).
    """
    return sentences_space(lang, world.sentences(n_sentences, lang), dim=dim, seed=seed,
                           epochs=epochs,
                           min_count=min_count, sample=1e-3, cache_dir=cache_dir)


def sentences_space(lang: str, sentences: Sequence[str], *, dim: int = 100, seed: int = 0,
                    epochs: int = 5,
                    min_count: int = 5, sample: float = 1e-4, max_vocab: int | None = None,
                    cache_dir: str | os.PathLike[str] | None = None) -> LanguageSpace:
    """Skip-gram vectors on the given ``sentences`` (cached by their text and the parameters), as a
    space.

    Book: chapter 5 (Word translation without parallel data).
    """
    from xsent_lib.data.wordvecs import train_wordvecs

    wv = train_wordvecs(lang, sentences=sentences, dim=dim, epochs=epochs, min_count=min_count,
                        sample=sample,
                        seed=seed, cache_dir=cache_dir)
    return make_space(lang, wv.words, wv.vectors, max_vocab=max_vocab)


def cbow_space(lang: str, sentences: Sequence[str], *, dim: int = 100, seed: int = 0,
               epochs: int = 5,
               min_count: int = 5, max_vocab: int | None = None) -> LanguageSpace:
    """CBOW vectors (gensim, one worker, seeded) on ``sentences``: Figure 4.3's "different model".

    Same settings as :func:`xsent_lib.data.wordvecs.train_wordvecs` except ``sg=0``. Not cached:
    CBOW trains about three times faster than skip-gram, a few seconds on a 1-2M-token text.
    Book: chapter 5 (Word translation without parallel data).
    """
    from gensim.models import Word2Vec

    corpus = [toks for toks in map(word_tokens, sentences) if toks]
    if not corpus:
        raise ValueError("the text holds no word tokens: nothing to train on.")
    model = Word2Vec(sentences=corpus, vector_size=dim, window=5, min_count=min_count, sg=0,
                     negative=10,
                     sample=1e-4, epochs=epochs, seed=seed, workers=1)
    return make_space(lang, list(model.wv.index_to_key), np.asarray(model.wv.vectors),
                      max_vocab=max_vocab)


_SYNTAX_FEATURES = ("order", "adjective", "relative", "adposition", "articles", "negation",
                    "future")
_MORPHOLOGY_FEATURES = ("cases", "verb agreement", "adjective agreement")
# English's words come from the real lexicon, so its Typology leaves the morphemes empty; it marks
# subject agreement (3rd person -s) and neither case nor adjective agreement.
_ENGLISH_MORPHOLOGY = {"cases": False, "verb agreement": True, "adjective agreement": False}


def typological_distance(a: str, b: str) -> int:
    """How many typological features two synthetic-world languages differ in (0 for a language and
    itself).

    Counts the syntactic features of :class:`~xsent_lib.data.synthetic.typology.Typology` (basic
    order, adjective and relative-clause placement, adpositions, articles, negation, future) and
    whether each marks case, subject agreement on the verb and adjective agreement: 0 to 10. This is
    the dial of chapter 5's isomorphism experiment: the concepts and their frequencies are the same
    in every language, so what separates two spaces is how the languages build sentences and words.
    Book: chapter 5 (Word translation without parallel data).
    """
    from xsent_lib.data.synthetic.typology import typology

    ta, tb = typology(a), typology(b)

    def morphology(t) -> dict[str, bool]:
        if t.real:
            return dict(_ENGLISH_MORPHOLOGY)
        return {"cases": any(t.cases), "verb agreement": any(t.agreement),
                "adjective agreement": any(t.adjective_agreement)}

    ma, mb = morphology(ta), morphology(tb)
    return int(sum(getattr(ta, f) != getattr(tb, f) for f in _SYNTAX_FEATURES)
               + sum(ma[f] != mb[f] for f in _MORPHOLOGY_FEATURES))
