"""Seq2seq training tasks: corpora pair what they promise, batches, perplexity, greedy outputs, training."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from xsent_lib.encoders.decoder import linearize_tree
from xsent_lib.encoders.probing import make_encoder
from xsent_lib.train.seq2seq import (
    Seq2SeqConfig,
    exact_match,
    greedy_outputs,
    seq2seq_batches,
    seq2seq_corpus,
    seq2seq_perplexity,
    target_vocab,
    train_seq2seq,
)


@pytest.fixture(scope="module")
def words(world, toy_words):
    texts = world.sentences(300, "en") + world.parallel(40, "en", "xa").src
    return toy_words(texts)


def test_corpora_pair_what_the_tasks_promise(world):
    ae = seq2seq_corpus(world, "autoencoder", 8, 3, 3)
    assert ae.source["train"] == ae.target["train"] and len(ae.source["dev"]) == 3
    assert len(ae.sentences()) == 14
    nmt = seq2seq_corpus(world, "nmt-fi", 8, 3, 3)
    assert nmt.target["train"] == list(world.parallel(8, "en", "xd", "train").tgt)
    tree = seq2seq_corpus(world, "seq2tree", 5, 2, 2)
    forms = world.forms(5, "probing-seq2tree", "train")
    assert tree.target["train"] == [" ".join(linearize_tree(t)) for t in world.render(forms, "en", tree=True)]
    assert all(t.startswith("(S") for t in tree.target["train"])
    st = seq2seq_corpus(world, "skipthought", 12, 3, 3)
    docs = world.documents(3, 6, "en", "train").documents
    flat = {(d[j], d[j + 1]) for d in docs for j in range(5)}
    assert len(st.source["train"]) == 12 and all(pair in flat for pair in zip(st.source["train"], st.target["train"]))
    with pytest.raises(ValueError, match="unknown training task"):
        seq2seq_corpus(world, "nmt-xx", 5, 2, 2)
    with pytest.raises(TypeError):
        seq2seq_corpus("world", "autoencoder", 5, 2, 2)


def test_batches_cover_every_pair_once_per_epoch(world, words):
    data = seq2seq_corpus(world, "nmt-fr", 30, 3, 3)
    vocab = target_vocab(data.target["train"])
    batches = seq2seq_batches(words.pipeline, vocab, data.source["train"], data.target["train"], 8, seed=1)
    epoch = batches(0)
    assert sum(int(b[0].shape[0]) for b in epoch) == 30
    assert all(int(b[1].max()) == b[0].shape[1] and int(b[3].max()) == b[2].shape[1] for b in epoch)
    assert all(torch.equal(x, y) for b, c in zip(epoch, batches(0)) for x, y in zip(b, c))  # seeded per epoch
    with pytest.raises(ValueError, match="as many targets"):
        seq2seq_batches(words.pipeline, vocab, ["a"], [], 8)
    with pytest.raises(ValueError, match="empty"):
        seq2seq_batches(words.pipeline, vocab, ["a b"], [""], 8)


def test_exact_match():
    assert exact_match(["a b", "c"], ["a b", "d"]) == 50.0
    with pytest.raises(ValueError):
        exact_match(["a"], [])


def test_train_seq2seq_learns_records_a_curve_and_scores(world, words):
    data = seq2seq_corpus(world, "autoencoder", 48, 8, 8)
    encoder = make_encoder("bilstm-max", words, 16, seed=0)
    config = Seq2SeqConfig(epochs=2, batch_size=16, decoder_dim=16, decoder_embed=8, eval_batch_size=64)
    calls = []

    def probe(enc):
        calls.append(enc)
        return {"Toy": float(len(calls))}

    run = train_seq2seq(encoder, data, words.pipeline, config, metric=("exact", exact_match), seed=0,
                        device="cpu", probe=probe, curve_points=3)
    assert set(run.score) == {"perplexity", "exact"} and run.score["perplexity"] > 1
    assert all(enc is encoder for enc in calls)
    assert len(run.curve["x"]) == 4 and run.curve["x"][0] == 0 and np.all(np.diff(run.curve["x"]) > 0)
    assert run.curve["score_name"] == "exact" and run.curve["probing"]["Toy"] == [1.0, 2.0, 3.0, 4.0]
    assert len(run.history.train_loss) == 2 and run.history.train_loss[-1] < run.history.train_loss[0]
    ppl = seq2seq_perplexity(run.model, words.pipeline, run.vocab, data.source["test"], data.target["test"])
    assert ppl == pytest.approx(run.score["perplexity"])
    outs = greedy_outputs(run.model, words.pipeline, run.vocab, data.source["test"], max_len=5)
    assert len(outs) == 8 and all(len(o.split()) <= 5 for o in outs)
    plain = train_seq2seq(make_encoder("bilstm-max", words, 16, seed=0), data, words.pipeline, config, metric=None,
                          seed=0, device="cpu")
    assert set(plain.score) == {"perplexity"} and plain.curve == {}
    assert plain.score["perplexity"] == pytest.approx(run.score["perplexity"])  # probing never changes training
