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

from xsent_lib.base.parallel import parallel_map
from xsent_lib.data.nli_corpus import NLICorpus
from xsent_lib.data.word_setup import WordSetup
from xsent_lib.eval.suite import SuiteSizes
from xsent_lib.eval.transfer_suite import TransferSuite, evaluate_transfer
from xsent_lib.results.claims import Claim, PaperCell, Weaker
from xsent_lib.results.paper import paper_table
from xsent_lib.train.nli import InferSentConfig, NLIRun, train_nli_encoder


# Table 3.6's row label of each of the seven encoders (:data:`xsent_lib.train.nli.SEVEN`).
PAPER_ROWS: dict[str, str] = {"lstm": "LSTM", "gru": "GRU", "bigru-last": "BiGRU-last", "bilstm-mean": "BiLSTM-Mean",
                              "inner-attention": "Inner-attention", "hconvnet": "HConvNet", "bilstm-max": "BiLSTM-Max"}


# --------------------------------------------------------------------------------------------- the plan
@dataclass(frozen=True)
class InferSentProfile:
    """What one profile of chapter 3 runs: NLI pairs, encoder width (per direction) and epochs, word-vector
    size (random vectors only), the widths of BiLSTM-Max's size sweep, ranking scenes (train, dev, test), extra
    GloVe words in the vocabulary, the transfer suite's sizes, the classifier budget, the max-pool probe, and
    the smaller widths at which the six other encoders are retrained for Figure 3.5 (their main run gives the
    largest point).

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
    "smoke": InferSentProfile(1500, 300, 300, width=16, epochs=2, word_dim=32, sweep=(8, 16), rank=(400, 100, 200),
                              extra_words=0, suite=SuiteSizes(single=200, nli=(200, 50, 50), sts=(200, 50, 100)),
                              transfer_mode="fast", maxpool_sentences=100, sweep_others=(8,)),
    "book": InferSentProfile(20000, 2000, 2000, width=64, epochs=4, word_dim=50, sweep=(16, 32, 64),
                             rank=(5000, 1000, 2000), extra_words=20000,
                             suite=SuiteSizes(single=3000, nli=(2000, 500, 500), sts=(1500, 500, 1000)),
                             transfer_mode="fast", maxpool_sentences=1000, sweep_others=(16,)),
    "full": InferSentProfile(550000, 10000, 10000, width=2048, epochs=20, word_dim=300, sweep=(256, 512, 1024, 2048),
                             rank=(20000, 2000, 5000), extra_words=100000,
                             suite=SuiteSizes(single=None, nli=(10000, 1000, 2000), sts=(5000, 1000, 2000)),
                             transfer_mode="full", maxpool_sentences=2000,
                             sweep_others=(512, 1024)),
}


# --------------------------------------------------------------------------------------------- size sweep
def size_sweep(name: str, widths: Sequence[int], corpus: NLICorpus, words: WordSetup, suite: TransferSuite,
               config: InferSentConfig = InferSentConfig(), *, device: str | torch.device = "auto", seed: int = 0,
               done: Mapping[int, Mapping[str, Any]] | None = None, mode: str = "fast") -> list[dict[str, Any]]:
    """Figure 3.5's points for one architecture: train at each width, then NLI and transfer (micro/macro).

    ``done`` maps widths already trained (e.g. the chapter's main run) to their point, which is reused;
    ``mode`` is the classifier budget of :func:`~xsent_lib.eval.transfer_suite.evaluate_transfer`. The widths
    to train run side by side (:func:`~xsent_lib.base.parallel.parallel_map`).
    Returns one point per width, sorted by embedding size.
    Book: chapter 3 (InferSent: embedding size).
    """
    if not widths:
        raise ValueError("widths is empty; give the sizes to train, e.g. (32, 64, 128).")
    if len(set(widths)) != len(widths):
        raise ValueError(f"widths must be distinct, got {list(widths)}.")
    done = dict(done or {})
    trained = _train_points([(name, w) for w in widths if w not in done], corpus, words, suite, config,
                            device=device, seed=seed, mode=mode)
    points = [{**done[w], "width": int(w), "reused": True} for w in widths if w in done] + trained
    return sorted(points, key=lambda p: p["dim"])


def train_sweep_point(name: str, width: int, corpus: NLICorpus, words: WordSetup, suite: TransferSuite,
                      config: InferSentConfig, device: str | torch.device, seed: int, mode: str) -> dict[str, Any]:
    """Train encoder ``name`` at ``width`` and score it: one :func:`sweep_point` (a job of :func:`size_sweep`).

    Book: chapter 3 (InferSent: embedding size).
    """
    run = train_nli_encoder(name, corpus, words, config, width=width, device=device, seed=seed)
    return sweep_point(run, evaluate_transfer(run.encoder, suite, seed=seed, device=device, mode=mode))


def _train_points(todo: Sequence[tuple[str, int]], corpus: NLICorpus, words: WordSetup, suite: TransferSuite,
                  config: InferSentConfig, *, device: str | torch.device, seed: int, mode: str) -> list[dict[str, Any]]:
    """:func:`train_sweep_point` for every ``(name, width)`` of ``todo``, side by side, in order."""
    shared = {"corpus": corpus, "words": words, "suite": suite, "config": config, "device": device, "seed": seed,
              "mode": mode}
    return parallel_map(train_sweep_point, [{"name": n, "width": w, **shared} for n, w in todo], device=device)


def figure_3_5_sweeps(runs: Mapping[str, NLIRun], transfers: Mapping[str, Mapping[str, Any]],
                      widths: Mapping[str, Sequence[int]], corpus: NLICorpus, words: WordSetup,
                      suite: TransferSuite, config: InferSentConfig = InferSentConfig(), *,
                      device: str | torch.device = "auto", seed: int = 0,
                      mode: str = "fast") -> dict[str, list[dict[str, Any]]]:
    """Figure 3.5's seven curves: for each trained encoder of ``runs`` (library name -> its main run, scored in
    ``transfers``), its points at ``widths[name]`` (as :func:`size_sweep`) plus the main run's width, reused.

    All the curves' trainings are one list of jobs run side by side (:func:`~xsent_lib.base.parallel.parallel_map`),
    so a 2-core machine trains two at a time. Returns Table 3.6 row label -> points sorted by embedding size.
    An encoder missing from ``widths`` keeps its main point only (a one-point curve).
    Book: chapter 3 (InferSent: embedding size).
    """
    unknown = sorted(set(widths) - set(runs))
    if unknown:
        raise ValueError(f"widths names encoders without a main run: {unknown}; runs has {sorted(runs)}.")
    for name, ws in widths.items():
        if len(set(ws)) != len(ws):
            raise ValueError(f"widths[{name!r}] must be distinct, got {list(ws)}.")
    todo = [(name, w) for name, run in runs.items() for w in widths.get(name, ()) if w != run.width]
    trained = _train_points(todo, corpus, words, suite, config, device=device, seed=seed, mode=mode)
    out = {}
    for name, run in runs.items():
        points = [{**sweep_point(run, transfers[name]), "reused": True}] + [p for p in trained if p["name"] == name]
        out[PAPER_ROWS[name]] = sorted(points, key=lambda p: p["dim"])
    return out


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
# Table 3.7's ten columns, each with its headline number (MRPC: accuracy; STS14: Pearson).
TABLE_3_7_MAIN: tuple[str, ...] = ("MR", "CR", "SUBJ", "MPQA", "SST", "TREC", "MRPC acc", "SICK-R", "SICK-E",
                                   "STS14 Pearson")
# The architectures for which the thesis finds size "particularly" helpful (Figure 3.5's text).
SIZE_GAINERS: tuple[str, ...] = ("BiLSTM-Max", "HConvNet", "Inner-attention")


def _cell(table: str, row: str, column: str) -> PaperCell:
    return PaperCell("thesis", table, row, column)


def _paper_columns_above(better: str, worse: str) -> str:
    """On how many of Table 3.7's ten columns the stored row ``better`` is above ``worse``, and which are not."""
    t = paper_table("thesis", "table_3_7").loc[[better, worse], list(TABLE_3_7_MAIN)]
    above = [c for c in TABLE_3_7_MAIN if t.loc[better, c] > t.loc[worse, c]]
    rest = [c for c in TABLE_3_7_MAIN if c not in above]
    return (f"above on {len(above)}/{len(TABLE_3_7_MAIN)} columns of Table 3.7"
            + (f" (not on {', '.join(rest)})" if rest else " (SUBJ included)"))


