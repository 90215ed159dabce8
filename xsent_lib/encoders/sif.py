"""SIF sentence vectors over a language's word space: the bottom-up baseline of Aldarmaki & Diab
(2019).

``v_s = (1/|s|) sum_w a / (a + p(w)) v_w`` (Arora et al. 2017) over word vectors trained on that
language's monolingual text, with ``p(w)`` counted on the sentences given, optionally after mapping
the word vectors by a matrix ``W`` (the static-dictionary alignment: a word-level orthogonal map
fitted on a bilingual dictionary). The first principal component can then be removed
(``fit_principal_component``).
Book: chapter 7 (Joint vs transfer vs mapping).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xsent_lib.data.word_spaces import LanguageSpace
from xsent_lib.encoders.bag import BagOfVectorsEncoder
from xsent_lib.text import TextPipeline, WordTokenizer


def sif_encoder(space: LanguageSpace, sentences: Sequence[str], *, W: np.ndarray | None = None,
                sif_a: float = 1e-3) -> BagOfVectorsEncoder:
    """A frozen SIF bag over ``space``'s vectors (mapped by ``W`` ``(d_out, d)`` when given) with
    word probabilities counted on ``sentences``; words without a vector read as zero (they only
    shorten the mean).

    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    if not isinstance(space, LanguageSpace):
        raise TypeError("space must be a LanguageSpace (see xsent_lib.data.word_spaces), got "
                        f"{type(space).__name__}.")
    sentences = list(sentences)
    if not sentences:
        raise ValueError("sif_encoder needs sentences to count word probabilities on.")
    vectors = np.asarray(space.vectors, np.float32)
    if W is not None:
        W = np.asarray(W, np.float32)
        if W.ndim != 2 or W.shape[1] != vectors.shape[1]:
            raise ValueError(f"W must be (d_out, {vectors.shape[1]}), got {W.shape}.")
        vectors = vectors @ W.T
    pipeline = TextPipeline.fit(sentences, WordTokenizer())
    weights = np.zeros((len(pipeline.vocab), vectors.shape[1]), np.float32)
    for i, word in enumerate(pipeline.vocab.itos):
        row = space.word2id.get(word)
        if row is not None:
            weights[i] = vectors[row]
    return BagOfVectorsEncoder(len(pipeline.vocab), vectors.shape[1], "sif", embeddings=weights,
                               freeze=True, pipeline=pipeline, sif_a=sif_a)
