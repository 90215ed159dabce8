"""The probing study's encoders (thesis section 3.3): each architecture trained on each training
task, with its thesis row label, and the downstream scores of Table 3.13 (chapter 3's transfer suite
with an STS-B stand-in).

Training goes through :func:`xsent_lib.train.seq2seq.train_seq2seq` or the NLI loop of
:mod:`xsent_lib.train.nli`; the periodic probes of Figure 3.10 through
:func:`xsent_lib.eval.probing.probe_encoder`.
Book: chapter 4 (Probing).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from xsent_lib.base.runtime import pick_device
from xsent_lib.data.formats.containers import ClassificationTask, PairTask, SentencePairs
from xsent_lib.data.nli_corpus import NLICorpus
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.word_setup import WordSetup
from xsent_lib.encoders import NLIClassifier, NLIModel
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.encoders.probing import make_encoder
from xsent_lib.eval.bleu import corpus_bleu
from xsent_lib.eval.probing import probe_encoder
from xsent_lib.eval.suite import SuiteSizes, SuiteTask
from xsent_lib.eval.transfer_suite import (
    TABLE_3_7_COLUMNS,
    TABLE_3_13_EXTRA,
    TransferSuite,
    transfer_suite,
)
from xsent_lib.train import History
from xsent_lib.train.curves import fit_with_curve
from xsent_lib.train.nli import nli_accuracy, nli_batches, nli_step_loss
from xsent_lib.train.probing import TrainSettings
from xsent_lib.train.seq2seq import Seq2SeqConfig, Seq2SeqCorpus, exact_match, train_seq2seq

# The encoders of the study, by library name, with the thesis's row-group labels
# (Tables 3.10, 3.12, 3.13) and row labels (Table 3.11).
ENCODERS: dict[str, str] = {"bilstm-last": "BiLSTM-last", "bilstm-max": "BiLSTM-max",
                            "gated-convnet": "GatedConvNet"}
# Training tasks, by our key, with the thesis's row labels.
TRAINING_TASKS: dict[str, str] = {"untrained": "Untrained", "autoencoder": "AutoEncoder",
                                  "nmt-fr": "NMT En-Fr",
                                  "nmt-de": "NMT En-De", "nmt-fi": "NMT En-Fi",
                                  "seq2tree": "Seq2Tree",
                                  "skipthought": "SkipThought", "nli": "NLI"}
# Table 3.7 columns (the ``row`` of ``evaluate_transfer``, with Table 3.13's SST-5 and STS-B) ->
# Table 3.13 columns. STS14 is not in Table 3.13; it keeps its own name so the correlation matrix
# can use it.
TABLE_3_13_COLUMNS: dict[str, str] = {"MR": "MR", "CR": "CR", "SUBJ": "SUBJ", "MPQA": "MPQA",
                                      "SST": "SST-2",
                                      "SST-5": "SST-5", "TREC": "TREC", "MRPC acc": "MRPC",
                                      "SICK-E": "SICK-E",
                                      "SICK-R": "SICK-R", "STS-B": "STSB", "STS14 Pearson": "STS14"}
CORRELATION_COLUMNS = frozenset({"SICK-R", "STSB", "STS14"})  # Pearson r, printed x 100


def row_label(arch: str, task: str) -> str:
    """The thesis's row label of encoder ``arch`` trained on ``task`` (Tables 3.10, 3.12, 3.13).

    Book: chapter 4 (Probing).
    """
    if arch not in ENCODERS or task not in TRAINING_TASKS:
        raise ValueError(f"unknown encoder {arch!r} or training task {task!r}; known "
                         f"{list(ENCODERS)} and {list(TRAINING_TASKS)}.")
    return f"{ENCODERS[arch]} encoder / {TRAINING_TASKS[task]}"


@dataclass
class TrainedEncoder:
    """One encoder of the study: architecture, training task, size, the module, what was measured.

    ``score`` holds the training task's test figure of merit (``bleu`` for NMT and the
    auto-encoder, ``exact`` match for Seq2Tree, ``perplexity``, ``accuracy`` for NLI);
    ``curve`` the periodic evaluations (``x`` in epochs, ``probing`` ``{task: [acc]}``, ...).
    Book: chapter 4 (Probing).
    """

    arch: str
    task: str
    dim: int
    encoder: SentenceEncoder
    history: History | None = None
    score: dict[str, float] = field(default_factory=dict)
    curve: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def label(self) -> str:
        """The thesis's row label (``"BiLSTM-max encoder / NMT En-Fr"``).
        Book: chapter 4 (Probing).
        """
        return row_label(self.arch, self.task)

    def summary(self) -> dict[str, Any]:
        """JSON-ready numbers (no weights). Book: chapter 4 (Probing)."""
        return {"arch": self.arch, "task": self.task, "dim": self.dim, "score": self.score,
                "seconds": self.seconds,
                "train_loss": list(self.history.train_loss) if self.history else [],
                "curve": self.curve}


def _train_nli(encoder: SentenceEncoder, data: NLICorpus, words: WordSetup, config: Seq2SeqConfig,
               hidden: int, seed: int, dev: torch.device, probe: Callable[..., Any] | None,
               points: int,
               progress: bool) -> tuple[History, dict[str, float], dict[str, Any], float]:
    model = NLIModel(encoder, NLIClassifier(encoder.output_dim, hidden))
    batches = nli_batches(words.pipeline, data.train, config.batch_size, seed)
    bs = config.eval_batch_size
    history, curve, seconds = fit_with_curve(
        model, nli_step_loss, batches, epochs=config.epochs, probe=probe,
        score=lambda m: nli_accuracy(m, data.dev, bs, dev), score_name="accuracy", points=points,
        device=dev, seed=seed, dev_fn=lambda m: nli_accuracy(m, data.dev, bs, dev), dev_mode="max",
        clip_norm=config.clip_norm, progress=progress, optimizer=config.optimizer, lr=config.lr,
        momentum=config.momentum)
    return history, {"accuracy": nli_accuracy(model, data.test, bs, dev)}, curve, seconds


def train_encoder(arch: str, task: str, data: Seq2SeqCorpus | NLICorpus | None, words: WordSetup,
                  dim: int, settings: TrainSettings = TrainSettings(), *, seed: int = 0,
                  device: str | torch.device = "auto",
                  curve_suite: Mapping[str, ClassificationTask] | None = None,
                  progress: bool = False) -> TrainedEncoder:
    """Build encoder ``arch`` and train it on ``task``; ``untrained`` returns the fresh encoder.

    Seq2seq tasks go through :func:`xsent_lib.train.seq2seq.train_seq2seq` (scored by BLEU,
    exact tree match, or perplexity for SkipThought); NLI puts the ``[u, v, |u-v|, u*v]`` MLP
    on top and keeps the best dev accuracy. With ``curve_suite`` the encoder is probed on it
    ``settings.curve_points`` times during training.
    Book: chapter 4 (Probing: training the encoders).
    """
    dev = pick_device(device)
    encoder = make_encoder(arch, words, dim, settings.conv_layers, seed, settings.lstm_layers)
    if task == "untrained":
        return TrainedEncoder(arch, task, encoder.output_dim, encoder.to(dev))
    if task not in TRAINING_TASKS:
        raise ValueError(f"unknown training task {task!r}; use one of {list(TRAINING_TASKS)}.")
    is_nli = task == "nli"
    if not isinstance(data, NLICorpus if is_nli else Seq2SeqCorpus):
        raise TypeError(f"task {task!r} needs {'an NLICorpus' if is_nli else 'a Seq2SeqCorpus'} "
                        "from training_corpus().")
    config = settings.seq2seq_config(arch)
    probe = None
    if curve_suite is not None:
        def probe(enc: SentenceEncoder) -> dict[str, float]:
            return probe_encoder(enc, curve_suite, settings.curve_probe, settings.probe_mode,
                                 seed + 1, dev, config.eval_batch_size)
    if is_nli:
        history, score, curve, seconds = _train_nli(encoder, data, words, config,
                                                    settings.nli_hidden, seed, dev, probe,
                                                    settings.curve_points, progress)
    else:
        metric = {"skipthought": None, "seq2tree": ("exact", exact_match)}.get(task,
                                                                               ("bleu",
                                                                                corpus_bleu))
        run = train_seq2seq(encoder, data, words.pipeline, config, metric=metric, seed=seed,
                            device=dev,
                            probe=probe, curve_points=settings.curve_points, progress=progress)
        history, score, curve, seconds = run.history, run.score, run.curve, run.seconds
    return TrainedEncoder(arch, task, encoder.output_dim, encoder, history, score, curve, seconds)



def downstream_scores(row: Mapping[str, float]) -> dict[str, float]:
    """Table 3.13's columns (accuracy, or Pearson x 100) from a transfer row (Table 3.7 columns).

    Columns Table 3.13 has no place for (MRPC F1, STS14 Spearman) are dropped; STS14 Pearson is
    kept as ``"STS14"`` for the correlation matrix.
    Book: chapter 4 (Probing: downstream tasks).
    """
    unknown = [c for c in row if c not in TABLE_3_13_COLUMNS and c not in ("MRPC F1",
                                                                           "STS14 Spearman")]
    if unknown:
        raise ValueError(f"no Table 3.13 column for {unknown}; a transfer row has "
                         f"{list(TABLE_3_13_COLUMNS)}.")
    return {TABLE_3_13_COLUMNS[c]:
            float(v) * (100.0 if TABLE_3_13_COLUMNS[c] in CORRELATION_COLUMNS else 1.0)
            for c, v in row.items() if c in TABLE_3_13_COLUMNS}


STSB_STANDIN = "Syn-STSB"


def downstream_suite(seed: int, sizes: SuiteSizes, real: bool = True) -> TransferSuite:
    """Table 3.13's downstream tasks: chapter 3's transfer suite with its SST-5 stand-in (VADER's
    movie snippets in five classes, chapter 2's, when ``real`` and cached), and an STS-B stand-in.

    STS-B stand-in (``Syn-STSB``): SentEval's STS-B trains a relatedness head on 0-5 graded pairs;
    here the same head is trained on graded pairs of the synthetic world drawn from another world
    seed (``seed + 2``) than the SICK-R and STS14 stand-ins (``seed + 1``), ``sizes.sts`` pairs per
    split, so the two relatedness columns do not share their sentences.
    Book: chapter 4 (Probing: downstream tasks).
    """
    suite = transfer_suite(seed, sizes, real=real, extra=("SST-5",))
    world = SyntheticWorld(seed + 2)
    pairs = {split: world.sts(n, "en", split=split) for split,
             n in zip(("train", "dev", "test"), sizes.sts)}
    task = SuiteTask(STSB_STANDIN, "STS-B", "relatedness",
                     "graded similarity, trained head (another world seed)",
                     "synthetic world", PairTask(STSB_STANDIN, {k: SentencePairs(v.a, v.b, v.score)
                                                                for k, v in pairs.items()}),
                                                                score_range=(0, 5))
    return TransferSuite([*suite.tasks, task.evaluator()], {**suite.papers, STSB_STANDIN: "STS-B"},
                         {**suite.standins, STSB_STANDIN: f"{task.source}: {task.description}"},
                         list(suite.notes),
                         ("SST-5", "STS-B"))


def chance_scores(suite: TransferSuite) -> dict[str, float]:
    """The thesis's "Chance" row of a transfer suite: the test share of the most frequent
    training class for classification tasks, 0 for correlations.

    Book: chapter 4 (Probing: downstream tasks).
    """
    out = {}
    columns = {**TABLE_3_7_COLUMNS, **{k: TABLE_3_13_EXTRA[k] for k in suite.extra}}
    for task in suite.tasks:
        for column in columns.get(suite.papers.get(task.name, ""), {}):
            name = TABLE_3_13_COLUMNS.get(column)
            if name in CORRELATION_COLUMNS:
                out[name] = 0.0
            elif name is not None:
                # a cross-validated task: the majority share of its one split
                both = task.splits.get("all")
                train = np.asarray((both or task.splits["train"]).labels)
                test = np.asarray((both or task.splits["test"]).labels)
                out[name] = 100.0 * float((test == np.bincount(train).argmax()).mean())
    return out
