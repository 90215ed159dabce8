"""Probing tasks (Conneau et al. 2018): what a frozen sentence embedding knows, and the baselines.

The probe is the thesis's MLP (one Sigmoid hidden layer; nhid, dropout and L2 tuned on dev) or
logistic regression (the thesis reports WC with it). :class:`ProbingTask` plugs a task into the
SentEval-style engine; :func:`probe_features` / :func:`probe_encoder` probe a whole suite from
one encoding pass (chapter 4). Baselines: the majority class, sentence length alone, naive Bayes
on unigram / bigram tf-idf, and a bag of vectors encoded through any batcher.
Book: chapter 4 (Probing).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

from xsent_lib.base.runtime import pick_device
from xsent_lib.data.formats.containers import ClassificationTask
from xsent_lib.data.probing_sets import SPLITS, suite_sentences
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.eval.classifier import ClassifierConfig
from xsent_lib.eval.protocols import one_hot, split_select

PROBES = ("mlp", "logreg")
PROBE_MODES = ("smoke", "fast", "full")  # classifier budgets, see probe_config
EXACT_MAX_CLASSES = 32  # "fast" logistic regression is solved exactly up to this many classes
# The thesis reports WC with logistic regression in every table (LR was better on 1000 classes).
LOGREG_ONLY: tuple[str, ...] = ("WC",)
# The thesis's baseline rows (Tables 3.10, 3.12) -> keys of probing_baselines.
BASELINE_ROWS: dict[str, str] = {"Majority vote": "majority", "Length": "length",
                                 "NB-uni-tfidf": "nb_uni_tfidf", "NB-bi-tfidf": "nb_bi_tfidf"}
Features = Mapping[str, Mapping[str, np.ndarray]]


def _check_splits(data: Any) -> dict:
    splits = getattr(data, "splits", None)
    if not isinstance(splits, dict) or not {"train", "dev", "test"} <= set(splits):
        raise ValueError("a probing task needs train, dev and test splits (the SentEval "
                         "files' tr/va/te).")
    return splits


def _n_classes(data: Any, splits: dict) -> int:
    names = getattr(data, "label_names", ())
    return len(names) if names else int(max(np.max(s.labels) for s in splits.values())) + 1


def _select(feats: dict, labels: dict, n_classes: int, cfg: ClassifierConfig) -> dict:
    res = split_select(feats["train"], one_hot(labels["train"], n_classes), feats["dev"],
                       one_hot(labels["dev"], n_classes), feats["test"], cfg)
    acc = 100 * float((res["test_probs"].argmax(-1) == labels["test"]).mean())
    return {"devacc": 100 * res["dev"], "acc": acc, "selected": res["selected"]}


class ProbingTask:
    """One probing task (SentLen, WC, TreeDepth, TopConst, BShift, Tense, SubjNum, ObjNum, SOMO,
    CoordInv).

    Book: chapter 4 (Probing).
    """

    def __init__(self, data: Any, name: str | None = None, classifier: str = "mlp") -> None:
        if classifier not in PROBES:
            raise ValueError(f"classifier must be one of {PROBES}, got {classifier!r}.")
        self.data, self.classifier = data, classifier
        self.splits = _check_splits(data)
        self.name = name or getattr(data, "name", "probing")

    def sentences(self) -> list[str]:
        """All sentences of the three splits.

        Book: chapter 4 (Probing).
        """
        return [s for split in self.splits.values() for s in split.sentences]

    def run(self, ev: Any) -> dict:
        """Encode, tune the probe on dev, report dev and test accuracy (percent).

        Book: chapter 4 (Probing).
        """
        labels = {k: np.asarray(self.splits[k].labels) for k in ("train", "dev", "test")}
        feats = {k: ev.encode(list(self.splits[k].sentences)) for k in labels}
        cfg = ev.classifier_config(probe=self.classifier == "mlp")
        res = _select(feats, labels, _n_classes(self.data, self.splits), cfg)
        return {**res, "probe": self.classifier, "ndev": len(labels["dev"]),
                "ntest": len(labels["test"])}


def probing_baselines(data: Any, bov: Any | None = None, mode: str = "fast",
                      seed: int = 1111) -> dict:
    """Accuracy (percent) of the probing baselines on one task.

    ``majority``: the most frequent training class; ``length``: logistic regression on the number of
    tokens; ``nb_uni_tfidf`` / ``nb_bi_tfidf``: multinomial naive Bayes on tf-idf of unigrams /
    uni+bigrams, smoothing chosen on dev from {0.1, 0.3, 1}; ``bov``: logistic regression on the
    embeddings of an :class:`~xsent_lib.eval.engine.Evaluation` (e.g. averaged word vectors), when
    ``bov`` is given.
    Book: chapter 4 (Probing).
    """
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.naive_bayes import MultinomialNB

    splits = _check_splits(data)
    keys = ("train", "dev", "test")
    sents = {k: list(splits[k].sentences) for k in keys}
    labels = {k: np.asarray(splits[k].labels) for k in keys}
    n_classes = _n_classes(data, splits)
    out = {}
    majority = np.bincount(labels["train"], minlength=n_classes).argmax()
    out["majority"] = 100 * float((labels["test"] == majority).mean())
    cfg = ClassifierConfig.full(seed=seed) if mode == "full" else ClassifierConfig.fast(seed=seed)
    lengths = {k: np.array([[len(s.split())] for s in sents[k]], np.float32) for k in keys}
    mu, sd = lengths["train"].mean(), lengths["train"].std() + 1e-6
    out["length"] = _select({k: (v - mu) / sd for k, v in lengths.items()}, labels, n_classes,
                            cfg)["acc"]
    for name, ngrams in (("nb_uni_tfidf", (1, 1)), ("nb_bi_tfidf", (1, 2))):
        vec = TfidfVectorizer(ngram_range=ngrams, token_pattern=r"\S+",
                              lowercase=False).fit(sents["train"])
        x = {k: vec.transform(sents[k]) for k in keys}
        best = max((MultinomialNB(alpha=a).fit(x["train"], labels["train"])
                    for a in (0.1, 0.3, 1.0)),
                   key=lambda m: (m.predict(x["dev"]) == labels["dev"]).mean())
        out[name] = 100 * float((best.predict(x["test"]) == labels["test"]).mean())
    if bov is not None:
        feats = {k: bov.encode(sents[k]) for k in keys}
        out["bov"] = _select(feats, labels, n_classes, cfg)["acc"]
    return out


def probe_config(probe: str, mode: str = "fast", seed: int = 1111,
                 device: str | torch.device = "auto", n_classes: int = 2) -> ClassifierConfig:
    """The classifier of a probe: the thesis's Sigmoid MLP (``"mlp"``) or logistic regression.

    ``mode="full"``: the MLP grid of the thesis (hidden 50/100/200, dropout 0/0.1/0.2, 4 L2
    values) and the exact L2-penalised logistic regression. ``mode="fast"``: the MLP with 50
    hidden units, dropout 0/0.1 and 2 L2 values, trained with minibatches of 256 at learning
    rate 0.01 (our budget setting: few steps per epoch on small probing sets); logistic
    regression solved exactly (L-BFGS) with 2 L2 values, except for tasks of more than
    :data:`EXACT_MAX_CLASSES` classes (WC), where the exact solution costs minutes and Adam
    with early stopping on dev (the thesis's solver) takes its place. Everything is tuned on
    dev, as in the thesis. ``mode="smoke"`` is ``"fast"`` stopped after 3 epochs: it only
    checks that the code runs (CI), its accuracies mean nothing.
    Book: chapter 4 (Probing: the probing classifier).
    """
    if probe not in PROBES:
        raise ValueError(f"probe must be one of {PROBES}, got {probe!r}.")
    if mode not in PROBE_MODES:
        raise ValueError(f"mode must be one of {PROBE_MODES}, got {mode!r}.")
    dev = str(pick_device(device))
    if mode == "full":
        if probe == "mlp":
            return ClassifierConfig.probe("full", seed=seed, device=dev)
        return ClassifierConfig.full(seed=seed, device=dev)
    budget = {"batch_size": 256, "min_steps_per_epoch": 10}
    if mode == "smoke":
        budget["max_epochs"] = 3
    if probe == "mlp":
        return ClassifierConfig.probe("fast", seed=seed, device=dev, lr=1e-2, **budget)
    if n_classes > EXACT_MAX_CLASSES:
        return ClassifierConfig.fast(seed=seed, device=dev, solver="adam", lr=3e-3, **budget)
    return ClassifierConfig.fast(seed=seed, device=dev)


def suite_features(encoder: SentenceEncoder, suite: Mapping[str, ClassificationTask],
                   batch_size: int = 256,
                   device: str | torch.device = "auto") -> dict[str, dict[str, np.ndarray]]:
    """Embed every split of every task with one ``encoder.encode`` call: ``{task: {split: X}}``.

    Book: chapter 4 (Probing).
    """
    sentences = suite_sentences(suite)
    if not sentences:
        raise ValueError("the probing suite holds no sentence.")
    emb = encoder.encode(sentences, batch_size=batch_size, device=device)
    out, start = {}, 0
    for name, task in suite.items():
        out[name] = {}
        for split, data in task.splits.items():
            out[name][split] = emb[start: start + len(data.sentences)]
            start += len(data.sentences)
    return out


def probe_features(features: Features, suite: Mapping[str, ClassificationTask],
                   probe: str = "mlp", mode: str = "fast", seed: int = 1111,
                   device: str | torch.device = "auto") -> dict[str, float]:
    """Test accuracy (percent) of a probe trained on frozen features, tuned on dev.

    Features are standardised with the training split's mean and standard deviation per
    dimension (our choice: the coordinates of small untrained encoders differ in scale
    by orders of magnitude, and the probes, trained with a fixed budget, underfit raw
    features badly; SentEval feeds them raw). With ``probe="mlp"`` the tasks of
    :data:`LOGREG_ONLY` (WC) are still probed by logistic regression, as in every table
    of the thesis.
    Book: chapter 4 (Probing: the probing classifier).
    """
    out = {}
    for name, task in suite.items():
        if name not in features:
            raise ValueError(f"no features for task {name!r}; build them with "
                             "suite_features(encoder, suite).")
        kind = "logreg" if probe == "mlp" and name in LOGREG_ONLY else probe
        n = len(task.label_names)
        config = probe_config(kind, mode, seed, device, n)
        y = {s: np.asarray(task.splits[s].labels) for s in SPLITS}
        mu = features[name]["train"].mean(0)
        sd = features[name]["train"].std(0) + 1e-6
        x = {s: (features[name][s] - mu) / sd for s in SPLITS}
        res = split_select(x["train"], one_hot(y["train"], n),
                           x["dev"], one_hot(y["dev"], n), x["test"], config)
        out[name] = 100.0 * float((res["test_probs"].argmax(-1) == y["test"]).mean())
    return out


def probe_encoder(encoder: SentenceEncoder, suite: Mapping[str, ClassificationTask],
                  probe: str = "mlp", mode: str = "fast", seed: int = 1111,
                  device: str | torch.device = "auto", batch_size: int = 256) -> dict[str, float]:
    """Embed the suite with ``encoder`` and probe every task (see :func:`probe_features`).

    Book: chapter 4 (Probing).
    """
    features = suite_features(encoder, suite, batch_size, device)
    return probe_features(features, suite, probe, mode, seed, device)


def probe_encoder_all(encoder: SentenceEncoder, suite: Mapping[str, ClassificationTask],
                      probes: Sequence[str] = ("logreg", "mlp"), mode: str = "fast",
                      seed: int = 1111,
                      device: str | torch.device = "auto",
                      batch_size: int = 256) -> dict[str, dict[str, float]]:
    """Embed the suite once and probe every task with each of ``probes``: ``{probe: {task:
    accuracy}}``.

    One job per encoder for :func:`~xsent_lib.base.parallel.parallel_map` (chapter 4 probes its
    twenty encoders side by side).
    Book: chapter 4 (Probing).
    """
    unknown = [p for p in probes if p not in PROBES]
    if unknown or not probes:
        raise ValueError(f"probes must be a non-empty selection of {PROBES}, got {list(probes)}.")
    features = suite_features(encoder, suite, batch_size, device)
    return {p: probe_features(features, suite, p, mode, seed, device) for p in probes}


def baseline_scores(suite: Mapping[str, ClassificationTask], mode: str = "fast",
                    seed: int = 1111) -> dict[str, dict[str, float]]:
    """The representation-free baselines of Tables 3.10 / 3.12 on each task, by row name.

    ``Majority vote``, ``Length`` (logistic regression on the token count), ``NB-uni-tfidf``
    and ``NB-bi-tfidf`` (multinomial naive Bayes on tf-idf), from :func:`probing_baselines`:
    ``{row: {task: accuracy}}`` with the rows of :data:`BASELINE_ROWS`.
    Book: chapter 4 (Probing: baselines).
    """
    per_task = {name: probing_baselines(task, None, mode, seed) for name, task in suite.items()}
    return {row: {name: res[key] for name, res in per_task.items()}
            for row, key in BASELINE_ROWS.items()}
