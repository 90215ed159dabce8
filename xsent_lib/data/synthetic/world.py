"""``SyntheticWorld``: one seed, several languages, and every data set of the book drawn from the
same forms.

>>> w = SyntheticWorld(seed=0)
>>> w.parallel(3, "en", "xb").src        # doctest: +SKIP
>>> w.nli(100, split="test", lang="xa")  # parallel to the English test set

Every method draws its logical forms from a random stream named by (seed, data set, split, ...) and
never by the language, so the same call in two languages gives translations of each other (an
XNLI-like set is English train + every language's dev/test from the same forms). Monolingual corpora
and documents are the exception: by default their stream includes the language, so corpora in two
languages are comparable, not parallel (what unsupervised methods assume); pass ``parallel=True`` to
get translations. Streams are seeded with crc32 of their names, never Python's ``hash``, so the data
are identical on every machine and under any ``PYTHONHASHSEED`` (for a given numpy version: numpy
pins its generator streams only within a version).
Book: chapter 1 (Data: the synthetic world).
"""
from __future__ import annotations

import numpy as np

from .datasets import BilingualLexicon, DocumentSet, NLISet, ParallelCorpus, ProbingSet, STSSet
from .documents import make_documents
from .forms import FormConfig, Forms, FormSampler
from .languages import LanguageTables, language_tables, stable_seed
from .lexicon import gold_lexicon
from .nli import make_nli
from .probing import make_probing
from .render import Renderer
from .sts import make_sts
from .typology import LANGUAGES, Typology, typology

DEFAULT_LANGUAGES = tuple(LANGUAGES)
SPLITS = ("train", "dev", "test")
# forms are sampled in chunks of this size, each with its own stream: prefixes are stable
CHUNK = 16_384
RENDER_CHUNK = 131_072


