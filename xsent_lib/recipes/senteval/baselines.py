"""The baselines of Tables 3.3-3.4 (random, bags of vectors, SIF, USE / mE5) and how the chapter
runs them.

The encoders live in :mod:`xsent_lib.encoders.baselines`; this module names them as the tables do
and runs SentEval's engine (:class:`xsent_lib.eval.Evaluation`) with each one on the suite.
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from xsent_lib.data.formats.vectors import WordVectors
from xsent_lib.encoders.baselines import (
    REFERENCE_ENCODERS,
    CachedEncoder,
    RandomSentenceEncoder,
    bag_encoder,
    random_bag_encoder,
    reference_encoder,
    sif_prepare,
    word_counts,
)
from xsent_lib.eval import Evaluation, batcher_from_encoder
from xsent_lib.eval.classifier import ClassifierConfig
from xsent_lib.eval.sts import cosine_rows
from xsent_lib.eval.suite import MLP_KINDS, Suite, SuiteTask
from xsent_lib.text import LetterTokenizer, PTBWordTokenizer


@dataclass
class Baseline:
    """One row of the tables: a name, the paper's row it corresponds to, and how SentEval calls it.

    ``paper_row`` is the thesis's model prefix (``"GloVe"``, ``"fastText"``) or None; ``prepare`` is
    the SentEval hook run on each task's sentences first (SIF fits its common component there).
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


def bag_baselines(suite_sentences: Sequence[str], own: WordVectors, counts_text: Sequence[str],
                  glove: WordVectors | None = None, dim: int = 50, seed: int = 0,
                  glove_words: int = 100_000,
                  fasttext: WordVectors | None = None) -> list[Baseline]:
    """The cheap baselines: random sentence vectors, random word vectors, our own skip-gram bag,
    and, given GloVe, the GloVe bag and SIF on GloVe (word counts from ``counts_text``); without
    GloVe, SIF uses our own vectors. Given ``fasttext`` (real fastText vectors from ``data_dir``),
    its bag takes the paper's fastText row, which our skip-gram bag holds otherwise.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    ptb, letters = PTBWordTokenizer(), LetterTokenizer()
    out = [Baseline("Random sentence vectors", "random", dim, RandomSentenceEncoder(dim, seed)),
           Baseline("Random word vectors BoW", "random", dim,
                    random_bag_encoder(suite_sentences, ptb, dim, seed))]
    own_bag = bag_encoder(own, letters)
    out.append(Baseline("Own skip-gram BoW", "bag", own_bag.output_dim, own_bag,
                        paper_row=None if fasttext is not None else "fastText"))
    if fasttext is not None:
        ft_bag = bag_encoder(fasttext, ptb, max_words=glove_words)
        out.append(Baseline("fastText BoW", "bag", ft_bag.output_dim, ft_bag, paper_row="fastText"))
    if glove is not None:
        glove_bag = bag_encoder(glove, ptb, max_words=glove_words)
        out.append(Baseline("GloVe BoW", "bag", glove_bag.output_dim, glove_bag, paper_row="GloVe"))
        sif = bag_encoder(glove, ptb, "sif", max_words=glove_words,
                          counts=word_counts(counts_text, ptb))
        out.append(Baseline("SIF (GloVe)", "bag", sif.output_dim, sif, prepare=sif_prepare(sif)))
    else:
        sif = bag_encoder(own, letters, "sif", counts=word_counts(counts_text, letters))
        out.append(
            Baseline("SIF (own vectors)", "bag", sif.output_dim, sif, prepare=sif_prepare(sif)))
    return out


def reference_baselines(names: Sequence[str], threads: int | None = None,
                        cache_dir: str | Path | None = None) -> list[Baseline]:
    """USE and/or mE5-small as baselines (each a :class:`CachedEncoder`).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    return [Baseline(n, "reference", REFERENCE_ENCODERS[n][1],
                     reference_encoder(n, threads, cache_dir)) for n in names]


# ---------------------------------------------------------------------------------------------
# running
def classifier_configs(mode: str = "fast", seed: int = 1111,
                       device: str = "cpu") -> dict[str, ClassifierConfig]:
    """``LogReg`` (SentEval's standard, exact L2-path solver) and ``MLP`` (one Sigmoid layer,
    nhid/dropout/L2 tuned).

    ``mode='full'`` is the thesis's setting (10 folds, 4 L2 values; MLP nhid {50,100,200}, dropout
    {0,.1,.2}); ``'fast'`` SentEval's prototyping budget. The paper tunes the MLP's dropout and size
    "in addition to L2".
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if mode not in ("fast", "full"):
        raise ValueError(f"mode must be 'fast' or 'full', got {mode!r}.")
    make = ClassifierConfig.full if mode == "full" else ClassifierConfig.fast
    return {"LogReg": make(seed=seed, device=device),
            "MLP": ClassifierConfig.probe(mode, seed=seed, device=device)}


def evaluate_baseline(baseline: Baseline, tasks: Sequence[SuiteTask], config: ClassifierConfig,
                      seed: int = 1111) -> dict[str, dict]:
    """Run SentEval's engine with this baseline's batcher (and prepare) on ``tasks``; ``{task:
    result}``.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if not tasks:
        raise ValueError("no task to evaluate.")
    params = {"seed": seed, "batch_size": 1024, "classifier": config, "device": config.device,
              "tokenized": True}
    return Evaluation(params, baseline.batcher,
                      baseline.prepare).eval([t.evaluator() for t in tasks])


def run_baselines(baselines: Sequence[Baseline], suite: Suite,
                  configs: Mapping[str, ClassifierConfig],
                  mlp_for: Sequence[str] = (), seed: int = 1111) -> dict[str, dict[str, dict]]:
    """``{baseline: {"LogReg": {task: result}, "MLP": {...}}}``: LogReg on every task, the MLP on
    the classifier tasks of the baselines named in ``mlp_for`` (no ``"MLP"`` when the suite has
    none); each baseline also gets ``seconds`` (wall time of its runs).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    out = {}
    for b in baselines:
        t0 = time.perf_counter()
        res = {"LogReg": evaluate_baseline(b, suite.tasks, configs["LogReg"], seed)}
        if b.name in mlp_for and suite.select(MLP_KINDS):
            res["MLP"] = evaluate_baseline(b, suite.select(MLP_KINDS), configs["MLP"], seed)
        res["seconds"] = round(time.perf_counter() - t0, 2)
        out[b.name] = res
    return out


def encoding_speed(baseline: Baseline, sentences: Sequence[str]) -> float:
    """Sentences per second of the baseline's encoder: a :class:`CachedEncoder`'s own record, else a
    timed encode.

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
    """Cosine and gold score of every pair of an STS task, per subset (what :class:`STSTask`
    correlates).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if task.kind != "sts":
        raise ValueError(f"task {task.name!r} is of kind {task.kind!r}, not 'sts'.")
    if baseline.prepare is not None:
        baseline.prepare(None, task.sentences())
    enc = baseline.encoder.encode
    return {k: {"cosine": cosine_rows(enc(list(p.first)), enc(list(p.second))),
                "gold": np.asarray(p.labels, float)}
            for k, p in task.data.splits.items()}
