"""The InferSent recipe (thesis section 3.2): the chapter's plan per profile, the size sweep, its tables and claims.

The method lives in the library: NLI data in :mod:`xsent_lib.data.nli_corpus`, word vectors in
:mod:`xsent_lib.data.word_setup`, the seven encoders and their NLI training in :mod:`xsent_lib.train.nli`,
transfer in :mod:`xsent_lib.eval.transfer_suite`, caption ranking in :mod:`xsent_lib.eval.scenes`, max-pool
attribution in :mod:`xsent_lib.eval.maxpool`. This module holds what the chapter runs (:data:`PROFILES`), the
compositions that train and then evaluate (:func:`size_sweep`), Table 3.6 in the paper's labels, and the
claims of section 3.2 declared as data (:data:`INFERSENT_CLAIMS`, checked by
:func:`xsent_lib.results.claims.check_claims` on :func:`infersent_numbers`).
Accuracies are in percent and correlations in [-1, 1], as the thesis's tables print them.
Book: chapter 3 (InferSent).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from xsent_lib.data.nli_corpus import NLICorpus
from xsent_lib.data.word_setup import WordSetup
from xsent_lib.eval.suite import SuiteSizes
from xsent_lib.eval.transfer_suite import TransferSuite, evaluate_transfer
from xsent_lib.results.claims import Claim, PaperCell
from xsent_lib.train.nli import InferSentConfig, NLIRun, train_nli_encoder

# Names chapter 4's recipe and chapter still import from here; remove once they import from the library.
from xsent_lib.data.nli_corpus import synthetic_nli as synthetic_nli
from xsent_lib.data.word_setup import build_word_setup as build_word_setup
from xsent_lib.encoders.baselines import bag_of_words_encoder as bag_of_words_encoder
from xsent_lib.eval.transfer_suite import TABLE_3_7_COLUMNS as TABLE_3_7_COLUMNS
from xsent_lib.eval.transfer_suite import senteval_transfer_suite as senteval_transfer_suite
from xsent_lib.eval.transfer_suite import transfer_suite as transfer_suite
from xsent_lib.train.nli import nli_accuracy as nli_accuracy
from xsent_lib.train.nli import nli_batches as nli_batches
from xsent_lib.train.nli import nli_step_loss as nli_step_loss

# Table 3.6's row label of each of the seven encoders (:data:`xsent_lib.train.nli.SEVEN`).
PAPER_ROWS: dict[str, str] = {"lstm": "LSTM", "gru": "GRU", "bigru-last": "BiGRU-last", "bilstm-mean": "BiLSTM-Mean",
                              "inner-attention": "Inner-attention", "hconvnet": "HConvNet", "bilstm-max": "BiLSTM-Max"}


# --------------------------------------------------------------------------------------------- the plan
@dataclass(frozen=True)
class InferSentProfile:
    """What one profile of chapter 3 runs: NLI pairs, encoder width (per direction) and epochs, word-vector
    size (random vectors only), the widths of the size sweep, ranking scenes (train, dev, test), extra
    GloVe words in the vocabulary, the transfer suite's sizes, the classifier budget and the max-pool probe.

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


PROFILES: dict[str, InferSentProfile] = {
    "smoke": InferSentProfile(1500, 300, 300, width=16, epochs=2, word_dim=32, sweep=(8, 16), rank=(400, 100, 200),
                              extra_words=0, suite=SuiteSizes(single=200, nli=(200, 50, 50), sts=(200, 50, 100)),
                              transfer_mode="fast", maxpool_sentences=100),
    "book": InferSentProfile(20000, 2000, 2000, width=64, epochs=5, word_dim=50, sweep=(16, 32, 64),
                             rank=(5000, 1000, 2000), extra_words=20000,
                             suite=SuiteSizes(single=3000, nli=(2000, 500, 500), sts=(1500, 500, 1000)),
                             transfer_mode="fast", maxpool_sentences=1000),
    "full": InferSentProfile(550000, 10000, 10000, width=2048, epochs=20, word_dim=300, sweep=(256, 512, 1024, 2048),
                             rank=(20000, 2000, 5000), extra_words=100000,
                             suite=SuiteSizes(single=None, nli=(10000, 1000, 2000), sts=(5000, 1000, 2000)),
                             transfer_mode="full", maxpool_sentences=2000),
}


