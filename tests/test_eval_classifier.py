"""Classifiers and protocols: exact batched LR vs scikit-learn, nested CV picks the right penalty, folds, targets."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.eval.classifier import BatchedClassifier, BatchedLogReg, ClassifierConfig
from xsent_lib.eval.protocols import cv_then_test, nested_cv, split_select, stratified_folds
from xsent_lib.eval.transfer import relatedness_targets


def test_stratified_folds_balance_classes_and_are_seeded():
    y = np.array([0] * 30 + [1] * 10)
    f = stratified_folds(y, 5, seed=3)
    for k in range(5):
        assert (y[f == k] == 0).sum() == 6 and (y[f == k] == 1).sum() == 2
    np.testing.assert_array_equal(f, stratified_folds(y, 5, seed=3))
    assert not np.array_equal(f, stratified_folds(y, 5, seed=4))


def test_batched_logreg_matches_sklearn_optimum():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    x = rng.standard_normal((200, 6)).astype(np.float32)
    y = (x @ rng.standard_normal(6) + 0.5 * rng.standard_normal(200) > 0).astype(int)
    l2 = 0.1
    cfg = ClassifierConfig.fast(l2=(l2,), device="cpu")
    mask = np.ones((2, 200), bool)
    mask[1, 100:] = False  # the second model only sees the first half
    clf = BatchedLogReg(6, 2, cfg.grid() * 2, cfg).fit(x, np.eye(2)[y], mask)
    probs = clf.predict_proba(x)
    for m, rows in enumerate([slice(None), slice(0, 100)]):
        n = len(y[rows])  # softmax over 2 classes with both columns penalised = binary LR with l2 / 2
        ref = LogisticRegression(C=2.0 / (l2 * n), tol=1e-10, max_iter=10_000).fit(x[rows], y[rows])
        np.testing.assert_allclose(probs[m][:, 1], ref.predict_proba(x)[:, 1], atol=2e-3)


def test_nested_cv_picks_small_penalty_on_separable_data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((120, 5)).astype(np.float32)
    y = (x[:, 0] > 0).astype(int)
    cfg = ClassifierConfig.fast(l2=(1e-4, 1.0), kfold=3, device="cpu")
    res = nested_cv(x, y, 2, cfg)
    assert all(s["l2"] == 1e-4 for s in res["selected"])
    assert res["acc"] > 90 and res["devacc"] > 90


def test_nested_cv_picks_large_penalty_on_label_noise():
    # Labels independent of 60 noise features, 75/25 imbalance: only the majority guess generalises.
    rng = np.random.default_rng(1)
    x = rng.standard_normal((120, 60)).astype(np.float32)
    y = (rng.random(120) < 0.25).astype(int)
    cfg = ClassifierConfig.fast(l2=(1e-4, 1.0), kfold=3, device="cpu")
    res = nested_cv(x, y, 2, cfg)
    assert all(s["l2"] == 1.0 for s in res["selected"])
    assert res["acc"] == pytest.approx(100 * (1 - y.mean()), abs=5)


def test_cv_then_test_and_split_select_report_selected_setting():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((160, 4)).astype(np.float32)
    y = (x[:, 1] > 0).astype(int)
    cfg = ClassifierConfig.fast(l2=(1e-4, 10.0), kfold=4, device="cpu")
    res = cv_then_test(x[:120], y[:120], x[120:], y[120:], 2, cfg)
    assert res["selected"]["l2"] == 1e-4 and res["acc"] > 90
    t = np.eye(2, dtype=np.float32)[y]
    out = split_select(x[:80], t[:80], x[80:120], t[80:120], x[120:], cfg)
    assert out["selected"]["l2"] == 1e-4 and len(out["dev_scores"]) == 2
    assert out["dev_scores"][0] > out["dev_scores"][1]
    assert ((out["test_probs"].argmax(1) == y[120:]).mean()) > 0.9


def test_mlp_probe_learns_xor_that_logreg_cannot():
    rng = np.random.default_rng(3)
    x = rng.choice([-1.0, 1.0], size=(400, 2)).astype(np.float32) + 0.1 * rng.standard_normal((400, 2)).astype(np.float32)
    y = (x[:, 0] * x[:, 1] > 0).astype(int)
    t = np.eye(2, dtype=np.float32)[y]
    mlp = ClassifierConfig(nhid=(50,), l2=(1e-5,), lr=1e-2, batch_size=32, max_epochs=40, device="cpu")
    res = split_select(x[:300], t[:300], x[300:350], t[300:350], x[350:], mlp)
    assert (res["test_probs"].argmax(1) == y[350:]).mean() > 0.95
    lr = ClassifierConfig.fast(l2=(1e-5,), device="cpu")
    res = split_select(x[:300], t[:300], x[300:350], t[300:350], x[350:], lr)
    assert (res["test_probs"].argmax(1) == y[350:]).mean() < 0.8


def test_batched_mlp_hidden_sizes_are_masked():
    cfg = ClassifierConfig(nhid=(3, 7), l2=(0.0,), device="cpu")
    clf = BatchedClassifier(4, 2, cfg.grid(), cfg)
    np.testing.assert_array_equal(clf.unit_mask.sum(1).numpy(), [3, 7])


def test_relatedness_targets_hand_computed():
    t = relatedness_targets(np.array([3.6, 1.0, 5.0]), low=1, n_classes=5)
    np.testing.assert_allclose(t[0], [0, 0, 0.4, 0.6, 0], atol=1e-6)
    np.testing.assert_allclose(t[1], [1, 0, 0, 0, 0])
    np.testing.assert_allclose(t[2], [0, 0, 0, 0, 1])
    np.testing.assert_allclose(t @ np.arange(1, 6), [3.6, 1.0, 5.0], atol=1e-6)
    with pytest.raises(ValueError, match="inside"):
        relatedness_targets(np.array([5.5]), low=1, n_classes=5)


def test_config_rejects_bad_values():
    with pytest.raises(ValueError, match="mixes"):
        ClassifierConfig(nhid=(0, 50))
    with pytest.raises(ValueError, match="kfold"):
        ClassifierConfig(kfold=1)
    with pytest.raises(ValueError, match="solver"):
        ClassifierConfig(solver="sgd")
    assert len(ClassifierConfig.probe("full").grid()) == 3 * 3 * 4
