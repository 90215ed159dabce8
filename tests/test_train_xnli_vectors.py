"""Chapter 6: XNLI's classifier trained on a frozen, non-torch sentence encoder (the reference row)."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.data.formats import NLIData
from xsent_lib.data.nli_corpus import NLICorpus
from xsent_lib.train.xnli import train_on_vectors


def _planted(n: int, seed: int) -> NLIData:
    """Premise 'w<i>'; the hypothesis repeats it (entailment), names another word (neutral) or negates it."""
    rng = np.random.default_rng(seed)
    words = rng.integers(0, 20, n)
    labels = rng.integers(0, 3, n)
    hyp = [f"w{w}" if y == 0 else f"w{(w + 1) % 20}" if y == 1 else f"not w{w}" for w, y in zip(words, labels)]
    return NLIData([f"w{w}" for w in words], hyp, labels)


def _encode(texts):
    out = np.zeros((len(texts), 21), np.float32)
    for i, t in enumerate(texts):
        out[i, int(t.split()[-1][1:])] = 1.0
        out[i, 20] = float(t.startswith("not"))
    return out


def test_classifier_on_frozen_vectors_learns_a_planted_relation():
    corpus = NLICorpus(_planted(600, 0), _planted(100, 1), _planted(200, 2), "planted")
    run = train_on_vectors("toy", _encode, corpus, epochs=15, device="cpu", seed=0)
    assert run.test_acc > 90.0 and run.dev_acc == max(run.dev_curve) and len(run.dev_curve) == 15
    assert run.summary()["dim"] == 21
    again = train_on_vectors("toy", _encode, corpus, epochs=15, device="cpu", seed=0)
    assert again.test_acc == run.test_acc  # seeded


def test_train_on_vectors_checks_input():
    corpus = NLICorpus(_planted(10, 0), _planted(5, 1), _planted(5, 2), "planted")
    with pytest.raises(TypeError, match="callable"):
        train_on_vectors("toy", None, corpus)
    with pytest.raises(ValueError, match="one row per sentence"):
        train_on_vectors("toy", lambda t: np.zeros((1, 3), np.float32), corpus)
    with pytest.raises(ValueError, match="positive"):
        train_on_vectors("toy", _encode, corpus, epochs=0)
