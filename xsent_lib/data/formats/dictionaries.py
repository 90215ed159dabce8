"""MUSE bilingual dictionaries (``en-fr.0-5000.txt``, ``en-fr.5000-6500.txt``): one ``source
target`` pair a line.

Book: chapter 5 (Word translation without parallel data: MUSE).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from xsent_lib.data.formats._io import PathLike, format_error, iter_lines

_HINT = (
    "MUSE's dictionaries come from its data/get_evaluation.sh "
    "(https://github.com/facebookresearch/MUSE); put them as "
    "<data_dir>/crosslingual/dictionaries/<src>-<tgt>.<0-5000|5000-6500>.txt, one "
    "whitespace-separated 'source target' pair a line."
)
MUSE_SPLITS: tuple[str, ...] = ("0-5000", "5000-6500", "full")


@dataclass
class BilingualDictionary:
    """Translation pairs in file order; a source word with several translations appears on several
    rows.

    Book: chapter 5 (Word translation without parallel data: MUSE).
    """

    source: list[str]
    target: list[str]

    def __len__(self) -> int:
        return len(self.source)


@dataclass
class DictionaryIndices:
    """A dictionary mapped onto two vocabularies, and how much of it the vocabularies cover.

    ``pairs`` is an ``(n_kept, 2)`` int64 array of (source id, target id) for the pairs whose both
    words are in vocabulary, in file order; ``n_oov_source`` / ``n_oov_target`` count pairs whose
    source / target word is missing (a pair can count in both); ``source_coverage`` is the share of
    distinct source words that keep at least one pair (the denominator of MUSE's precision@k).
    Book: chapter 5 (Word translation without parallel data: MUSE).
    """

    pairs: np.ndarray
    n_pairs: int
    n_oov_source: int
    n_oov_target: int
    coverage: float
    source_coverage: float


def load_bilingual_dictionary(path: PathLike, lowercase: bool = False) -> BilingualDictionary:
    """Read a MUSE dictionary file: exactly two whitespace-separated words a line (tab or space).

    Book: chapter 5 (Word translation without parallel data: MUSE).
    """
    source: list[str] = []
    target: list[str] = []
    for lineno, line in iter_lines(path, _HINT):
        words = line.split()
        if not words:
            continue
        if len(words) != 2:
            raise format_error(path, lineno, "2 whitespace-separated words (source target)",
                               str(len(words)), _HINT)
        if lowercase:
            words = [w.lower() for w in words]
        source.append(words[0])
        target.append(words[1])
    return BilingualDictionary(source, target)


def load_muse_dictionary(
    data_dir: PathLike, source_lang: str, target_lang: str, split: str = "5000-6500",
    lowercase: bool = False
) -> BilingualDictionary:
    """Load ``<data_dir>/crosslingual/dictionaries/<src>-<tgt>.<split>.txt``; ``split="full"`` is
    ``<src>-<tgt>.txt``.

    MUSE trains on ``0-5000`` and evaluates on ``5000-6500``.
    Book: chapter 5 (Word translation without parallel data: MUSE).
    """
    if split not in MUSE_SPLITS:
        raise ValueError(f"MUSE dictionary split must be one of {MUSE_SPLITS}, got {split!r}.")
    suffix = "" if split == "full" else f".{split}"
    path = (Path(data_dir) / "crosslingual" / "dictionaries"
            / f"{source_lang}-{target_lang}{suffix}.txt")
    return load_bilingual_dictionary(path, lowercase)


def dictionary_to_indices(
    dictionary: BilingualDictionary, source_word2id: Mapping[str, int],
    target_word2id: Mapping[str, int]
) -> DictionaryIndices:
    """Map dictionary pairs to vocabulary ids, dropping pairs with an out-of-vocabulary word.

    Book: chapter 5 (Word translation without parallel data: MUSE).
    """
    if not len(dictionary):
        raise ValueError("the dictionary is empty: nothing to map (check the file and the language "
                         "pair).")
    src = np.fromiter((source_word2id.get(w, -1) for w in dictionary.source), np.int64,
                      len(dictionary))
    tgt = np.fromiter((target_word2id.get(w, -1) for w in dictionary.target), np.int64,
                      len(dictionary))
    kept = (src >= 0) & (tgt >= 0)
    distinct_sources = set(dictionary.source)
    covered_sources = {w for w, k in zip(dictionary.source, kept.tolist(), strict=True) if k}
    return DictionaryIndices(
        pairs=np.stack([src[kept], tgt[kept]], axis=1),
        n_pairs=len(dictionary),
        n_oov_source=int((src < 0).sum()),
        n_oov_target=int((tgt < 0).sum()),
        coverage=float(kept.mean()),
        source_coverage=len(covered_sources) / len(distinct_sources),
    )
