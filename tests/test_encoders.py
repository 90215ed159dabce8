"""Tests for xsent_lib.encoders: every encoder's shape, gradients, padding/batch invariance, pooling and heads."""
from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from xsent_lib.encoders import (
    MLP,
    BagOfVectorsEncoder,
    GatedConvNetEncoder,
    HierarchicalConvNetEncoder,
    InnerAttentionEncoder,
    LinearClassifier,
    LinearRegressor,
    NLIClassifier,
    NLIModel,
    RecurrentEncoder,
    build_embedding,
    build_encoder,
    first_principal_component,
    load_infersent,
    masked_max,
    masked_mean,
    nli_features,
    save_infersent,
    sif_weights,
)
from xsent_lib.encoders.infersent_format import KEYS
from xsent_lib.text import CharTrigramTokenizer, TextPipeline, WordTokenizer, pad_batch

V, D, H = 23, 6, 5
CORPUS = [
    "the cat sat on the mat",
    "a dog barked",
    "birds sing at dawn and dusk while the cat sleeps",
    "hello",
    "the mat is red",
]

FACTORIES = {
    "bag-mean": lambda: BagOfVectorsEncoder(V, D, pooling="mean"),
    "bag-sum": lambda: BagOfVectorsEncoder(V, D, pooling="sum"),
    "bag-sif": lambda: BagOfVectorsEncoder(V, D, pooling="sif", sif_probabilities=np.linspace(0, 0.1, V)),
    "lstm": lambda: RecurrentEncoder.from_architecture("lstm", V, word_dim=D, hidden_dim=H),
    "gru": lambda: RecurrentEncoder.from_architecture("gru", V, word_dim=D, hidden_dim=H),
    "bigru-last": lambda: RecurrentEncoder.from_architecture("bigru-last", V, word_dim=D, hidden_dim=H),
    "bilstm-last-2layers": lambda: RecurrentEncoder.from_architecture("bilstm-last", V, word_dim=D, hidden_dim=H, num_layers=2),
    "bilstm-mean": lambda: RecurrentEncoder.from_architecture("bilstm-mean", V, word_dim=D, hidden_dim=H),
    "bilstm-max": lambda: RecurrentEncoder.from_architecture("bilstm-max", V, word_dim=D, hidden_dim=H),
    "inner-attention": lambda: InnerAttentionEncoder(V, word_dim=D, hidden_dim=H, num_views=3),
    "hconvnet": lambda: HierarchicalConvNetEncoder(V, word_dim=D, channels=H, num_layers=4),
    "gated-convnet": lambda: GatedConvNetEncoder(V, word_dim=D, hidden_dim=H, num_layers=3, max_positions=40),
}


def make(name: str, seed: int = 0):
    torch.manual_seed(seed)
    return FACTORIES[name]().eval()


def random_ids(rng: np.random.Generator, length: int) -> np.ndarray:
    return rng.integers(1, V, size=length)


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_shape_and_gradients_reach_every_parameter(name):
    enc = make(name).train()
    rng = np.random.default_rng(1)
    tokens, lengths = pad_batch([random_ids(rng, n) for n in (4, 1, 7)])
    out = enc(tokens, lengths)
    assert out.shape == (3, enc.output_dim) and out.dtype == torch.float32
    (out**2).sum().backward()
    for pname, p in enc.named_parameters():
        assert p.grad is not None and p.grad.abs().sum() > 0, f"{name}: no gradient reaches {pname}"


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_padding_invariance_alone_vs_next_to_a_long_sentence(name):
    enc = make(name)
    rng = np.random.default_rng(2)
    short, long_ = random_ids(rng, 3), random_ids(rng, 30)
    with torch.no_grad():
        alone = enc(*pad_batch([short]))[0]
        batched = enc(*pad_batch([long_, short, random_ids(rng, 11)]))[1]
    torch.testing.assert_close(batched, alone, atol=1e-6, rtol=0)


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_batch_order_invariance(name):
    enc = make(name)
    rng = np.random.default_rng(3)
    seqs = [random_ids(rng, n) for n in (5, 2, 9, 1, 5, 7)]
    perm = np.array([4, 0, 5, 2, 1, 3])
    with torch.no_grad():
        a = enc(*pad_batch(seqs))
        b = enc(*pad_batch([seqs[i] for i in perm]))
    torch.testing.assert_close(b, a[perm], atol=1e-6, rtol=0)


