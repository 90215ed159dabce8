"""Hubness, accuracy by frequency and word-by-word translation (chapter 5's evaluation)."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.align.setting import make_setting
from xsent_lib.align.toy import planted_rotation
from xsent_lib.data import word_spaces as ws
from xsent_lib.eval import hubness as hb
from xsent_lib.eval import word_maps as wt
from xsent_lib.eval.bleu import corpus_bleu
from xsent_lib.text.tokenizers import word_tokens


def brute_top1(x: np.ndarray, y: np.ndarray, method: str, k: int = 3) -> np.ndarray:
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    y = y / np.linalg.norm(y, axis=1, keepdims=True)
    s = x @ y.T
    if method == "csls":
        s = 2 * s - np.sort(s, axis=1)[:, -k:].mean(1, keepdims=True) - np.sort(s, axis=0)[-k:, :].mean(0)
    return np.argmax(s, axis=1)


@pytest.mark.parametrize("method", ["nn", "csls"])
def test_hub_counts_equal_a_brute_force_count(method):
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(120, 5)), rng.normal(size=(90, 5))
    top1 = hb.top1_targets(x, y, method, k_csls=3)
    np.testing.assert_array_equal(top1, brute_top1(x, y, method))
    counts = hb.hub_counts(top1, 90)
    expected = np.zeros(90, int)
    for j in brute_top1(x, y, method):
        expected[j] += 1
    np.testing.assert_array_equal(counts, expected)
    assert counts.sum() == 120


def test_csls_spreads_retrievals_over_more_targets_than_nn():
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(400, 8)), rng.normal(size=(400, 8))
    y[:5] *= 0.2
    y[:5] += y[5:].mean(0) * 3  # a few points near the centre of the cloud become hubs for cosine NN
    nn = hb.hub_counts(hb.top1_targets(x, y, "nn"), 400)
    csls = hb.hub_counts(hb.top1_targets(x, y, "csls"), 400)
    assert nn.max() > csls.max() and (csls == 0).mean() < (nn == 0).mean()


def test_hubness_summary_by_hand():
    counts = np.array([3, 0, 1, 0])
    out = hb.hubness_summary(counts, ["a", "b", "c", "d"], n_top=2)
    assert out["queries"] == 4 and out["never retrieved (%)"] == 50.0 and out["max count"] == 3
    assert out["top hubs"] == "a (3), c (1)"
    assert out["retrieved by the top 1% of targets (%)"] == 75.0
    with pytest.raises(ValueError):
        hb.hub_counts(np.array([0, 5]), 3)


def test_word_by_word_translation_and_bleu():
    src = ws.LanguageSpace("xs", ["le", "chat", "noir"], np.eye(3, dtype=np.float32))
    tgt = ws.LanguageSpace("xt", ["the", "cat", "black"], np.eye(3, dtype=np.float32))
    lexicon = wt.translation_lexicon(src, tgt, np.eye(3), "nn")
    np.testing.assert_array_equal(lexicon, [0, 1, 2])
    hyp = wt.word_by_word(["Le chat NOIR dort."], src, tgt, lexicon)
    assert hyp == ["the cat black dort"]
    assert wt.fully_known(["le chat", "le chien", ""], src).tolist() == [True, False, False]
    # references are tokenised like the hypotheses (lower-cased word tokens) at the call site
    ref = " ".join(word_tokens("The cat sat on the mat."))
    assert corpus_bleu(["the cat sat on the mat"], [ref]) == pytest.approx(100.0)
    assert corpus_bleu(["a b c d"], ["w x y z"]) < 1.0


def test_accuracy_by_frequency_is_perfect_for_a_rotated_copy():
    p = planted_rotation(600, 8, noise=0.0, seed=3)
    words = [f"w{i}" for i in range(600)]
    a, b = ws.make_space("en", words, p.src), ws.make_space("en", words, p.tgt)
    out = wt.accuracy_by_frequency(a, b, bucket_edges=[0, 200, 400, 600], seed=0)
    assert out["buckets"] == ["0-200", "200-400", "400-600"]
    assert out["nn"] == [100.0] * 3 and min(out["csls"]) > 95  # CSLS may prefer an isolated near-duplicate
    assert 250 < sum(out["n"]) < 350  # about half of the words are test words
    with pytest.raises(ValueError, match="increasing"):
        wt.accuracy_by_frequency(a, b, bucket_edges=[0, 0])


def test_p1_monitor_reports_test_p1_per_method():
    p = planted_rotation(200, 6, noise=0.0, seed=0)
    src = ws.make_space("xs", [f"s{i}" for i in range(200)], p.src)
    tgt = ws.make_space("xt", [f"t{i}" for i in range(200)], p.tgt)
    pairs = [(f"s{i}", f"t{i}") for i in range(200)]
    s = make_setting(src, tgt, pairs[:150], pairs[150:], dictionary="planted", n_train=None)
    W = p.rotation  # tgt = src @ rotation.T exactly (no noise), and centring is rotation-equivariant
    out = wt.p1_monitor(s)(W)
    assert set(out) == {"p@1 nn", "p@1 csls"} and out["p@1 nn"] == wt.evaluate_map(s, W)["nn"]["p@1"]
    assert set(wt.p1_monitor(s, ("csls",))(W)) == {"p@1 csls"}