# --------------------------------------------------------------------------------------------- size sweep
def size_sweep(name: str, widths: Sequence[int], corpus: NLICorpus, words: WordSetup, suite: TransferSuite,
               config: InferSentConfig = InferSentConfig(), *, device: str | torch.device = "auto", seed: int = 0,
               done: Mapping[int, Mapping[str, Any]] | None = None, mode: str = "fast") -> list[dict[str, Any]]:
    """Figure 3.5's points for one architecture: train at each width, then NLI and transfer (micro/macro).

    ``done`` maps widths already trained (e.g. the chapter's main run) to their point, which is reused;
    ``mode`` is the classifier budget of :func:`~xsent_lib.eval.transfer_suite.evaluate_transfer`.
    Returns one point per width, sorted by embedding size.
    Book: chapter 3 (InferSent: embedding size).
    """
    if not widths:
        raise ValueError("widths is empty; give the sizes to train, e.g. (32, 64, 128).")
    if len(set(widths)) != len(widths):
        raise ValueError(f"widths must be distinct, got {list(widths)}.")
    done = dict(done or {})
    points = []
    for width in widths:
        if width in done:
            points.append({**done[width], "width": int(width), "reused": True})
            continue
        run = train_nli_encoder(name, corpus, words, config, width=width, device=device, seed=seed)
        transfer = evaluate_transfer(run.encoder, suite, seed=seed, device=device, mode=mode)
        points.append(sweep_point(run, transfer))
    return sorted(points, key=lambda p: p["dim"])


def sweep_point(run: NLIRun, transfer: Mapping[str, Any]) -> dict[str, Any]:
    """One point of Figure 3.5: width, embedding size, NLI dev/test, transfer micro/macro, seconds.

    Book: chapter 3 (InferSent: embedding size).
    """
    return {"name": run.name, "width": run.width, "dim": run.encoder.output_dim, "nli_dev": run.dev_acc,
            "nli_test": run.test_acc, "micro": transfer["micro"], "macro": transfer["macro"],
            "seconds": run.seconds, "reused": False}


def entailed_examples(corpus: NLICorpus, n: int = 2, min_len: int = 6, max_len: int = 12) -> list[tuple[str, str]]:
    """The first ``n`` entailed (premise, hypothesis) test pairs whose premise has ``min_len`` to ``max_len`` words.

    The thesis's pairs A and B are not given in the text; these take their place.
    Book: chapter 3 (InferSent: visualising max-pooling).
    """
    test = corpus.test
    out = [(p, h) for p, h, y in zip(test.premises, test.hypotheses, np.asarray(test.labels).tolist())
           if y == 0 and min_len <= len(p.split()) <= max_len][:n]
    if len(out) < n:
        raise ValueError(f"only {len(out)} entailed test pairs have premises of {min_len}-{max_len} words; "
                         "widen the range.")
    return out


