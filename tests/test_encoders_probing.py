"""The probing study's encoders: sizes, seeding, and the checks of make_encoder."""
from __future__ import annotations

import pytest
import torch

from xsent_lib.encoders.probing import make_encoder


@pytest.fixture(scope="module")
def words(world, toy_words):
    return toy_words(world.sentences(200, "en"))


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
