"""Distances between words and their translations (thesis Table 4.16): cosine similarity and L2
distance.

XLM compares the input lookup table of its MLM with MUSE-aligned and concatenation-trained fastText
vectors on dictionary pairs: a shared space puts a word close to its translation.
:func:`single_piece_pairs` keeps the dictionary pairs whose two words are each one piece of a shared
subword vocabulary (the lookup table has a row for them), and :func:`translation_distances` averages
cosine and L2 over paired rows.
Book: chapter 10 (Cross-lingual language models, XLM: word embeddings).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xsent_lib.text import TextPipeline

WORD_START = "\u2581"  # sentencepiece's word-start mark


def single_piece_pairs(pipeline: TextPipeline,
                       pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str, int, int]]:
    """``(source, target, source id, target id)`` for the pairs whose two words are single pieces of
    ``pipeline``.

    A word counts when its sentencepiece tokenisation is exactly one word-initial piece that the
    vocabulary holds; duplicate pairs are dropped; pairs of identical ids (the same string in both
    languages) are dropped too, since their distance is 0 by construction.
    Book: chapter 10 (Cross-lingual language models, XLM: word embeddings).
    """
    out, seen = [], set()
    stoi = pipeline.vocab.stoi
    words = sorted({w for pair in pairs for w in pair})
    pieces = dict(zip(words, pipeline.tokenizer.tokenize_batch(words))) if words else {}
    for src, tgt in pairs:
        ps, pt = pieces[src], pieces[tgt]
        if len(ps) != 1 or len(pt) != 1 or ps[0] not in stoi or pt[0] not in stoi:
            continue
        if not (ps[0].startswith(WORD_START) and pt[0].startswith(WORD_START)):
            continue
        i, j = stoi[ps[0]], stoi[pt[0]]
        if i != j and (i, j) not in seen:
            seen.add((i, j))
            out.append((src, tgt, i, j))
    return out


def translation_distances(X: np.ndarray, Y: np.ndarray) -> dict[str, float]:
    """Mean cosine similarity and mean L2 distance between rows ``X[i]`` and ``Y[i]`` (a word and
    its translation).

    Also reports the mean cosine of *random* pairs (``X[i]`` with ``Y[perm[i]]``), the level a space
    without any cross-lingual alignment would reach, and ``n``.
    Book: chapter 10 (Cross-lingual language models, XLM: word embeddings).
    """
    X = np.asarray(X, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    if X.ndim != 2 or X.shape != Y.shape or X.shape[0] < 2:
        raise ValueError("X and Y must be matching [n >= 2, d] arrays of paired vectors, got "
                         f"{X.shape} and {Y.shape}.")
    unit = lambda A: A / np.maximum(np.linalg.norm(A, axis=1, keepdims=True), 1e-12)  # noqa: E731
    cos = (unit(X) * unit(Y)).sum(1)
    perm = np.random.default_rng(0).permutation(len(Y))
    perm = np.where(perm == np.arange(len(Y)), np.roll(perm, 1), perm)
    random_cos = (unit(X) * unit(Y[perm])).sum(1)
    return {"cosine": float(cos.mean()), "L2": float(np.linalg.norm(X - Y, axis=1).mean()),
            "cosine of random pairs": float(random_cos.mean()), "n": int(len(X))}
