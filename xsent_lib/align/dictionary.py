"""Bilingual dictionaries as index pairs: reading, looking up in vocabularies, splitting, coverage.

A dictionary is a list of ``(source word, target word)`` pairs; a source word may have several
translations (MUSE's dictionaries handle polysemy that way, and a retrieval counts as a hit if it
finds any of them). Everything downstream works on an ``(n, 2)`` integer array of row indices into
the source and target embedding matrices.

Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

Vocabulary = Mapping[str, int] | Sequence[str]


def read_word_pairs(path: str | Path) -> list[tuple[str, str]]:
    """Read a MUSE-style dictionary file: one ``source target`` pair per line, whitespace-separated.

    Blank lines are skipped; a line without exactly two fields is an error naming the line.
    Book: chapter 5 (Word translation without parallel data).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"dictionary file {path} does not exist.")
    pairs = []
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 2:
                raise ValueError(f"{path}:{line_no}: expected 'source target', got "
                                 f"{line.rstrip()!r}.")
            pairs.append((fields[0], fields[1]))
    return pairs


def _index(vocab: Vocabulary, name: str) -> Mapping[str, int]:
    """Word -> row index, from a mapping or from a list of words in row order."""
    if isinstance(vocab, Mapping):
        return vocab
    if isinstance(vocab, str) or not isinstance(vocab, Sequence):
        raise TypeError(f"{name} must be a word->index mapping or a list of words in row order, "
                        f"got {type(vocab).__name__}.")
    return {w: i for i, w in reversed(list(enumerate(vocab)))}  # first occurrence wins


@dataclass(frozen=True)
class DictionaryLookup:
    """Index pairs found in both vocabularies, with what was lost on the way.

    ``pairs`` is ``(n, 2)`` int64 ``[source row, target row]``, de-duplicated, in input order.
    Book: chapter 5 (Word translation without parallel data).
    """

    pairs: np.ndarray
    n_input: int
    n_missing_source: int
    n_missing_target: int
    n_duplicates: int

    def coverage(self) -> dict[str, float | int]:
        """Counts and fractions of the input pairs kept and lost, ready for a table.

        Book: chapter 5 (Word translation without parallel data).
        """
        kept = len(self.pairs)
        return {
            "pairs_in": self.n_input,
            "pairs_kept": kept,
            "pair_coverage": kept / self.n_input if self.n_input else 0.0,
            "missing_source": self.n_missing_source,
            "missing_target": self.n_missing_target,
            "duplicates": self.n_duplicates,
            "source_words": int(np.unique(self.pairs[:, 0]).size),
            "target_words": int(np.unique(self.pairs[:, 1]).size),
        }


def lookup_pairs(word_pairs: Iterable[tuple[str, str]], src_vocab: Vocabulary,
                 tgt_vocab: Vocabulary) -> DictionaryLookup:
    """Turn word pairs into embedding-row pairs, dropping pairs with a word outside a vocabulary.

    A pair missing on both sides counts as missing on the source side.
    Book: chapter 5 (Word translation without parallel data).
    """
    src_index, tgt_index = _index(src_vocab, "src_vocab"), _index(tgt_vocab, "tgt_vocab")
    kept: dict[tuple[int, int], None] = {}
    n_input = miss_src = miss_tgt = dup = 0
    for src_word, tgt_word in word_pairs:
        n_input += 1
        i, j = src_index.get(src_word), tgt_index.get(tgt_word)
        if i is None:
            miss_src += 1
        elif j is None:
            miss_tgt += 1
        elif (i, j) in kept:
            dup += 1
        else:
            kept[(i, j)] = None
    pairs = np.array(list(kept), dtype=np.int64).reshape(-1, 2)
    return DictionaryLookup(pairs, n_input, miss_src, miss_tgt, dup)


def split_by_source(pairs: np.ndarray, n_test: int = 1500, *, n_train: int | None = 5000,
                    seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Split index pairs into train and test with disjoint *source words* (all translations stay
    together).

    MUSE's setting: Procrustes supervision on 5,000 source words, 1,500 test queries. Source words
    are shuffled with ``seed``; ``n_train=None`` puts every remaining word in train.
    Book: chapter 5 (Word translation without parallel data).
    """
    pairs = np.asarray(pairs)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or not np.issubdtype(pairs.dtype, np.integer):
        raise ValueError(f"pairs must be an integer array of shape (n, 2), got {pairs.shape} "
                         f"{pairs.dtype}.")
    words = np.unique(pairs[:, 0])
    need = n_test + (n_train or 0)
    if n_test < 1 or len(words) < need:
        raise ValueError(f"asked for {n_test} test + {n_train or 0} train source words but the "
                         f"dictionary has {len(words)} distinct source words; lower "
                         "n_test/n_train.")
    order = np.random.default_rng(seed).permutation(words)
    test_words = order[:n_test]
    train_words = order[n_test:] if n_train is None else order[n_test:n_test + n_train]
    in_test = np.isin(pairs[:, 0], test_words)
    in_train = np.isin(pairs[:, 0], train_words)
    return pairs[in_train], pairs[in_test]


def group_by_source(pairs: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """Distinct source rows (sorted) and, for each, the array of its gold target rows.

    This is the form precision@k needs: a query is right if it retrieves any of its translations.
    Book: chapter 5 (Word translation without parallel data).
    """
    pairs = np.asarray(pairs)
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        raise ValueError(f"pairs must have shape (n, 2), got {pairs.shape}.")
    order = np.lexsort((pairs[:, 1], pairs[:, 0]))
    ordered = pairs[order]
    sources, starts = np.unique(ordered[:, 0], return_index=True)
    return sources, np.split(ordered[:, 1], starts[1:])
