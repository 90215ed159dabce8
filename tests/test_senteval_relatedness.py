"""STS-B / SICK-R scored as SentEval scores them (encode_labels, 5 classes) under SE; 6 classes kept
as an option."""

import numpy as np
import pytest

from xsent_lib.data.formats.containers import PairTask, SentencePairs
from xsent_lib.eval import SE, Evaluation, RelatednessTask, compare_relatedness_encodings
from xsent_lib.eval.transfer import relatedness_targets, senteval_relatedness_targets


def test_senteval_targets_by_hand():
    got = senteval_relatedness_targets(np.array([0.0, 0.4, 1.0, 2.3, 4.5, 5.0]))
    want = np.array(
        [
            [0, 0, 0, 0, 0],  # a score of 0: no class of SentEval's 1..5 gets mass
            [0.4, 0, 0, 0, 0],  # below 1: the row sums to the score, not to 1
            [1, 0, 0, 0, 0],
            [0, 0.7, 0.3, 0, 0],
            [0, 0, 0, 0.5, 0.5],
            [0, 0, 0, 0, 1],
        ],
        np.float32,
    )
    np.testing.assert_allclose(got, want, atol=1e-6)
    inside = np.random.default_rng(0).uniform(1, 5, 50)  # SICK's range: the same as Tai et al.'s
    np.testing.assert_allclose(
        senteval_relatedness_targets(inside), relatedness_targets(inside, 1, 5), atol=1e-6
    )
    with pytest.raises(ValueError, match="inside"):
        senteval_relatedness_targets(np.array([5.5]))


def _sts_task(n=(150, 50, 60), dim=6, seed=0):
    rng = np.random.default_rng(seed)
    total = sum(n)
    u, v = rng.standard_normal((total, dim)), rng.standard_normal((total, dim))
    scores = np.clip(
        2.5 + 1.6 * (u * v).sum(1) / np.sqrt(dim) + 0.5 * rng.standard_normal(total), 0, 5
    )
    vecs = np.vstack([u, v])
    cut = np.cumsum((0, *n))
    splits = {
        k: SentencePairs(
            [f"s{i}" for i in range(a, b)], [f"s{total + i}" for i in range(a, b)], scores[a:b]
        )
        for k, a, b in zip(("train", "dev", "test"), cut[:-1], cut[1:])
    }
    lookup = lambda params, batch: np.vstack([vecs[int(s[0][1:])] for s in batch])  # noqa: E731
    return PairTask("sts", splits, ()), lookup


def test_se_scores_with_five_classes_ours_with_six_and_both_are_computed():
    data, lookup = _sts_task()
    task = RelatednessTask(data, score_range=(0, 5))
    assert (
        task.encoding_for(SE({}, lookup)) == "senteval"
        and task.encoding_for(Evaluation({}, lookup)) == "range"
    )
    t, values = task.targets("train", "senteval")
    assert t.shape[1] == 5 and values.tolist() == [1, 2, 3, 4, 5]
    assert task.targets("train", "range")[0].shape[1] == 6
    both = compare_relatedness_encodings(task, SE({}, lookup))
    assert both["senteval"]["n_classes"] == 5 and both["range"]["n_classes"] == 6
    assert both["senteval"]["yhat"].min() >= 1.0  # SentEval's head cannot predict below 1
    assert both["pearson_gap"] == pytest.approx(
        both["range"]["pearson"] - both["senteval"]["pearson"]
    )
    assert both["n_below_1"] == int((np.asarray(data.splits["test"].labels) < 1).sum())
    fixed = RelatednessTask(data, score_range=(0, 5), encoding="range")
    assert fixed.encoding_for(SE({}, lookup)) == "range"
    with pytest.raises(ValueError, match="encoding"):
        RelatednessTask(data, encoding="six")


def test_se_relatedness_head_is_sentevals_and_options_are_checked():
    from xsent_lib.eval.classifier import ClassifierConfig

    data, lookup = _sts_task(n=(30, 10, 10))
    ev = SE({}, lookup)
    ev._task = RelatednessTask(data, score_range=(0, 5))
    cfg = ev.classifier_config()
    assert (cfg.loss, cfg.stale_count, cfg.tenacity, cfg.max_epochs) == ("mse", "total", 4, 21)
    assert (cfg.batch_size, cfg.epoch_size, cfg.l2) == (64, 50, (0.0,))
    with pytest.raises(ValueError, match="stale_count"):
        ClassifierConfig.full(stale_count="sometimes")
    with pytest.raises(ValueError, match="needs solver='adam'"):
        ClassifierConfig.full(loss="mse")


def test_sentevals_head_is_seeded_and_leaves_the_global_generator_alone():
    import torch

    from xsent_lib.eval.transfer import senteval_relatedness_head

    rng = np.random.default_rng(1)
    x, scores = rng.standard_normal((80, 4)), rng.uniform(1, 5, 80)
    t = senteval_relatedness_targets(scores)
    state = torch.random.get_rng_state()
    a = senteval_relatedness_head(x[:60], t[:60], x[60:], scores[60:], x[60:], np.arange(1.0, 6.0))
    assert torch.equal(state, torch.random.get_rng_state())
    b = senteval_relatedness_head(x[:60], t[:60], x[60:], scores[60:], x[60:], np.arange(1.0, 6.0))
    assert a[0] == b[0] and np.array_equal(a[1], b[1]) and a[1].min() >= 1.0
