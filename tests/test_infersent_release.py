"""load_infersent(version=1|2) gives the InferSent release's vectors: tokens, boundary tokens, dropped OOV words.

The reference is a numpy re-implementation of the release's ``encode`` (``models.py``): the token lists are
written out by hand from NLTK's ``word_tokenize`` behaviour (not computed by our tokeniser), filtered to the
words with a vector, then a BiLSTM forward pass in numpy and a max over time.
"""
from pathlib import Path

import numpy as np
import pytest
import torch

from xsent_lib.data.formats import load_glove_txt
from xsent_lib.encoders import load_infersent
from xsent_lib.text.release import (
    nltk_word_tokenize,
    release_tokenize,
    split_sentences,
    treebank_words,
)

VECTORS = Path(__file__).parent / "fixtures" / "infersent" / "vectors.4d.txt"
D, H = 4, 3

SENTENCES = [
    "I can't believe it's not butter.",
    'He said "yes." Then he left.',
    "The cat sat on the mat, Zorblax.",
    "Zzyzx qwerty",
    "I can't",
]
# What NLTK's word_tokenize gives (v1), and after the release's v2 hack (" n't " -> "n 't ").
TOKENS_V1 = [
    ["I", "ca", "n't", "believe", "it", "'s", "not", "butter", "."],
    ["He", "said", "``", "yes", ".", "''", "Then", "he", "left", "."],
    ["The", "cat", "sat", "on", "the", "mat", ",", "Zorblax", "."],
    ["Zzyzx", "qwerty"],
    ["I", "ca", "n't"],
]
TOKENS_V2 = [
    ["I", "can", "'t", "believe", "it", "'s", "not", "butter", "."],
    TOKENS_V1[1], TOKENS_V1[2], TOKENS_V1[3],
    ["I", "ca", "n't"],  # no space after n't at the very end: the release's hack leaves it
]


def test_nltk_word_tokenize_reproduces_nltk_examples():
    doc = "Good muffins cost $3.88\nin New York.  Please buy me\ntwo of them.\nThanks."
    assert nltk_word_tokenize(doc) == ["Good", "muffins", "cost", "$", "3.88", "in", "New", "York", ".", "Please",
                                       "buy", "me", "two", "of", "them", ".", "Thanks", "."]
    assert treebank_words(doc)[7:9] == ["York.", "Please"]  # without sentence splitting only the last period splits
    assert nltk_word_tokenize("They'll save and invest more.") == ["They", "'ll", "save", "and", "invest", "more", "."]
    assert nltk_word_tokenize("hi, my name can't hello,") == ["hi", ",", "my", "name", "ca", "n't", "hello", ","]
    assert nltk_word_tokenize('"Hello," she said.') == ["``", "Hello", ",", "''", "she", "said", "."]
    assert nltk_word_tokenize("I cannot (really) wait... Ok?") == ["I", "can", "not", "(", "really", ")", "wait", "...",
                                                                   "Ok", "?"]
    assert split_sentences("Mr. Smith saw J. Doe in the U.S. today. He left!  Bye.") == [
        "Mr. Smith saw J. Doe in the U.S. today.", "He left!", "Bye."]
    for s, v1, v2 in zip(SENTENCES, TOKENS_V1, TOKENS_V2):
        assert release_tokenize(s, 1) == v1
        assert release_tokenize(s, 2) == v2
    with pytest.raises(ValueError, match="version must be 1"):
        release_tokenize("x", 3)


def _weights(seed: int) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    shapes = {"weight_ih_l0": (4 * H, D), "weight_hh_l0": (4 * H, H), "bias_ih_l0": (4 * H,), "bias_hh_l0": (4 * H,)}
    return {f"enc_lstm.{k}{d}": torch.randn(*s, generator=g) * 0.8 for d in ("", "_reverse") for k, s in shapes.items()}