def test_masked_pooling_hand_computed():
    states = torch.tensor([[[1.0, -5.0], [3.0, -7.0], [100.0, 100.0]], [[-2.0, -3.0], [-4.0, -1.0], [-9.0, -9.0]]])
    lengths = torch.tensor([2, 3])
    torch.testing.assert_close(masked_max(states, lengths), torch.tensor([[3.0, -5.0], [-2.0, -1.0]]))
    torch.testing.assert_close(masked_mean(states, lengths), torch.tensor([[2.0, -6.0], [-5.0, -13.0 / 3]]))
    # all-negative states with zero padding: padding must not win the max (the InferSent #51 bug)
    neg = torch.tensor([[[-1.0], [0.0]]])
    assert masked_max(neg, torch.tensor([1])).item() == -1.0


def test_bidirectional_last_state_is_forward_end_and_backward_start():
    enc = make("bigru-last")
    rng = np.random.default_rng(4)
    tokens, lengths = pad_batch([random_ids(rng, n) for n in (6, 2, 4)])
    with torch.no_grad():
        states, _ = enc.states(tokens, lengths)
        out = enc(tokens, lengths)
    for b, n in enumerate(lengths.tolist()):
        torch.testing.assert_close(out[b], torch.cat([states[b, n - 1, :H], states[b, 0, H:]]))
        assert (states[b, n:] == 0).all()


def test_max_pool_positions_inside_sentence_and_consistent_with_pooling():
    enc = make("bilstm-max")
    rng = np.random.default_rng(5)
    tokens, lengths = pad_batch([random_ids(rng, n) for n in (6, 2)])
    with torch.no_grad():
        pos = enc.max_pool_positions(tokens, lengths)
        states, _ = enc.states(tokens, lengths)
        out = enc(tokens, lengths)
    assert (pos < lengths[:, None]).all()
    torch.testing.assert_close(states.gather(1, pos[:, None, :])[:, 0], out)


def test_inner_attention_matches_thesis_formula():
    enc = make("inner-attention")
    rng = np.random.default_rng(6)
    tokens, lengths = pad_batch([random_ids(rng, 3), random_ids(rng, 8)])
    with torch.no_grad():
        states, alphas = enc.attend(tokens, lengths)
        out = enc(tokens, lengths)
        torch.testing.assert_close(alphas.sum(-1), torch.ones(2, 3))
        assert (alphas[0, :, 3:] == 0).all()
        h = states[0, :3]  # [3, 2H]
        hbar = torch.tanh(h @ enc.key_projection.weight.T + enc.key_projection.bias)
        views = [torch.softmax(hbar @ u, 0) @ h for u in enc.queries]
    torch.testing.assert_close(out[0], torch.cat(views))


def test_hconvnet_matches_unmasked_convolutions_on_a_lone_sentence():
    enc = make("hconvnet")
    ids = torch.tensor([[3, 7, 1, 9]])
    with torch.no_grad():
        x = enc.embedding(ids).transpose(1, 2)
        expected = []
        for conv in enc.convs:
            x = F.relu(F.conv1d(x, conv.weight, conv.bias, padding=1))
            expected.append(x.amax(dim=2))
        torch.testing.assert_close(enc(ids, torch.tensor([4])), torch.cat(expected, 1))


def test_bag_pooling_hand_computed_and_fused_equals_padded():
    enc = make("bag-sum")
    w = enc.embedding.weight.detach()
    tokens, lengths = pad_batch([np.array([2, 5, 5]), np.array([7])])
    with torch.no_grad():
        out = enc(tokens, lengths)
        torch.testing.assert_close(out[0], w[2] + 2 * w[5])
        mean = make("bag-mean")(tokens, lengths)
    torch.testing.assert_close(mean[0], (w[2] + 2 * w[5]) / 3)
    torch.testing.assert_close(mean[1], w[7])


