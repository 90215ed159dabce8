"""Plain containers returned by :class:`~.world.SyntheticWorld`: lists of strings and numpy arrays.

Other modules consume them without knowing how the world works; the logical forms ride along
(``forms``) for anyone who wants to check a label.

Book: chapter 1 (Data: the synthetic world).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .forms import Forms

NLI_LABELS = ("entailment", "neutral", "contradiction")


@dataclass
class ParallelCorpus:
    """Sentence-aligned corpus: ``src[i]`` and ``tgt[i]`` render the same logical form ``forms[i]``.

    Book: chapter 1 (Data: the synthetic world).
    """

    src_lang: str
    tgt_lang: str
    src: list[str]
    tgt: list[str]
    forms: Forms

    def __len__(self) -> int:
        return len(self.src)


@dataclass
class NLISet:
    """Premise / hypothesis pairs with labels 0 entailment, 1 neutral, 2 contradiction (SNLI order)
    and the name of the construction that produced each pair.

    Book: chapter 6 (XNLI and aligned encoders).
    """

    lang: str
    premise: list[str]
    hypothesis: list[str]
    label: np.ndarray
    strategy: list[str]
    premise_forms: Forms
    hypothesis_forms: Forms
    label_names: tuple[str, ...] = NLI_LABELS

    def __len__(self) -> int:
        return len(self.premise)


@dataclass
class ProbingSplit:
    """One split of a probing task: sentences, integer labels, their forms and task-specific extras
    (e.g. ``position`` of the swapped bigram for BShift, ``-1`` when intact).

    Book: chapter 4 (Probing).
    """

    sentences: list[str]
    labels: np.ndarray
    forms: Forms
    meta: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.sentences)


@dataclass
class ProbingSet:
    """A probing task (Conneau et al. 2018): class names and train / dev / test splits.

    Book: chapter 4 (Probing).
    """

    task: str
    lang: str
    classes: tuple[str, ...]
    train: ProbingSplit
    dev: ProbingSplit
    test: ProbingSplit


@dataclass
class STSSet:
    """Graded similarity pairs: ``a[i]`` (in ``lang_a``) vs ``b[i]`` (in ``lang_b``) with
    ``score[i]`` in [0, 5].

    Book: chapter 2 (Evaluating sentence embeddings).
    """

    lang_a: str
    lang_b: str
    a: list[str]
    b: list[str]
    score: np.ndarray
    forms_a: Forms
    forms_b: Forms

    def __len__(self) -> int:
        return len(self.a)


@dataclass
class DocumentSet:
    """Documents of consecutive sentences. ``order[d, j]`` is the original position of the j-th
    sentence of document d (the identity unless the documents were shuffled into incoherent ones).
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """

    lang: str
    documents: list[list[str]]
    order: np.ndarray
    forms: Forms

    def __len__(self) -> int:
        return len(self.documents)


@dataclass
class BilingualLexicon:
    """Gold word translations (MUSE style): ``train`` and ``test`` pairs share no source word and no
    concept.

    Book: chapter 5 (Word translation without parallel data).
    """

    src_lang: str
    tgt_lang: str
    train: list[tuple[str, str]]
    test: list[tuple[str, str]]
