"""The chapter-4 probes: configurations, features in suite order, accuracy on trivially encoded labels, baselines."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.data.formats.containers import ClassificationTask, LabelledSentences
from xsent_lib.data.probing_sets import SPLITS
from xsent_lib.eval.probing import (
    EXACT_MAX_CLASSES,
    baseline_scores,
    probe_config,
    probe_encoder,
    probe_encoder_all,
    probe_features,
    suite_features,
)


def _trivial_suite(n_classes: int, sizes=(200, 60, 80), seed: int = 0) -> tuple[dict, dict]:
    """A task whose label is written one-hot into the features (plus noise): a probe must read it perfectly."""
    rng = np.random.default_rng(seed)
    splits, feats = {}, {}
    for split, n in zip(SPLITS, sizes):
        y = np.arange(n) % n_classes
        x = rng.normal(size=(n, n_classes + 4)).astype(np.float32)
        x[np.arange(n), y] += 8.0
        x[:, -1] = 1e-3 * rng.normal(size=n)  # tiny scale: standardisation must not turn it into a problem
        splits[split] = LabelledSentences([f"s{i}" for i in range(n)], y)
        feats[split] = x
    return {"Trivial": ClassificationTask("Trivial", splits, tuple(map(str, range(n_classes))))}, {"Trivial": feats}


@pytest.mark.parametrize("probe,n_classes", [("mlp", 3), ("logreg", 3), ("logreg", EXACT_MAX_CLASSES + 1)])
def test_a_probe_reads_a_trivially_encoded_label(probe, n_classes):
    suite, feats = _trivial_suite(n_classes, sizes=(100 * n_classes, 30 * n_classes, 40 * n_classes))
    acc = probe_features(feats, suite, probe, mode="fast", seed=0, device="cpu")
    assert acc["Trivial"] >= 97.5
    with pytest.raises(ValueError, match="no features"):
        probe_features({}, suite, probe, device="cpu")


def test_probe_config_choices():
    assert probe_config("mlp", "full").nhid == (50, 100, 200)
    assert probe_config("logreg", "fast").solver == "exact" and probe_config("logreg", "full").solver == "exact"
    assert probe_config("logreg", "fast", n_classes=EXACT_MAX_CLASSES + 1).solver == "adam"
    assert probe_config("mlp", "smoke").max_epochs == 3 < probe_config("mlp", "fast").max_epochs
    with pytest.raises(ValueError):
        probe_config("svm")
    with pytest.raises(ValueError, match="mode"):
        probe_config("mlp", "quick")


class _LengthEncoder:
    """A stand-in encoder: the vector of a sentence is its token count and a constant."""

    def encode(self, sentences, batch_size=256, device="auto"):
        return np.array([[len(s.split()), 1.0] for s in sentences], np.float32)


def _length_suite(seed: int = 0) -> dict[str, ClassificationTask]:
    rng = np.random.default_rng(seed)

    def split(n):
        y = np.arange(n) % 2
        return LabelledSentences([" ".join(["w"] * (3 + 5 * c + int(rng.integers(2)))) for c in y], y)

    return {"Long": ClassificationTask("Long", {"train": split(40), "dev": split(10), "test": split(20)},
                                       ("short", "long"))}


def test_suite_features_keep_the_split_order_and_probe_encoder_uses_them():
    suite = _length_suite()
    feats = suite_features(_LengthEncoder(), suite, batch_size=7, device="cpu")
    for split in SPLITS:
        assert np.array_equal(feats["Long"][split][:, 0], [len(s.split()) for s in suite["Long"].splits[split].sentences])
    assert probe_encoder(_LengthEncoder(), suite, "logreg", "fast", seed=0, device="cpu") == {"Long": 100.0}
    with pytest.raises(ValueError, match="no sentence"):
        suite_features(_LengthEncoder(), {})


def test_probe_encoder_all_embeds_once_and_matches_each_probe():
    suite = _length_suite(3)
    calls = []

    class Counting(_LengthEncoder):
        def encode(self, sentences, batch_size=256, device="auto"):
            calls.append(len(sentences))
            return super().encode(sentences, batch_size, device)

    both = probe_encoder_all(Counting(), suite, ("logreg", "mlp"), "fast", seed=0, device="cpu")
    assert len(calls) == 1  # one pass over the three splits, not one per probe
    for probe in ("logreg", "mlp"):
        assert both[probe] == probe_encoder(_LengthEncoder(), suite, probe, "fast", seed=0, device="cpu")
    with pytest.raises(ValueError, match="non-empty selection"):
        probe_encoder_all(_LengthEncoder(), suite, ("svm",))


def test_baselines_know_the_majority_and_the_length():
    suite = _length_suite()
    rows = baseline_scores(suite)
    assert list(rows) == ["Majority vote", "Length", "NB-uni-tfidf", "NB-bi-tfidf"]
    assert rows["Majority vote"]["Long"] == pytest.approx(50.0)  # balanced test split
    assert rows["Length"]["Long"] == pytest.approx(100.0)  # the token count decides the class
