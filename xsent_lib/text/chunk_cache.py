"""Token ids through a cache of whitespace-delimited chunks: each distinct chunk is tokenised once.

A tokeniser whose tokens never contain whitespace and never depend on text across it gives a
sentence the concatenation of its chunks' tokens. A corpus repeats its chunks ("the", "of",
"dog.") thousands of times, so tokenising the distinct ones and gathering their id rows turns
the per-sentence regex work into a few C-level passes (``str.split``, dict lookups) and one numpy
gather: worth it where a chunk's tokens are dear (character trigrams,
``Tokenizer.cache_chunks``).
Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
"""
from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

# Sentences are joined around a marker that ``str.split`` keeps as a chunk of its own: one split
# of the whole text gives every chunk, the markers give the sentence boundaries.
_MARK = "\x00"
_JOIN = f"\n{_MARK}\n"

IdsOf = Callable[[list[str]], tuple[np.ndarray, np.ndarray]]


def gather_csr_rows(flat: np.ndarray, offsets: np.ndarray,
                    rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``rows`` (any order, repeats allowed) of a CSR array, as a new CSR array.

    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """
    starts = offsets[rows]
    lengths = offsets[rows + 1] - starts
    new = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lengths, out=new[1:])
    index = np.repeat(starts - new[:-1], lengths) + np.arange(int(new[-1]), dtype=np.int64)
    return flat[index], new


def chunk_cached_ids(sentences: list[str], ids_of: IdsOf, *,
                     lower: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``ids_of(sentences)`` computed on the distinct whitespace-delimited chunks only.

    ``ids_of`` maps a list of texts to CSR ids (flat int64 ids, ``len + 1`` offsets); it must
    be whitespace-local (the ids of a text are the concatenation of the ids of its
    ``str.split()`` chunks), which the caller guarantees. ``lower=True`` lower-cases the text
    first, for an ``ids_of`` that lower-cases anyway (``str.lower`` is idempotent and its one
    context rule, the final sigma, stops at whitespace). Returns the same CSR ids as
    ``ids_of(sentences)``.
    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """
    if not sentences:
        return np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64)
    text = _JOIN.join(sentences)
    if text.count(_MARK) != len(sentences) - 1:  # a sentence holds the marker itself
        return _chunk_cached_each(sentences, ids_of)
    if lower:
        text = text.lower()
    chunks = text.split()
    seen = dict.fromkeys(chunks)
    seen.pop(_MARK, None)
    distinct = list(seen)
    position = dict(zip(distinct, range(len(distinct))))
    position[_MARK] = -1
    rows = np.fromiter(map(position.__getitem__, chunks), dtype=np.int64, count=len(chunks))
    marks = np.flatnonzero(rows < 0)
    per_sentence = np.diff(np.concatenate(([-1], marks, [len(rows)]))) - 1
    return _gather_sentences(ids_of(distinct), np.delete(rows, marks), per_sentence)


def _chunk_cached_each(sentences: list[str], ids_of: IdsOf) -> tuple[np.ndarray, np.ndarray]:
    """:func:`chunk_cached_ids` splitting each sentence on its own (for text holding the
    marker)."""
    splits = list(map(str.split, sentences))
    per_sentence = np.fromiter(map(len, splits), dtype=np.int64, count=len(splits))
    chunks = list(itertools.chain.from_iterable(splits))
    distinct = list(dict.fromkeys(chunks))
    position = dict(zip(distinct, range(len(distinct))))
    rows = np.fromiter(map(position.__getitem__, chunks), dtype=np.int64, count=len(chunks))
    return _gather_sentences(ids_of(distinct), rows, per_sentence)


def _gather_sentences(distinct_ids: tuple[np.ndarray, np.ndarray], rows: np.ndarray,
                      per_sentence: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sentence CSR ids from the distinct chunks' ids, each chunk's row and the chunks per
    sentence."""
    if not len(rows):
        return np.zeros(0, dtype=np.int64), np.zeros(len(per_sentence) + 1, dtype=np.int64)
    flat, chunk_offsets = gather_csr_rows(*distinct_ids, rows)
    first_chunk = np.zeros(len(per_sentence) + 1, dtype=np.int64)
    np.cumsum(per_sentence, out=first_chunk[1:])
    return flat, chunk_offsets[first_chunk]
