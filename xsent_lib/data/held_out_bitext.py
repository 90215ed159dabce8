"""Real bitext as curves over its size read it: word-tokenised, truncated sentences, pairs distinct
on both sides, a training pool whose prefixes make the curve and held-out test pairs for translation
retrieval.

Europarl v7 from a data_dir when its files are there, else a bitext of the data cache.
Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xsent_lib.text import WordTokenizer

Side = tuple[list[str], list[str]]


@dataclass
class RealBitextData:
    """Real bitext per target language: ``train[lang] = (english, lang)`` (the curve uses prefixes;
    its first sentences of each side, unpaired, can also train monolingual models), ``test[lang]``
    the held-out pairs (the last ones read, distinct on both sides), and ``source[lang]`` where they
    came from.
    Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """

    languages: list[str]
    train: dict[str, Side]
    test: dict[str, Side]
    source: dict[str, str]

    def sizes(self) -> list[dict[str, Any]]:
        """One row per language pair: source, training and test pairs.

        Book: chapter 7 (real bitext).
        """
        return [{"pair": f"en-{lang}", "source": self.source[lang],
                 "training pairs": len(self.train[lang][0]),
                 "test pairs": len(self.test[lang][0])} for lang in self.languages]


def prepare_text(sentences: Sequence[str], max_len: int) -> list[str]:
    """Real sentences as the small models read them: lower-cased word tokens
    (:class:`WordTokenizer`), at most ``max_len`` of them, joined by spaces (so the decoder's
    whitespace vocabulary sees the same tokens).
    Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """
    if max_len < 1:
        raise ValueError(f"max_len must be >= 1, got {max_len}.")
    tok = WordTokenizer()
    return [" ".join(tok.tokenize(s)[:max_len]) for s in sentences]


def distinct_pairs(english: Sequence[str], other: Sequence[str]) -> list[tuple[str, str]]:
    """The aligned pairs in order, without a pair that repeats an earlier English or target sentence
    (retrieval needs one right answer per query).

    Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """
    seen_e, seen_o, pairs = set(), set(), []
    for a, b in zip(english, other):
        if a not in seen_e and b not in seen_o:
            seen_e.add(a), seen_o.add(b), pairs.append((a, b))
    return pairs


def split_bitext(english: Sequence[str], other: Sequence[str], n_test: int) -> tuple[Side, Side]:
    """``(train, test)`` from aligned sentences: pairs with an empty side are dropped, and the rest
    made distinct (:func:`distinct_pairs`); the last ``n_test`` pairs are the test set, all before
    them the training pool (no test sentence occurs in it).

    Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """
    if len(english) != len(other):
        raise ValueError(f"the two sides are not aligned: {len(english)} English and {len(other)} "
                         "target sentences.")
    kept = [(a, b) for a, b in zip(english, other) if a and b]
    pairs = distinct_pairs([a for a, _ in kept], [b for _, b in kept])
    if len(pairs) < n_test + 2:
        raise ValueError(f"{len(pairs)} distinct pairs are too few for {n_test} test pairs and a "
                         "training pool of 2; read more pairs or lower n_test.")
    cut = len(pairs) - n_test
    train, test = pairs[:cut], pairs[cut:]
    return ([a for a, _ in train], [b for _, b in train]), ([a for a, _ in test],
                                                            [b for _, b in test])


def curve_sizes(available: int, sizes: Sequence[int] | None = None, first: int = 1000) -> list[int]:
    """The bitext sizes a curve runs when ``available`` training pairs exist: those of ``sizes`` up
    to ``available``, or (``sizes=None``) ``first`` doubling while it fits; ``[available]`` when
    none fits.
    Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """
    if available < 2:
        raise ValueError("need at least 2 training pairs for a curve, the bitext leaves "
                         f"{available}.")
    if first < 1:
        raise ValueError(f"first must be a positive pair count, got {first}.")
    if sizes is not None:
        return [n for n in sizes if n <= available] or [available]
    out, n = [], first
    while n <= available:
        out.append(n)
        n *= 2
    return out or [available]


def europarl_prefix(data_dir: str | Path, lang: str) -> Path:
    """Where the Europarl v7 ``lang``-English files sit in a data_dir:
    ``bitext/europarl-v7.<lang>-en`` (+ ``.en``, ``.<lang>``).

    Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """
    return Path(data_dir) / "bitext" / f"europarl-v7.{lang}-en"


def load_real_bitext(languages: Sequence[str], cached: Mapping[str, str], *, n_test: int,
                     max_len: int,
                     max_pairs: int | None, data_dir: str | Path | None = None,
                     on_fallback: Callable[[str, str], None] | None = None) -> RealBitextData:
    """English paired with each of ``languages``: Europarl v7 from ``data_dir``
    (:func:`europarl_prefix`) when its two files are there, else the data cache's bitext
    ``cached[lang]`` (English on the left); at most ``max_pairs`` pairs read (``None``: all),
    prepared by :func:`prepare_text` (``max_len`` tokens) and split by :func:`split_bitext`
    (``n_test`` held-out pairs). ``on_fallback(lang, reason)`` hears when Europarl was there but
    unusable.

    Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """
    from xsent_lib.data.corpora import load_bitext as load_cached
    from xsent_lib.data.formats import load_moses_bitext

    train, test, source = {}, {}, {}
    for lang in languages:
        prefix = europarl_prefix(data_dir, lang) if data_dir is not None else None
        if (prefix is not None and Path(f"{prefix}.en").is_file()
                and Path(f"{prefix}.{lang}").is_file()):
            try:
                bi = load_moses_bitext(prefix, "en", lang, max_pairs)
                en, other = prepare_text(bi.source, max_len), prepare_text(bi.target, max_len)
                train[lang], test[lang] = split_bitext(en, other, n_test)
                source[lang] = f"Europarl v7 {lang}-en from data_dir ({len(bi)} pairs read)"
                continue
            except ValueError as err:
                if on_fallback is not None:
                    on_fallback(lang, str(err))
        if lang not in cached:
            raise ValueError(f"no cached bitext for {lang!r} (have {sorted(cached)}) and none in "
                             "data_dir.")
        src, tgt = load_cached(cached[lang], max_pairs=max_pairs)
        train[lang], test[lang] = split_bitext(prepare_text(src, max_len),
                                               prepare_text(tgt, max_len), n_test)
        source[lang] = f"{cached[lang]} from the data cache ({len(src)} pairs read)"
    return RealBitextData(list(languages), train, test, source)
