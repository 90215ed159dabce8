"""The SentEval-style engine: prepare/batcher protocol, order after length sorting, adapters, task runs."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.data.formats.containers import (
    ClassificationTask,
    LabelledSentences,
    PairTask,
    SentencePairs,
)
from xsent_lib.eval.engine import Evaluation, Params, batcher_from_encoder, batcher_from_function
from xsent_lib.eval.transfer import (
    PairClassificationTask,
    RelatednessTask,
    TransferTask,
    pair_features,
)

VOCAB = [f"w{i}" for i in range(40)]


def senteval_prepare(params, samples):
    """Exactly what a SentEval user writes: build a word-vector table from the samples."""
    rng = np.random.default_rng(0)
    words = sorted({w for s in samples for w in s})
    params.word_vec = {w: rng.standard_normal(12) for w in words}
    params.wvec_dim = 12


def senteval_batcher(params, batch):
    """A SentEval bag-of-words batcher: receives token lists, returns (batch, dim)."""
    embeddings = []
    for sent in batch:
        vecs = [params.word_vec[w] for w in sent if w in params.word_vec]
        embeddings.append(np.mean(vecs, 0) if vecs else np.zeros(params.wvec_dim))
    return np.vstack(embeddings)


def _labelled(rng, n):
    y = rng.integers(0, 2, n)
    sents = [" ".join(VOCAB[j] for j in rng.integers(0, 20, rng.integers(2, 8)) + 20 * c) for c in y]
    return LabelledSentences(sents, y)


def test_senteval_batcher_plugs_in_and_order_is_kept():
    seen = []

    def batcher(params, batch):
        seen.append([len(s) for s in batch])
        return np.array([[float(len(s)), float(hash(tuple(s)) % 97)] for s in batch])

    ev = Evaluation({"batch_size": 3}, batcher)
    sents = ["a b c d", "a", "a b", "", "a b c"]
    emb = ev.encode(sents)
    np.testing.assert_array_equal(emb[:, 0], [4, 1, 2, 1, 3])  # empty sentence became ['.']
    assert [len(b) for b in seen] == [3, 2]
    assert sum(seen, []) == sorted(sum(seen, []))  # batches were sorted by length


def test_params_are_attribute_dicts_with_senteval_defaults():
    p = Params({"seed": 3})
    p.task_path = "/data"
    assert p["task_path"] == "/data" and p.seed == 3
    with pytest.raises(AttributeError, match="no field"):
        _ = p.missing
    ev = Evaluation(None, senteval_batcher)
    assert ev.params.seed == 1111 and ev.params.kfold == 10 and ev.params.batch_size == 128


def test_senteval_style_user_code_runs_a_transfer_task():
    rng = np.random.default_rng(1)
    task = ClassificationTask("toy", {"all": _labelled(rng, 200)}, ("neg", "pos"))
    res = Evaluation({"mode": "fast"}, senteval_batcher, senteval_prepare).eval(TransferTask(task))
    assert res["protocol"] == "nested 5-fold CV" and res["acc"] > 80 and res["task"] == "toy"


def test_batcher_from_encoder_and_function_join_tokens():
    class Enc:
        def encode(self, sentences, batch_size=128, device="auto"):
            return np.array([[len(s)] for s in sentences], float)

    b = batcher_from_encoder(Enc())
    np.testing.assert_array_equal(b(None, [["ab", "c"], "xyz"]), [[4], [3]])
    f = batcher_from_function(lambda sents: np.array([[s.count(" ")] for s in sents]))
    np.testing.assert_array_equal(f(None, [["a", "b", "c"]]), [[2]])
    with pytest.raises(TypeError, match="encode"):
        batcher_from_encoder(object())


def test_engine_rejects_bad_batchers_and_tasks():
    ev = Evaluation({}, lambda p, b: np.zeros((len(b) + 1, 2)))
    with pytest.raises(ValueError, match="one row per sentence"):
        ev.encode(["a", "b"])
    ev = Evaluation({}, lambda p, b: np.full((len(b), 2), np.nan))
    with pytest.raises(ValueError, match="NaN"):
        ev.encode(["a"])
    with pytest.raises(TypeError, match="not an evaluation task"):
        Evaluation({}, senteval_batcher).eval([object()])
    with pytest.raises(ValueError, match="mode"):
        Evaluation({"mode": "slow"}, senteval_batcher)


def test_pair_features_hand_computed():
    u, v = np.array([[1.0, -2.0]]), np.array([[3.0, 1.0]])
    np.testing.assert_array_equal(pair_features(u, v), [[1, -2, 3, 1, 2, 3, 3, -2]])
    np.testing.assert_array_equal(pair_features(u, v, "senteval"), [[2, 3, 3, -2]])


def _pairs(rng, n, score):
    a = [" ".join(VOCAB[j] for j in rng.integers(0, 40, 5)) for _ in range(n)]
    keep = rng.random(n)
    b = [" ".join(s.split()[: max(1, int(round(k * 5)))]) + " w39" for s, k in zip(a, keep)]
    labels = (1 + 4 * keep) if score else (keep > 0.5).astype(np.int64)
    return SentencePairs(a, b, labels)


def test_pair_classification_and_relatedness_learn_overlap():
    rng = np.random.default_rng(2)

    def overlap_batcher(params, batch):  # bag of words: overlap of the two sides is visible to u*v
        out = np.zeros((len(batch), len(VOCAB)))
        for i, s in enumerate(batch):
            for w in s:
                out[i, VOCAB.index(w)] = 1.0
        return out

    ev = Evaluation({"mode": "fast"}, overlap_batcher)
    cls = PairTask("pairs", {"train": _pairs(rng, 300, False), "test": _pairs(rng, 100, False)}, ("no", "yes"))
    res = ev.eval(PairClassificationTask(cls))
    assert res["protocol"].startswith("5-fold CV") and res["acc"] > 70 and 0 < res["f1"] <= 100
    rel = PairTask("rel", {k: _pairs(rng, n, True) for k, n in (("train", 300), ("dev", 100), ("test", 100))})
    res = ev.eval(RelatednessTask(rel))
    assert res["n_classes"] == 5 and res["pearson"] > 0.5 and res["metric"] == "trained-regressor"


def test_transfer_aggregates_hand_computed():
    from xsent_lib.eval.transfer import transfer_aggregates

    results = {"MR": {"devacc": 80.0, "ndev": 100, "acc": 79.0, "ntest": 100},
               "TREC": {"devacc": 90.0, "ndev": 300, "acc": 88.0, "ntest": 50},
               "SICKRelatedness": {"devpearson": 0.5, "ndev": 100, "pearson": 0.6, "ntest": 50},
               "STS12": {"mean": {"pearson": 0.3}}}
    dev = transfer_aggregates(results)
    assert dev["macro"] == pytest.approx((80 + 90 + 50) / 3)
    assert dev["micro"] == pytest.approx((80 * 100 + 90 * 300 + 50 * 100) / 500)
    assert dev["skipped"] == ["STS12"]
    test = transfer_aggregates(results, "test")
    assert test["micro"] == pytest.approx((79 * 100 + 88 * 50 + 60 * 50) / 200)


def test_senteval_classifier_dict_is_understood():
    params = {"task_path": "/unused", "usepytorch": True, "kfold": 10,
              "classifier": {"nhid": 0, "optim": "adam", "batch_size": 64, "tenacity": 5, "epoch_size": 4}}
    cfg = Evaluation(params, senteval_batcher).classifier_config()
    assert cfg.nhid == (0,) and cfg.solver == "adam" and cfg.batch_size == 64 and cfg.kfold == 10
    proto = {"classifier": {"nhid": 50, "optim": "rmsprop", "batch_size": 128, "tenacity": 3, "epoch_size": 2}}
    cfg = Evaluation(proto, senteval_batcher).classifier_config()  # SentEval's prototyping optimiser is honoured
    assert cfg.nhid == (50,) and cfg.tenacity == 3 and cfg.optim == "rmsprop" and cfg.kfold == 5  # SentEval's default
    with pytest.raises(ValueError, match="unknown optimiser 'lbfgs'"):
        Evaluation({"classifier": {"nhid": 0, "optim": "lbfgs"}}, senteval_batcher)
    with pytest.raises(ValueError, match="unknown keys"):
        Evaluation({"classifier": {"nhdi": 0}}, senteval_batcher).classifier_config()


# ------------------------------------------------------------------------------------------ batcher boundary
def test_batcher_returning_a_tensor_with_grad_is_explained():
    import torch

    weight = torch.ones(3, requires_grad=True)
    ev = Evaluation({}, lambda params, batch: torch.stack([weight * len(s) for s in batch]))
    with pytest.raises(TypeError, match=r"requires_grad=True.*\.detach\(\)\.cpu\(\)\.numpy\(\)"):
        ev.encode(["a b", "c"])
    ok = Evaluation({}, lambda params, batch: torch.ones(len(batch), 3))  # a plain CPU tensor is fine
    assert ok.encode(["a", "b"]).shape == (2, 3)


def test_batcher_output_shape_and_values_are_checked_per_batch():
    one_d = Evaluation({}, lambda params, batch: np.ones(len(batch)))
    with pytest.raises(ValueError, match=r"1-D array of shape \(2,\).*\(batch, dim\).*reshape"):
        one_d.encode(["a", "b"])
    short = Evaluation({}, lambda params, batch: np.ones((len(batch) - 1, 4)))
    with pytest.raises(ValueError, match="3 rows for a batch of 4 sentences"):
        short.encode(["a", "b", "c", "d"])
    ragged = Evaluation({}, lambda params, batch: [np.ones(len(s)) for s in batch])
    with pytest.raises(ValueError, match="could not be read as a numeric array"):
        ragged.encode(["a", "b c"])
    dims = iter([4, 5])
    changing = Evaluation({"batch_size": 1}, lambda params, batch: np.ones((len(batch), next(dims))))
    with pytest.raises(ValueError, match="dimension 5.*earlier batches gave 4"):
        changing.encode(["a", "b c"])


def test_batcher_nan_rows_name_the_sentences():
    def batcher(params, batch):
        return np.array([[np.nan, 0.0] if "bad" in s else [1.0, 0.0] for s in batch])

    with pytest.raises(ValueError, match=r"1 of 3 rows hold NaN or infinite.*'a bad one'"):
        Evaluation({"tokenized": False}, batcher).encode(["fine", "a bad one", "ok"])


def test_params_seed_is_checked_where_it_enters():
    with pytest.raises(ValueError, match=r"params\['seed'\] must be a non-negative integer in \[0, 2\*\*32 - 1\]"):
        Evaluation({"seed": 2**64}, senteval_batcher)
