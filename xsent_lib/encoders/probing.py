"""The three encoders of the probing study (Conneau et al. 2018), built on frozen word vectors.

BiLSTM-last, BiLSTM-max and a gated ConvNet read the same fixed pretrained word vectors, so
that an untrained encoder is a random projection of them (the thesis's "Untrained" rows).
Book: chapter 4 (Probing: the encoders).
"""
from __future__ import annotations

from typing import Protocol

import numpy as np

from xsent_lib.base.runtime import seed_everything
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.encoders.convnet import GatedConvNetEncoder
from xsent_lib.encoders.recurrent import RecurrentEncoder
from xsent_lib.text.pipeline import TextPipeline

PROBING_ENCODERS: tuple[str, ...] = ("bilstm-last", "bilstm-max", "gated-convnet")


class WordInputs(Protocol):
    """What an encoder needs of a word setup: the pipeline, the vectors, whether they are frozen.

    Book: chapter 4 (Probing: the encoders).
    """

    pipeline: TextPipeline
    weights: np.ndarray
    frozen: bool

    @property
    def dim(self) -> int:
        """Word-vector dimension. Book: chapter 4 (Probing: the encoders)."""


def make_encoder(arch: str, words: WordInputs, dim: int, conv_layers: int = 4,
                 seed: int = 0, lstm_layers: int = 1) -> SentenceEncoder:
    """A fresh seeded encoder of sentence-vector size ``dim`` on frozen word vectors.

    ``bilstm-last`` / ``bilstm-max``: ``lstm_layers`` stacked BiLSTM layers of ``dim / 2`` units per
    direction (the thesis: 2 layers of 512; the full profile's plan); ``gated-convnet``:
    ``conv_layers`` gated convolutions of ``dim`` channels, kernel 3 (the thesis: 8 layers of 512).
    The same ``seed`` gives the same initial weights, so each trained encoder starts from its
    untrained row.
    Book: chapter 4 (Probing: the encoders).
    """
    if arch not in PROBING_ENCODERS:
        raise ValueError(f"unknown encoder {arch!r}; the probing encoders are "
                         f"{list(PROBING_ENCODERS)}.")
    odd = arch != "gated-convnet" and dim % 2
    if not isinstance(dim, (int, np.integer)) or dim < 2 or odd:
        raise ValueError(f"dim must be a positive (even, for BiLSTMs) integer, "
                         f"got {dim!r}.")
    seed_everything(seed)
    n_words = len(words.pipeline.vocab)
    common = {"word_dim": words.dim, "embeddings": words.weights,
              "freeze_embeddings": words.frozen, "pipeline": words.pipeline}
    if arch == "gated-convnet":
        return GatedConvNetEncoder(n_words, hidden_dim=int(dim), num_layers=conv_layers,
                                   kernel_size=3, **common)
    return RecurrentEncoder.from_architecture(arch, n_words, hidden_dim=int(dim) // 2,
                                              num_layers=int(lstm_layers), **common)
