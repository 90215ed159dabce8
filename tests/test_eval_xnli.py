"""Chapter 6: zero-shot and translate-test scoring with a frozen English classifier."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from xsent_lib.data.formats import NLIData
from xsent_lib.encoders import BagOfVectorsEncoder, NLIClassifier
from xsent_lib.eval.xnli import (
    pair_accuracy,
    rank_correlation,
    translate_test_accuracies,
    vectors_pair_accuracy,
    with_average,
    zero_shot_accuracies,
)
from xsent_lib.text import TextPipeline, WordTokenizer


def _toy():
    en = NLIData(["a b", "c d", "a c"], ["a b", "d d", "b b"], np.array([0, 2, 1]))
    fr = NLIData(["A B", "C D", "A C"], ["A B", "D D", "B B"], np.array([0, 2, 1]))
    pipe = TextPipeline.fit(["a b c d"], WordTokenizer())
    torch.manual_seed(0)
    enc = BagOfVectorsEncoder(len(pipe.vocab), 4, pipeline=pipe)
    clf = NLIClassifier(4, 8)
    return en, fr, enc, clf


def test_translate_test_equals_english_with_exact_translation():
    en, fr, enc, clf = _toy()
    table = dict(zip(fr.premises + fr.hypotheses, en.premises + en.hypotheses))
    acc = translate_test_accuracies(clf, enc, {"en": en, "fr": fr}, lambda t, s, d: [table[x] for x in t])
    assert acc["fr"] == acc["en"] == pair_accuracy(clf, enc, en)
    assert zero_shot_accuracies(clf, {"en": enc, "fr": enc}, {"en": en})["en"] == acc["en"]
    with pytest.raises(KeyError, match="no encoder"):
        zero_shot_accuracies(clf, {"en": enc}, {"fr": fr})
    with pytest.raises(ValueError, match="returned"):
        translate_test_accuracies(clf, enc, {"fr": fr}, lambda t, s, d: t[:1])


def test_average_and_correlation():
    assert with_average({"en": 80.0, "fr": 70.0})["avg"] == 75.0
    assert with_average({"en": 80.0}, ["en", "fr"]) == {"en": 80.0, "fr": None, "avg": None}
    assert rank_correlation([1, 2, 3, 4], [9, 7, 5, 1]) == pytest.approx(-1.0)
    assert rank_correlation([1, 2], [1, 2]) is None and rank_correlation([1, 1, 1], [1, 2, 3]) is None


def test_vectors_pair_accuracy_matches_the_module_path_and_checks_input():
    en, _, enc, clf = _toy()

    def encode(texts):
        return enc.encode(texts)

    assert vectors_pair_accuracy(clf, encode, en, device="cpu") == pair_accuracy(clf, enc, en, device="cpu")
    with pytest.raises(ValueError, match="vectors for 3 pairs"):
        vectors_pair_accuracy(clf, lambda t: np.zeros((1, 4), np.float32), en)
    with pytest.raises(TypeError, match="callable"):
        vectors_pair_accuracy(clf, "USE", en)
