"""The probing recipe (thesis section 3.3, Conneau et al. 2018): the plan of chapter 4.

Ten probing sets, three encoders trained in several ways, MLP and logistic-regression probes,
baselines, downstream scores and their Spearman correlations. The methods live in the library:
probing sets in :mod:`xsent_lib.data.probing_sets`, the encoders in
:mod:`xsent_lib.encoders.probing`, seq2seq training in :mod:`xsent_lib.train.seq2seq`, probes
in :mod:`xsent_lib.eval.probing`, correlations in :mod:`xsent_lib.eval.stats`. This module holds
the sizes of each profile, the calls that train every encoder, the thesis's row labels and the
claims of section 3.3 declared as data. Accuracies are in percent, as the thesis prints them.
Book: chapter 4 (Probing).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from xsent_lib.base.runtime import pick_device
from xsent_lib.data.formats.containers import ClassificationTask
from xsent_lib.data.formats.vectors import WordVectors
from xsent_lib.data.probing_sets import check_sizes
from xsent_lib.data.nli_corpus import NLICorpus, synthetic_nli
from xsent_lib.data.synthetic import PROBING_TASKS, SyntheticWorld
from xsent_lib.data.word_setup import WordSetup, build_word_setup
from xsent_lib.encoders import NLIClassifier, NLIModel
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.encoders.probing import make_encoder
from xsent_lib.eval.bleu import corpus_bleu
from xsent_lib.eval.probing import LOGREG_ONLY, probe_encoder
from xsent_lib.eval.stats import CorrelationResult
from xsent_lib.eval.transfer_suite import TABLE_3_7_COLUMNS, TransferSuite
from xsent_lib.results.claims import Claim, PaperCell
from xsent_lib.train import History
from xsent_lib.train.curves import fit_with_curve
from xsent_lib.train.nli import nli_accuracy, nli_batches, nli_step_loss
from xsent_lib.train.seq2seq import Seq2SeqConfig, Seq2SeqCorpus, exact_match, seq2seq_corpus, train_seq2seq

# The encoders of the study, by library name, with the thesis's row-group labels
# (Tables 3.10, 3.12, 3.13) and row labels (Table 3.11).
ENCODERS: dict[str, str] = {"bilstm-last": "BiLSTM-last", "bilstm-max": "BiLSTM-max", "gated-convnet": "GatedConvNet"}
TABLE_3_11_ROWS: dict[str, str] = {"gated-convnet": "Gated ConvNet", "bilstm-last": "BiLSTM-last",
                                   "bilstm-max": "BiLSTM-max"}
# Training tasks, by our key, with the thesis's row labels.
TRAINING_TASKS: dict[str, str] = {"untrained": "Untrained", "autoencoder": "AutoEncoder", "nmt-fr": "NMT En-Fr",
                                  "nmt-de": "NMT En-De", "nmt-fi": "NMT En-Fi", "seq2tree": "Seq2Tree",
                                  "skipthought": "SkipThought", "nli": "NLI"}
TABLE_3_11_COLUMNS: dict[str, str] = {"nmt-fr": "En-Fr", "nmt-de": "En-De", "nmt-fi": "En-Fi",
                                      "seq2tree": "Seq2Tree", "nli": "NLI"}
# Baseline rows, by the thesis's labels (group / name); BoV is spelled differently per table.
BASELINES = "Baseline representations"
MAJORITY_ROW = f"{BASELINES} / Majority vote"
CHANCE_ROW = f"{BASELINES} / Chance"
BOV_ROWS: dict[str, str] = {"table_3_10": f"{BASELINES} / BoV-fastText", "table_3_12": f"{BASELINES} / BoV fastText",
                            "table_3_13": f"{BASELINES} / BoV fastText"}
# Table 3.7 columns (the ``row`` of ``evaluate_transfer``) -> Table 3.13 columns. STS14 is not
# in Table 3.13; it keeps its own name so the correlation matrix can use it.
TABLE_3_13_COLUMNS: dict[str, str] = {"MR": "MR", "CR": "CR", "SUBJ": "SUBJ", "MPQA": "MPQA", "SST": "SST-2",
                                      "TREC": "TREC", "MRPC acc": "MRPC", "SICK-E": "SICK-E", "SICK-R": "SICK-R",
                                      "STS14 Pearson": "STS14"}
CORRELATION_COLUMNS = frozenset({"SICK-R", "STS14"})  # Pearson r, printed x 100


def row_label(arch: str, task: str) -> str:
    """The thesis's row label of encoder ``arch`` trained on ``task`` (Tables 3.10, 3.12, 3.13).

    Book: chapter 4 (Probing).
    """
    if arch not in ENCODERS or task not in TRAINING_TASKS:
        raise ValueError(f"unknown encoder {arch!r} or training task {task!r}; known "
                         f"{list(ENCODERS)} and {list(TRAINING_TASKS)}.")
    return f"{ENCODERS[arch]} encoder / {TRAINING_TASKS[task]}"


# --------------------------------------------------------------------------------- the plan
@dataclass(frozen=True)
class TrainSettings:
    """How the encoders are trained: sizes, optimisers, the decoder and the NLI head, the curves.

    Thesis: Adam for the BiLSTMs, SGD with momentum for the gated ConvNet (Adam gave very poor
    results there); decoder 2 layers x 512 fed the sentence vector at every step; NLI head an
    MLP of 100 hidden units; BiLSTM encoders of 2 layers (``lstm_layers``, the full plan's value).
    Our defaults shrink the decoder (``decoder_layers`` x ``decoder_dim``) and use one encoder
    layer; the learning rates, momentum 0.9 and the gradient clip at 5 are our
    choices (the thesis gives none). ``curve_points`` evaluations (plus one before training)
    make the per-epoch curves, each with ``curve_probe`` probes.
    Book: chapter 4 (Probing: training details).
    """

    epochs: int = 1
    batch_size: int = 128
    adam_lr: float = 2e-3
    sgd_lr: float = 0.05
    momentum: float = 0.9
    clip_norm: float = 5.0
    decoder_dim: int = 256
    decoder_layers: int = 1
    decoder_embed: int = 64
    nli_hidden: int = 100
    conv_layers: int = 4
    lstm_layers: int = 1
    curve_points: int = 4
    curve_probe: str = "logreg"
    probe_mode: str = "fast"
    eval_batch_size: int = 256

    def seq2seq_config(self, arch: str) -> Seq2SeqConfig:
        """The optimiser and decoder of encoder ``arch``: SGD for the ConvNet, else Adam.

        Book: chapter 4 (Probing: training details).
        """
        sgd = arch == "gated-convnet"
        return Seq2SeqConfig(self.epochs, self.batch_size, "sgd" if sgd else "adam",
                             self.sgd_lr if sgd else self.adam_lr, self.momentum if sgd else 0.0,
                             self.clip_norm, self.decoder_dim, self.decoder_layers,
                             self.decoder_embed, self.eval_batch_size)


@dataclass(frozen=True)
class ProbingPlan:
    """The sizes of one profile: probing sets, training data, encoders, downstream suite.

    ``real_data``: GloVe and real downstream sentences when cached (else skip-gram vectors
    and synthetic tasks); ``paper_data``: whether the plan is meant for the papers' data (the chapter
    reads ``data_dir`` at every profile; its sizes follow ``ch.data.limit``). The full plan trains
    2-layer BiLSTMs (``settings.lstm_layers``) on the real corpora of :data:`REAL_TRAINING_DATA`.
    Book: chapter 4 (Probing).
    """

    probe_sizes: tuple[int, int, int]  # (train, dev, test) of every probing task but WC
    wc_sizes: tuple[int, int, int]
    wc_classes: int | None  # WC target words kept (None: all of the world's)
    n_train: int  # examples per training task
    n_eval: int  # dev and test examples per training task
    settings: TrainSettings
    dims: dict[str, int]  # sentence-vector size per encoder
    tasks: tuple[str, ...]  # training tasks of every encoder
    extra_nmt: tuple[str, ...]  # BiLSTM-max only, for Figure 3.10
    size_dims: tuple[int, ...]  # besides dims["bilstm-max"], for Figure 3.12
    curve_sizes: tuple[int, int, int]  # probing sets of the curves
    downstream_single: int | None  # examples per single-sentence downstream task (None: all)
    downstream_pairs: tuple[int, int, int]  # NLI and STS downstream pairs
    brown_sizes: tuple[int, int, int] | None  # Brown probing sets (None: skipped)
    baseline_mode: str
    real_data: bool
    paper_data: bool = False


PLANS: dict[str, ProbingPlan] = {
    "smoke": ProbingPlan(
        probe_sizes=(90, 30, 45), wc_sizes=(150, 40, 60), wc_classes=15, n_train=128, n_eval=24,
        settings=TrainSettings(epochs=1, batch_size=32, decoder_dim=16, conv_layers=2, curve_points=2,
                               probe_mode="smoke"),
        dims={"bilstm-last": 16, "bilstm-max": 16, "gated-convnet": 16}, tasks=("autoencoder", "nmt-fr"),
        extra_nmt=(), size_dims=(8,), curve_sizes=(40, 20, 30), downstream_single=100,
        downstream_pairs=(60, 20, 30), brown_sizes=None, baseline_mode="fast", real_data=False),
    "book": ProbingPlan(
        probe_sizes=(1000, 200, 400), wc_sizes=(2000, 400, 400), wc_classes=100, n_train=4800, n_eval=300,
        settings=TrainSettings(epochs=2, batch_size=64, decoder_dim=128, conv_layers=4, curve_points=3),
        dims={"bilstm-last": 256, "bilstm-max": 256, "gated-convnet": 128},
        tasks=("autoencoder", "nmt-fr", "seq2tree", "skipthought", "nli"), extra_nmt=("nmt-de", "nmt-fi"),
        size_dims=(64, 128), curve_sizes=(600, 200, 300), downstream_single=800,
        downstream_pairs=(400, 150, 300), brown_sizes=(1200, 200, 400), baseline_mode="fast", real_data=True),
    "full": ProbingPlan(
        probe_sizes=(100_000, 10_000, 10_000), wc_sizes=(100_000, 10_000, 10_000), wc_classes=None,
        n_train=500_000, n_eval=10_000,
        settings=TrainSettings(epochs=10, batch_size=64, decoder_dim=512, decoder_layers=2, conv_layers=8,
                               lstm_layers=2, curve_points=10, probe_mode="full"),
        dims={"bilstm-last": 1024, "bilstm-max": 1024, "gated-convnet": 512},
        tasks=("autoencoder", "nmt-fr", "nmt-de", "nmt-fi", "seq2tree", "skipthought", "nli"), extra_nmt=(),
        size_dims=(256, 512, 2048, 4096), curve_sizes=(10_000, 2000, 2000), downstream_single=None,
        downstream_pairs=(5000, 1000, 2000), brown_sizes=(20_000, 2000, 2000), baseline_mode="full",
        real_data=True, paper_data=True),
}


def probing_word_setup(texts: Sequence[str], vectors: WordVectors | None = None, dim: int = 50,
                       seed: int = 0, source: str = "GloVe 6B") -> WordSetup:
    """Vocabulary and frozen input word vectors for every encoder of the chapter.

    With ``vectors`` (GloVe 50d when cached) every word of ``texts`` that has a vector is
    kept; without, skip-gram vectors of size ``dim`` are trained on ``texts`` themselves
    (gensim, seeded, cached). Other words map to ``<unk>``.
    Book: chapter 4 (Probing: the encoders).
    """
    if vectors is None:
        from xsent_lib.data.wordvecs import train_wordvecs

        vectors = train_wordvecs("en", sentences=list(texts), dim=dim, min_count=1, seed=seed)
        source = "skip-gram (gensim) on the chapter's own sentences"
    return build_word_setup(texts, vectors, dim=dim, seed=seed, source=source)


#: the real corpus of each training task in ``data_dir`` (a key of ``xsent_lib.data.sources.REAL_DATA``) and its files;
#: Seq2Tree has no real counterpart here (the thesis parsed its NMT data with a parser we do not ship)
REAL_TRAINING_DATA: dict[str, tuple[str, str]] = {
    "nli": ("snli", "snli_1.0/snli_1.0_{train,dev,test}.jsonl"),
    "autoencoder": ("monolingual", "monolingual/en.txt"),
    "skipthought": ("monolingual", "monolingual/en.txt (sentences in document order)"),
    "nmt-fr": ("bitext", "bitext/europarl-v7.fr-en.{en,fr}"),
    "nmt-de": ("bitext", "bitext/europarl-v7.de-en.{en,de}"),
    "nmt-fi": ("bitext", "bitext/europarl-v7.fi-en.{en,fi}"),
}


def real_training_corpus(data_dir: str | Path, task: str, n_train: int | None,
                         n_eval: int | None) -> Seq2SeqCorpus | NLICorpus:
    """Training ``task`` on the real corpus of :data:`REAL_TRAINING_DATA` in ``data_dir``: SNLI for NLI, Europarl
    (Moses files) for NMT, sentence-per-line English text for the auto-encoder and SkipThought (each sentence to
    the next one). Dev and test are the ``n_eval`` lines after the training lines (``None``: SNLI's own dev/test,
    else 1% each). Missing files raise FileNotFoundError naming them.
    Book: chapter 4 (Probing: the training tasks of the full profile).
    """
    from xsent_lib.data.formats import load_moses_bitext
    from xsent_lib.data.formats._io import read_lines
    from xsent_lib.data.nli_corpus import snli_corpus

    if task not in REAL_TRAINING_DATA:
        raise ValueError(f"no real corpus for training task {task!r}; real ones: {list(REAL_TRAINING_DATA)}.")
    root = Path(data_dir)
    if task == "nli":
        return snli_corpus(root, max_train=n_train, max_eval=n_eval)
    hint = f"training task {task} reads {REAL_TRAINING_DATA[task][1]} under data_dir"
    if task in ("autoencoder", "skipthought"):
        lines = [x for x in read_lines(root / "monolingual" / "en.txt", hint) if x.strip()]
        src, tgt = (lines, lines) if task == "autoencoder" else (lines[:-1], lines[1:])
        what = "English text -> the same sentence" if task == "autoencoder" else "sentence -> next sentence (real text)"
    else:
        lang = task.split("-")[1]
        total = None if n_train is None or n_eval is None else n_train + 2 * n_eval
        bi = load_moses_bitext(root / "bitext" / f"europarl-v7.{lang}-en", "en", lang, total)
        src, tgt = list(bi.source), list(bi.target)
        what = f"English -> {lang} (Europarl)"
    n = len(src)
    n_ev = n_eval if n_eval is not None else max(1, n // 100)
    n_tr = min(n - 2 * n_ev, n_train if n_train is not None else n)
    if n_tr < 1:
        raise ValueError(f"{hint}: {n} sentence pairs are too few for {n_ev} dev + {n_ev} test pairs.")
    cuts = {"train": slice(0, n_tr), "dev": slice(n_tr, n_tr + n_ev), "test": slice(n_tr + n_ev, n_tr + 2 * n_ev)}
    return Seq2SeqCorpus(task, {k: src[c] for k, c in cuts.items()}, {k: tgt[c] for k, c in cuts.items()}, what)


def probing_subset(task: ClassificationTask, sizes: Sequence[int | None], seed: int = 0) -> ClassificationTask:
    """Task ``task`` with each of its train / dev / test splits cut to a seeded random subset of ``sizes`` items
    (``None``: the whole split); e.g. a few hundred sentences of SentEval's 120k-sentence probing files in smoke.
    Book: chapter 4 (Probing).
    """
    from dataclasses import replace as dc_replace

    rng = np.random.default_rng(seed)
    wanted = dict(zip(("train", "dev", "test"), sizes))
    splits = {}
    for name, split in task.splits.items():
        n = wanted.get(name)
        keep = np.sort(rng.permutation(len(split.labels))[:n]) if n is not None else np.arange(len(split.labels))
        splits[name] = dc_replace(split, sentences=[split.sentences[i] for i in keep.tolist()],
                                  labels=np.asarray(split.labels)[keep])
    return dc_replace(task, splits=splits)


def training_corpus(world: SyntheticWorld, task: str, n_train: int, n_dev: int,
                    n_test: int) -> Seq2SeqCorpus | NLICorpus:
    """The data of training ``task``: English NLI pairs for ``nli``, else a seq2seq corpus.

    Book: chapter 4 (Probing: the training tasks).
    """
    if task == "nli":
        return synthetic_nli(world, *check_sizes((n_train, n_dev, n_test)))
    return seq2seq_corpus(world, task, n_train, n_dev, n_test)


# --------------------------------------------------------------------------------- training
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
        """The thesis's row label (``"BiLSTM-max encoder / NMT En-Fr"``). Book: chapter 4 (Probing)."""
        return row_label(self.arch, self.task)

    def summary(self) -> dict[str, Any]:
        """JSON-ready numbers (no weights). Book: chapter 4 (Probing)."""
        return {"arch": self.arch, "task": self.task, "dim": self.dim, "score": self.score, "seconds": self.seconds,
                "train_loss": list(self.history.train_loss) if self.history else [], "curve": self.curve}


