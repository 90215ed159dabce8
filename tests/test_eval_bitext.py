"""Bitext mining: F1 and threshold selection by hand, greedy matching vs a sequential loop, hidden pairs found."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.eval.bitext import (
    BUCCTask,
    bucc_evaluate,
    f1_at_threshold,
    greedy_one_to_one,
    mine_bitext,
    select_threshold,
)
from xsent_lib.eval.engine import Evaluation


def test_f1_hand_computed():
    pairs = np.array([[0, 0], [1, 2], [2, 1], [3, 3]])
    scores = np.array([0.9, 0.8, 0.7, 0.2])
    gold = np.array([[0, 0], [1, 1], [2, 1]])
    r = f1_at_threshold(pairs, scores, gold, threshold=0.5)
    # proposed 3, correct 2 (0-0, 2-1): P = 2/3, R = 2/3
    assert r["precision"] == pytest.approx(200 / 3) and r["recall"] == pytest.approx(200 / 3)
    assert r["f1"] == pytest.approx(200 / 3) and r["n_proposed"] == 3


def test_select_threshold_maximises_f1_over_cuts():
    pairs = np.array([[0, 0], [1, 1], [2, 5], [3, 3], [4, 9]])
    scores = np.array([0.95, 0.9, 0.85, 0.8, 0.1])
    gold = np.array([[0, 0], [1, 1], [3, 3], [7, 7]])
    thr, f1 = select_threshold(pairs, scores, gold)
    # cuts: 1 kept -> 2*1/(1+4); 2 -> 4/6; 3 -> 4/7; 4 -> 6/8 = 0.75 (best); 5 -> 6/9
    assert thr == pytest.approx(0.8) and f1 == pytest.approx(75.0)
    assert f1_at_threshold(pairs, scores, gold, thr)["f1"] == pytest.approx(f1)


def test_select_threshold_never_splits_tied_scores():
    # Cutting between the two 0.5 pairs would give F1 = 1, but no threshold can do that: best is 0.8.
    pairs = np.array([[0, 0], [1, 1], [2, 2]])
    scores = np.array([0.9, 0.5, 0.5])
    thr, f1 = select_threshold(pairs, scores, np.array([[0, 0], [1, 1]]))
    assert thr == pytest.approx(0.5) and f1 == pytest.approx(80.0)


def _sequential_greedy(pairs, scores):
    keep, used_s, used_t = np.zeros(len(pairs), bool), set(), set()
    for i in np.lexsort((np.arange(len(scores)), -scores)):
        s, t = pairs[i]
        if s not in used_s and t not in used_t:
            keep[i] = True
            used_s.add(s)
            used_t.add(t)
    return keep


def test_greedy_matching_equals_sequential_loop():
    rng = np.random.default_rng(0)
    for _ in range(20):
        pairs = rng.integers(0, 8, (30, 2))
        scores = rng.integers(0, 10, 30).astype(float)  # many ties
        np.testing.assert_array_equal(greedy_one_to_one(pairs, scores), _sequential_greedy(pairs, scores))


def _hidden_pairs(rng, n_src, n_tgt, n_gold, d=32, noise=0.1):
    x = rng.standard_normal((n_src, d)).astype(np.float32)
    y = rng.standard_normal((n_tgt, d)).astype(np.float32)
    src = rng.choice(n_src, n_gold, replace=False)
    tgt = rng.choice(n_tgt, n_gold, replace=False)
    y[tgt] = x[src] + noise * rng.standard_normal((n_gold, d)).astype(np.float32)
    return x, y, np.stack([src, tgt], 1)


@pytest.mark.parametrize("strategy", ["forward", "backward", "intersect", "max"])
def test_mining_finds_hidden_pairs(strategy):
    rng = np.random.default_rng(1)
    x, y, gold = _hidden_pairs(rng, 200, 250, 20)
    pairs, scores = mine_bitext(x, y, k=4, mode="ratio", strategy=strategy)
    assert np.all(np.diff(scores) <= 0)
    thr, f1 = select_threshold(pairs, scores, gold)
    assert f1 == pytest.approx(100.0)
    if strategy in ("max", "intersect"):
        assert len(np.unique(pairs[:, 0])) == len(pairs) and len(np.unique(pairs[:, 1])) == len(pairs)


def test_bucc_threshold_from_dev_transfers_to_test_and_task_runs():
    rng = np.random.default_rng(2)
    dev, test = _hidden_pairs(rng, 150, 150, 15), _hidden_pairs(rng, 150, 150, 15)
    res = bucc_evaluate(dev, test, mode="distance")
    assert res["dev_f1"] == pytest.approx(100.0) and res["f1"] > 90
    vocab = {}

    def batcher(params, batch):  # look sentences up in a table of vectors
        return np.vstack([vocab[" ".join(s)] for s in batch])

    splits = {}
    for name, (x, y, g) in (("dev", dev), ("test", test)):
        src = [f"{name} s{i}" for i in range(len(x))]
        tgt = [f"{name} t{i}" for i in range(len(y))]
        vocab.update(zip(src, x))
        vocab.update(zip(tgt, y))
        splits[name] = (src, tgt, g)
    out = Evaluation({}, batcher).eval(BUCCTask(splits, mode="distance"))
    assert out["f1"] == pytest.approx(res["f1"]) and out["threshold"] == pytest.approx(res["threshold"])


def test_mining_rejects_bad_arguments():
    x = np.ones((5, 3), np.float32)
    with pytest.raises(ValueError, match="strategy"):
        mine_bitext(x, x, strategy="union")
    with pytest.raises(ValueError, match="gold"):
        f1_at_threshold(np.array([[0, 0]]), np.array([1.0]), np.zeros((0, 2)), 0.5)