class SyntheticWorld:
    """A seeded multilingual world. ``languages`` restricts which codes may be asked for (default:
    all of :data:`~.typology.LANGUAGES`); ``config`` changes the form sampler's probabilities for
    corpora and parallel data (NLI, STS, documents and probing tasks use their own fixed grammars).
    Book: chapter 1 (Data: the synthetic world).
    """

    def __init__(self, seed: int = 0, languages: tuple[str, ...] = DEFAULT_LANGUAGES,
                 config: FormConfig | None = None) -> None:
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}.")
        languages = tuple(languages)
        if not languages:
            raise ValueError("languages must name at least one language code.")
        for code in languages:
            typology(code)
        self.seed = int(seed)
        self.languages = languages
        self.sampler = FormSampler(self.seed, config)
        self._tables: dict[str, LanguageTables] = {}
        self._renderers: dict[str, Renderer] = {}
        self._cache: dict[tuple, object] = {}

    # -- plumbing ----------------------------------------------------------------------------------
    def _check_lang(self, lang: str) -> str:
        if lang not in self.languages:
            raise ValueError(f"language {lang!r} is not in this world; it has {self.languages}.")
        return lang

    @staticmethod
    def _check_split(split: str) -> str:
        if split not in SPLITS:
            raise ValueError(f"split={split!r}; use one of {SPLITS}.")
        return split

    @staticmethod
    def _check_n(n: int, name: str = "n") -> int:
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {n!r}.")
        return int(n)

    def rng(self, *key: int | str) -> np.random.Generator:
        """The random stream named ``key`` (strings and ints), the same on every machine.

        Book: chapter 1 (Data: the synthetic world).
        """
        return np.random.Generator(np.random.PCG64(stable_seed(self.seed, *key)))

    def typology(self, lang: str) -> Typology:
        """The typology of ``lang``. Book: chapter 1 (Data: the synthetic world)."""
        return typology(self._check_lang(lang))

    def tables(self, lang: str) -> LanguageTables:
        """Word-form tables of ``lang`` (built once).

        Book: chapter 1 (Data: the synthetic world).
        """
        if lang not in self._tables:
            self._tables[lang] = language_tables(self._check_lang(lang), self.seed)
        return self._tables[lang]

    def renderer(self, lang: str) -> Renderer:
        """The renderer of ``lang``. Book: chapter 1 (Data: the synthetic world)."""
        if lang not in self._renderers:
            self._renderers[lang] = Renderer(self.tables(lang))
        return self._renderers[lang]

    def cached(self, key: tuple, build):
        """Memoise ``build()`` under ``key`` (reference statistics, partitions).

        Book: chapter 1 (Data).
        """
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def forms(self, n: int, *stream: int | str, sampler: FormSampler | None = None) -> Forms:
        """``n`` logical forms from the stream named ``stream``; the first k of n forms equal
        ``forms(k)``.

        Book: chapter 1 (Data: the synthetic world).
        """
        n = self._check_n(n)
        sampler = sampler or self.sampler
        parts = [sampler.sample(CHUNK, self.rng(*stream, i)) for i in range(-(-n // CHUNK))]
        if not parts:
            return sampler.sample(0, self.rng(*stream))
        if n % CHUNK:
            parts[-1] = parts[-1].take(np.arange(n % CHUNK))
        return parts[0] if len(parts) == 1 else Forms.concat(parts)

    def ids(self, forms: Forms, lang: str, tree: bool = False) -> np.ndarray:
        """Packed token-id matrix of ``forms`` in ``lang`` (see :class:`~.render.Renderer`).

        Book: chapter 1 (Data: the synthetic world).
        """
        return self.renderer(lang).ids(forms, tree=tree)

    def render(self, forms: Forms, lang: str, tree: bool = False, gloss: bool = False) -> list[str]:
        """Sentences (or bracketed trees with ``tree=True``, or interlinear glosses with
        ``gloss=True``) of ``forms`` in ``lang``, rendered in chunks to bound memory.

        Book: chapter 1 (Data: the synthetic world).
        """
        r = self.renderer(lang)
        out: list[str] = []
        for s in range(0, len(forms), RENDER_CHUNK):
            part = (forms if len(forms) <= RENDER_CHUNK
                    else forms.take(np.arange(s, min(s + RENDER_CHUNK, len(forms)))))
            out += r.strings(r.ids(part, tree=tree, packed=False), gloss=gloss)
        return out

    # -- data sets ---------------------------------------------------------------------------------
    def sentences(self, n: int, lang: str, split: str = "train",
                  parallel: bool = False) -> list[str]:
        """A monolingual corpus of ``n`` sentences; corpora of two languages are independent draws
        unless ``parallel``.

        Book: chapter 1 (Data: the synthetic world).
        """
        self._check_lang(lang)
        key = ("corpus", self._check_split(split)) + (() if parallel else (lang,))
        return self.render(self.forms(n, *key), lang)

    def parallel(self, n: int, src: str, tgt: str, split: str = "train") -> ParallelCorpus:
        """``n`` sentence pairs rendering the same forms in ``src`` and ``tgt`` (same forms for
        every pair of languages, so corpora of several pairs are multi-parallel).

        Book: chapter 1 (Data: the synthetic world).
        """
        self._check_lang(src), self._check_lang(tgt)
        f = self.forms(n, "parallel", self._check_split(split))
        return ParallelCorpus(src, tgt, self.render(f, src), self.render(f, tgt), f)

    def lexicon(self, src: str, tgt: str, test_fraction: float = 0.2,
                inflected: bool = False) -> BilingualLexicon:
        """Gold bilingual lexicon from ``src`` to ``tgt`` (see :mod:`.lexicon`); the concept split
        depends on the seed only, so it is the same for every language pair.

        Book: chapter 5 (Word translation).
        """
        return gold_lexicon(self.tables(src), self.tables(tgt), self.rng("lexicon-split"),
                            test_fraction, inflected)

    def nli(self, n: int, split: str = "train", lang: str = "en") -> NLISet:
        """``n`` NLI pairs with balanced labels, exact under the logical forms (see :mod:`.nli`).

        Book: chapter 6 (XNLI and aligned encoders).
        """
        self._check_lang(lang)
        return make_nli(self, self._check_n(n), self._check_split(split), lang)

    def xnli(self, n_train: int, n_dev: int, n_test: int,
             langs: tuple[str, ...] | None = None) -> dict:
        """An XNLI-like benchmark: English ``train`` and, for every language, ``dev`` / ``test``
        sets that are translations of the same pairs. Returns ``{"train": NLISet, "dev": {lang:
        NLISet}, "test": {...}}``.
        Book: chapter 6 (XNLI and aligned encoders).
        """
        langs = tuple(langs or self.languages)
        return {"train": self.nli(n_train, "train", "en"),
                "dev": {lang: self.nli(n_dev, "dev", lang) for lang in langs},
                "test": {lang: self.nli(n_test, "test", lang) for lang in langs}}

    def sts(self, n: int, lang_a: str = "en", lang_b: str | None = None,
            split: str = "test") -> STSSet:
        """``n`` graded similarity pairs, sentence a in ``lang_a`` and b in ``lang_b`` (default the
        same), scores in [0, 5] computed from the forms (see :mod:`.sts`).

        Book: chapter 2 (Evaluating sentence embeddings).
        """
        lang_b = lang_b or lang_a
        self._check_lang(lang_a), self._check_lang(lang_b)
        return make_sts(self, self._check_n(n), lang_a, lang_b, self._check_split(split))

    def documents(self, n_docs: int, n_sents: int, lang: str = "en", split: str = "train",
                  shuffle: bool = False,
                  parallel: bool = False) -> DocumentSet:
        """``n_docs`` coherent documents of ``n_sents`` sentences sharing entities and setting (see
        :mod:`.documents`); ``shuffle`` permutes each document's sentences into an incoherent order.
        Book: chapter 9 (Multilingual embeddings from monolingual text).
        """
        self._check_lang(lang)
        return make_documents(self, self._check_n(n_docs, "n_docs"),
                              self._check_n(n_sents, "n_sents"), lang,
                              self._check_split(split), shuffle, parallel)

    def probing(self, task: str, n_train: int, n_dev: int, n_test: int,
                lang: str = "en") -> ProbingSet:
        """One of the ten probing tasks of Conneau et al. (2018) with train / dev / test splits (see
        :mod:`.probing`). Book: chapter 4 (Probing).
        """
        self._check_lang(lang)
        sizes = tuple(self._check_n(k, name)
                      for k, name in ((n_train, "n_train"), (n_dev, "n_dev"), (n_test, "n_test")))
        return make_probing(self, task, sizes, lang)

    def describe(self) -> list[str]:
        """One line per language of the world: its typology.

        Book: chapter 1 (Data: the synthetic world).
        """
        return [typology(c).describe() for c in self.languages]
