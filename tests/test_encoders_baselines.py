"""Baseline encoders: content-free random vectors, bags of word vectors (mean, SIF), the caching wrapper."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.data.formats.vectors import WordVectors
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.word_setup import build_word_setup
from xsent_lib.encoders.baselines import (
    CachedEncoder,
    RandomSentenceEncoder,
    bag_encoder,
    bag_of_words_encoder,
    sif_prepare,
)
from xsent_lib.eval.offline_suite import synthetic_single_tasks
from xsent_lib.text.tokenizers import LetterTokenizer, PTBWordTokenizer, word_tokens


def test_ptb_tokenizer_splits_clitics_like_glove():
    tok = PTBWordTokenizer()
    assert tok.tokenize("Don't panic, it’s well-known!") == ["do", "n't", "panic", ",", "it", "'s", "well-known", "!"]
    assert tok.tokenize("I can't; they'll go.") == ["i", "ca", "n't", ";", "they", "'ll", "go", "."]
    assert tok.tokenize("'solid' 1990") == ["'", "solid", "'", "1990"]  # a quote is not a clitic
    with pytest.raises(TypeError):
        tok.tokenize(["not", "a", "string"])


def test_letter_tokenizer_is_the_word_vectors_tokenisation():
    text = "L'homme don't 3 cats-and-dogs."
    assert LetterTokenizer().tokenize(text) == word_tokens(text) == ["l", "homme", "don", "t", "cats", "and", "dogs"]


def test_random_sentence_vectors_depend_only_on_the_sentence():
    enc = RandomSentenceEncoder(dim=51, seed=7)
    sents = [f"sentence number {i}" for i in range(2000)]
    x = enc.encode(sents)
    assert x.shape == (2000, 51) and x.dtype == np.float32
    assert np.array_equal(enc.encode(sents[5:7] + ["other"])[:2], x[5:7])  # batch-independent
    assert abs(x.mean()) < 0.02 and abs(x.std() - 1) < 0.02 and abs(np.corrcoef(x[:, 0], x[:, 1])[0, 1]) < 0.08
    assert not np.allclose(RandomSentenceEncoder(dim=51, seed=8).encode(sents[:1]), x[:1])


def test_bag_encoder_averages_known_vectors_and_sif_weighs_them():
    words = ["good", "movie", "bad"]
    vecs = np.array([[1.0, 0.0], [0.0, 2.0], [-1.0, 0.0]], np.float32)
    wv = WordVectors(words, vecs, 3, 0, {w: i for i, w in enumerate(words)})
    bag = bag_encoder(wv, PTBWordTokenizer())
    assert bag.output_dim == 2
    np.testing.assert_allclose(bag.encode(["Good movie", "good xyz"]), [[0.5, 1.0], [0.5, 0.0]], atol=1e-6)
    counts = {"good": 3, "movie": 1}  # p(good) = 0.75, p(movie) = 0.25, p(bad) = 0
    sif = bag_encoder(wv, PTBWordTokenizer(), "sif", counts=counts, sif_a=0.25)
    expected = (0.25 / 1.0 * vecs[0] + 0.25 / 0.5 * vecs[1]) / 2
    np.testing.assert_allclose(sif.encode(["good movie"])[0], expected, atol=1e-6)
    with pytest.raises(ValueError, match="counts"):
        bag_encoder(wv, PTBWordTokenizer(), "sif")


def test_sif_prepare_removes_the_common_direction_of_the_task():
    own = WordVectors(["the", "a", "not"], np.random.default_rng(0).standard_normal((3, 8)).astype(np.float32) + 3, 3, 0,
                      {"the": 0, "a": 1, "not": 2})
    sif = bag_encoder(own, LetterTokenizer(), "sif", counts={"the": 5, "a": 2})
    sents = synthetic_single_tasks(SyntheticWorld(seed=3), 100, seed=5)["Syn-Polarity"].sentences()
    sif_prepare(sif)(None, [s.split() for s in sents])
    pc = sif.principal_component.numpy()
    assert np.isclose(np.linalg.norm(pc), 1, atol=1e-5)
    assert np.abs(sif.encode(sents) @ pc).max() < 1e-4


def test_cached_encoder_embeds_each_distinct_sentence_once():
    calls = []

    def encode(batch):
        calls.append(list(batch))
        return np.array([[len(s), s.count("a")] for s in batch], float)

    enc = CachedEncoder(encode, chunk=2)
    out = enc.encode(["aa", "b", "aa", "abc"])
    assert out.tolist() == [[2, 2], [1, 0], [2, 2], [3, 1]] and enc.n_encoded == 3
    assert calls == [["aa", "b"], ["abc"]]
    assert enc.encode(["abc", "b"]).tolist() == [[3, 1], [1, 0]] and len(calls) == 2 and enc.speed > 0
    with pytest.raises(TypeError):
        enc.encode("aa")



def test_bag_of_words_encoder_reads_the_word_setup_without_sentence_markers():
    words = build_word_setup(["the cat sleeps .", "a dog runs ."], None, dim=6, seed=0)
    bag = bag_of_words_encoder(words)
    assert bag.output_dim == 6 and bag.pipeline is words.bow_pipeline
    ids = words.bow_pipeline.vocab.lookup(["the", "cat", "sleeps", "."])
    expected = words.weights[ids].mean(0)
    np.testing.assert_allclose(bag.encode(["the cat sleeps ."])[0], expected, atol=1e-5)
