"""A word translation setting: two spaces and a dictionary split MUSE-style, and word pairs found
for free.

A *setting* is two monolingual spaces (rows sorted by frequency) and a bilingual dictionary split
into a training seed dictionary and disjoint test source words, all as row indices.
Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from xsent_lib.align.dictionary import lookup_pairs
from xsent_lib.base.parallel import parallel_map
from xsent_lib.data.formats import load_muse_dictionary, load_vec
from xsent_lib.data.word_dictionaries import freedict_pairs
from xsent_lib.data.word_spaces import (
    LanguageSpace,
    language_seed,
    make_space,
    real_space,
    synthetic_space,
)

if TYPE_CHECKING:
    from xsent_lib.data.synthetic import SyntheticWorld

WordPairs = Iterable[tuple[str, str]]


@dataclass
class WordTranslationSetting:
    """Source and target spaces, training pairs (the seed dictionary) and test pairs, as row-index
    arrays.

    ``train`` and ``test`` are ``(n, 2)`` int64 ``[source row, target row]`` with no source word in
    both. ``coverage`` records how much of the dictionary the vocabularies kept.
    Book: chapter 5 (Word translation without parallel data).
    """

    src: LanguageSpace
    tgt: LanguageSpace
    train: np.ndarray
    test: np.ndarray
    dictionary: str
    coverage: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        """``"<src>-<tgt>"``. Book: chapter 5 (Word translation without parallel data)."""
        return f"{self.src.lang}-{self.tgt.lang}"


def _first_source_words(pairs: np.ndarray, n_words: int | None, how: str, seed: int) -> np.ndarray:
    """Keep the pairs of ``n_words`` source words: the most frequent (lowest rows) or a seeded
    sample."""
    words = np.unique(pairs[:, 0])
    if n_words is None or len(words) <= n_words:
        return pairs
    chosen = words[:n_words] if how == "frequent" \
        else np.random.default_rng(seed).choice(words, n_words, False)
    return pairs[np.isin(pairs[:, 0], chosen)]


def make_setting(src: LanguageSpace, tgt: LanguageSpace, train_pairs: WordPairs,
                 test_pairs: WordPairs, *,
                 dictionary: str, n_train: int | None = 5000, n_test: int | None = 1500,
                 seed: int = 0) -> WordTranslationSetting:
    """Look word pairs up in both vocabularies and build a setting MUSE-style.

    Training keeps the ``n_train`` most frequent source words with all their translations (MUSE's
    ``0-5000`` dictionaries); test keeps ``n_test`` source words drawn at random with ``seed`` when
    there are more. Source words that are also test words are removed from training.
    Book: chapter 5 (Word translation without parallel data).
    """
    train = lookup_pairs(train_pairs, src.word2id, tgt.word2id)
    test = lookup_pairs(test_pairs, src.word2id, tgt.word2id)
    test_pairs_idx = _first_source_words(test.pairs, n_test, "sample", seed)
    if len(test_pairs_idx) == 0:
        raise ValueError(f"no test pair of {dictionary} has both words in the vocabularies "
                         f"({len(src)} {src.lang} / {len(tgt)} {tgt.lang} words): use larger "
                         "vocabularies.")
    train_idx = train.pairs[~np.isin(train.pairs[:, 0], test_pairs_idx[:, 0])]
    train_idx = _first_source_words(train_idx, n_train, "frequent", seed)
    if len(train_idx) < 2:
        raise ValueError(f"{dictionary} leaves fewer than 2 training pairs in the vocabularies.")
    coverage = {"train_pairs_in": train.n_input, "train_pairs": int(len(train_idx)),
                "train_source_words": int(np.unique(train_idx[:, 0]).size),
                "test_pairs_in": test.n_input, "test_pairs": int(len(test_pairs_idx)),
                "test_source_words": int(np.unique(test_pairs_idx[:, 0]).size),
                "src_vocab": len(src), "tgt_vocab": len(tgt)}
    return WordTranslationSetting(src, tgt, train_idx, test_pairs_idx, dictionary, coverage)


def identical_string_pairs(src: LanguageSpace, tgt: LanguageSpace,
                           max_rank: int | None = None) -> np.ndarray:
    """Rows ``(i, j)`` of words spelled the same in both vocabularies (MUSE's ``identical_char``
    seed).

    A weak, free supervision signal for languages that share a script (names, loanwords, false
    friends included); useless across scripts. ``max_rank`` keeps words among both vocabularies'
    ``max_rank`` most frequent rows.
    Book: chapter 5 (Word translation without parallel data).
    """
    limit = max_rank or max(len(src), len(tgt))
    pairs = [(i, j) for i, w in enumerate(src.words[:limit])
             if (j := tgt.word2id.get(w)) is not None and j < limit]
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


def shared_identity_pairs(a: LanguageSpace, b: LanguageSpace) -> np.ndarray:
    """Rows ``(i, j)`` with ``a.words[i] == b.words[j]``, sorted by the row in ``a`` (its frequency
    rank).

    Book: chapter 5 (Word translation without parallel data).
    """
    pairs = [(i, b.word2id[w]) for i, w in enumerate(a.words) if w in b.word2id]
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


def synthetic_pair_setting(world: SyntheticWorld, src: str, tgt: str, *, n_sentences: int,
                           dim: int = 50, seed: int = 0, test_fraction: float = 0.5,
                           cache_dir: str | os.PathLike[str] | None = None,
                           ) -> WordTranslationSetting:
    """Two synthetic-world languages as a setting for the isomorphism dial, ``src`` may equal
    ``tgt``.

    The source space is trained (:func:`~xsent_lib.data.word_spaces.synthetic_space`'s settings) on
    ``n_sentences`` of the world's ``train`` split, the target space on as many of its ``dev``
    split, so the corpora are independent draws even for a language and itself (the dial's distance
    0). The gold lexicon is split by concept, ``test_fraction`` of it for test; every training pair
    is kept.
    Book: chapter 5 (Word translation without parallel data).
    """
    spaces = [synthetic_side_space(world, lang, split, n_sentences=n_sentences, dim=dim, seed=seed,
                                   cache_dir=cache_dir) for lang,
              split in ((src, "train"), (tgt, "dev"))]
    lex = world.lexicon(src, tgt, test_fraction=test_fraction)
    return make_setting(spaces[0], spaces[1], lex.train, lex.test,
                        dictionary=f"synthetic gold lexicon {src}-{tgt}",
                        n_train=None, n_test=None, seed=seed)


def synthetic_side_space(world: SyntheticWorld, lang: str, split: str, *, n_sentences: int,
                         dim: int = 50,
                         seed: int = 0,
                         cache_dir: str | os.PathLike[str] | None = None) -> LanguageSpace:
    """One side of :func:`synthetic_pair_setting`: skip-gram vectors of ``lang`` on ``n_sentences``
    of the world's ``split`` (trained once, then loaded from the cache; the dial trains its sides
    side by side with it).

    Book: chapter 5 (Word translation without parallel data).
    """
    from xsent_lib.data.word_spaces import language_seed, sentences_space

    if n_sentences < 100:
        raise ValueError(f"n_sentences must be >= 100 to train word vectors, got {n_sentences}.")
    return sentences_space(lang, world.sentences(n_sentences, lang, split=split), dim=dim,
                           seed=language_seed(lang + split, seed), min_count=3, sample=1e-3,
                           cache_dir=cache_dir)


def text_side_space(lang: str, text: Sequence[str], side: int, *, dim: int = 50, seed: int = 0,
                    max_vocab: int = 20_000,
                    cache_dir: str | os.PathLike[str] | None = None) -> LanguageSpace:
    """One side (``0`` source, ``1`` target) of :func:`text_pair_setting`: skip-gram vectors on
    ``text`` (trained once, then loaded from the cache).

    Book: chapter 5 (Word translation without parallel data: the isomorphism dial on real corpora).
    """
    from xsent_lib.data.word_spaces import language_seed, sentences_space

    if len(text) < 100:
        raise ValueError(f"{('src_text', 'tgt_text')[side]} must hold >= 100 sentences to train "
                         f"word vectors, got {len(text)}.")
    return sentences_space(lang, text, dim=dim, seed=language_seed(f"{lang}{side}", seed),
                           min_count=3, sample=1e-3, max_vocab=max_vocab, cache_dir=cache_dir)


def gold_lexicon_setting(world: SyntheticWorld, src: LanguageSpace,
                         tgt: LanguageSpace) -> WordTranslationSetting:
    """Two given spaces of synthetic-world languages with the world's gold lexicon (inflected forms)
    between them: its train split is the seed dictionary, its test split (held-out concepts) the
    test words, every pair that both vocabularies cover kept. Smith et al.'s static-dictionary
    alignment is :func:`xsent_lib.align.pipeline.supervised_map` on it.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    lex = world.lexicon(src.lang, tgt.lang, inflected=True)
    return make_setting(src, tgt, lex.train, lex.test,
                        dictionary=f"synthetic gold lexicon {src.lang}-{tgt.lang}",
                        n_train=None, n_test=None)


