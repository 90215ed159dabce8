"""The InferSent recipe (thesis section 3.2): the chapter's plan per profile, the size sweep, its
tables and claims.

The method lives in the library: NLI data in :mod:`xsent_lib.data.nli_corpus`, word vectors in
:mod:`xsent_lib.data.word_setup`, the seven encoders and their NLI training in
:mod:`xsent_lib.train.nli`, transfer in :mod:`xsent_lib.eval.transfer_suite`, caption ranking in
:mod:`xsent_lib.eval.scenes`, max-pool attribution in :mod:`xsent_lib.eval.maxpool`. This module
holds what the chapter runs (:data:`PROFILES`), the compositions that train and then evaluate
(:func:`size_sweep`), Table 3.6 in the paper's labels, and the claims of section 3.2 declared as
data (:data:`CLAIM_SET`: the claims with ids and the thesis's sentences, checked on the typed record
:class:`InferSentClaimNumbers` of :func:`infersent_numbers`). Accuracies are in percent and
correlations in [-1, 1], as the thesis's tables print them.
Book: chapter 3 (InferSent).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from xsent_lib.base.parallel import parallel_map
from xsent_lib.data.nli_corpus import NLICorpus
from xsent_lib.data.word_setup import WordSetup
from xsent_lib.eval.suite import SuiteSizes
from xsent_lib.eval.transfer_suite import TransferSuite, evaluate_transfer
from xsent_lib.train.nli import InferSentConfig, NLIRun, train_nli_encoder

# Table 3.6's row label of each of the seven encoders (:data:`xsent_lib.train.nli.SEVEN`).
PAPER_ROWS: dict[str, str] = {"lstm": "LSTM", "gru": "GRU", "bigru-last": "BiGRU-last",
                              "bilstm-mean": "BiLSTM-Mean",
                              "inner-attention": "Inner-attention", "hconvnet": "HConvNet",
                              "bilstm-max": "BiLSTM-Max"}


# --------------------------------------------------------------------------------------------- the
# plan
@dataclass(frozen=True)
class InferSentProfile:
    """What one profile of chapter 3 runs: NLI pairs, encoder width (per direction) and epochs,
    word-vector size (random vectors only), the widths of BiLSTM-Max's size sweep, ranking scenes
    (train, dev, test), extra GloVe words in the vocabulary, the transfer suite's sizes, the
    classifier budget, the max-pool probe, and the smaller widths at which the six other encoders
    are retrained for Figure 3.5 (their main run gives the largest point).

    Book: chapter 3 (InferSent).
    """

    n_train: int
    n_dev: int
    n_test: int
    width: int
    epochs: int
    word_dim: int
    sweep: tuple[int, ...]
    rank: tuple[int, int, int]
    extra_words: int
    suite: SuiteSizes
    transfer_mode: str
    maxpool_sentences: int
    sweep_others: tuple[int, ...] = ()


PROFILES: dict[str, InferSentProfile] = {
    "smoke": InferSentProfile(1500, 300, 300, width=16, epochs=2, word_dim=32, sweep=(8, 16),
                              rank=(400, 100, 200),
                              extra_words=0,
                              suite=SuiteSizes(single=200, nli=(200, 50, 50), sts=(200, 50, 100)),
                              transfer_mode="fast", maxpool_sentences=100, sweep_others=(8,)),
    "book": InferSentProfile(20000, 2000, 2000, width=64, epochs=4, word_dim=50, sweep=(16, 32, 64),
                             rank=(5000, 1000, 2000), extra_words=20000,
                             suite=SuiteSizes(single=3000, nli=(2000, 500, 500),
                                              sts=(1500, 500, 1000)),
                             transfer_mode="fast", maxpool_sentences=1000, sweep_others=(16,)),
    # gpu: twice book's NLI pairs at four times its width, a longer size sweep (GPU minutes)
    "gpu": InferSentProfile(40000, 2000, 2000, width=256, epochs=4, word_dim=50,
                            sweep=(32, 64, 128, 256), rank=(5000, 1000, 2000), extra_words=20000,
                            suite=SuiteSizes(single=5000, nli=(4000, 1000, 1000),
                                             sts=(3000, 1000, 1000)),
                            transfer_mode="fast", maxpool_sentences=2000, sweep_others=(64,)),
    "full": InferSentProfile(550000, 10000, 10000, width=2048, epochs=20, word_dim=300,
                             sweep=(256, 512, 1024, 2048),
                             rank=(20000, 2000, 5000), extra_words=100000,
                             suite=SuiteSizes(single=None, nli=(10000, 1000, 2000),
                                              sts=(5000, 1000, 2000)),
                             transfer_mode="full", maxpool_sentences=2000,
                             sweep_others=(512, 1024)),
}


#: what :func:`work` counts
WORK_UNIT = "NLI pairs x epochs x width^2, summed over the encoders trained"


def work(plan: InferSentProfile) -> float:
    """The plan's NLI training in :data:`WORK_UNIT`: the seven encoders at the main width, the size
    sweep of BiLSTM-Max and the six others' smaller widths (a recurrent step costs about width^2).
    Book: chapter 3 (InferSent).
    """
    widths = len(PAPER_ROWS) * plan.width ** 2 + sum(w ** 2 for w in plan.sweep)
    widths += (len(PAPER_ROWS) - 1) * sum(w ** 2 for w in plan.sweep_others)
    return float(plan.n_train * plan.epochs * widths)


# --------------------------------------------------------------------------------------------- size
# sweep
def size_sweep(name: str, widths: Sequence[int], corpus: NLICorpus, words: WordSetup,
               suite: TransferSuite,
               config: InferSentConfig = InferSentConfig(), *, device: str | torch.device = "auto",
               seed: int = 0,
               done: Mapping[int, Mapping[str, Any]] | None = None,
               mode: str = "fast") -> list[dict[str, Any]]:
    """Figure 3.5's points for one architecture: train at each width, then NLI and transfer
    (micro/macro).

    ``done`` maps widths already trained (e.g. the chapter's main run) to their point, which is
    reused; ``mode`` is the classifier budget of
    :func:`~xsent_lib.eval.transfer_suite.evaluate_transfer`. The widths to train run side by side
    (:func:`~xsent_lib.base.parallel.parallel_map`). Returns one point per width, sorted by
    embedding size.
    Book: chapter 3 (InferSent: embedding size).
    """
    if not widths:
        raise ValueError("widths is empty; give the sizes to train, e.g. (32, 64, 128).")
    if len(set(widths)) != len(widths):
        raise ValueError(f"widths must be distinct, got {list(widths)}.")
    done = dict(done or {})
    trained = _train_points([(name, w) for w in widths if w not in done], corpus, words, suite,
                            config,
                            device=device, seed=seed, mode=mode)
    points = [{**done[w], "width": int(w), "reused": True} for w in widths if w in done] + trained
    return sorted(points, key=lambda p: p["dim"])


def train_sweep_point(name: str, width: int, corpus: NLICorpus, words: WordSetup,
                      suite: TransferSuite,
                      config: InferSentConfig, device: str | torch.device, seed: int,
                      mode: str) -> dict[str, Any]:
    """Train encoder ``name`` at ``width`` and score it: one :func:`sweep_point` (a job of
    :func:`size_sweep`).

    Book: chapter 3 (InferSent: embedding size).
    """
    run = train_nli_encoder(name, corpus, words, config, width=width, device=device, seed=seed)
    return sweep_point(run,
                       evaluate_transfer(run.encoder, suite, seed=seed, device=device, mode=mode))


def _train_points(todo: Sequence[tuple[str, int]], corpus: NLICorpus, words: WordSetup,
                  suite: TransferSuite,
                  config: InferSentConfig, *, device: str | torch.device, seed: int,
                  mode: str) -> list[dict[str, Any]]:
    """:func:`train_sweep_point` for every ``(name, width)`` of ``todo``, side by side, in order."""
    shared = {"corpus": corpus, "words": words, "suite": suite, "config": config, "device": device,
              "seed": seed,
              "mode": mode}
    return parallel_map(train_sweep_point, [{"name": n, "width": w, **shared} for n, w in todo],
                        device=device)


def figure_3_5_sweeps(runs: Mapping[str, NLIRun], transfers: Mapping[str, Mapping[str, Any]],
                      widths: Mapping[str, Sequence[int]], corpus: NLICorpus, words: WordSetup,
                      suite: TransferSuite, config: InferSentConfig = InferSentConfig(), *,
                      device: str | torch.device = "auto", seed: int = 0,
                      mode: str = "fast") -> dict[str, list[dict[str, Any]]]:
    """Figure 3.5's seven curves: for each trained encoder of ``runs`` (library name -> its main
    run, scored in ``transfers``), its points at ``widths[name]`` (as :func:`size_sweep`) plus the
    main run's width, reused.

    All the curves' trainings are one list of jobs run side by side
    (:func:`~xsent_lib.base.parallel.parallel_map`), so a 2-core machine trains two at a time.
    Returns Table 3.6 row label -> points sorted by embedding size. An encoder missing from
    ``widths`` keeps its main point only (a one-point curve).
    Book: chapter 3 (InferSent: embedding size).
    """
    unknown = sorted(set(widths) - set(runs))
    if unknown:
        raise ValueError(f"widths names encoders without a main run: {unknown}; runs has "
                         f"{sorted(runs)}.")
    for name, ws in widths.items():
        if len(set(ws)) != len(ws):
            raise ValueError(f"widths[{name!r}] must be distinct, got {list(ws)}.")
    todo = [(name, w) for name, run in runs.items() for w in widths.get(name, ()) if w != run.width]
    trained = _train_points(todo, corpus, words, suite, config, device=device, seed=seed, mode=mode)
    out = {}
    for name, run in runs.items():
        points = [{**sweep_point(run, transfers[name]),
                   "reused": True}] + [p for p in trained if p["name"] == name]
        out[PAPER_ROWS[name]] = sorted(points, key=lambda p: p["dim"])
    return out


def sweep_point(run: NLIRun, transfer: Mapping[str, Any]) -> dict[str, Any]:
    """One point of Figure 3.5: width, embedding size, NLI dev/test, transfer micro/macro, seconds.

    Book: chapter 3 (InferSent: embedding size).
    """
    return {"name": run.name, "width": run.width, "dim": run.encoder.output_dim,
            "nli_dev": run.dev_acc,
            "nli_test": run.test_acc, "micro": transfer["micro"], "macro": transfer["macro"],
            "seconds": run.seconds, "reused": False}


def entailed_examples(corpus: NLICorpus, n: int = 2, min_len: int = 6,
                      max_len: int = 12) -> list[tuple[str, str]]:
    """The first ``n`` entailed (premise, hypothesis) test pairs whose premise has ``min_len`` to
    ``max_len`` words.

    The thesis's pairs A and B are not given in the text; these take their place.
    Book: chapter 3 (InferSent: visualising max-pooling).
    """
    test = corpus.test
    out = [(p, h) for p, h,
           y in zip(test.premises, test.hypotheses, np.asarray(test.labels).tolist())
           if y == 0 and min_len <= len(p.split()) <= max_len][:n]
    if len(out) < n:
        raise ValueError(f"only {len(out)} entailed test pairs have premises of "
                         f"{min_len}-{max_len} words; widen the range.")
    return out


# ---------------------------------------------------------------------------------------------
# tables and claims
def table_3_6_ours(runs: Mapping[str, NLIRun],
                   transfers: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Table 3.6 rows (paper labels) from our runs: dim, NLI dev/test, transfer micro/macro.

    Book: chapter 3 (InferSent).
    """
    return {PAPER_ROWS[name]: {"dim": run.encoder.output_dim, "NLI dev": run.dev_acc,
                               "NLI test": run.test_acc,
                               "Transfer micro": transfers[name]["micro"],
                               "Transfer macro": transfers[name]["macro"]}
            for name, run in runs.items()}


from .claims import (  # noqa: E402
    CLAIM_SET,
    CLAIMS,
    SIZE_GAINERS,
    TABLE_3_7_MAIN,
    InferSentClaimNumbers,
    infersent_numbers,
    paper_numbers,
)

__all__ = ["CLAIMS", "CLAIM_SET", "PAPER_ROWS", "PROFILES", "SIZE_GAINERS", "TABLE_3_7_MAIN",
           "InferSentClaimNumbers", "WORK_UNIT", "work",
           "InferSentProfile", "entailed_examples", "figure_3_5_sweeps", "infersent_numbers",
           "paper_numbers", "size_sweep", "sweep_point", "table_3_6_ours", "train_sweep_point"]
