"""A suite of SentEval tasks: the tasks, how each is scored, and SentEval's own data read by its
task names.

A :class:`SuiteTask` holds a data container, the SentEval task it is (or stands in for, ``paper``)
and its kind; :meth:`SuiteTask.evaluator` gives the :mod:`xsent_lib.eval` task object that runs it
under SentEval's protocol for its splits. :func:`senteval_suite` reads SentEval's ``downstream/``
folders by SentEval's task names (``"SICKEntailment"``, ``"STS14"``, ...); :func:`senteval_tasks`
gives the task objects directly (and the ten probing tasks of chapter 4). The offline stand-ins are
built by :mod:`xsent_lib.eval.offline_suite`.
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from xsent_lib.data.formats import load_task
from xsent_lib.data.formats.containers import (
    ClassificationTask,
    LabelledSentences,
    PairTask,
    SentencePairs,
)
from xsent_lib.data.formats.probing import PROBING_TASKS, load_probing
from xsent_lib.eval.probing import ProbingTask
from xsent_lib.eval.sts import STSTask
from xsent_lib.eval.transfer import PairClassificationTask, RelatednessTask, TransferTask

KINDS = ("classification", "regression", "pairs", "relatedness", "sts")
SINGLE_KINDS = ("classification", "regression")  # Table 3.1's side; the rest is Table 3.2's
MLP_KINDS = ("classification", "pairs")  # Table 3.3 reports an MLP only for classifiers
PROTOCOLS = ("senteval", "split")

# SentEval's task name: (paper name, kind, what, score range)
SENTEVAL: dict[str, tuple[str, str, str, tuple[int, int] | None]] = {
    "MR": ("MR", "classification", "sentiment (movies)", None),
    "CR": ("CR", "classification", "product reviews", None),
    "SUBJ": ("SUBJ", "classification", "subjectivity/objectivity", None),
    "MPQA": ("MPQA", "classification", "opinion polarity", None),
    "TREC": ("TREC", "classification", "question-type", None),
    "SST2": ("SST-2", "classification", "sentiment (movies)", None),
    "SST5": ("SST-5", "classification", "sentiment (movies)", None),
    "MRPC": ("MRPC", "pairs", "paraphrase detection", None),
    "SICKEntailment": ("SICK-E", "pairs", "NLI", None),
    "SICKRelatedness": ("SICK-R", "relatedness", "semantic relatedness", (1, 5)),
    "STSBenchmark": ("STS-B", "relatedness", "semantic textual similarity", (0, 5)),
    **{f"STS1{y}": (f"STS'1{y}", "sts", "semantic textual similarity", (0, 5))
       for y in range(2, 7)},
}
SENTEVAL_TASKS: tuple[str, ...] = tuple(SENTEVAL)
PROBING_NAMES: tuple[str, ...] = tuple(PROBING_TASKS)

# Every task name SentEval's engine takes (``senteval.engine.SE.list_tasks``), in its order.
SENTEVAL_ENGINE_TASKS: tuple[str, ...] = (
    "CR", "MR", "MPQA", "SUBJ", "SST2", "SST5", "TREC", "MRPC", "SICKRelatedness", "SICKEntailment",
    "STSBenchmark", "SNLI", "ImageCaptionRetrieval", "STS12", "STS13", "STS14", "STS15", "STS16",
    "Length", "WordContent", "Depth", "TopConstituents", "BigramShift", "Tense", "SubjNumber",
    "ObjNumber", "OddManOut", "CoordinationInversion")
# SentEval's probing names -> the paper's (Conneau et al. 2018).
SENTEVAL_PROBING: dict[str, str] = {senteval: paper for paper,
                                    (senteval, _file) in PROBING_TASKS.items()}
# The pair features SentEval's code builds per task: [|u-v|, u*v] ("senteval") for MRPC, SICK-E,
# SICK-R and STS-B; [u, v, u*v, |u-v|] for SNLI (our "full", the same features in another column
# order).
SENTEVAL_PAIR_FEATURES: dict[str, str] = {"MRPC": "senteval", "SICKEntailment": "senteval",
                                          "SICKRelatedness": "senteval", "STSBenchmark": "senteval",
                                          "SNLI": "full"}
# What SentEval's task code changes in params['classifier'] for one task.
SENTEVAL_CLASSIFIER_OVERRIDES: dict[
    str, dict] = {"SNLI": {"max_epoch": 15, "epoch_size": 1, "noreg": True},
                                                  "WordContent": {"nhid": 0}}
NOT_SUPPORTED: dict[str, str] = {
    "ImageCaptionRetrieval": "SentEval's COCO caption retrieval reads ResNet-152 image features "
                             "(downstream/COCO/*.pkl) that the book does not use; caption ranking "
                             "in xsent_lib is xsent_lib.eval.RankingTask (chapter 2 runs it on the "
                             "synthetic world's scenes)."}


@dataclass
class SuiteTask:
    """One task of the suite: its data container, the SentEval task it stands in for, and how it is
    scored.

    ``kind`` is one of :data:`KINDS`; ``paper`` the SentEval name (Table 3.1/3.2 row, Table 3.3/3.4
    column), or None when SentEval has no such task; ``source`` names the data; ``score_range``
    bounds graded labels.
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
            raise TypeError(f"task {self.name!r}: data must be a ClassificationTask or PairTask "
                            "with splits.")
        if self.kind in ("regression", "relatedness") and self.score_range is None:
            raise ValueError(f"task {self.name!r} of kind {self.kind!r} needs "
                             "score_range=(low, high).")

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
        """The :mod:`xsent_lib.eval` task object that runs this task under SentEval's protocol for
        its splits.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        if self.kind == "classification":
            return TransferTask(self.data, name=self.name)
        if self.kind in ("regression", "relatedness"):
            return RelatednessTask(self.data, name=self.name, features=self.features,
                                   score_range=self.score_range)
        if self.kind == "pairs":
            return PairClassificationTask(self.data, name=self.name, features=self.features)
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
        """The tasks of the given kinds.
        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        return [t for t in self.tasks if t.kind in kinds]