def text_pair_setting(src_lang: str, src_text: Sequence[str], tgt_lang: str,
                      tgt_text: Sequence[str], *,
                      train_pairs: WordPairs | None = None, test_pairs: WordPairs | None = None,
                      dictionary: str = "identical words", dim: int = 50, seed: int = 0,
                      max_vocab: int = 20_000,
                      n_train: int | None = 5000, n_test: int | None = 1500,
                      identity_words: int = 3000,
                      cache_dir: str | os.PathLike[str] | None = None) -> WordTranslationSetting:
    """Two texts as a setting for the isomorphism dial on real corpora (skip-gram spaces of up to
    ``max_vocab`` words, :func:`~xsent_lib.data.word_spaces.sentences_space` with sub-sampling 1e-3
    and ``min_count`` 3, a gensim seed of its own per side).

    With ``train_pairs`` and ``test_pairs`` (a bilingual dictionary) the setting is built from them
    as :func:`make_setting` does. Without them the two texts are taken to be in the same language
    and the gold dictionary is identity on the ``identity_words`` most frequent source words that
    the target vocabulary also holds (each word is its own translation; rarer words have too few
    occurrences in a small corpus for their vectors to say anything): the ``n_test`` test words (at
    most half of them) are drawn at random, training takes the ``n_train`` most frequent of the
    others.
    Book: chapter 5 (Word translation without parallel data: the isomorphism dial on real corpora).
    """
    if (train_pairs is None) != (test_pairs is None):
        raise ValueError("pass both train_pairs and test_pairs (a dictionary), or neither "
                         "(identity on shared words).")
    spaces = [text_side_space(lang, text, side, dim=dim, seed=seed, max_vocab=max_vocab,
                              cache_dir=cache_dir)
              for side, (lang, text) in enumerate(((src_lang, src_text), (tgt_lang, tgt_text)))]
    if train_pairs is None:
        shared = [(w, w) for w in spaces[0].words if w in spaces[1].word2id][:identity_words]
        train_pairs = test_pairs = shared
        n_test = len(shared) // 2 if n_test is None else min(n_test, len(shared) // 2)
    return make_setting(spaces[0], spaces[1], train_pairs, test_pairs, dictionary=dictionary,
                        n_train=n_train, n_test=n_test, seed=seed)


