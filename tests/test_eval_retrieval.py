"""Ranking retrieval: R@K and median rank by hand, and a learned joint space that recovers a hidden map."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.eval.engine import Evaluation
from xsent_lib.eval.retrieval import RankingTask, ranking_metrics


def test_ranking_metrics_hand_computed():
    # 3 captions, 2 images; captions 0, 1 describe image 0, caption 2 image 1.
    sim = np.array([[0.9, 0.1],
                    [0.2, 0.8],
                    [0.3, 0.4]])
    gold = np.array([0, 0, 1])
    m = ranking_metrics(sim, gold, ks=(1, 2))
    # caption -> image ranks: 1, 2, 1
    assert m["query_to_item"]["r@1"] == pytest.approx(200 / 3) and m["query_to_item"]["r@2"] == 100.0
    assert m["query_to_item"]["medr"] == 1.0
    # image 0 -> captions: caption 0 has rank 1 -> best 1; image 1 -> caption 2 ranks 3rd (0.8, 0.4 > ... ) -> 2
    # column 1 scores: 0.1, 0.8, 0.4 -> caption 2 is second
    assert m["item_to_query"]["r@1"] == 50.0 and m["item_to_query"]["r@2"] == 100.0
    assert m["item_to_query"]["medr"] == 1.5


def test_ranking_metrics_reject_bad_gold():
    with pytest.raises(ValueError, match="outside"):
        ranking_metrics(np.zeros((2, 2)), np.array([0, 2]))


def test_ranking_task_learns_joint_space():
    rng = np.random.default_rng(0)
    n_items, d_txt, d_img = 120, 16, 10
    w = rng.standard_normal((d_img, d_txt))
    items = rng.standard_normal((n_items, d_img)).astype(np.float32)
    table = {}
    splits = {}
    for name, rows in (("train", np.arange(0, 80)), ("dev", np.arange(80, 100)), ("test", np.arange(100, 120))):
        gold = np.repeat(np.arange(len(rows)), 2)  # two captions per image
        sents = [f"{name} cap{i}" for i in range(len(gold))]
        for s, g in zip(sents, gold):
            table[s] = items[rows[g]] @ w + 0.3 * rng.standard_normal(d_txt)
        splits[name] = (sents, items[rows], gold)
    ev = Evaluation({}, lambda p, batch: np.vstack([table[" ".join(s)] for s in batch]))
    res = ev.eval(RankingTask(splits, dim=16, epochs=40, lr=1e-2))
    assert res["query_to_item"]["r@5"] > 75 and res["item_to_query"]["r@5"] > 75  # chance: 25
