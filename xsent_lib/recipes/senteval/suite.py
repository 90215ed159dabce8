"""The offline SentEval-style suite: tasks standing in for SentEval's, built from registry corpora and the synthetic world.

Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import pearsonr, spearmanr

from xsent_lib.data.corpora import load_labelled, load_ratings
from xsent_lib.data.formats import load_task
from xsent_lib.data.formats.containers import ClassificationTask, LabelledSentences, PairTask, SentencePairs
from xsent_lib.data.synthetic import NLI_LABELS, SyntheticWorld
from xsent_lib.data.synthetic.forms import FormSampler
from xsent_lib.data.synthetic.sts import STS_CONFIG
from xsent_lib.eval import Evaluation, PairClassificationTask, RelatednessTask, STSTask, TransferTask
from xsent_lib.eval.classifier import pearson_metric
from xsent_lib.eval.protocols import split_select
from xsent_lib.eval.transfer import relatedness_targets
from xsent_lib.results.paper import paper_table


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
