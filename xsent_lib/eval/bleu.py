"""Corpus BLEU of already tokenised text, through sacreBLEU.

Both sides must already be tokenised the same way (space-separated tokens); sacreBLEU is told not to
re-tokenise, so the score is the one MOSES ``multi-bleu.perl`` gives on the same strings.
Book: chapter 4 (Probing: training-task scores) and chapter 5 (word-by-word translation).
"""
from __future__ import annotations

from collections.abc import Sequence

import sacrebleu


def corpus_bleu(hypotheses: Sequence[str], references: Sequence[str]) -> float:
    """BLEU-4 (0-100) of ``hypotheses`` against one reference each; both already tokenised.

    Book: chapter 4 (Probing: training-task scores) and chapter 5 (word-by-word translation).
    """
    if len(hypotheses) != len(references) or not len(references):
        raise ValueError("need one hypothesis per reference (and at least one), got "
                         f"{len(hypotheses)} and {len(references)}.")
    return float(sacrebleu.corpus_bleu(list(hypotheses), [list(references)], tokenize="none",
                                       force=True).score)