# --------------------------------------------------------------------------------------------- tables and claims
def table_3_6_ours(runs: Mapping[str, NLIRun],
                   transfers: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Table 3.6 rows (paper labels) from our runs: dim, NLI dev/test, transfer micro/macro.

    Book: chapter 3 (InferSent).
    """
    return {PAPER_ROWS[name]: {"dim": run.encoder.output_dim, "NLI dev": run.dev_acc, "NLI test": run.test_acc,
                               "Transfer micro": transfers[name]["micro"], "Transfer macro": transfers[name]["macro"]}
            for name, run in runs.items()}


_T37_TRAINED = "Supervised representation training / BiLSTM-Max (on SNLI)"
_T37_UNTRAINED = "Unsupervised representation training (unordered sentences) / BiLSTM-Max (untrained)"
_T37_BOW = "Unsupervised representation training (unordered sentences) / GloVe BOW"
_T38 = "Pre-trained sentence representations / "


def _cell(table: str, row: str, column: str) -> PaperCell:
    return PaperCell("thesis", table, row, column)


INFERSENT_CLAIMS: tuple[Claim, ...] = (
    Claim("BiLSTM-Max has the best NLI test accuracy of the seven", "BiLSTM-Max NLI test", ">",
          "best other NLI test", (_cell("table_3_6", "BiLSTM-Max", "NLI test"),
                                  _cell("table_3_6", "HConvNet", "NLI test"))),
    Claim("BiLSTM-Max has the best transfer (micro) of the seven", "BiLSTM-Max transfer micro", ">",
          "best other transfer micro", (_cell("table_3_6", "BiLSTM-Max", "Transfer micro"),
                                        _cell("table_3_6", "BiLSTM-Mean", "Transfer micro"))),
    Claim("BiLSTM-Mean has the lowest NLI test accuracy of the seven", "BiLSTM-Mean NLI test", "<",
          "lowest other NLI test", (_cell("table_3_6", "BiLSTM-Mean", "NLI test"),
                                    _cell("table_3_6", "LSTM", "NLI test"))),
    Claim("Transfer (micro) grows with the embedding size (BiLSTM-Max)", "sweep micro, largest size", ">",
          "sweep micro, smallest size", "Figure 3.5: transfer rises with the embedding size, most for BiLSTM-Max"),
    Claim("NLI training beats the bag of word vectors on transfer (mean accuracy)", "trained mean accuracy", ">",
          "bow mean accuracy", (_cell("table_3_7", _T37_TRAINED, "MR"), _cell("table_3_7", _T37_BOW, "MR")),
          note="the paper: above on every task of Table 3.7 (MR shown); ours: mean over the accuracy columns"),
    Claim("NLI training beats the same encoder untrained (mean accuracy)", "trained mean accuracy", ">",
          "untrained mean accuracy", (_cell("table_3_7", _T37_TRAINED, "MR"), _cell("table_3_7", _T37_UNTRAINED, "MR")),
          note="the paper: above on every task but SUBJ (MR shown); ours: mean over the accuracy columns"),
    Claim("NLI training lifts unsupervised STS above the untrained encoder", "trained STS14 Pearson", ">",
          "untrained STS14 Pearson", (_cell("table_3_7", _T37_TRAINED, "STS14 Pearson"),
                                      _cell("table_3_7", _T37_UNTRAINED, "STS14 Pearson"))),
    Claim("Entailment transfer (SICK-E) is above the bag of words", "trained SICK-E", ">", "bow SICK-E",
          (_cell("table_3_7", _T37_TRAINED, "SICK-E"), _cell("table_3_7", _T37_BOW, "SICK-E"))),
    Claim("Untrained max-pooling leans on the first and last states", "untrained <s>+</s> share", ">",
          "trained <s>+</s> share", "extra weight on <s> and </s> untrained (Figures 3.6, 3.8)"),
    Claim("Trained max-pooling concentrates on content words", "trained content-word share", ">",
          "untrained content-word share", "maxima on content words after training (Figures 3.7, 3.9)"),
    Claim("NLI-trained sentence vectors beat a weaker pretrained baseline on retrieval", "trained Image R@1", ">",
          "bow Image R@1", (_cell("table_3_8", _T38 + "BiLSTM-Max (on SNLI) + ResNet101 (113k)", "Image R@1"),
                            _cell("table_3_8", _T38 + "SkipThought + ResNet101 (113k)", "Image R@1")),
          note="our weaker baseline is the bag of word vectors"),
)


def infersent_numbers(table36: Mapping[str, Mapping[str, float]], table37: Mapping[str, Mapping[str, float]],
                      sweep: Sequence[Mapping[str, Any]], maxpool: Mapping[str, Mapping[str, float]],
                      ranking: Mapping[str, Mapping[str, float]]) -> dict[str, float | None]:
    """The numbers :data:`INFERSENT_CLAIMS` test, from this run's tables (None: not measured here).

    ``table36`` is :func:`table_3_6_ours`; ``table37`` maps ``"trained"``, ``"untrained"`` and ``"bow"`` to
    Table 3.7 rows; ``sweep`` is :func:`size_sweep`'s points; ``maxpool`` maps ``"untrained"`` / ``"trained"``
    to :func:`~xsent_lib.eval.maxpool.maxpool_summary`; ``ranking`` maps ``"trained"`` / ``"bow"`` to
    Table 3.8 rows. Mean accuracies run over the columns all three rows share, correlations excluded.
    Book: chapter 3 (InferSent: discussion).
    """
    if "BiLSTM-Max" not in table36:
        raise ValueError("table36 has no 'BiLSTM-Max' row; the claims are about it.")
    out: dict[str, float | None] = {}
    for key, column in (("NLI test", "NLI test"), ("transfer micro", "Transfer micro")):
        others = [v[column] for k, v in table36.items() if k != "BiLSTM-Max"]
        out[f"BiLSTM-Max {key}"] = table36["BiLSTM-Max"][column]
        out[f"best other {key}"] = max(others) if others else None
    mean = table36.get("BiLSTM-Mean")
    others = [v["NLI test"] for k, v in table36.items() if k != "BiLSTM-Mean"]
    out["BiLSTM-Mean NLI test"] = mean["NLI test"] if mean else None
    out["lowest other NLI test"] = min(others) if mean and others else None
    big = len(sweep) >= 2
    out["sweep micro, largest size"] = sweep[-1]["micro"] if big else None
    out["sweep micro, smallest size"] = sweep[0]["micro"] if big else None
    common = [c for c in table37["trained"] if c in table37["bow"] and c in table37["untrained"]]
    accs = [c for c in common if table37["trained"][c] is not None and "STS14" not in c and c != "SICK-R"]
    for k in ("trained", "untrained", "bow"):
        out[f"{k} mean accuracy"] = float(np.mean([table37[k][c] for c in accs])) if accs else None
    for k, column in (("trained", "STS14 Pearson"), ("untrained", "STS14 Pearson"), ("trained", "SICK-E"),
                      ("bow", "SICK-E")):
        out[f"{k} {column}"] = table37[k][column] if column in common else None
    for k in ("untrained", "trained"):
        out[f"{k} <s>+</s> share"] = maxpool[k]["boundary"]
        out[f"{k} content-word share"] = maxpool[k]["content"]
    for k in ("trained", "bow"):
        out[f"{k} Image R@1"] = ranking[k]["Image R@1"] if "trained" in ranking and "bow" in ranking else None
    return out