def _mean_accuracy(name: str) -> Weaker:
    return Weaker("above on the mean accuracy over the shared columns (correlations left out)",
                  "trained mean accuracy", ">", f"{name} mean accuracy")


INFERSENT_CLAIMS: tuple[Claim, ...] = (
    Claim("'The BiLSTM-4096 with the max-pooling operation performs best on both SNLI and transfer tasks' "
          "(micro and macro)", "BiLSTM-Max NLI test", ">", "best other NLI test",
          (_cell("table_3_6", "BiLSTM-Max", "NLI test"), _cell("table_3_6", "HConvNet", "NLI test"),
           _cell("table_3_6", "BiLSTM-Max", "Transfer micro"), _cell("table_3_6", "BiLSTM-Mean", "Transfer micro")),
          also=(("BiLSTM-Max transfer micro", ">", "best other transfer micro"),
                ("BiLSTM-Max transfer macro", ">", "best other transfer macro"))),
    Claim("BiLSTM-Mean has the lowest NLI test accuracy of the seven (Table 3.6)", "BiLSTM-Mean NLI test", "<",
          "lowest other NLI test", (_cell("table_3_6", "BiLSTM-Mean", "NLI test"),
                                    _cell("table_3_6", "LSTM", "NLI test"))),
    Claim("'better performance on the training task does not necessarily translate in better results on the "
          "transfer tasks like when comparing inner-attention and BiLSTM-Mean'", "Inner-attention NLI test", ">",
          "BiLSTM-Mean NLI test", (_cell("table_3_6", "Inner-attention", "NLI test"),
                                   _cell("table_3_6", "BiLSTM-Mean", "NLI test"),
                                   _cell("table_3_6", "Inner-attention", "Transfer micro"),
                                   _cell("table_3_6", "BiLSTM-Mean", "Transfer micro")),
          note="inner-attention above on NLI, below on transfer (micro)",
          also=(("Inner-attention transfer micro", "<", "BiLSTM-Mean transfer micro"),)),
    Claim("'increased embedding sizes lead to increased performance for almost all models' (Figure 3.5)",
          "models whose micro rises with size", ">=", "models swept, all but one",
          "Figure 3.5: transfer (micro) rises with the embedding size for almost all of the seven",
          note="a model rises when its micro at its largest size is above its smallest; 'almost all' read as all "
               "but at most one of the models swept",
          weaker=Weaker("BiLSTM-Max's own curve rises (smallest to largest size)", "sweep micro, largest size",
                        ">", "sweep micro, smallest size")),
    Claim("'this is particularly true for some models (BiLSTM-Max, HConvNet, inner-att)' (Figure 3.5)",
          "mean micro rise: BiLSTM-Max, HConvNet, inner-att", ">", "mean micro rise: the other four",
          "Figure 3.5: the three curves rise most",
          note="rise = micro at the largest size minus the smallest, averaged over each group"),
    Claim("'we are able to consistently outperform unsupervised approaches': BiLSTM-Max (on SNLI) above the "
          "GloVe bag of words on every column of Table 3.7", "columns: trained above bow", "==",
          "Table 3.7 columns compared", _paper_columns_above(_T37_TRAINED, _T37_BOW),
          note="our columns are the stand-ins the run has (MRPC: accuracy, STS14: Pearson)",
          weaker=_mean_accuracy("bow")),
    Claim("BiLSTM-Max (on SNLI) above the same encoder untrained on every column of Table 3.7 (SUBJ included)",
          "columns: trained above untrained", "==", "Table 3.7 columns compared",
          _paper_columns_above(_T37_TRAINED, _T37_UNTRAINED),
          note="our columns are the stand-ins the run has (MRPC: accuracy, STS14: Pearson)",
          weaker=_mean_accuracy("untrained")),
    Claim("'Without any training, the max-pooling is rather even across hidden states, although it seems to focus "
          "consistently more on the first and last hidden states'", "untrained <s>+</s> share", ">",
          "trained <s>+</s> share", "Figures 3.6, 3.8",
          note="share of dimensions won by <s> and </s>, untrained against trained"),
    Claim("'When trained, the model learns to focus on specific words that carry most of the meaning of the "
          "sentence'", "trained content-word share", ">", "untrained content-word share", "Figures 3.7, 3.9",
          note="share of dimensions won by content words, trained against untrained"),
    Claim("'Our approach pushes the results even further, from 37.9 to 42.4 on caption retrieval, and 30.6 to "
          "33.2 on image retrieval' (R@1, over SkipThought)", "trained Caption R@1", ">", "bow Caption R@1",
          (_cell("table_3_8", _T38 + "BiLSTM-Max (on SNLI) + ResNet101 (113k)", "Caption R@1"),
           _cell("table_3_8", _T38 + "SkipThought + ResNet101 (113k)", "Caption R@1"),
           _cell("table_3_8", _T38 + "BiLSTM-Max (on SNLI) + ResNet101 (113k)", "Image R@1"),
           _cell("table_3_8", _T38 + "SkipThought + ResNet101 (113k)", "Image R@1")),
          note="no SkipThought here: the weaker pretrained baseline is the bag of word vectors",
          also=(("trained Image R@1", ">", "bow Image R@1"),)),
)


