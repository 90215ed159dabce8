"""Debian ``dict-freedict-*``: dictd-format bilingual dictionaries, reduced to single-word pairs,
split MUSE-style.

Layout: ``usr/share/dictd/freedict-<src>-<tgt>.index`` (``headword<TAB>offset<TAB>length``, offsets
in dictd's base64 digits) and ``.dict.dz`` (gzip-readable). An entry starts with the headword line
(headword, ``/pronunciation/``, ``<part of speech>``), then translation lines, optionally numbered
``1.``, ``2.``; indented or labelled lines (``Note:``, ``Synonyms:``, ``see:``, quoted examples)
are not translations. In the WikDict-made dictionaries (pronunciations written ``//...//``) each
translation line is followed by an English gloss, so only numbered lines (or the first line)
count. Bracketed notes (``<...>``, ``[...]``, ``(...)``, ``{...}``) are removed, lines are split
at commas and semicolons, and a pair is kept when both headword and translation are one word
(letters and combining marks only; see ``tables.word_tokens``). Everything is lower-cased, as in
MUSE's dictionaries. When the dataset also names the reverse dictionary, its pairs are flipped
and merged in.

Split (our choice; MUSE's own test words come from frequency ranks 5000-6500 of its vectors,
which we do not have): source words are ranked by English frequency in nlp-corpus (for an
English source its own count; for an English target the best rank among its translations).
Candidates are the source words ranked within the top ``max_rank`` English words; the test set
is ``min(n_test, candidates // 3)`` of them, taken at evenly spaced positions of the frequency
order, so it spans the same frequencies as training and holds 1,500 words for every dictionary
large enough (en-ru and other small ones get fewer: the manifest records how many). Every pair
of a test source word is a test pair; all other pairs are training pairs, so no source word is
in both.
Book: chapter 5 (Word translation without parallel data: MUSE).
"""
from __future__ import annotations

import gzip
import os
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path

import numpy as np

from xsent_lib.data.cache import require_dataset
from xsent_lib.data.catalogue import CATALOGUE
from xsent_lib.data.corpora.nlp_corpus import english_documents
from xsent_lib.data.corpora.tables import read_table, write_table
from xsent_lib.data.formats.dictionaries import BilingualDictionary
from xsent_lib.text.tokenizers import is_word, word_tokens

FORMAT_VERSION = 1
DICT_DIR = Path("usr/share/dictd")
PAIRS_FILE = "pairs.tsv"
SPLITS = ("train", "test", "all")
_B64 = {c: i for i, c
        in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}
_LABEL = re.compile(r"^(?:note|notes|synonyms?|antonyms?|see|see also|example|examples)\s*:", re.I)
_NUMBER = re.compile(r"^\d+\.\s*")
_BRACKETS = re.compile(r"<[^>]*>|\[[^\]]*\]|\([^)]*\)|\{[^}]*\}")


def dictd_number(digits: str) -> int:
    """Decode a dictd index number (base 64, digits ``A-Za-z0-9+/``), e.g. ``"BA"`` -> 64.

    Book: chapter 5 (Word translation without parallel data: MUSE).
    """
    value = 0
    for c in digits:
        if c not in _B64:
            raise ValueError(f"{digits!r} is not a dictd base-64 number (bad digit {c!r}).")
        value = value * 64 + _B64[c]
    return value


def read_dictd(index: Path, data: Path) -> Iterator[tuple[str, str]]:
    """Yield ``(headword, entry text)`` for every index line, skipping dictd's ``00database*``
    metadata entries.

    Book: chapter 5 (Word translation without parallel data: MUSE).
    """
    body = gzip.decompress(data.read_bytes())
    for lineno, line in enumerate(index.read_text(encoding="utf-8").splitlines(), start=1):
        parts = line.split("\t")
        if len(parts) != 3:
            raise ValueError(f"{index}:{lineno}: expected 'headword<TAB>offset<TAB>length', got "
                             f"{line!r}.")
        head, offset, length = parts
        if head.startswith("00database"):
            continue
        start = dictd_number(offset)
        yield head, body[start:start + dictd_number(length)].decode("utf-8", errors="replace")


def entry_translations(entry: str) -> list[str]:
    """The one-word translations (lower-cased, in order, without repeats) of one dictd entry text.

    Book: chapter 5 (Word translation without parallel data: MUSE).
    """
    lines = entry.split("\n")
    wikdict = "//" in lines[0]
    content = [ln.strip() for ln in lines[1:] if ln.strip()]
    if wikdict:
        numbered = [ln for ln in content if _NUMBER.match(ln)]
        content = numbered or content[:1]
    out: dict[str, None] = {}
    for line in content:
        # Turkish "bak." = "see"
        if line.startswith(('"', "{")) or _LABEL.match(line) or "(bak." in line:
            continue
        line = _BRACKETS.sub(" ", _NUMBER.sub("", line))
        for item in re.split(r"[,;]", line):
            word = item.strip().rstrip(".").strip().lower()
            if word and is_word(word):
                out[word] = None
    return list(out)


