"""STS: cosine vs gold per subset, aggregates named and recomputable from the per-subset numbers."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import pearsonr

from xsent_lib.data.formats.containers import PairTask, SentencePairs
from xsent_lib.eval.engine import Evaluation
from xsent_lib.eval.sts import STSTask, correlations, cosine_rows, sts_aggregates


def test_cosine_rows_hand_computed():
    u = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    v = np.array([[0.0, 2.0], [2.0, 2.0], [1.0, 0.0]])
    np.testing.assert_allclose(cosine_rows(u, v), [0.0, 1.0, 0.0])


def test_aggregates_hand_computed():
    subsets = {"a": {"pearson": 0.5, "spearman": 0.4, "n": 100}, "b": {"pearson": 0.8, "spearman": 0.6, "n": 300}}
    agg = sts_aggregates(subsets)
    assert agg["mean"]["pearson"] == pytest.approx(0.65)
    assert agg["wmean"]["pearson"] == pytest.approx((0.5 * 100 + 0.8 * 300) / 400)
    assert agg["wmean"]["spearman"] == pytest.approx((0.4 * 100 + 0.6 * 300) / 400)


def test_sts_task_per_subset_numbers_reaggregate():
    rng = np.random.default_rng(0)
    table = rng.standard_normal((30, 8))
    words = [f"t{i}" for i in range(30)]

    def batcher(params, batch):
        return np.vstack([table[[words.index(w) for w in s]].sum(0) for s in batch])

    splits = {}
    for name, n in (("news", 40), ("forum", 15), ("captions", 25)):
        a = [" ".join(rng.choice(words, 4)) for _ in range(n)]
        b = [" ".join(s.split()[:2] + list(rng.choice(words, 2))) for s in a]
        splits[name] = SentencePairs(a, b, rng.uniform(0, 5, n))
    res = Evaluation({}, batcher).eval(STSTask(PairTask("STS-toy", splits)))
    json.dumps(res)  # results are plain JSON
    assert set(res["subsets"]) == {"news", "forum", "captions"}
    again = sts_aggregates(res["subsets"])
    assert again["mean"] == res["mean"] and again["wmean"] == res["wmean"]
    assert res["metric"] == "cosine-unsupervised" and res["aggregates"] == ["mean", "wmean", "all"]
    # per-subset Pearson equals the brute-force cosine correlation
    p = splits["forum"]
    cos = cosine_rows(batcher(None, [s.split() for s in p.first]), batcher(None, [s.split() for s in p.second]))
    assert res["subsets"]["forum"]["pearson"] == pytest.approx(pearsonr(cos, p.labels)[0], abs=1e-5)
    assert res["subsets"]["forum"]["n"] == 15


def test_correlations_reject_bad_input():
    with pytest.raises(ValueError, match="same length"):
        correlations(np.ones(3), np.ones(4))


# ------------------------------------------------------------------------------------------ never NaN as a result
def test_correlation_of_constant_predictions_is_refused_naming_the_subset():
    gold = np.array([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(ValueError, match=r"subset 'news'.*predictions are constant.*undefined"):
        correlations(np.full(4, 0.3), gold, name="news")
    with pytest.raises(ValueError, match=r"gold scores are constant"):
        correlations(gold, np.full(4, 2.0))


def test_correlation_with_nan_gold_is_refused():
    gold = np.array([1.0, np.nan, 3.0, 4.0])
    with pytest.raises(ValueError, match=r"subset 'forum'.*1 of 4 gold scores are NaN or infinite"):
        correlations(np.arange(4.0), gold, name="forum")


def test_sts_task_with_a_constant_encoder_raises_instead_of_nan():
    splits = {"captions": SentencePairs(["a b", "c d", "e f"], ["a", "c", "e"], np.array([0.0, 2.5, 5.0]))}
    ev = Evaluation({}, lambda params, batch: np.ones((len(batch), 4)))
    with pytest.raises(ValueError, match="subset 'captions'.*predictions are constant"):
        ev.eval(STSTask(PairTask("STS-const", splits)))


def test_aggregates_refuse_nan_subsets():
    subsets = {"a": {"pearson": 0.5, "spearman": 0.4, "n": 100},
               "b": {"pearson": float("nan"), "spearman": 0.6, "n": 300}}
    with pytest.raises(ValueError, match=r"subset 'b'.*pearson.*nan"):
        sts_aggregates(subsets)
    with pytest.raises(ValueError, match=r"subset 'a'.*size"):
        sts_aggregates({"a": {"pearson": 0.5, "spearman": 0.4, "n": 0}})