def _rise(points: Sequence[Mapping[str, Any]]) -> float | None:
    """Micro at the largest embedding size minus micro at the smallest (None with fewer than two sizes)."""
    pts = sorted(points, key=lambda p: p["dim"])
    return float(pts[-1]["micro"] - pts[0]["micro"]) if len(pts) >= 2 else None


def infersent_numbers(table36: Mapping[str, Mapping[str, float]], table37: Mapping[str, Mapping[str, float]],
                      sweep: Sequence[Mapping[str, Any]] | Mapping[str, Sequence[Mapping[str, Any]]],
                      maxpool: Mapping[str, Mapping[str, float]],
                      ranking: Mapping[str, Mapping[str, float]]) -> dict[str, float | None]:
    """The numbers :data:`INFERSENT_CLAIMS` test, from this run's tables (None: not measured here).

    ``table36`` is :func:`table_3_6_ours`; ``table37`` maps ``"trained"``, ``"untrained"`` and ``"bow"`` to
    Table 3.7 rows; ``sweep`` is Figure 3.5: Table 3.6 row label -> :func:`size_sweep`'s points (or the points
    of BiLSTM-Max alone, which leaves the claims about the other curves not testable); ``maxpool`` maps
    ``"untrained"`` / ``"trained"`` to :func:`~xsent_lib.eval.maxpool.maxpool_summary`; ``ranking`` maps
    ``"trained"`` / ``"bow"`` to Table 3.8 rows. Columns of Table 3.7 are counted over :data:`TABLE_3_7_MAIN`
    where all three rows have a number; mean accuracies run over those columns, correlations excluded.
    Book: chapter 3 (InferSent: discussion).
    """
    if "BiLSTM-Max" not in table36:
        raise ValueError("table36 has no 'BiLSTM-Max' row; the claims are about it.")
    curves = dict(sweep) if isinstance(sweep, Mapping) else {"BiLSTM-Max": list(sweep)}
    out: dict[str, float | None] = {}
    for key, column in (("NLI test", "NLI test"), ("transfer micro", "Transfer micro"),
                        ("transfer macro", "Transfer macro")):
        others = [v[column] for k, v in table36.items() if k != "BiLSTM-Max" and column in v]
        out[f"BiLSTM-Max {key}"] = table36["BiLSTM-Max"].get(column)
        out[f"best other {key}"] = max(others) if others else None
    for name in ("BiLSTM-Mean", "Inner-attention"):
        row = table36.get(name, {})
        out[f"{name} NLI test"] = row.get("NLI test")
        out[f"{name} transfer micro"] = row.get("Transfer micro")
    others = [v["NLI test"] for k, v in table36.items() if k != "BiLSTM-Mean"]
    out["lowest other NLI test"] = min(others) if "BiLSTM-Mean" in table36 and others else None
    # Figure 3.5
    own = sorted(curves.get("BiLSTM-Max", []), key=lambda p: p["dim"])
    big = len(own) >= 2
    out["sweep micro, largest size"] = own[-1]["micro"] if big else None
    out["sweep micro, smallest size"] = own[0]["micro"] if big else None
    rises = {k: r for k, r in ((k, _rise(v)) for k, v in curves.items()) if r is not None}
    seven = len(rises) == len(PAPER_ROWS)  # the claims are about the seven curves of Figure 3.5
    out["models swept"] = float(len(rises)) if seven else None
    out["models swept, all but one"] = float(len(rises) - 1) if seven else None
    out["models whose micro rises with size"] = float(sum(r > 0 for r in rises.values())) if seven else None
    gainers = [r for k, r in rises.items() if k in SIZE_GAINERS]
    rest = [r for k, r in rises.items() if k not in SIZE_GAINERS]
    out["mean micro rise: BiLSTM-Max, HConvNet, inner-att"] = float(np.mean(gainers)) if seven else None
    out["mean micro rise: the other four"] = float(np.mean(rest)) if seven else None
    # Table 3.7
    rows = [table37[k] for k in ("trained", "untrained", "bow")]
    common = [c for c in TABLE_3_7_MAIN
              if all(c in r and r[c] is not None and np.isfinite(r[c]) for r in rows)]
    accs = [c for c in common if c not in ("SICK-R", "STS14 Pearson")]
    out["Table 3.7 columns compared"] = float(len(common)) if common else None
    for k in ("untrained", "bow"):
        out[f"columns: trained above {k}"] = (float(sum(table37["trained"][c] > table37[k][c] for c in common))
                                              if common else None)
    for k in ("trained", "untrained", "bow"):
        out[f"{k} mean accuracy"] = float(np.mean([table37[k][c] for c in accs])) if accs else None
    for k in ("untrained", "trained"):
        out[f"{k} <s>+</s> share"] = maxpool[k]["boundary"]
        out[f"{k} content-word share"] = maxpool[k]["content"]
    both = "trained" in ranking and "bow" in ranking
    for k in ("trained", "bow"):
        for side in ("Caption", "Image"):
            out[f"{k} {side} R@1"] = ranking[k].get(f"{side} R@1") if both else None
    return out
