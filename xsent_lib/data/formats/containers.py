"""The plain containers the SentEval-style loaders return: labelled sentences and labelled sentence
pairs.

Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class LabelledSentences:
    """Sentences (as in the file, already tokenised for SentEval data) and their labels.

    ``labels`` holds int64 class ids into the task's ``label_names``.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    sentences: list[str]
    labels: np.ndarray

    def __len__(self) -> int:
        return len(self.sentences)


@dataclass
class ClassificationTask:
    """A single-sentence classification task: named splits and the class names behind the label ids.

    Tasks evaluated by cross-validation (MR, CR, SUBJ, MPQA) have one split, ``"all"``; the others
    have ``"train"``, ``"test"`` and, when the data defines one, ``"dev"``.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    name: str
    splits: dict[str, LabelledSentences]
    label_names: tuple[str, ...]


@dataclass
class SentencePairs:
    """Aligned sentence pairs with one label each: an int64 class id, or a float64 similarity score.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    first: list[str]
    second: list[str]
    labels: np.ndarray

    def __len__(self) -> int:
        return len(self.first)


@dataclass
class PairTask:
    """A sentence-pair task: named splits, and class names (empty for similarity scores).

    For STS12-16 the "splits" are the year's sub-datasets (e.g. ``MSRpar``), all of them test data.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    name: str
    splits: dict[str, SentencePairs]
    label_names: tuple[str, ...] = ()