def build_settings(source: str, pairs: Sequence[tuple[str, str]], *, dim: int = 100,
                   max_vocab: int | None = 20_000, seed: int = 0, n_train: int | None = 5000,
                   n_test: int | None = 1500, world: SyntheticWorld | None = None,
                   n_sentences: int = 20_000, data_dir: str | os.PathLike[str] | None = None,
                   cache_dir: str | os.PathLike[str] | None = None
                   ) -> dict[str, WordTranslationSetting]:
    """Both directions of every pair as settings, keyed ``"src-tgt"``; each space is built once.

    ``source``: ``"real"`` (our skip-gram vectors on the cached text, FreeDict dictionaries),
    ``"synthetic"`` (vectors on ``world``'s sentences, gold lexicons) or ``"fasttext"`` (MUSE's own
    setting from ``data_dir``, see :func:`~xsent_lib.data.word_dictionaries.fasttext_files`: 300-d
    Wikipedia vectors, MUSE dictionaries trained on ``0-5000`` and tested on ``5000-6500``). The
    spaces of several languages are trained side by side
    (:func:`~xsent_lib.base.parallel.parallel_map`).
    Book: chapter 5 (Word translation without parallel data).
    """
    if source not in ("real", "synthetic", "fasttext"):
        raise ValueError(f"source must be 'real', 'synthetic' or 'fasttext', got {source!r}.")
    if source == "synthetic" and world is None:
        raise ValueError("source='synthetic' needs world=SyntheticWorld(...).")
    langs = list(dict.fromkeys(lang for p in pairs for lang in p))
    spaces: dict[str, LanguageSpace] = {}
    if source == "real":  # each language's vectors train on one core, side by side
        jobs = [{"lang": lang, "dim": dim, "max_vocab": max_vocab,
                 "seed": language_seed(lang, seed), "cache_dir": cache_dir} for lang in langs]
        spaces = dict(zip(langs, parallel_map(real_space, jobs)))
    elif source == "synthetic":
        jobs = [{"world": world, "lang": lang, "n_sentences": n_sentences, "dim": dim,
                 "seed": language_seed(lang, seed), "cache_dir": cache_dir} for lang in langs]
        spaces = dict(zip(langs, parallel_map(synthetic_space, jobs)))
    else:
        for lang in langs:
            wv = load_vec(Path(data_dir) / f"wiki.{lang}.vec", max_words=max_vocab)
            spaces[lang] = make_space(lang, wv.words, wv.vectors)
    out = {}
    for s, t in pairs:
        for a, b in ((s, t), (t, s)):
            if source == "real":
                train, test, name = freedict_pairs(a, b, cache_dir=cache_dir)
            elif source == "synthetic":
                lex = world.lexicon(a, b)
                train, test, name = lex.train, lex.test, f"synthetic gold lexicon {a}-{b}"
            else:
                tr = load_muse_dictionary(data_dir, a, b, "0-5000")
                te = load_muse_dictionary(data_dir, a, b, "5000-6500")
                train, test = list(zip(tr.source, tr.target)), list(zip(te.source, te.target))
                name = f"MUSE {a}-{b}"
            out[f"{a}-{b}"] = make_setting(spaces[a], spaces[b], train, test, dictionary=name,
                                           n_train=n_train, n_test=n_test, seed=seed)
    return out