def _lstm(x: np.ndarray, w: dict[str, np.ndarray], suffix: str) -> np.ndarray:
    """One LSTM direction in numpy, PyTorch's gate order (input, forget, cell, output)."""
    wi, wh = w["enc_lstm.weight_ih_l0" + suffix], w["enc_lstm.weight_hh_l0" + suffix]
    b = w["enc_lstm.bias_ih_l0" + suffix] + w["enc_lstm.bias_hh_l0" + suffix]
    h, c, out = np.zeros(H), np.zeros(H), []
    for xt in x:
        z = wi @ xt + wh @ h + b
        i, f, g, o = 1 / (1 + np.exp(-z[:H])), 1 / (1 + np.exp(-z[H:2 * H])), np.tanh(z[2 * H:3 * H]), 1 / (1 + np.exp(-z[3 * H:]))
        c = f * c + i * g
        h = o * np.tanh(c)
        out.append(h)
    return np.array(out)


def _release_encode(tokens: list[list[str]], word_vec: dict[str, np.ndarray], w: dict, version: int) -> np.ndarray:
    """The release's prepare_samples + forward for one sentence at a time (max over the BiLSTM states)."""
    bos, eos = {1: ("<s>", "</s>"), 2: ("<p>", "</p>")}[version]
    rows = []
    for toks in tokens:
        kept = [t for t in [bos, *toks, eos] if t in word_vec] or [eos]
        x = np.stack([word_vec[t] for t in kept])
        fwd = _lstm(x, w, "")
        bwd = _lstm(x[::-1], w, "_reverse")[::-1]
        rows.append(np.concatenate([fwd, bwd], 1).max(0))
    return np.stack(rows)


@pytest.mark.parametrize("version", [1, 2])
def test_load_infersent_gives_the_release_vectors(tmp_path, version):
    state = _weights(version)
    path = tmp_path / f"infersent{version}.pkl"
    torch.save(state, path)
    vectors = load_glove_txt(VECTORS)
    word_vec = {w: vectors.vectors[i].astype(np.float64) for i, w in enumerate(vectors.words)}
    w = {k: v.double().numpy() for k, v in state.items()}
    tokens = TOKENS_V1 if version == 1 else TOKENS_V2
    want = _release_encode(tokens, word_vec, w, version)

    enc = load_infersent(path, vectors)  # version read from the file name, release tokenisation and OOV by default
    got = enc.encode(SENTENCES, batch_size=2, device="cpu")
    np.testing.assert_allclose(got, want, atol=1e-5)
    assert enc.pipeline.n_kept < enc.pipeline.n_words  # Zorblax, Zzyzx, qwerty (and v2's <p>) were dropped

    # our options differ where they should: OOV words as zero steps, or our own lower-casing pipeline
    table = word_vec if version == 1 else word_vec | {"<p>": np.zeros(D)}  # oov="zero" needs both boundary tokens
    z = load_infersent(path, table, version=version, oov="zero").encode(SENTENCES, device="cpu")
    if version == 1:
        np.testing.assert_allclose(z[0], got[0], atol=1e-5)  # no unknown word in sentence 0: the same vector
    assert np.abs(z[2] - got[2]).max() > 1e-3  # "Zorblax" is a step of zeros instead of being dropped


def test_load_infersent_refuses_unclear_requests(tmp_path):
    path = tmp_path / "weights.pkl"
    torch.save(_weights(0), path)
    vectors = load_glove_txt(VECTORS)
    with pytest.raises(ValueError, match="version must be 1"):
        load_infersent(path, vectors)  # the name does not say which release
    with pytest.raises(ValueError, match="oov must be one of"):
        load_infersent(path, vectors, version=1, oov="keep")
    with pytest.raises(ValueError, match="needs the words"):
        load_infersent(path, np.zeros((5, D)), version=1)  # a bare matrix has no words to tokenise into
    with pytest.raises(TypeError, match="WordVectors"):
        load_infersent(path, [[0.0] * D], version=1)
    enc = load_infersent(path, {"a": np.ones(D)}, version=2)
    with pytest.raises(ValueError, match="end token '</p>'"):
        enc.encode(["b c"], device="cpu")  # nothing has a vector, and neither has the end token
