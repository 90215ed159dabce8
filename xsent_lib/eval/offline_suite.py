"""The offline suite: tasks standing in for SentEval's, built from registry corpora and the
synthetic world.

SentEval's data cannot be downloaded here, so each task stands in for one SentEval task (its
``paper`` name): single sentences from the cached sentiment corpora (MR, CR, SUBJ, MPQA, SST-2/5 and
a rating regression), or, when those are not cached, synthetic single-sentence tasks with exact
labels; NLI, paraphrase, relatedness and STS pairs from the synthetic world.
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from xsent_lib.data.corpora import load_labelled, load_ratings
from xsent_lib.data.formats.containers import (
    ClassificationTask,
    LabelledSentences,
    PairTask,
    SentencePairs,
)
from xsent_lib.data.synthetic import NLI_LABELS, SyntheticWorld
from xsent_lib.data.synthetic.forms import FormSampler
from xsent_lib.data.synthetic.sts import STS_CONFIG
from xsent_lib.eval.suite import (
    PROTOCOLS,
    Suite,
    SuiteSizes,
    SuiteTask,
    _labelled,
    stratified_order,
    stratified_split,
)

# train/dev/test for MR/CR/SUBJ/MPQA stand-ins under the "split" protocol
CV_FRACTIONS = (0.6, 0.2, 0.2)
SST_FRACTIONS = (0.7, 0.1, 0.2)  # about SST's own 8544/1101/2210
SST_CUTS = (0.2, 0.4, 0.6, 0.8)  # SST's five classes on a [0, 1] sentiment value
VADER_RANGE = (-4, 4)
PARAPHRASE_MIN_SCORE = 4.5
STS_LENGTH_BINS = ((0, 6, "short (<= 6 tokens)"), (7, 9, "medium (7-9)"),
                   (10, 10**6, "long (>= 10)"))


def sst_classes(ratings: np.ndarray, low: float = VADER_RANGE[0],
                high: float = VADER_RANGE[1]) -> np.ndarray:
    """Five SST classes from ratings in ``[low, high]``: rescaled to [0, 1] and cut at
    0.2, 0.4, 0.6, 0.8, as SST was.

    Classes are 0 very negative .. 4 very positive; SST-2 keeps 0-1 (negative) and 3-4
    (positive).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    r = np.asarray(ratings, dtype=np.float64)
    if r.ndim != 1 or (r < low).any() or (r > high).any():
        raise ValueError(f"ratings must be a 1-D array inside [{low}, {high}].")
    scaled = (r - low) / (high - low)
    return np.searchsorted(np.asarray(SST_CUTS), scaled, side="left").astype(np.int64)


def _single_task(name: str, sentences: Sequence[str], labels: np.ndarray,
                 label_names: tuple[str, ...], protocol: str, seed: int) -> ClassificationTask:
    """One ``all`` split for nested CV (``senteval``), else a stratified 60/20/20 train/dev/test
    split."""
    if protocol == "senteval":
        return ClassificationTask(
            name, {"all": LabelledSentences(list(sentences), np.asarray(labels))}, label_names)
    parts = stratified_split(labels, CV_FRACTIONS, seed)
    return ClassificationTask(name, {k: _labelled(sentences, labels, p) for k,
                                     p in zip(("train", "dev", "test"), parts)},
                              label_names)


def _check_protocol(protocol: str) -> None:
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {PROTOCOLS}: 'senteval' keeps nested "
                         "10-fold CV for MR/CR/SUBJ/MPQA, 'split' uses one stratified "
                         f"train/dev/test split; got {protocol!r}.")


_REAL = {  # name: (paper, datasets, what it is, label names)
    "RT-MR": ("MR", ("rt-mr",), "sentiment (movie critic snippets)", ("negative", "positive")),
    "UCI": ("CR", ("uci-amazon", "uci-yelp", "uci-imdb"),
            "sentiment (product, restaurant, movie reviews)", ("negative", "positive")),
    "RT-SUBJ": ("SUBJ", ("rt-subj",), "subjectivity (critic snippet vs plot sentence)",
                ("objective", "subjective")),
    "VADER-NYT": ("MPQA", ("vader-nyt",), "opinion polarity (NYT editorial snippets)",
                  ("negative", "positive")),
}


