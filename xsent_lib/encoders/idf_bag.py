"""Sentence vectors as idf-weighted bags of (mapped) word vectors, as in the thesis' sentence
retrieval.

Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse

from xsent_lib.data.word_spaces import LanguageSpace
from xsent_lib.text.tokenizers import word_tokens


def _token_matrix(sentences: Sequence[str], space: LanguageSpace) -> sparse.csr_matrix:
    """Sentence x vocabulary counts of the in-vocabulary word tokens
    (``text.tokenizers.word_tokens``)."""
    rows, cols = [], []
    lookup = space.word2id.get
    for i, sentence in enumerate(sentences):
        ids = [j for j in map(lookup, word_tokens(sentence)) if j is not None]
        rows += [i] * len(ids)
        cols += ids
    data = np.ones(len(rows), dtype=np.float32)
    return sparse.csr_matrix((data, (rows, cols)), shape=(len(sentences), len(space)))


def idf_weights(sentences: Sequence[str], space: LanguageSpace) -> np.ndarray:
    """``log(N / df(w))`` for every vocabulary word over ``sentences`` (words never seen get
    ``log N``).

    The thesis takes idf from 300k other Europarl sentences; pass sentences that are not evaluated.
    Book: chapter 5 (Word translation without parallel data).
    """
    if not len(sentences):
        raise ValueError("idf needs at least one sentence.")
    counts = _token_matrix(sentences, space)
    df = np.asarray((counts > 0).sum(axis=0)).ravel()
    return np.log(len(sentences) / np.maximum(df, 1)).astype(np.float32)


def bag_of_words(sentences: Sequence[str], space: LanguageSpace, idf: np.ndarray | None = None,
                 W: np.ndarray | None = None) -> np.ndarray:
    """Sentence vectors: the (idf-weighted) mean of their words' vectors, mapped by ``W`` when
    given.

    One sparse-dense product for all sentences. A sentence with no known word gets the zero vector
    (it can match nothing). The map is linear, so averaging then mapping equals mapping each word.
    Book: chapter 5 (Word translation without parallel data).
    """
    counts = _token_matrix(sentences, space)
    if idf is not None:
        idf = np.asarray(idf, dtype=np.float32)
        if idf.shape != (len(space),):
            raise ValueError(f"idf must have one weight per word ({len(space)}), got shape "
                             f"{idf.shape}.")
        counts = counts @ sparse.diags(idf)
    totals = np.asarray(counts.sum(axis=1)).ravel()
    emb = np.asarray(counts @ space.vectors) / np.maximum(totals, 1e-12)[:, None]
    if W is not None:
        W = np.asarray(W)
        if W.ndim != 2 or W.shape[1] != emb.shape[1]:
            raise ValueError(f"W must be (d_out, {emb.shape[1]}), got shape {W.shape}.")
        emb = emb @ W.T  # the map applied to rows, as xsent_lib.align.procrustes.apply_map does
    return emb.astype(np.float32)
