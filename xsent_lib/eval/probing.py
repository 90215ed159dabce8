"""Probing tasks (Conneau et al. 2018): what a frozen sentence embedding knows, and the baselines.

The probe is the thesis's MLP (one Sigmoid hidden layer; nhid, dropout and L2 tuned on dev) or
logistic regression (``classifier="logreg"``; the thesis reports WC with it). Baselines: the majority
class, sentence length alone, naive Bayes on unigram / bigram tf-idf, and a bag of vectors encoded
through any batcher.
Book: chapter 4 (Probing).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from xsent_lib.eval.classifier import ClassifierConfig
from xsent_lib.eval.protocols import one_hot, split_select

PROBES = ("mlp", "logreg")


def _check_splits(data: Any) -> dict:
    splits = getattr(data, "splits", None)
    if not isinstance(splits, dict) or not {"train", "dev", "test"} <= set(splits):
        raise ValueError("a probing task needs train, dev and test splits (the SentEval files' tr/va/te).")
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
    """One probing task (SentLen, WC, TreeDepth, TopConst, BShift, Tense, SubjNum, ObjNum, SOMO, CoordInv).

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

    def run(self, ev) -> dict:
        """Encode, tune the probe on dev, report dev and test accuracy (percent).

        Book: chapter 4 (Probing).
        """
        labels = {k: np.asarray(self.splits[k].labels) for k in ("train", "dev", "test")}
        feats = {k: ev.encode(list(self.splits[k].sentences)) for k in labels}
        cfg = ev.classifier_config(probe=self.classifier == "mlp")
        res = _select(feats, labels, _n_classes(self.data, self.splits), cfg)
        return {**res, "probe": self.classifier, "ndev": len(labels["dev"]), "ntest": len(labels["test"])}


def probing_baselines(data: Any, bov: Any | None = None, mode: str = "fast", seed: int = 1111) -> dict:
    """Accuracy (percent) of the probing baselines on one task.

    ``majority``: the most frequent training class; ``length``: logistic regression on the number of
    tokens; ``nb_uni_tfidf`` / ``nb_bi_tfidf``: multinomial naive Bayes on tf-idf of unigrams / uni+bigrams,
    smoothing chosen on dev from {0.1, 0.3, 1}; ``bov``: logistic regression on the embeddings of an
    :class:`~xsent_lib.eval.engine.Evaluation` (e.g. averaged word vectors), when ``bov`` is given.
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
    out["length"] = _select({k: (v - mu) / sd for k, v in lengths.items()}, labels, n_classes, cfg)["acc"]
    for name, ngrams in (("nb_uni_tfidf", (1, 1)), ("nb_bi_tfidf", (1, 2))):
        vec = TfidfVectorizer(ngram_range=ngrams, token_pattern=r"\S+", lowercase=False).fit(sents["train"])
        x = {k: vec.transform(sents[k]) for k in keys}
        best = max((MultinomialNB(alpha=a).fit(x["train"], labels["train"]) for a in (0.1, 0.3, 1.0)),
                   key=lambda m: (m.predict(x["dev"]) == labels["dev"]).mean())
        out[name] = 100 * float((best.predict(x["test"]) == labels["test"]).mean())
    if bov is not None:
        feats = {k: bov.encode(sents[k]) for k in keys}
        out["bov"] = _select(feats, labels, n_classes, cfg)["acc"]
    return out
