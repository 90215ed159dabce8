"""Transformer sentence encoder: shapes, padding invariance, language and position embeddings, tied LM head."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from xsent_lib.encoders.transformer import (
    POOLINGS,
    TransformerSentenceEncoder,
    sinusoidal_positions,
)
from xsent_lib.text.batching import pad_batch
from xsent_lib.text.pipeline import TextPipeline
from xsent_lib.text.tokenizers import WordTokenizer

V = 40


def tiny(pooling: str = "mean-max", **kw) -> TransformerSentenceEncoder:
    torch.manual_seed(0)
    kw = {"d_model": 16, "n_heads": 2, "n_layers": 2, "max_len": 32, **kw}
    return TransformerSentenceEncoder(V, pooling=pooling, **kw).eval()


def batch_with(sentence: list[int], others: list[list[int]]) -> tuple[torch.Tensor, torch.Tensor]:
    return pad_batch([np.array(s) for s in [*others[:1], sentence, *others[1:]]])


@pytest.mark.parametrize("pooling", POOLINGS)
def test_shapes_and_output_dim(pooling: str) -> None:
    enc = tiny(pooling)
    ids, lens = pad_batch([np.array([3, 4, 5, 6]), np.array([7, 8])])
    out = enc(ids, lens)
    assert out.shape == (2, enc.output_dim)
    assert enc.output_dim == (32 if pooling == "mean-max" else 16)
    hidden = enc.hidden_states(ids, lens)
    assert hidden.shape == (2, 4, 16)
    assert torch.all(hidden[1, 2:] == 0), "padded positions of the per-token states are zeroed"
    assert enc.lm_logits(hidden).shape == (2, 4, V)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("pooling", POOLINGS)
def test_padding_and_batch_composition_never_change_a_sentence(pooling: str, norm_first: bool) -> None:
    enc = tiny(pooling, norm_first=norm_first, n_langs=2)
    sentence = [5, 9, 2, 17, 3]
    alone = enc(*pad_batch([np.array(sentence)]))
    for others in ([[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]], [[30], [12, 13, 14, 15, 16, 17, 18, 19]]):
        ids, lens = batch_with(sentence, others)
        assert ids.shape[1] > len(sentence)
        torch.testing.assert_close(enc(ids, lens)[1], alone[0], atol=1e-5, rtol=0)
        with torch.no_grad():  # the fused inference path of torch must agree too
            torch.testing.assert_close(enc(ids, lens)[1], alone[0], atol=1e-5, rtol=0)


def test_pooling_formulas_on_hidden_states() -> None:
    enc = tiny("mean-max")
    ids, lens = pad_batch([np.array([3, 4, 5]), np.array([6])])
    h = enc.hidden_states(ids, lens)
    out = enc(ids, lens)
    torch.testing.assert_close(out[0, :16], h[0, :3].mean(0))
    torch.testing.assert_close(out[0, 16:], h[0, :3].max(0).values)
    torch.testing.assert_close(out[1], torch.cat([h[1, 0], h[1, 0]]))
    first = tiny("first")
    torch.testing.assert_close(first(ids, lens), first.hidden_states(ids, lens)[:, 0])


def test_language_embedding_changes_the_output_and_accepts_both_shapes() -> None:
    enc = tiny("mean", n_langs=3)
    ids, lens = pad_batch([np.array([3, 4, 5]), np.array([6, 7])])
    out0 = enc(ids, lens, langs=torch.tensor([0, 0]))
    out1 = enc(ids, lens, langs=torch.tensor([1, 1]))
    assert (out0 - out1).abs().max() > 1e-3
    per_token = torch.tensor([[1, 1, 1], [0, 0, 0]])
    torch.testing.assert_close(enc(ids, lens, langs=per_token), enc(ids, lens, langs=torch.tensor([1, 0])))
    mixed = enc.hidden_states(ids, lens, langs=torch.tensor([[0, 0, 1], [0, 0, 0]]))
    assert (mixed[0] - enc.hidden_states(ids, lens, langs=torch.tensor([0, 0]))[0]).abs().max() > 1e-3
    with pytest.raises(ValueError, match="language ids"):
        enc(ids, lens, langs=torch.tensor([0, 3]))
    with pytest.raises(ValueError, match="n_langs=0"):
        tiny("mean")(ids, lens, langs=torch.tensor([0, 0]))


def test_positions_matter_and_are_bounded() -> None:
    enc = tiny("mean")
    ids, lens = pad_batch([np.array([3, 4, 5, 6])])
    reset = torch.tensor([[0, 1, 0, 1]])
    assert (enc(ids, lens) - enc(ids, lens, positions=reset)).abs().max() > 1e-3
    long_ids, long_lens = pad_batch([np.arange(1, 34) % V])
    with pytest.raises(ValueError, match="max_len=32"):
        enc(long_ids, long_lens)


def test_sinusoidal_table_values() -> None:
    table = sinusoidal_positions(5, 4)
    assert table[0].tolist() == [0.0, 1.0, 0.0, 1.0]
    assert table[3, 0].item() == pytest.approx(math.sin(3.0))
    assert table[3, 3].item() == pytest.approx(math.cos(3.0 / 100.0))
    enc = tiny("mean", positions="sinusoidal")
    assert not any("position" in name for name, _ in enc.named_parameters())


def test_causal_states_ignore_future_tokens() -> None:
    enc = tiny("mean")
    a, lens = pad_batch([np.array([3, 4, 5, 6, 7])])
    b = a.clone()
    b[0, 3:] = torch.tensor([20, 21])
    ha, hb = enc.hidden_states(a, lens, causal=True), enc.hidden_states(b, lens, causal=True)
    torch.testing.assert_close(ha[0, :3], hb[0, :3])
    assert (ha[0, 3:] - hb[0, 3:]).abs().max() > 1e-3
    assert (enc.hidden_states(a, lens)[0, :3] - enc.hidden_states(b, lens)[0, :3]).abs().max() > 1e-3


def test_lm_projection_is_tied_to_the_input_embeddings() -> None:
    enc = tiny("mean")
    h = torch.randn(3, 16)
    torch.testing.assert_close(enc.lm_logits(h), h @ enc.token_embedding.weight.T + enc.lm_bias)
    enc.lm_logits(h)[:, 7].sum().backward()
    assert enc.token_embedding.weight.grad[7].abs().sum() > 0
    assert sum(p.numel() for p in enc.parameters()) == sum(
        p.numel() for n, p in enc.named_parameters() if n != "lm_bias"
    ) + V


def test_encode_matches_forward_and_uses_the_language() -> None:
    sentences = ["a cat sat", "the dog ran far away", "a dog"]
    pipe = TextPipeline.fit(sentences, WordTokenizer())
    enc = TransformerSentenceEncoder(len(pipe.vocab), d_model=16, n_heads=2, n_layers=1, n_langs=2, pipeline=pipe)
    enc.eval()
    got = enc.encode(sentences, batch_size=2, device="cpu")
    ids, lens = pad_batch(pipe.encode(sentences))
    np.testing.assert_allclose(got, enc(ids, lens).detach().numpy(), atol=1e-5)
    tagged = enc.encode(sentences, batch_size=2, device="cpu", lang=1)
    np.testing.assert_allclose(tagged, enc(ids, lens, langs=torch.ones(3, dtype=torch.long)).detach().numpy(), atol=1e-5)
    assert enc.default_lang is None
    with pytest.raises(ValueError, match="lang must be"):
        enc.encode(sentences, lang=2)
    half = enc.encode(sentences, batch_size=2, device="cpu", lang=1, precision="bfloat16")
    cos = (half * tagged).sum(1) / np.linalg.norm(half, axis=1) / np.linalg.norm(tagged, axis=1)
    assert half.dtype == np.float32 and cos.min() > 0.99 and not np.array_equal(half, tagged)
    np.testing.assert_array_equal(enc.encode(sentences, batch_size=2, device="cpu", lang=1), tagged)


def test_bad_construction_and_inputs_raise_clearly() -> None:
    with pytest.raises(ValueError, match="multiple of n_heads"):
        TransformerSentenceEncoder(V, d_model=10, n_heads=4)
    with pytest.raises(ValueError, match="pooling"):
        TransformerSentenceEncoder(V, pooling="sum")
    enc = tiny("mean")
    with pytest.raises(ValueError, match="token ids must lie"):
        enc(torch.tensor([[V]]), torch.tensor([1]))
    with pytest.raises(ValueError, match="lengths must lie"):
        enc(torch.tensor([[3, 0]]), torch.tensor([0]))