def real_single_tasks(max_items: int | None = 3000, protocol: str = "split", seed: int = 0,
                      cache_dir: str | Path | None = None) -> Suite:
    """The single-sentence tasks from the cached sentiment corpora; a missing corpus leaves a note,
    not an error.

    MR/CR/SUBJ/MPQA stand-ins are stratified subsamples of ``max_items`` sentences, kept whole for
    nested CV (``protocol='senteval'``) or split 60/20/20 (``'split'``). VADER's movie snippets give
    SST-2/SST-5 the way SST was built (:func:`sst_classes`) and the ``VADER-R`` regression on the
    rating, one 70/10/20 split for all three.
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
        data = _single_task(name, [sentences[i] for i in keep.tolist()], labels[keep], label_names,
                            protocol, seed)
        tasks.append(SuiteTask(name, paper, "classification", what, "+".join(datasets), data))
    try:
        texts, ratings = load_ratings("vader-movies", cache_dir)
    except FileNotFoundError as err:
        notes.append("VADER-SST2, VADER-SST5 and VADER-R (SST-2, SST-5 stand-ins, regression) "
                     f"skipped: {err}")
        return Suite(tasks, notes)
    keep = np.random.default_rng(seed).permutation(len(texts))[:max_items]
    texts, ratings = [texts[i] for i in keep.tolist()], ratings[keep]
    five = sst_classes(ratings)
    split = dict(zip(("train", "dev", "test"), stratified_split(five, SST_FRACTIONS, seed)))
    sst5 = ClassificationTask("VADER-SST5",
                              {k: _labelled(texts, five, v) for k, v in split.items()},
                              ("very negative", "negative", "neutral", "positive", "very positive"))
    polar = {k: v[five[v] != 2] for k, v in split.items()}
    sst2 = ClassificationTask("VADER-SST2", {k: _labelled(texts, (five >= 3).astype(np.int64), v)
                                             for k, v in polar.items()},
                              ("negative", "positive"))
    reg = ClassificationTask("VADER-R", {k: _labelled(texts, ratings, v) for k, v in split.items()},
                             ())
    tasks += [SuiteTask("VADER-SST2", "SST-2", "classification",
                        "sentiment, neutral band dropped (movie snippets)", "vader-movies", sst2),
              SuiteTask("VADER-SST5", "SST-5", "classification",
                        "fine-grained sentiment (movie snippets)", "vader-movies", sst5),
              SuiteTask("VADER-R", None, "regression", "mean human rating (movie snippets)",
                        "vader-movies", reg, score_range=VADER_RANGE)]
    return Suite(tasks, notes)


def synthetic_single_tasks(world: SyntheticWorld, n: int, protocol: str = "split",
                           seed: int = 0) -> Suite:
    """Two single-sentence tasks with exact labels from one-clause synthetic sentences, balanced by
    construction.

    ``Syn-Polarity`` (MR stand-in): is the clause negated; ``Syn-Number`` (SUBJ stand-in): is its
    subject plural. Both are lexically decidable (``not``; the noun's plural form), so word-vector
    bags solve them and content-free vectors stay at chance: the smoke profile's sanity check of the
    whole pipeline.
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
            raise RuntimeError(f"{name}: too few sentences of one class in {6 * n} forms; this "
                               "world is unusual.")
        keep = np.sort(np.concatenate([np.flatnonzero(labels == c)[: n // 2] for c in (0, 1)]))
        sentences = world.render(forms.take(keep), "en")
        data = _single_task(name, sentences, labels[keep], label_names, protocol, seed)
        tasks.append(SuiteTask(name, paper, "classification", what, "synthetic world", data))
    return Suite(tasks)


def synthetic_pair_tasks(world: SyntheticWorld, sizes: SuiteSizes = SuiteSizes(),
                         protocol: str = "split") -> Suite:
    """NLI, paraphrase, relatedness and STS pairs from the synthetic world (SICK-E, MRPC, SICK-R,
    STS'14).

    The three similarity tasks share one pool of graded pairs per split: relatedness trains a head
    on train/dev and scores test; paraphrase labels a pair 1 when its exact score is at least
    :data:`PARAPHRASE_MIN_SCORE` (a negated copy always scores below it) and, as MRPC,
    cross-validates on train then tests (``protocol='senteval'``) or selects on dev (``'split'``, k
    times cheaper); STS scores the test pool by cosine alone, in subsets by the first sentence's
    length (:data:`STS_LENGTH_BINS`). Pair features are SentEval's ``[|u-v|, u*v]`` (its code's
    choice for SICK and MRPC).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    _check_protocol(protocol)
    splits = ("train", "dev", "test")
    nli = {s: world.nli(n, s, "en") for s, n in zip(splits, sizes.nli)}
    sick_e = PairTask("Syn-NLI",
                      {s: SentencePairs(d.premise, d.hypothesis, d.label) for s, d in nli.items()},
                      NLI_LABELS)
    pool = {s: world.sts(n, "en", split=s) for s, n in zip(splits, sizes.sts)}
    pairs = {s: SentencePairs(d.a, d.b, d.score) for s, d in pool.items()}
    para = {s: SentencePairs(pairs[s].first, pairs[s].second,
                             (pairs[s].labels >= PARAPHRASE_MIN_SCORE).astype(np.int64))
            for s in (("train", "test") if protocol == "senteval" else splits)}
    length = np.fromiter((len(a.split()) for a in pairs["test"].first), np.int64,
                         len(pairs["test"]))
    subsets = {}
    for lo, hi, label in STS_LENGTH_BINS:
        idx = np.flatnonzero((length >= lo) & (length <= hi))
        if idx.size >= 2:
            p = pairs["test"]
            subsets[label] = SentencePairs([p.first[i] for i in idx], [p.second[i] for i in idx],
                                           p.labels[idx])
    return Suite([
        SuiteTask("Syn-NLI", "SICK-E", "pairs", "NLI (entailment, neutral, contradiction)",
                  "synthetic world", sick_e),
        SuiteTask("Syn-Paraphrase", "MRPC", "pairs",
                  f"paraphrase detection (score >= {PARAPHRASE_MIN_SCORE})",
                  "synthetic world",
                  PairTask("Syn-Paraphrase", para, ("not paraphrase", "paraphrase"))),
        SuiteTask("Syn-Relatedness", "SICK-R", "relatedness", "graded similarity, trained head",
                  "synthetic world", PairTask("Syn-Relatedness", pairs), score_range=(0, 5)),
        SuiteTask("Syn-STS", "STS'14", "sts", "graded similarity, cosine only", "synthetic world",
                  PairTask("Syn-STS", subsets), score_range=(0, 5)),
    ])


def offline_suite(world: SyntheticWorld, sizes: SuiteSizes = SuiteSizes(), real: bool = True,
                  protocol: str = "split", seed: int = 0,
                  cache_dir: str | Path | None = None) -> Suite:
    """The chapter's suite: real single-sentence tasks when ``real`` and cached, else synthetic
    ones; synthetic pairs.

    If ``real`` and no sentiment corpus is cached at all, the synthetic single-sentence tasks stand
    in and a note says so. ``sizes.single=None`` keeps every sentence.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    _check_protocol(protocol)
    single = Suite([], [])
    if real:
        single = real_single_tasks(sizes.single, protocol, seed, cache_dir)
    if not single.tasks:
        if real:
            single.notes.append("no sentiment corpus is cached (run `xsent-data fetch rt-mr "
                                "rt-subj uci-imdb uci-amazon uci-yelp vader-nyt vader-movies`): "
                                "synthetic single-sentence tasks stand in.")
        single = Suite(synthetic_single_tasks(world, sizes.single or 3000, protocol, seed).tasks,
                       single.notes)
    pairs = synthetic_pair_tasks(world, sizes, protocol)
    return Suite(single.tasks + pairs.tasks, single.notes)


def with_protocol(suite: Suite, protocol: str, seed: int = 0) -> Suite:
    """``suite`` under the profile's ``protocol``: with ``'split'``, every single-split (nested-CV)
    classification task, such as SentEval's MR/CR/SUBJ/MPQA read from ``data_dir``, gets the
    stratified 60/20/20 train/dev/test split of the offline stand-ins; ``'senteval'`` returns the
    suite unchanged.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    _check_protocol(protocol)
    if protocol == "senteval":
        return suite
    tasks = []
    for t in suite.tasks:
        if t.kind == "classification" and list(t.data.splits) == ["all"]:
            part = t.data.splits["all"]
            data = _single_task(t.data.name, part.sentences, np.asarray(part.labels),
                                t.data.label_names, protocol, seed)
            t = replace(t, data=data)
        tasks.append(t)
    return Suite(tasks, list(suite.notes))