def _train_nli(encoder: SentenceEncoder, data: NLICorpus, words: WordSetup, config: Seq2SeqConfig,
               hidden: int, seed: int, dev: torch.device, probe: Callable[..., Any] | None, points: int,
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
        raise TypeError(f"task {task!r} needs {'an NLICorpus' if is_nli else 'a Seq2SeqCorpus'} from training_corpus().")
    config = settings.seq2seq_config(arch)
    probe = None
    if curve_suite is not None:
        def probe(enc: SentenceEncoder) -> dict[str, float]:
            return probe_encoder(enc, curve_suite, settings.curve_probe, settings.probe_mode,
                                 seed + 1, dev, config.eval_batch_size)
    if is_nli:
        history, score, curve, seconds = _train_nli(encoder, data, words, config, settings.nli_hidden,
                                                    seed, dev, probe, settings.curve_points, progress)
    else:
        metric = {"skipthought": None, "seq2tree": ("exact", exact_match)}.get(task, ("bleu", corpus_bleu))
        run = train_seq2seq(encoder, data, words.pipeline, config, metric=metric, seed=seed, device=dev,
                            probe=probe, curve_points=settings.curve_points, progress=progress)
        history, score, curve, seconds = run.history, run.score, run.curve, run.seconds
    return TrainedEncoder(arch, task, encoder.output_dim, encoder, history, score, curve, seconds)


# --------------------------------------------------------------------------------- downstream
def downstream_scores(row: Mapping[str, float]) -> dict[str, float]:
    """Table 3.13's columns (accuracy, or Pearson x 100) from a transfer row (Table 3.7 columns).

    Columns Table 3.13 has no place for (MRPC F1, STS14 Spearman) are dropped; STS14 Pearson is
    kept as ``"STS14"`` for the correlation matrix.
    Book: chapter 4 (Probing: downstream tasks).
    """
    unknown = [c for c in row if c not in TABLE_3_13_COLUMNS and c not in ("MRPC F1", "STS14 Spearman")]
    if unknown:
        raise ValueError(f"no Table 3.13 column for {unknown}; a transfer row has {list(TABLE_3_13_COLUMNS)}.")
    return {TABLE_3_13_COLUMNS[c]: float(v) * (100.0 if TABLE_3_13_COLUMNS[c] in CORRELATION_COLUMNS else 1.0)
            for c, v in row.items() if c in TABLE_3_13_COLUMNS}


def chance_scores(suite: TransferSuite) -> dict[str, float]:
    """The thesis's "Chance" row of a transfer suite: the test share of the most frequent
    training class for classification tasks, 0 for correlations.

    Book: chapter 4 (Probing: downstream tasks).
    """
    out = {}
    for task in suite.tasks:
        for column in TABLE_3_7_COLUMNS.get(suite.papers.get(task.name, ""), {}):
            name = TABLE_3_13_COLUMNS.get(column)
            if name in CORRELATION_COLUMNS:
                out[name] = 0.0
            elif name is not None:
                both = task.splits.get("all")  # a cross-validated task: the majority share of its one split
                train = np.asarray((both or task.splits["train"]).labels)
                test = np.asarray((both or task.splits["test"]).labels)
                out[name] = 100.0 * float((test == np.bincount(train).argmax()).mean())
    return out


# --------------------------------------------------------------------------------- claims
U_MAX, AE, S2T, NMT, NLI = (row_label("bilstm-max", t) for t in ("untrained", "autoencoder", "seq2tree", "nmt-fr", "nli"))


def _cells(rows: Sequence[str], columns: Sequence[str], table: str = "table_3_10") -> list[PaperCell]:
    return [PaperCell("thesis", table, r, c) for r in rows for c in columns]


# Section 3.3's claims, each one comparison of numbers computed by claim_numbers.
CLAIMS: tuple[Claim, ...] = (
    Claim("Untrained BiLSTM-max is already strong on WC", "WC: untrained BiLSTM-max / majority", ">", 5,
          _cells([U_MAX, MAJORITY_ROW], ["WC"])),
    Claim("Untrained BiLSTM-max is well above chance on SOMO", "SOMO: untrained BiLSTM-max - majority", ">",
          5, _cells([U_MAX, MAJORITY_ROW], ["SOMO"])),
    Claim("Bag of vectors is good on SentLen", "SentLen: BoV / majority", ">", 2,
          _cells([BOV_ROWS["table_3_10"], MAJORITY_ROW], ["SentLen"])),
    Claim("Bag of vectors is good on WC", "WC: BoV / majority", ">", 10,
          _cells([BOV_ROWS["table_3_10"], MAJORITY_ROW], ["WC"])),
    Claim("Bag of vectors is near chance on BShift (word order)", "BShift: |BoV - majority|", "<", 5,
          _cells([BOV_ROWS["table_3_10"], MAJORITY_ROW], ["BShift"])),
    Claim("Trained encoders beat bag of vectors on BShift", "BShift: best trained BiLSTM-max - BoV", ">", 5,
          _cells([S2T, BOV_ROWS["table_3_10"]], ["BShift"]), "trained: NMT En-Fr and Seq2Tree"),
    Claim("BiLSTM-max beats BiLSTM-last (all tasks but SentLen)", "BiLSTM-max > BiLSTM-last: share", ">", 0.5,
          "on every task but SentLen (Table 3.10)", "share of (training, probing task) pairs"),
    Claim("The auto-encoder excels at SentLen", "SentLen: AutoEncoder - best other BiLSTM-max", ">=", 0,
          _cells([AE], ["SentLen"])),
    Claim("The auto-encoder is poor at WC", "WC: BiLSTM-max AutoEncoder", "<", "WC: untrained BiLSTM-max",
          _cells([AE, U_MAX], ["WC"])),
    Claim("Seq2Tree helps the syntactic tasks (TreeDepth, TopConst, BShift) most",
          "Seq2Tree - untrained BiLSTM-max: smallest syntactic gain", ">", 0,
          _cells([S2T, U_MAX], ["TreeDepth", "TopConst", "BShift"])),
    Claim("NMT encoders probe better than NLI encoders (but on WC)", "NMT En-Fr > NLI: share of tasks", ">",
          0.5, "NMT above NLI on 9 of 10 (Table 3.10)", "BiLSTM-max, WC left out"),
    Claim("The MLP probe gains over logistic regression", "MLP - logistic regression: mean gain", ">", 0,
          "BiLSTM-max NMT En-Fr: > 3 points on TreeDepth, SOMO and CoordInv (Tables 3.10, 3.12)",
          "BiLSTM-max NMT En-Fr (else untrained), WC left out"),
    Claim("WC keeps rising during NMT training", "WC during NMT training: smallest rise", ">", 0,
          "Figure 3.10", "last point minus the first after step 0"),
    Claim("SentLen drops during NMT training (after its peak)", "SentLen during NMT training: last - peak",
          "<", 0, "Figure 3.10", "largest over the NMT runs"),
    Claim("A larger embedding helps NLI encoders more than NMT encoders on probing",
          "NLI: mean gain smallest -> largest dim", ">", "NMT En-Fr: mean gain smallest -> largest dim",
          "Figure 3.12"),
    Claim("WC correlates positively and significantly with downstream tasks",
          "WC: share of downstream tasks (positive, significant)", ">", 0.5, "with all of them (Figure 3.11)"),
    Claim("SentLen correlates negatively with most downstream tasks",
          "SentLen: share of downstream tasks with negative rho", ">", 0.5, "negative for most (Figure 3.11)"),
)


def _share(wins: Sequence[bool]) -> float:
    return float(np.mean(wins)) if len(wins) else float("nan")


def claim_numbers(mlp: Mapping[str, Mapping[str, float]], logreg: Mapping[str, Mapping[str, float]],
                  curves: Mapping[str, Mapping[str, Any]],
                  sizes: Mapping[str, Mapping[int, Mapping[str, float]]],
                  correlation: CorrelationResult | None) -> dict[str, float]:
    """The numbers :data:`CLAIMS` compare, from Tables 3.10 / 3.12 (``mlp`` / ``logreg``: row
    label -> ``{task: accuracy}``), the curves, ``sizes`` (row -> ``{dim: {task: acc}}``) and the
    correlations; NaN (not testable) where the run lacks what a number needs.

    Book: chapter 4 (Probing: discussion).
    """
    nan = float("nan")

    def get(row: str, task: str, table: Mapping[str, Mapping[str, float]] = mlp) -> float:
        return float(table.get(row, {}).get(task, nan))

    def ratio(row: str, task: str) -> float:
        chance = get(MAJORITY_ROW, task)
        return get(row, task) / chance if chance > 0 else nan

    bov = BOV_ROWS["table_3_10"]
    tasks = [t for t in PROBING_TASKS if t in mlp.get(MAJORITY_ROW, {})]
    trained = [get(r, "BShift") for r in mlp if r.endswith(("Seq2Tree", "NMT En-Fr")) and "BiLSTM-max" in r]
    pairs = [(r, r.replace("BiLSTM-max", "BiLSTM-last")) for r in mlp if r.startswith("BiLSTM-max encoder")]
    others = [get(r, "SentLen") for r in mlp if r.startswith("BiLSTM-max encoder") and r != AE]
    both = NMT in mlp and NLI in mlp
    row = NMT if NMT in mlp and NMT in logreg else U_MAX
    gains = [get(row, t) - get(row, t, logreg) for t in tasks if t not in LOGREG_ONLY]
    nmt_curves = [c["probing"] for k, c in curves.items() if "NMT" in k]
    size_gain = {}
    if len(sizes) == 2 and all(len(s) >= 2 for s in sizes.values()):
        for k, by_dim in sizes.items():
            lo, hi = min(by_dim), max(by_dim)
            size_gain["NLI" if k.endswith("NLI") else "NMT" if "NMT" in k else k] = float(
                np.mean([by_dim[hi][t] - by_dim[lo][t] for t in by_dim[lo]]))
    out = {
        "WC: untrained BiLSTM-max / majority": ratio(U_MAX, "WC"),
        "SOMO: untrained BiLSTM-max - majority": get(U_MAX, "SOMO") - get(MAJORITY_ROW, "SOMO"),
        "SentLen: BoV / majority": ratio(bov, "SentLen"),
        "WC: BoV / majority": ratio(bov, "WC"),
        "BShift: |BoV - majority|": abs(get(bov, "BShift") - get(MAJORITY_ROW, "BShift")),
        "BShift: best trained BiLSTM-max - BoV": max(trained, default=nan) - get(bov, "BShift"),
        "BiLSTM-max > BiLSTM-last: share": _share([get(a, t) > get(b, t) for a, b in pairs if b in mlp
                                                   for t in tasks if t != "SentLen"]),
        "SentLen: AutoEncoder - best other BiLSTM-max": get(AE, "SentLen") - float(np.max(others or nan)),
        "WC: BiLSTM-max AutoEncoder": get(AE, "WC"),
        "WC: untrained BiLSTM-max": get(U_MAX, "WC"),
        "Seq2Tree - untrained BiLSTM-max: smallest syntactic gain": float(np.min(
            [get(S2T, t) - get(U_MAX, t) for t in ("TreeDepth", "TopConst", "BShift")])),
        "NMT En-Fr > NLI: share of tasks": _share([get(NMT, t) > get(NLI, t) for t in tasks
                                                   if t != "WC"]) if both else nan,
        "MLP - logistic regression: mean gain": float(np.mean(gains)) if gains else nan,
        "WC during NMT training: smallest rise": min(
            [p["WC"][-1] - p["WC"][1] for p in nmt_curves if len(p.get("WC", ())) > 2], default=nan),
        "SentLen during NMT training: last - peak": max(
            [p["SentLen"][-1] - max(p["SentLen"][1:] or p["SentLen"]) for p in nmt_curves
             if "SentLen" in p], default=nan),
        "NLI: mean gain smallest -> largest dim": size_gain.get("NLI", nan),
        "NMT En-Fr: mean gain smallest -> largest dim": size_gain.get("NMT", nan),
        "WC: share of downstream tasks (positive, significant)": nan,
        "SentLen: share of downstream tasks with negative rho": nan,
    }
    if correlation is not None:
        sig, block = correlation.significant, correlation.block
        if "WC" in sig.index:
            out["WC: share of downstream tasks (positive, significant)"] = float(
                ((block.loc["WC"] > 0) & sig.loc["WC"]).sum() / sig.shape[1])
        if "SentLen" in sig.index:
            out["SentLen: share of downstream tasks with negative rho"] = float(
                (block.loc["SentLen"] < 0).sum() / sig.shape[1])
    return out