def test_sif_weights_and_pooling_hand_computed():
    p = np.array([0.0, 0.0, 0.5, 0.25, 0.25])
    np.testing.assert_allclose(sif_weights(p, a=0.25), [1.0, 1.0, 1 / 3, 0.5, 0.5])
    torch.manual_seed(0)
    enc = BagOfVectorsEncoder(5, 3, pooling="sif", sif_probabilities=p, sif_a=0.25).eval()
    w = enc.embedding.weight.detach()
    with torch.no_grad():
        out = enc(*pad_batch([np.array([2, 3, 3])]))
    torch.testing.assert_close(out[0], (w[2] / 3 + 0.5 * w[3] + 0.5 * w[3]) / 3)
    with pytest.raises(ValueError, match="sif_probabilities"):
        BagOfVectorsEncoder(5, 3, pooling="sif")


def test_sif_principal_component_removal():
    pipe = TextPipeline.fit(CORPUS, WordTokenizer())
    torch.manual_seed(0)
    enc = BagOfVectorsEncoder.from_pipeline(pipe, dim=4, pooling="sif")
    raw = enc.encode(CORPUS)
    pc = enc.fit_principal_component(CORPUS)
    _, _, vt = np.linalg.svd(raw.astype(np.float64))
    np.testing.assert_allclose(abs(pc @ vt[0]), 1.0, atol=1e-6)
    cleaned = enc.encode(CORPUS)
    np.testing.assert_allclose(cleaned, raw - np.outer(raw @ pc, pc), atol=1e-5)
    np.testing.assert_allclose(cleaned @ pc, 0.0, atol=1e-5)
    np.testing.assert_allclose(first_principal_component(raw), pc)


def test_bag_dropout_path_weights_like_the_fused_path():
    torch.manual_seed(0)
    enc = BagOfVectorsEncoder(V, D, pooling="sif", dropout=0.5, sif_probabilities=np.linspace(0, 0.2, V)).train()
    flat, offsets = torch.tensor([3, 4, 4, 9]), torch.tensor([0, 3, 4])
    torch.manual_seed(1)
    out = enc.forward_flat(flat, offsets)
    torch.manual_seed(1)
    dropped = F.dropout(enc.embedding.weight.detach()[flat], 0.5)
    wts = enc.token_weights[flat] / torch.tensor([3.0, 3.0, 3.0, 1.0])
    expected = torch.stack([(dropped[:3] * wts[:3, None]).sum(0), dropped[3] * wts[3]])
    torch.testing.assert_close(out.detach(), expected)
    enc.eval()
    with torch.no_grad():
        torch.testing.assert_close(enc.forward_flat(flat, offsets), enc(*pad_batch([np.array([3, 4, 4]), np.array([9])])))
    with pytest.raises(ValueError, match="offsets must run"):
        enc.forward_flat(flat, torch.tensor([0, 3]))


@pytest.mark.parametrize("name", ["bag-mean", "bilstm-max", "inner-attention", "gated-convnet"])
def test_encode_returns_original_order_float32(name):
    pipe = TextPipeline.fit(CORPUS, WordTokenizer(), bos="<s>", eos="</s>")
    torch.manual_seed(0)
    enc = FACTORIES[name]().attach_pipeline(pipe)
    enc.train()
    out = enc.encode(CORPUS, batch_size=2)
    assert out.dtype == np.float32 and out.shape == (len(CORPUS), enc.output_dim)
    assert enc.training, "encode must restore the train/eval mode"
    singles = np.concatenate([enc.encode([s]) for s in CORPUS])
    np.testing.assert_allclose(out, singles, atol=1e-6)


