"""Corpus BLEU on tokenised text: perfect, partial and empty overlap, and a clear error on mismatched input."""
from __future__ import annotations

import pytest

from xsent_lib.eval.bleu import corpus_bleu


def test_bleu_perfect_partial_and_none():
    refs = ["the cat sat on the mat today", "a dog ran in the park this morning"]
    assert corpus_bleu(refs, refs) == pytest.approx(100.0)
    partial = corpus_bleu(["the cat sat on the mat", "a dog ran in the park"], refs)
    assert 0.0 < partial < 100.0
    assert corpus_bleu(["x y z w v", "q r s t u"], refs) == pytest.approx(0.0)


def test_bleu_does_not_retokenise():
    # "mat." is one token when input is taken as tokenised: it does not match "mat".
    assert corpus_bleu(["the cat sat on the mat."], ["the cat sat on the mat"]) < 100.0


def test_bleu_refuses_mismatched_lengths():
    with pytest.raises(ValueError, match="one hypothesis per reference"):
        corpus_bleu(["a b"], ["a b", "c d"])