@dataclass(frozen=True)
class SuiteSizes:
    """How big the offline suite is: items per single-sentence task (None: all), and synthetic pair
    sizes.

    ``nli`` and ``sts`` are (train, dev, test) pairs; the STS pools feed paraphrase, relatedness and
    STS alike.
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
                raise ValueError(f"{name} must be (train, dev, test) sizes of at least 10 each, "
                                 f"got {sizes}.")

    def capped(self, max_items: int) -> SuiteSizes:
        """At most ``max_items`` items per task, each task's splits kept in proportion (at least 10
        each).

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
    """A seeded permutation whose every prefix is as class-balanced as the whole (classes
    interleaved).

    Taking its first ``n`` rows is a stratified subsample, and a smaller ``n`` gives a subset of a
    larger one.
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
    """Index arrays of a seeded split into ``len(fractions)`` parts, each class divided by
    ``fractions``.

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


def senteval_task(name: str, data_dir: str | Path) -> SuiteTask:
    """SentEval's task ``name`` (one of :data:`SENTEVAL_TASKS`) read from ``data_dir`` (its
    ``downstream/`` layout).

    Missing files raise the loaders' FileNotFoundError, which says where the data comes from.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if name not in SENTEVAL:
        raise ValueError(f"unknown SentEval task {name!r}; choose from {list(SENTEVAL)}.")
    paper, kind, what, score_range = SENTEVAL[name]
    return SuiteTask(name, paper, kind, what, f"SentEval {name}", load_task(name, data_dir),
                     score_range=score_range)


def senteval_suite(data_dir: str | Path, names: Sequence[str] | None = None) -> Suite:
    """SentEval's own tasks from ``data_dir`` (its ``downstream/`` layout); each missing task leaves
    a note.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    chosen = list(SENTEVAL if names is None else names)
    unknown = [n for n in chosen if n not in SENTEVAL]
    if unknown:
        raise ValueError(f"unknown SentEval tasks {unknown}; choose from {list(SENTEVAL)}.")
    tasks, notes = [], []
    for name in chosen:
        try:
            tasks.append(senteval_task(name, data_dir))
        except FileNotFoundError as err:
            notes.append(f"{name} not found in {data_dir}: {err}")
    return Suite(tasks, notes)