def dictionary_pairs(root: Path) -> set[tuple[str, str]]:
    """All one-word ``(headword, translation)`` pairs of the single dictd dictionary in an unpacked
    package.

    Book: chapter 5 (Word translation without parallel data: MUSE).
    """
    indexes = sorted((root / DICT_DIR).glob("*.index"))
    if len(indexes) != 1:
        raise ValueError(f"{root / DICT_DIR} should hold exactly one .index file, found "
                         f"{len(indexes)}.")
    index = indexes[0]
    data = index.with_name(index.name[: -len(".index")] + ".dict.dz")
    pairs = set()
    for head, entry in read_dictd(index, data):
        head = head.strip().lower()
        if is_word(head):
            pairs.update((head, t) for t in entry_translations(entry))
    return pairs


@lru_cache(maxsize=2)
def english_ranks(nlp_corpus_root: Path) -> dict[str, int]:
    """English word -> frequency rank (0 = most frequent) over the English sentences of nlp-corpus;
    ties by word.

    Book: chapter 5 (Word translation without parallel data: MUSE).
    """
    counts = Counter(w for doc in english_documents(nlp_corpus_root).values() for s in doc
                     for w in word_tokens(s))
    order = sorted(counts, key=lambda w: (-counts[w], w))
    return {w: i for i, w in enumerate(order)}


def split_source_words(pairs: set[tuple[str, str]], ranks: Mapping[str, int], english_side: str,
                       n_test: int = 1500, max_rank: int = 20000) -> tuple[list[str], int]:
    """Choose the test source words as described in the module docstring; return them and the
    candidate count.

    Book: chapter 5 (Word translation without parallel data: MUSE).
    """
    if english_side not in ("source", "target"):
        raise ValueError(f"english_side must be 'source' or 'target', got {english_side!r}.")
    best: dict[str, int] = {}
    for src, tgt in pairs:
        rank = ranks.get(src if english_side == "source" else tgt)
        if rank is not None and rank < max_rank:
            best[src] = min(rank, best.get(src, rank))
    candidates = sorted(best, key=lambda w: (best[w], w))
    size = min(n_test, len(candidates) // 3)
    if size == 0:
        return [], len(candidates)
    positions = ((np.arange(size) + 0.5) * len(candidates) / size).astype(np.int64)
    return [candidates[i] for i in positions], len(candidates)


def normalise_freedict(raw: Mapping[str, Path], out: Path, forward: str, reverse: str | None,
                       english_side: str, ranks_from: str, n_test: int = 1500,
                       max_rank: int = 20000) -> dict[str, object]:
    """Write ``pairs.tsv`` (columns ``src``, ``tgt``, ``split``) for dictionary ``forward`` (+
    flipped ``reverse``).

    Book: chapter 5 (Word translation without parallel data: MUSE).
    """
    pairs = dictionary_pairs(raw[forward])
    if reverse is not None:
        pairs |= {(t, s) for s, t in dictionary_pairs(raw[reverse])}
    if not pairs:
        raise ValueError(f"no single-word pairs found in {forward}: the dictionary format was not "
                         "understood.")
    test_words, n_candidates = split_source_words(pairs, english_ranks(raw[ranks_from]),
                                                  english_side,
                                                  n_test, max_rank)
    test = set(test_words)
    rows = [(s, t, "test" if s in test else "train") for s, t in sorted(pairs)]
    write_table(out / PAIRS_FILE, ("src", "tgt", "split"), rows)
    n_test_pairs = sum(r[2] == "test" for r in rows)
    return {"pairs": len(rows), "source_words": len({s for s, _ in pairs}), "test_words": len(test),
            "test_pairs": n_test_pairs, "train_pairs": len(rows) - n_test_pairs,
            "test_candidates": n_candidates, "max_rank": max_rank}


def load_dictionary(name: str, split: str = "all",
                    cache_dir: str | os.PathLike[str] | None = None) -> BilingualDictionary:
    """The pairs of cached dictionary ``name`` (e.g. ``"freedict-en-de"``) in split ``"train"``,
    ``"test"``, ``"all"``.

    Sorted by source word, then translation; a source word with several translations has several
    rows. Map it onto a vocabulary with
    ``xsent_lib.data.formats.dictionaries.dictionary_to_indices``.
    Book: chapter 5 (Word translation without parallel data: MUSE).
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}.")
    if CATALOGUE.dataset(name).kind != "dictionary":
        names = sorted(d.name for d in CATALOGUE.datasets.values() if d.kind == "dictionary")
        raise ValueError(f"{name!r} is not a dictionary; dictionaries are: {', '.join(names)}.")
    table = read_table(require_dataset(name, cache_dir) / PAIRS_FILE, ("src", "tgt", "split"))
    keep = [split == "all" or s == split for s in table["split"]]
    return BilingualDictionary([w for w, k in zip(table["src"], keep) if k],
                               [w for w, k in zip(table["tgt"], keep) if k])
