"""NLI training: corpora, word vectors, encoder sizes, batching, the training loop and the thread limiter."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from xsent_lib.base.threads import single_thread
from xsent_lib.data.formats.vectors import WordVectors
from xsent_lib.data.nli_corpus import NLICorpus, synthetic_nli
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.word_setup import WordSetup, build_word_setup
from xsent_lib.encoders import build_encoder
from xsent_lib.results.paper import paper_table
from xsent_lib.train.nli import (
    SEVEN,
    SMALL_WIDTH,
    InferSentConfig,
    build_nli_model,
    encoder_size_kwargs,
    nli_accuracy,
    nli_batches,
    small_on_cpu,
    train_nli_encoder,
)

# These models are tiny: one thread avoids synchronising two for microsecond kernels.
pytestmark = pytest.mark.usefixtures("one_thread")


def test_encoder_sizes_scale_the_papers_dimensions(easy_words: WordSetup):
    paper_dims = paper_table("thesis", "table_3_6")["dim"].tolist()  # the seven in the table's order
    for name, paper_dim in zip(SEVEN, paper_dims):
        enc = build_encoder(name, len(easy_words.pipeline.vocab), word_dim=easy_words.dim,
                            **encoder_size_kwargs(name, 16))
        assert enc.output_dim == paper_dim * 16 / 2048, name
    with pytest.raises(ValueError, match="multiple of 4"):
        encoder_size_kwargs("bilstm-max", 6)
    with pytest.raises(ValueError, match="unknown encoder"):
        encoder_size_kwargs("transformer", 16)


def test_word_setup_with_pretrained_vectors_by_hand():
    vecs = np.arange(12, dtype=np.float32).reshape(4, 3) + 1
    glove = WordVectors(["the", "dog", "runs", "cat"], vecs, 4, 0, {"the": 0, "dog": 1, "runs": 2, "cat": 3})
    setup = build_word_setup(["The dog runs .", "the zebra runs"], glove, extra_words=4, seed=3, source="toy")
    itos = setup.pipeline.vocab.itos
    assert itos[:4] == ["<pad>", "<unk>", "<s>", "</s>"]
    assert itos[4:] == ["runs", "the", "dog", "cat"]  # corpus words by count, then the extra words
    np.testing.assert_array_equal(setup.weights[4:], vecs[[2, 0, 1, 3]])
    assert not setup.weights[0].any() and setup.frozen and setup.source == "toy 3-d vectors, fixed"
    assert setup.coverage == pytest.approx(5 / 7)  # "." and "zebra" have no vector
    ids = setup.pipeline.encode(["the zebra"])[0]
    assert ids.tolist() == [2, 5, 1, 3]  # <s> the <unk> </s>
    assert setup.bow_pipeline.encode(["the zebra"])[0].tolist() == [5, 1]


def test_word_setup_without_vectors_is_trainable(easy_words: WordSetup):
    assert not easy_words.frozen and easy_words.coverage == 1.0
    assert easy_words.weights.shape == (len(easy_words.pipeline.vocab), 12)
    assert "zebra" in easy_words.pipeline.vocab


def test_nli_batches_cover_every_pair_once_and_reshuffle(easy_words: WordSetup, easy_corpus: NLICorpus):
    make = nli_batches(easy_words.pipeline, easy_corpus.train, batch_size=16, seed=5)
    first, again, second = make(1), make(1), make(2)
    labels = np.concatenate([b[4].numpy() for b in first])
    assert sorted(labels.tolist()) == sorted(easy_corpus.train.labels.tolist())
    lengths = np.sort(np.concatenate([b[1].numpy() for b in first]))
    expected = np.sort([len(x) for x in easy_words.pipeline.encode(list(easy_corpus.train.premises))])
    np.testing.assert_array_equal(lengths, expected)
    assert all(torch.equal(a[0], b[0]) for a, b in zip(first, again))
    assert not all(a[0].shape == b[0].shape and torch.equal(a[0], b[0]) for a, b in zip(first, second))


def test_training_lifts_nli_accuracy_far_above_chance(easy_words: WordSetup, easy_corpus: NLICorpus):
    config = InferSentConfig(width=16, epochs=4)
    before = nli_accuracy(build_nli_model("bilstm-max", easy_words, 16, config, seed=0), easy_corpus.test,
                              device="cpu")
    run = train_nli_encoder("bilstm-max", easy_corpus, easy_words, config, device="cpu", seed=0)
    assert run.test_acc >= 60.0 and run.test_acc >= before + 20.0, (before, run.test_acc, run.history.dev)
    assert run.dev_acc == max(d for d in run.history.dev if d is not None)
    assert run.history.lr[0] == pytest.approx(0.1)
    summary = run.summary()
    assert summary["dim"] == 32 and summary["epochs"] == len(run.history.epoch)


def test_small_encoders_run_on_one_cpu_thread():
    torch.set_num_threads(2)
    assert small_on_cpu(SMALL_WIDTH, "cpu") and not small_on_cpu(SMALL_WIDTH + 1, "cpu")
    with single_thread(small_on_cpu(SMALL_WIDTH, "cpu")):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == 2
    with single_thread(small_on_cpu(SMALL_WIDTH + 1, "cpu")):
        assert torch.get_num_threads() == 2
    torch.set_num_threads(1)


def test_synthetic_nli_is_seeded_and_checked(world7: SyntheticWorld):
    corpus = synthetic_nli(world7, 20, 5, 5)
    assert [len(corpus.train), len(corpus.dev), len(corpus.test)] == [20, 5, 5]
    assert corpus.train.premises == synthetic_nli(SyntheticWorld(7), 20, 5, 5).train.premises
    assert len(corpus.sentences()) == 60 and "seed 7" in corpus.source
    with pytest.raises(ValueError, match="at least one pair"):
        synthetic_nli(world7, 0, 5, 5)