@pytest.mark.parametrize("name", ["bag-mean", "bilstm-max", "gated-convnet"])
def test_encode_in_bfloat16_is_close_and_leaves_the_weights_untouched(name):
    pipe = TextPipeline.fit(CORPUS, WordTokenizer(), bos="<s>", eos="</s>")
    torch.manual_seed(0)
    enc = FACTORIES[name]().attach_pipeline(pipe)
    before = {k: v.clone() for k, v in enc.state_dict().items()}
    full = enc.encode(CORPUS)
    half = enc.encode(CORPUS, precision="bfloat16")
    assert half.dtype == np.float32 and half.shape == full.shape
    assert not np.array_equal(half, full)  # it really ran in another precision
    cos = (half * full).sum(1) / np.linalg.norm(half, axis=1) / np.linalg.norm(full, axis=1)
    assert cos.min() > 0.99
    after = enc.state_dict()
    assert all(after[k].dtype == before[k].dtype and torch.equal(after[k], before[k]) for k in before)
    np.testing.assert_array_equal(enc.encode(CORPUS), full)
    with pytest.raises(ValueError, match="precision"):
        enc.encode(CORPUS, precision="float16")
    with pytest.raises(ValueError, match="float32 module"):
        enc.double().encode(CORPUS, precision="bfloat16")


def test_encode_with_char_trigrams_end_to_end():
    pipe = TextPipeline.fit(CORPUS, CharTrigramTokenizer())
    enc = BagOfVectorsEncoder.from_pipeline(pipe, dim=8)
    out = enc.encode(["the cat", "cat the"])
    np.testing.assert_allclose(out[0], out[1], atol=1e-6)  # a bag ignores word order


def test_encode_errors_are_clear():
    pipe = TextPipeline.fit(CORPUS, WordTokenizer())
    enc = RecurrentEncoder.from_pipeline(pipe, word_dim=D, hidden_dim=H)
    with pytest.raises(ValueError, match="empty list"):
        enc.encode([])
    with pytest.raises(TypeError, match="single string"):
        enc.encode("the cat")
    with pytest.raises(TypeError, match=r"sentences\[1\]"):
        enc.encode(["ok", None])
    with pytest.raises(ValueError, match="batch_size"):
        enc.encode(["ok"], batch_size=0)
    with pytest.raises(ValueError, match="no text pipeline"):
        RecurrentEncoder(V, word_dim=D, hidden_dim=H).encode(["the cat"])
    with pytest.raises(ValueError, match="embeds only"):
        RecurrentEncoder(3, word_dim=D, hidden_dim=H, pipeline=pipe)
    with pytest.raises(TypeError, match="int64"):
        enc(torch.zeros(2, 3), torch.tensor([1, 2]))
    with pytest.raises(ValueError, match="at least one token"):
        enc(torch.ones(2, 3, dtype=torch.long), torch.tensor([0, 2]))
    with pytest.raises(ValueError, match="pooling"):
        RecurrentEncoder(V, pooling="median")
    with pytest.raises(ValueError, match="odd"):
        HierarchicalConvNetEncoder(V, kernel_size=2)
    with pytest.raises(ValueError, match="max_positions"):
        make("gated-convnet")(torch.ones(1, 41, dtype=torch.long), torch.tensor([41]))
    with pytest.raises(ValueError, match="unknown encoder"):
        build_encoder("transformer-xl", V)


def test_build_embedding_from_matrix_and_frozen():
    weights = np.arange(12, dtype=np.float32).reshape(4, 3) + 1
    emb = build_embedding(4, 3, weights, freeze=True)
    assert not emb.weight.requires_grad
    assert (emb.weight[0] == 0).all()
    np.testing.assert_array_equal(emb.weight[1:].detach().numpy(), weights[1:])
    enc = RecurrentEncoder(4, word_dim=3, hidden_dim=2, embeddings=weights, freeze_embeddings=True)
    assert all(p.requires_grad for n, p in enc.named_parameters() if not n.startswith("embedding"))
    with pytest.raises(ValueError, match="shape"):
        build_embedding(5, 3, weights)


def test_build_encoder_output_dims_follow_the_thesis_recipes():
    dims = {
        "lstm": H,
        "gru": H,
        "bigru-last": 2 * H,
        "bilstm-max": 2 * H,
        "inner-attention": 4 * 2 * H,
        "hconvnet": 4 * 2 * H,
    }
    kwargs = {"inner-attention": {"hidden_dim": H}, "hconvnet": {"channels": 2 * H}}
    for name, dim in dims.items():
        enc = build_encoder(name, V, word_dim=D, **kwargs.get(name, {"hidden_dim": H}))
        assert enc.output_dim == dim, name


