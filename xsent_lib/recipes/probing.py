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
from xsent_lib.data.formats.containers import ClassificationTask, PairTask, SentencePairs
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
from xsent_lib.eval.suite import SuiteSizes, SuiteTask
from xsent_lib.eval.transfer_suite import TABLE_3_7_COLUMNS, TABLE_3_13_EXTRA, TransferSuite, transfer_suite
from xsent_lib.results.claims import Claim, PaperCell, Weaker
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
# Table 3.7 columns (the ``row`` of ``evaluate_transfer``, with Table 3.13's SST-5 and STS-B) -> Table 3.13
# columns. STS14 is not in Table 3.13; it keeps its own name so the correlation matrix can use it.
TABLE_3_13_COLUMNS: dict[str, str] = {"MR": "MR", "CR": "CR", "SUBJ": "SUBJ", "MPQA": "MPQA", "SST": "SST-2",
                                      "SST-5": "SST-5", "TREC": "TREC", "MRPC acc": "MRPC", "SICK-E": "SICK-E",
                                      "SICK-R": "SICK-R", "STS-B": "STSB", "STS14 Pearson": "STS14"}
TABLE_3_13_PAPER: tuple[str, ...] = ("MR", "CR", "SUBJ", "MPQA", "SST-2", "SST-5", "TREC", "MRPC", "SICK-E",
                                     "SICK-R", "STSB")  # the thesis's eleven columns, in its order
CORRELATION_COLUMNS = frozenset({"SICK-R", "STSB", "STS14"})  # Pearson r, printed x 100


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
        probe_sizes=(800, 200, 400), wc_sizes=(1600, 400, 400), wc_classes=100, n_train=4800, n_eval=300,
        settings=TrainSettings(epochs=2, batch_size=64, decoder_dim=128, conv_layers=4, curve_points=3),
        dims={"bilstm-last": 256, "bilstm-max": 256, "gated-convnet": 128},
        tasks=("autoencoder", "nmt-fr", "seq2tree", "skipthought", "nli"), extra_nmt=("nmt-de", "nmt-fi"),
        size_dims=(64, 128), curve_sizes=(600, 200, 300), downstream_single=500,
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


STSB_STANDIN = "Syn-STSB"


