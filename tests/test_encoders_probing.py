"""The probing study's encoders: sizes, seeding, and the checks of make_encoder."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
import torch

from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.encoders.probing import make_encoder
from xsent_lib.text import BOS_TOKEN, EOS_TOKEN, PAD_TOKEN, UNK_TOKEN, TextPipeline, Vocab, WordTokenizer



@dataclass
class ToyWords:
    """The three things an encoder needs of a word setup (see encoders.probing.WordInputs)."""

    pipeline: TextPipeline
    weights: np.ndarray
    frozen: bool = False

    @property
    def dim(self) -> int:
        return int(self.weights.shape[1])


def toy_words(sentences: list[str], dim: int = 8) -> ToyWords:
    tokenizer = WordTokenizer(lowercase=True)
    vocab = Vocab.build(tokenizer.tokenize_batch(sentences), specials=(PAD_TOKEN, UNK_TOKEN, BOS_TOKEN, EOS_TOKEN))
    weights = np.random.default_rng(0).normal(size=(len(vocab), dim)).astype(np.float32)
    weights[0] = 0.0
    return ToyWords(TextPipeline(tokenizer, vocab, bos=BOS_TOKEN, eos=EOS_TOKEN), weights)


@pytest.fixture(scope="module")
def words():
    return toy_words(SyntheticWorld(3).sentences(200, "en"))


def test_make_encoder_sizes_and_seeding(words):
    a = make_encoder("bilstm-max", words, 16, seed=5)
    b = make_encoder("bilstm-max", words, 16, seed=5)
    c = make_encoder("gated-convnet", words, 12, conv_layers=2, seed=5)
    last = make_encoder("bilstm-last", words, 16, seed=5)
    assert a.output_dim == 16 and c.output_dim == 12 and last.output_dim == 16
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))
    assert a.encode(["a b c"], device="cpu").shape == (1, 16)
    with pytest.raises(ValueError):
        make_encoder("bilstm-max", words, 15)
    with pytest.raises(ValueError):
        make_encoder("lstm", words, 16)