def test_infersent_format_round_trip(tmp_path):
    pipe = TextPipeline.fit(CORPUS, WordTokenizer(lowercase=False), bos="<s>", eos="</s>")
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(len(pipe.vocab), D)).astype(np.float32)
    torch.manual_seed(0)
    enc = RecurrentEncoder.from_pipeline(pipe, word_dim=D, hidden_dim=H, embeddings=vectors, freeze_embeddings=True)
    save_infersent(enc, tmp_path / "infersent.pkl")
    state = torch.load(tmp_path / "infersent.pkl", weights_only=True)
    assert set(state) == set(KEYS) and state["enc_lstm.weight_ih_l0"].shape == (4 * H, D)
    again = load_infersent(tmp_path / "infersent.pkl", vectors, pipeline=pipe)
    assert again.output_dim == 2 * H and not again.embedding.weight.requires_grad
    np.testing.assert_array_equal(again.encode(CORPUS), enc.encode(CORPUS))


def test_infersent_format_errors(tmp_path):
    vectors = np.zeros((V, D), dtype=np.float32)
    with pytest.raises(FileNotFoundError):
        load_infersent(tmp_path / "nope.pkl", vectors)
    torch.save({"encoder.weight": torch.zeros(2)}, tmp_path / "wrong.pkl")
    with pytest.raises(ValueError, match="missing"):
        load_infersent(tmp_path / "wrong.pkl", vectors)
    with open(tmp_path / "object.pkl", "wb") as fh:
        pickle.dump({"model": np.dtype("float32").type}, fh, protocol=2)  # a class reference: not weights-only loadable
    with pytest.raises(ValueError, match="convert"):
        load_infersent(tmp_path / "object.pkl", vectors)
    enc = make("bilstm-max")
    save_infersent(enc, tmp_path / "ok.pkl")
    with pytest.raises(ValueError, match="word vectors"):
        load_infersent(tmp_path / "ok.pkl", np.zeros((V, D + 1)))
    with pytest.raises(ValueError, match="one-layer bidirectional LSTM"):
        save_infersent(make("bigru-last"), tmp_path / "x.pkl")


def test_nli_features_and_classifier_shapes():
    u, v = torch.tensor([[1.0, -2.0]]), torch.tensor([[3.0, 4.0]])
    torch.testing.assert_close(nli_features(u, v), torch.tensor([[1.0, -2.0, 3.0, 4.0, 2.0, 6.0, 3.0, -8.0]]))
    code_default = NLIClassifier(2, hidden_dim=7, num_hidden_layers=2, activation="none")
    linears = [m for m in code_default.mlp.net if isinstance(m, torch.nn.Linear)]
    assert [(m.in_features, m.out_features) for m in linears] == [(8, 7), (7, 7), (7, 3)]
    assert len(code_default.mlp.net) == 3  # no activations in the released default
    probe = MLP(4, [3], 2, activation="sigmoid", dropout=0.1)
    assert any(isinstance(m, torch.nn.Sigmoid) for m in probe.net)
    assert LinearClassifier(4, 5)(torch.zeros(2, 4)).shape == (2, 5)
    assert LinearRegressor(4)(torch.zeros(2, 4)).shape == (2,)
    with pytest.raises(ValueError, match="same shape"):
        nli_features(u, torch.zeros(1, 3))


def test_nli_model_trains_encoder_and_classifier():
    enc = make("bilstm-max").train()
    model = NLIModel(enc, NLIClassifier(enc.output_dim, hidden_dim=4))
    rng = np.random.default_rng(7)
    p, pl = pad_batch([random_ids(rng, n) for n in (3, 5)])
    h, hl = pad_batch([random_ids(rng, n) for n in (2, 6)])
    logits = model(p, pl, h, hl)
    assert logits.shape == (2, 3)
    F.cross_entropy(logits, torch.tensor([0, 2])).backward()
    assert enc.rnn.weight_ih_l0.grad.abs().sum() > 0
    with pytest.raises(ValueError, match="expects"):
        NLIModel(enc, NLIClassifier(3))