def downstream_suite(seed: int, sizes: SuiteSizes, real: bool = True) -> TransferSuite:
    """Table 3.13's downstream tasks: chapter 3's transfer suite with its SST-5 stand-in (VADER's movie
    snippets in five classes, chapter 2's, when ``real`` and cached), and an STS-B stand-in.

    STS-B stand-in (``Syn-STSB``): SentEval's STS-B trains a relatedness head on 0-5 graded pairs; here the
    same head is trained on graded pairs of the synthetic world drawn from another world seed (``seed + 2``)
    than the SICK-R and STS14 stand-ins (``seed + 1``), ``sizes.sts`` pairs per split, so the two
    relatedness columns do not share their sentences.
    Book: chapter 4 (Probing: downstream tasks).
    """
    suite = transfer_suite(seed, sizes, real=real, extra=("SST-5",))
    world = SyntheticWorld(seed + 2)
    pairs = {split: world.sts(n, "en", split=split) for split, n in zip(("train", "dev", "test"), sizes.sts)}
    task = SuiteTask(STSB_STANDIN, "STS-B", "relatedness", "graded similarity, trained head (another world seed)",
                     "synthetic world", PairTask(STSB_STANDIN, {k: SentencePairs(v.a, v.b, v.score)
                                                                for k, v in pairs.items()}), score_range=(0, 5))
    return TransferSuite([*suite.tasks, task.evaluator()], {**suite.papers, STSB_STANDIN: "STS-B"},
                         {**suite.standins, STSB_STANDIN: f"{task.source}: {task.description}"}, list(suite.notes),
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
                both = task.splits.get("all")  # a cross-validated task: the majority share of its one split
                train = np.asarray((both or task.splits["train"]).labels)
                test = np.asarray((both or task.splits["test"]).labels)
                out[name] = 100.0 * float((test == np.bincount(train).argmax()).mean())
    return out


# --------------------------------------------------------------------------------- claims
U_MAX, AE, S2T, NMT, NLI = (row_label("bilstm-max", t) for t in ("untrained", "autoencoder", "seq2tree", "nmt-fr", "nli"))


def _cells(rows: Sequence[str], columns: Sequence[str], table: str = "table_3_10") -> list[PaperCell]:
    return [PaperCell("thesis", table, r, c) for r in rows for c in columns]


SEQ2TREE_TASKS = ("TopConst", "Tense", "SubjNum", "ObjNum", "TreeDepth")  # the tasks the thesis names for Seq2Tree
BOV_RANDOM_TASKS = ("BShift", "SOMO", "CoordInv")  # where the thesis finds BoV "performs randomly"
MLP_GAIN_TASKS = ("TreeDepth", "SOMO", "CoordInv")  # where it finds the MLP > 3 points above LogReg
CHANCE_MARGIN = 5.0  # points from the majority vote that still read as "random" (the paper's BoV: at most 4.8)

# Section 3.3's claims in the thesis's words, each one test of numbers computed by claim_numbers: the strict
# test at the thesis's threshold ("all", "every", "only"), and where our run can only support less, a weaker
# form with its threshold, shown beside it.
CLAIMS: tuple[Claim, ...] = (
    Claim("'BiLSTM-max already achieves very good performance without any training': WC",
          "WC: untrained BiLSTM-max / majority", ">", 5, _cells([U_MAX, MAJORITY_ROW], ["WC"]),
          note="'very good' read as more than 5 x the majority vote (the paper: 88.8 against 0.5)"),
    Claim("'BiLSTM-max already achieves very good performance without any training': SOMO, 'where BoV fails'",
          "SOMO: untrained BiLSTM-max - majority", ">", CHANCE_MARGIN, _cells([U_MAX, MAJORITY_ROW], ["SOMO"]),
          note=f"more than {CHANCE_MARGIN:g} points above the majority vote (the paper: 73.3 against 50)"),
    Claim("'BoV's good WC and SentLen performance': SentLen", "SentLen: BoV / majority", ">", 2,
          _cells([BOV_ROWS["table_3_10"], MAJORITY_ROW], ["SentLen"]),
          note="'good' read as more than twice the majority vote (the paper: 66.6 against 20)"),
    Claim("'BoV's good WC and SentLen performance': WC", "WC: BoV / majority", ">", 10,
          _cells([BOV_ROWS["table_3_10"], MAJORITY_ROW], ["WC"]),
          note="'good' read as more than 10 x the majority vote (the paper: 91.6 against 0.5)"),
    Claim("'word-order-unaware BoV performs randomly in BShift and in the more sophisticated semantic tasks SOMO "
          "and CoordInv'", "BoV: largest distance from majority on BShift, SOMO, CoordInv", "<", CHANCE_MARGIN,
          _cells([BOV_ROWS["table_3_10"], MAJORITY_ROW], list(BOV_RANDOM_TASKS)),
          note=f"'randomly' read as within {CHANCE_MARGIN:g} points of the majority vote on each of the three",
          weaker=Weaker(f"within {CHANCE_MARGIN:g} points on BShift (word order) alone",
                        "BShift: |BoV - majority|", "<", CHANCE_MARGIN)),
    Claim("'proper encoding architectures clearly outperform BoV': BShift", "BShift: best trained BiLSTM-max - BoV",
          ">", CHANCE_MARGIN, _cells([S2T, BOV_ROWS["table_3_10"]], ["BShift"]),
          note=f"more than {CHANCE_MARGIN:g} points; trained: NMT En-Fr and Seq2Tree"),
    Claim("'BiLSTM-max outperforms BiLSTM-last ... the latter only outperforms the former in SentLen'",
          "BiLSTM-max > BiLSTM-last: share", "==", 1.0, "on every task but SentLen, for every training (Table 3.10)",
          note="share of (training, probing task) pairs, SentLen left out",
          weaker=Weaker("on more than half of the pairs", "BiLSTM-max > BiLSTM-last: share", ">", 0.5)),
    Claim("'AutoEncoder training leads, unsurprisingly, to a model excelling at SentLen'",
          "SentLen: AutoEncoder - best other BiLSTM-max", ">=", 0, _cells([AE], ["SentLen"]),
          note="the auto-encoder's SentLen at least every other BiLSTM-max training's"),
    Claim("'but it attains low performance in the WC prediction task'", "WC: BiLSTM-max AutoEncoder", "<",
          "WC: untrained BiLSTM-max", _cells([AE, U_MAX], ["WC"]), note="below the untrained encoder"),
    Claim("'its [Seq2Tree's] high performance on TopConst, Tense, SubjNum, ObjNum and TreeDepth'",
          "Seq2Tree best BiLSTM-max training: tasks", "==", "Seq2Tree tasks compared",
          _cells([S2T], list(SEQ2TREE_TASKS)), note="Seq2Tree the best BiLSTM-max training on each of the five",
          weaker=Weaker("above the untrained encoder on each of the five",
                        "Seq2Tree - untrained BiLSTM-max: smallest gain on the five", ">", 0)),
    Claim("'NMT training leads to encoders that are more linguistically aware than those trained on the NLI data "
          "set ... the one task where NLI clearly outperforms NMT is WC'", "NMT En-Fr > NLI: share of tasks", "==",
          1.0, "NMT above NLI on 9 of 10 (Table 3.10)", note="BiLSTM-max, WC left out",
          weaker=Weaker("on more than half of the nine", "NMT En-Fr > NLI: share of tasks", ">", 0.5)),
    Claim("'the tasks where the improvement from logistic regression to MLP is relatively large (>3%) are ... "
          "(TreeDepth, SOMO, CoordInv)'", "MLP - logistic regression: smallest gain on TreeDepth, SOMO, CoordInv",
          ">", 3.0, "BiLSTM-max NMT En-Fr (Tables 3.10, 3.12)",
          note="BiLSTM-max NMT En-Fr (else untrained)",
          weaker=Weaker("the MLP gains on average over the tasks (WC left out)",
                        "MLP - logistic regression: mean gain", ">", 0)),
    Claim("'For both NMT and SkipThought, WC performance keeps increasing with epochs'",
          "WC during NMT and SkipThought training: smallest rise", ">", 0, "Figure 3.10",
          note="last point minus the first after step 0, every NMT and SkipThought curve",
          weaker=Weaker("for the NMT curves alone", "WC during NMT training: smallest rise", ">", 0)),
    Claim("'SentLen performance is actually decreasing'", "SentLen during NMT training: last - peak", "<", 0,
          "Figure 3.10", note="last point minus the peak, largest over the NMT runs"),
    Claim("'increasing the embedding dimension ... is beneficial ... for probing tasks in the case of NLI. However, "
          "it does not seem to boost the performance of the NMT En-Fr encoder'",
          "NLI: mean gain smallest -> largest dim", ">", 0, "Figure 3.12",
          also=(("NMT En-Fr: mean gain smallest -> largest dim", "<=", 0),),
          weaker=Weaker("size helps the NLI encoder more than the NMT one", "NLI: mean gain smallest -> largest dim",
                        ">", "NMT En-Fr: mean gain smallest -> largest dim")),
    Claim("'WC is significantly positively correlated with all downstream tasks'",
          "WC: share of downstream tasks (positive, significant)", "==", 1.0, "with all of them (Figure 3.11)",
          weaker=Weaker("with more than half of them", "WC: share of downstream tasks (positive, significant)",
                        ">", 0.5)),
    Claim("'there is a significant negative correlation between SentLen and most downstream tasks'",
          "SentLen: share of downstream tasks (negative, significant)", ">", 0.5, "negative for most (Figure 3.11)",
          note="'most' read as more than half",
          weaker=Weaker("negative (significant or not) for more than half",
                        "SentLen: share of downstream tasks with negative rho", ">", 0.5)),
    Claim("'we also confirm Conneau et al.'s finding that NLI is the best source task for pre-training' "
          "(Table 3.13)", "downstream mean: BiLSTM-max NLI", ">", "downstream mean: best other BiLSTM-max training",
          _cells([NLI, NMT], ["MR", "SICK-E"], "table_3_13"),
          note="mean over Table 3.13's columns the run has (correlations x 100)"),
    Claim("'BiLSTM-max is already effective without training, and more so than the alternative architectures' "
          "(Table 3.13)", "downstream mean: untrained BiLSTM-max", ">", "downstream mean: best other untrained",
          _cells([U_MAX, row_label("bilstm-last", "untrained")], ["MR", "SICK-E"], "table_3_13"),
          note="mean over Table 3.13's columns the run has (correlations x 100)"),
)


def _share(wins: Sequence[bool]) -> float:
    return float(np.mean(wins)) if len(wins) else float("nan")


def claim_numbers(mlp: Mapping[str, Mapping[str, float]], logreg: Mapping[str, Mapping[str, float]],
                  curves: Mapping[str, Mapping[str, Any]],
                  sizes: Mapping[str, Mapping[int, Mapping[str, float]]],
                  correlation: CorrelationResult | None,
                  downstream: Mapping[str, Mapping[str, float]] | None = None) -> dict[str, float]:
    """The numbers :data:`CLAIMS` compare, from Tables 3.10 / 3.12 (``mlp`` / ``logreg``: row
    label -> ``{task: accuracy}``), the curves, ``sizes`` (row -> ``{dim: {task: acc}}``), the
    correlations and Table 3.13 (``downstream``: row label -> ``{column: score}``); NaN (not testable)
    where the run lacks what a number needs.

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
    big_gains = [get(row, t) - get(row, t, logreg) for t in MLP_GAIN_TASKS if t in tasks]
    nmt_curves = [c["probing"] for k, c in curves.items() if "NMT" in k]
    wc_curves = [c["probing"] for k, c in curves.items() if "NMT" in k or "SkipThought" in k]
    size_gain = {}
    if len(sizes) == 2 and all(len(s) >= 2 for s in sizes.values()):
        for k, by_dim in sizes.items():
            lo, hi = min(by_dim), max(by_dim)
            size_gain["NLI" if k.endswith("NLI") else "NMT" if "NMT" in k else k] = float(
                np.mean([by_dim[hi][t] - by_dim[lo][t] for t in by_dim[lo]]))
    max_rows = [r for r in mlp if r.startswith("BiLSTM-max encoder") and r != S2T]
    s2t_tasks = [t for t in SEQ2TREE_TASKS if t in tasks] if S2T in mlp and max_rows else []

    def wc_rise(curve_set: Sequence[Mapping[str, Sequence[float]]]) -> float:
        return min([p["WC"][-1] - p["WC"][1] for p in curve_set if len(p.get("WC", ())) > 2], default=nan)

    out = {
        "WC: untrained BiLSTM-max / majority": ratio(U_MAX, "WC"),
        "SOMO: untrained BiLSTM-max - majority": get(U_MAX, "SOMO") - get(MAJORITY_ROW, "SOMO"),
        "SentLen: BoV / majority": ratio(bov, "SentLen"),
        "WC: BoV / majority": ratio(bov, "WC"),
        "BShift: |BoV - majority|": abs(get(bov, "BShift") - get(MAJORITY_ROW, "BShift")),
        "BoV: largest distance from majority on BShift, SOMO, CoordInv": float(np.max(
            [abs(get(bov, t) - get(MAJORITY_ROW, t)) for t in BOV_RANDOM_TASKS])),
        "BShift: best trained BiLSTM-max - BoV": max(trained, default=nan) - get(bov, "BShift"),
        "BiLSTM-max > BiLSTM-last: share": _share([get(a, t) > get(b, t) for a, b in pairs if b in mlp
                                                   for t in tasks if t != "SentLen"]),
        "SentLen: AutoEncoder - best other BiLSTM-max": get(AE, "SentLen") - float(np.max(others or nan)),
        "WC: BiLSTM-max AutoEncoder": get(AE, "WC"),
        "WC: untrained BiLSTM-max": get(U_MAX, "WC"),
        "Seq2Tree best BiLSTM-max training: tasks": float(sum(
            get(S2T, t) > max(get(r, t) for r in max_rows) for t in s2t_tasks)) if s2t_tasks else nan,
        "Seq2Tree tasks compared": float(len(s2t_tasks)) if s2t_tasks else nan,
        "Seq2Tree - untrained BiLSTM-max: smallest gain on the five": float(np.min(
            [get(S2T, t) - get(U_MAX, t) for t in SEQ2TREE_TASKS])),
        "NMT En-Fr > NLI: share of tasks": _share([get(NMT, t) > get(NLI, t) for t in tasks
                                                   if t != "WC"]) if both else nan,
        "MLP - logistic regression: mean gain": float(np.mean(gains)) if gains else nan,
        "MLP - logistic regression: smallest gain on TreeDepth, SOMO, CoordInv": float(np.min(big_gains))
        if len(big_gains) == len(MLP_GAIN_TASKS) else nan,
        "WC during NMT training: smallest rise": wc_rise(nmt_curves),
        "WC during NMT and SkipThought training: smallest rise": wc_rise(wc_curves)
        if len(wc_curves) > len(nmt_curves) else nan,
        "SentLen during NMT training: last - peak": max(
            [p["SentLen"][-1] - max(p["SentLen"][1:] or p["SentLen"]) for p in nmt_curves
             if "SentLen" in p], default=nan),
        "NLI: mean gain smallest -> largest dim": size_gain.get("NLI", nan),
        "NMT En-Fr: mean gain smallest -> largest dim": size_gain.get("NMT", nan),
        "WC: share of downstream tasks (positive, significant)": nan,
        "SentLen: share of downstream tasks (negative, significant)": nan,
        "SentLen: share of downstream tasks with negative rho": nan,
    }
    if correlation is not None:
        sig, block = correlation.significant, correlation.block
        if "WC" in sig.index:
            out["WC: share of downstream tasks (positive, significant)"] = float(
                ((block.loc["WC"] > 0) & sig.loc["WC"]).sum() / sig.shape[1])
        if "SentLen" in sig.index:
            out["SentLen: share of downstream tasks (negative, significant)"] = float(
                ((block.loc["SentLen"] < 0) & sig.loc["SentLen"]).sum() / sig.shape[1])
            out["SentLen: share of downstream tasks with negative rho"] = float(
                (block.loc["SentLen"] < 0).sum() / sig.shape[1])
    out.update(_downstream_numbers(downstream or {}))
    return out


def _downstream_numbers(table: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Table 3.13's claim numbers: mean score per row over the columns every row compared has."""
    nan = float("nan")

    def mean(rows: Sequence[str]) -> dict[str, float]:
        cols = [c for c in TABLE_3_13_PAPER if all(c in table[r] and np.isfinite(table[r][c]) for r in rows)]
        return {r: float(np.mean([table[r][c] for c in cols])) for r in rows} if cols else {}

    out = dict.fromkeys(("downstream mean: BiLSTM-max NLI", "downstream mean: best other BiLSTM-max training",
                         "downstream mean: untrained BiLSTM-max", "downstream mean: best other untrained"), nan)
    max_rows = [r for r in table if r.startswith("BiLSTM-max encoder") and "(" not in r]
    if NLI in max_rows and len(max_rows) > 1:
        m = mean(max_rows)
        if m:
            out["downstream mean: BiLSTM-max NLI"] = m[NLI]
            out["downstream mean: best other BiLSTM-max training"] = max(v for r, v in m.items() if r != NLI)
    untrained = [row_label(a, "untrained") for a in ENCODERS if row_label(a, "untrained") in table]
    if U_MAX in untrained and len(untrained) > 1:
        m = mean(untrained)
        if m:
            out["downstream mean: untrained BiLSTM-max"] = m[U_MAX]
            out["downstream mean: best other untrained"] = max(v for r, v in m.items() if r != U_MAX)
    return out