def senteval_tasks(data_dir: str | Path, names: Sequence[str] | None = None) -> list:
    """Task objects for ``names`` (default: every transfer and STS task of :data:`SENTEVAL_TASKS`).

    Probing tasks are asked for by their paper names (``"Tense"``, ``"SentLen"``, ...; see
    :data:`PROBING_NAMES`) and use the MLP probe. Missing files raise the loaders'
    FileNotFoundError.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    chosen = list(SENTEVAL_TASKS if names is None else names)
    unknown = [n for n in chosen if n not in SENTEVAL and n not in PROBING_TASKS]
    if unknown:
        raise ValueError(f"unknown tasks {unknown}; choose from {SENTEVAL_TASKS} or probing "
                         f"{PROBING_NAMES}.")
    return [senteval_task(n, data_dir).evaluator() if n in SENTEVAL
            else ProbingTask(load_probing(data_dir, n), name=n) for n in chosen]


def senteval_engine_task(name: str, task_path: str | Path, features: str | None = None) -> Any:
    """The task object for one of SentEval's engine task names (:data:`SENTEVAL_ENGINE_TASKS`), read
    from ``task_path``.

    ``task_path`` is SentEval's ``params['task_path']``: the folder holding ``downstream/`` and
    ``probing/``. Pair tasks use SentEval's pair features for that task
    (:data:`SENTEVAL_PAIR_FEATURES`) unless ``features`` says otherwise (``"full"``: ``[u, v, |u-v|,
    u*v]``, ours for NLI training). The task carries SentEval's own per-task classifier changes
    (:data:`SENTEVAL_CLASSIFIER_OVERRIDES`) as ``senteval_overrides``.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    from xsent_lib.data.formats.nli import load_senteval_snli

    if not isinstance(name, str) or name not in SENTEVAL_ENGINE_TASKS:
        raise ValueError(f"unknown SentEval task {name!r}; SentEval's engine takes "
                         f"{list(SENTEVAL_ENGINE_TASKS)} (or pass an xsent_lib task object).")
    if name in NOT_SUPPORTED:
        raise ValueError(f"task {name!r} is not supported: {NOT_SUPPORTED[name]}")
    if task_path is None or not Path(task_path).is_dir():
        raise FileNotFoundError("params['task_path'] must be SentEval's data folder (with "
                                f"downstream/ and probing/) to evaluate {name!r} by name; got "
                                f"{task_path!r}.")
    if name in SENTEVAL_PROBING:
        task: Any = ProbingTask(load_probing(task_path, name), name=name)
        task.protocol = "split"
    elif name == "SNLI":
        task = PairClassificationTask(load_senteval_snli(task_path), name=name,
                                      features=features or "full")
    else:
        base = senteval_task(name, task_path)
        if name in SENTEVAL_PAIR_FEATURES:
            base = replace(base, features=features or SENTEVAL_PAIR_FEATURES[name])
        task = base.evaluator()
    task.senteval_overrides = dict(SENTEVAL_CLASSIFIER_OVERRIDES.get(name, {}))
    return task


def _labelled(sentences: Sequence[str], labels: np.ndarray, idx: np.ndarray) -> LabelledSentences:
    return LabelledSentences([sentences[i] for i in idx.tolist()], np.asarray(labels)[idx])


def _take(split: LabelledSentences | SentencePairs, idx: np.ndarray):
    if isinstance(split, LabelledSentences):
        return _labelled(split.sentences, split.labels, idx)
    return SentencePairs([split.first[i] for i in idx.tolist()],
                         [split.second[i] for i in idx.tolist()], np.asarray(split.labels)[idx])


def subsample_suite(suite: Suite, max_items: int, seed: int = 0) -> Suite:
    """Every task cut to at most ``max_items`` items, each split shrunk by the same fraction
    (stratified by class).

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
            order = stratified_order(labels, seed) if t.n_classes \
                else np.random.default_rng(seed).permutation(n)
            splits[k] = _take(split, np.sort(order[:keep]))
        tasks.append(replace(t, data=replace(t.data, splits=splits)))
    return Suite(tasks, [*suite.notes, f"reference sub-suite: at most {max_items} items per task"])


def as_cross_validation(task: SuiteTask) -> SuiteTask:
    """The same single-sentence task with its splits merged into one ``all`` split: SentEval's
    nested-CV protocol.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if task.kind != "classification":
        raise ValueError("only classification tasks are cross-validated in SentEval; "
                         f"{task.name!r} is {task.kind!r}.")
    parts = list(task.data.splits.values())
    merged = LabelledSentences([s for p in parts for s in p.sentences],
                               np.concatenate([p.labels for p in parts]))
    return replace(task, data=replace(task.data, splits={"all": merged}))
