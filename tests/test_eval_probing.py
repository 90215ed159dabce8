"""Probing: the probe and the baselines on trivially learnable cases."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.data.formats.containers import ClassificationTask, LabelledSentences
from xsent_lib.eval.engine import Evaluation
from xsent_lib.eval.probing import ProbingTask, probing_baselines

WORDS = [f"v{i}" for i in range(30)]


def _length_task(rng):
    """SentLen-like: the label is the length bin, words are random (only length carries the label)."""
    def split(n):
        y = rng.integers(0, 3, n)
        lengths = 2 + 4 * y + rng.integers(0, 3, n)
        return LabelledSentences([" ".join(rng.choice(WORDS, L)) for L in lengths], y)
    return ClassificationTask("SentLen", {"train": split(240), "dev": split(60), "test": split(90)}, ("a", "b", "c"))


def _word_task(rng):
    """WC-like: the label says which marker word the sentence contains; lengths are equal."""
    def split(n):
        y = rng.integers(0, 2, n)
        sents = [" ".join([*rng.choice(WORDS[2:], 4), WORDS[c]]) for c in y]
        return LabelledSentences(sents, y)
    return ClassificationTask("WC", {"train": split(200), "dev": split(60), "test": split(80)}, ("v0", "v1"))


def test_baselines_on_trivial_cases():
    rng = np.random.default_rng(0)
    length = probing_baselines(_length_task(rng))
    assert length["length"] == pytest.approx(100.0)
    assert length["majority"] < 50 and length["nb_uni_tfidf"] < 70
    word = probing_baselines(_word_task(rng))
    assert word["nb_uni_tfidf"] == pytest.approx(100.0) and word["nb_bi_tfidf"] > 90
    assert word["length"] < 70 and 30 < word["majority"] < 70


def test_bag_of_vectors_baseline_and_probes_read_content():
    rng = np.random.default_rng(1)
    table = rng.standard_normal((len(WORDS), 16))
    ev = Evaluation({"mode": "fast"}, lambda p, b: np.vstack([table[[WORDS.index(w) for w in s]].mean(0) for s in b]))
    task = _word_task(rng)
    assert probing_baselines(task, bov=ev)["bov"] > 90
    mlp = ev.eval(ProbingTask(task))
    lr = ev.eval(ProbingTask(task, name="WC-lr", classifier="logreg"))
    assert mlp["probe"] == "mlp" and mlp["selected"]["nhid"] == 50 and mlp["acc"] > 85
    assert lr["probe"] == "logreg" and lr["selected"]["nhid"] == 0 and lr["acc"] > 90


def test_probing_needs_three_splits():
    task = ClassificationTask("x", {"train": LabelledSentences(["a"], np.array([0]))}, ("a",))
    with pytest.raises(ValueError, match="train, dev and test"):
        ProbingTask(task)
