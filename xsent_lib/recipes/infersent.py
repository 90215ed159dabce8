"""The InferSent recipe (thesis section 3.2): NLI data, the seven encoders trained with the thesis schedule,
NLI and transfer evaluation, embedding-size sweeps, COCO-style ranking on a stand-in, max-pool attribution.

Every step is a function over library parts: encoders from :mod:`xsent_lib.encoders`, the loop
:func:`xsent_lib.train.fit` with :class:`~xsent_lib.train.InferSentSchedule`, the loss
:func:`xsent_lib.losses.nli.nli_loss`, the SentEval-style engine of :mod:`xsent_lib.eval` and chapter 2's
transfer suite (:mod:`xsent_lib.recipes.senteval`).
Accuracies are in percent and correlations in [-1, 1], as the thesis's tables print them.
Book: chapter 3 (InferSent).
"""
from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np
import torch

from xsent_lib.data.formats import NLIData, load_snli
from xsent_lib.data.formats.vectors import WordVectors
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.synthetic.forms import Forms
from xsent_lib.encoders import BagOfVectorsEncoder, NLIClassifier, NLIModel, RecurrentEncoder, build_encoder
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.eval import Evaluation, RankingTask, batcher_from_encoder
from xsent_lib.losses.nli import nli_loss
from xsent_lib.recipes.senteval import Suite, SuiteSizes, offline_suite, senteval_suite
from xsent_lib.base.runtime import pick_device, seed_everything
from xsent_lib.text import BOS_TOKEN, EOS_TOKEN, PAD_TOKEN, UNK_TOKEN, TextPipeline, Vocab, WordTokenizer
from xsent_lib.text.batching import length_buckets, pad_csr, shuffled_length_batches
from xsent_lib.train import History, InferSentSchedule, fit

# The seven encoders of thesis Table 3.6, in the table's order, with the table's row labels.
SEVEN: tuple[str, ...] = ("lstm", "gru", "bigru-last", "bilstm-mean", "inner-attention", "hconvnet", "bilstm-max")
PAPER_ROWS: dict[str, str] = {"lstm": "LSTM", "gru": "GRU", "bigru-last": "BiGRU-last", "bilstm-mean": "BiLSTM-Mean",
                              "inner-attention": "Inner-attention", "hconvnet": "HConvNet", "bilstm-max": "BiLSTM-Max"}
# Table 3.7 columns filled by each SentEval task, keyed by the SentEval name a suite task stands in for
# (``SuiteTask.paper`` of :mod:`xsent_lib.recipes.senteval`); STS'14 is the mean over its subsets.
TABLE_3_7_COLUMNS: dict[str, dict[str, str]] = {
    "MR": {"MR": "acc"}, "CR": {"CR": "acc"}, "SUBJ": {"SUBJ": "acc"}, "MPQA": {"MPQA": "acc"},
    "SST-2": {"SST": "acc"}, "TREC": {"TREC": "acc"}, "MRPC": {"MRPC acc": "acc", "MRPC F1": "f1"},
    "SICK-R": {"SICK-R": "pearson"}, "SICK-E": {"SICK-E": "acc"},
    "STS'14": {"STS14 Pearson": "pearson", "STS14 Spearman": "spearman"},
}
# SentEval's own tasks of Table 3.7, by the loader names of xsent_lib.recipes.senteval.senteval_suite.
SENTEVAL_TABLE_3_7: tuple[str, ...] = ("MR", "CR", "SUBJ", "MPQA", "SST2", "TREC", "MRPC", "SICK-E", "SICK-R",
                                       "STS14")
# Words that carry no content in the max-pool analysis (determiners, auxiliaries, negation, connectives,
# prepositions, pronouns, punctuation); every other word of a sentence counts as a content word.
FUNCTION_WORDS: frozenset[str] = frozenset(
    "a an the this that these those some any no not n't do does did will would can could should is are was were be "
    "been being am has have had and but or because when after before while if so then there here who whom which "
    "whose what in on at of to from by with without for into onto over under behind near above below beside "
    "between through across along around up down off out he she it they we you i him her them us me his its their "
    "our your my earlier tomorrow yesterday today now . , ; : ! ? ' \"".split())


# --------------------------------------------------------------------------------------------- sizes
def encoder_size_kwargs(name: str, width: int) -> dict[str, int]:
    """Constructor sizes of encoder ``name`` at ``width`` (the per-direction BiLSTM size; the thesis uses 2048).

    At width 2048 these give the dimensions of Table 3.6: LSTM 2048, GRU 4096, BiGRU-last / BiLSTM
    2 x 2048, inner attention 4 views x 2 x 512 = 4096, hierarchical ConvNet 4 layers x 1024 = 4096.
    Smaller widths scale every encoder by the same factor.
    Book: chapter 3 (InferSent: the seven encoders).
    """
    if not isinstance(width, (int, np.integer)) or isinstance(width, bool) or width < 4 or width % 4:
        raise ValueError(f"width must be a positive multiple of 4 (inner attention uses width/4), got {width!r}.")
    width = int(width)
    sizes = {"lstm": {"hidden_dim": width}, "gru": {"hidden_dim": 2 * width}, "bigru-last": {"hidden_dim": width},
             "bilstm-mean": {"hidden_dim": width}, "bilstm-max": {"hidden_dim": width},
             "inner-attention": {"hidden_dim": width // 4, "num_views": 4}, "hconvnet": {"channels": width // 2}}
    if name not in sizes:
        raise ValueError(f"unknown encoder {name!r}; the seven of Table 3.6 are {list(SEVEN)}.")
    return sizes[name]


# Encoders at most this wide (per direction) run on one CPU thread: their kernels take microseconds, and two
# threads that must meet at every time step's barrier make a busy 2-core machine many times slower (our choice).
SMALL_WIDTH = 128


@contextmanager
def cpu_threads_for(width: int, device: str | torch.device = "auto") -> Iterator[None]:
    """Run the block on one torch thread when ``device`` is the CPU and ``width`` <= :data:`SMALL_WIDTH`.

    The previous thread count is restored afterwards; GPUs and wide encoders are left alone.
    Book: chapter 3 (InferSent: training details).
    """
    if pick_device(device).type != "cpu" or width > SMALL_WIDTH:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


# --------------------------------------------------------------------------------------------- NLI data
@dataclass
class NLICorpus:
    """Train / dev / test NLI pairs (labels 0 entailment, 1 neutral, 2 contradiction) and where they come from.

    Book: chapter 3 (InferSent).
    """

    train: NLIData
    dev: NLIData
    test: NLIData
    source: str

    def sentences(self) -> list[str]:
        """Every premise and hypothesis of the three splits. Book: chapter 3 (InferSent)."""
        return [s for d in (self.train, self.dev, self.test) for s in (*d.premises, *d.hypotheses)]


def synthetic_nli(world: SyntheticWorld, n_train: int, n_dev: int, n_test: int) -> NLICorpus:
    """English NLI pairs of the synthetic world, labels exact under the logical forms (stands in for SNLI).

    Book: chapter 3 (InferSent).
    """
    if not isinstance(world, SyntheticWorld):
        raise TypeError(f"world must be a SyntheticWorld, got {type(world).__name__}.")
    if min(n_train, n_dev, n_test) < 1:
        raise ValueError(f"every split needs at least one pair, got {n_train}, {n_dev}, {n_test}.")
    sets = {s: world.nli(n, s, "en") for s, n in (("train", n_train), ("dev", n_dev), ("test", n_test))}
    data = {s: NLIData(list(d.premise), list(d.hypothesis), np.asarray(d.label, np.int64)) for s, d in sets.items()}
    return NLICorpus(**data, source=f"synthetic world (seed {world.seed}) English NLI")


def snli_corpus(data_dir: str | Path, max_train: int | None = None) -> NLICorpus:
    """SNLI 1.0 train / dev / test from ``data_dir/snli_1.0/`` (pairs without a gold label are dropped).

    Book: chapter 3 (InferSent).
    """
    return NLICorpus(load_snli(data_dir, "train", max_train), load_snli(data_dir, "dev"), load_snli(data_dir, "test"),
                     source=f"SNLI 1.0 from {data_dir}")


# --------------------------------------------------------------------------------------------- word vectors
@dataclass
class WordSetup:
    """The vocabulary and input word vectors shared by every encoder of the chapter.

    ``pipeline`` adds InferSent's ``<s>``/``</s>``; ``bow_pipeline`` has the same vocabulary without them
    (for the bag-of-words baseline). ``weights`` is ``[len(vocab), dim]``; ``frozen`` says whether the
    encoders keep them fixed (GloVe, as in the thesis) or train them (random vectors, no GloVe at hand).
    ``coverage`` is the share of the corpus's word occurrences that have their own vector.
    Book: chapter 3 (InferSent).
    """

    pipeline: TextPipeline
    bow_pipeline: TextPipeline
    weights: np.ndarray
    frozen: bool
    source: str
    coverage: float

    @property
    def dim(self) -> int:
        """Word-vector dimension. Book: chapter 3 (InferSent)."""
        return int(self.weights.shape[1])


def build_word_setup(sentences: Sequence[str], vectors: WordVectors | None = None, dim: int = 50,
                     extra_words: int = 0, seed: int = 0, source: str = "GloVe") -> WordSetup:
    """Vocabulary + word vectors for ``sentences``: pretrained and frozen when ``vectors`` is given, else random.

    With ``vectors`` (lower-cased GloVe), the vocabulary holds every corpus word that has a vector plus the
    ``extra_words`` most frequent words of ``vectors`` (so sentences typed later are covered); other words
    map to ``<unk>`` (InferSent drops them instead). ``<unk>``, ``<s>``, ``</s>`` get seeded random vectors
    with the spread of the pretrained ones. Without ``vectors`` every corpus word gets an N(0, 1) vector of
    size ``dim`` that the encoders train. ``source`` names the pretrained vectors in :attr:`WordSetup.source`.
    Book: chapter 3 (InferSent).
    """
    tokenizer = WordTokenizer(lowercase=True)
    token_lists = tokenizer.tokenize_batch(sentences)
    counts = Counter(chain.from_iterable(token_lists))
    if not counts:
        raise ValueError("the sentences hold no word; pass the corpus the encoders will read.")
    specials = [PAD_TOKEN, UNK_TOKEN, BOS_TOKEN, EOS_TOKEN]
    rng = np.random.default_rng(seed)
    if vectors is None:
        vocab = Vocab.build(token_lists, specials=specials)
        weights = rng.normal(0.0, 1.0, (len(vocab), dim)).astype(np.float32)
        frozen, source, coverage = False, f"random N(0, 1) {dim}-d vectors, trained with the encoder", 1.0
    else:
        if not isinstance(vectors, WordVectors):
            raise TypeError(f"vectors must be WordVectors (e.g. load_glove50()), got {type(vectors).__name__}.")
        known = sorted((w for w in counts if w in vectors.word2id), key=lambda w: (-counts[w], w))
        extra = [w for w in vectors.words[: max(int(extra_words), 0)] if w not in counts and w not in specials]
        tokens = specials + [w for w in known if w not in specials] + extra
        vocab = Vocab(tokens, [0] * len(specials) + [counts.get(w, 0) for w in tokens[len(specials):]])
        rows = np.fromiter((vectors.word2id[w] for w in tokens[len(specials):]), np.int64, len(tokens) - len(specials))
        spread = float(vectors.vectors[rows].std()) if rows.size else 1.0
        weights = np.vstack([rng.normal(0.0, spread, (len(specials), vectors.vectors.shape[1])),
                             vectors.vectors[rows]]).astype(np.float32)
        frozen, source = True, f"{source} {vectors.vectors.shape[1]}-d vectors, fixed"
        coverage = sum(counts[w] for w in known) / sum(counts.values())
    weights[0] = 0.0
    pipeline = TextPipeline(tokenizer, vocab, bos=BOS_TOKEN, eos=EOS_TOKEN)
    return WordSetup(pipeline, TextPipeline(tokenizer, vocab), weights, frozen, source, float(coverage))


# --------------------------------------------------------------------------------------------- training
@dataclass(frozen=True)
class InferSentConfig:
    """The thesis's NLI training recipe; ``width`` scales the encoders (see :func:`encoder_size_kwargs`).

    SGD with lr 0.1, x0.99 per epoch, /5 when dev accuracy does not improve, stop below 1e-5, batches of 64,
    gradient norm clipped at 5 (released code), at most ``epochs`` epochs (released code: 20), MLP classifier
    with one hidden layer of 512 units on ``[u, v, |u-v|, u*v]`` (tanh; the thesis names no activation).
    Book: chapter 3 (InferSent: training details).
    """

    width: int = 2048
    epochs: int = 20
    batch_size: int = 64
    lr: float = 0.1
    decay: float = 0.99
    shrink: float = 5.0
    min_lr: float = 1e-5
    clip_norm: float = 5.0
    classifier_hidden: int = 512
    classifier_activation: str = "tanh"
    eval_batch_size: int = 256


def build_nli_model(name: str, words: WordSetup, width: int, config: InferSentConfig = InferSentConfig(),
                    seed: int = 0) -> NLIModel:
    """A fresh (seeded) encoder ``name`` on the chapter's word vectors, with the NLI classifier on top.

    Book: chapter 3 (InferSent: the NLI training scheme).
    """
    seed_everything(seed)
    encoder = build_encoder(name, len(words.pipeline.vocab), word_dim=words.dim, embeddings=words.weights,
                            freeze_embeddings=words.frozen, pipeline=words.pipeline, **encoder_size_kwargs(name, width))
    head = NLIClassifier(encoder.output_dim, config.classifier_hidden, activation=config.classifier_activation)
    return NLIModel(encoder, head)


def nli_batches(pipeline: TextPipeline, data: NLIData, batch_size: int = 64,
                seed: int = 0) -> Callable[[int], list[tuple[torch.Tensor, ...]]]:
    """``epoch -> batches`` of ``(premise ids, lengths, hypothesis ids, lengths, labels)`` for :func:`fit`.

    Each epoch shuffles the pairs with its own seed, sorts windows of 50 batches by premise length (little
    padding) and shuffles the batch order; every pair is seen once per epoch.
    Book: chapter 3 (InferSent: the training loop).
    """
    if len(data) < 1:
        raise ValueError("no NLI pairs to batch.")
    p_flat, p_off = pipeline.encode_flat(list(data.premises))
    h_flat, h_off = pipeline.encode_flat(list(data.hypotheses))
    p_len = np.diff(p_off)
    labels = torch.as_tensor(np.asarray(data.labels, np.int64))

    def batches(epoch: int) -> list[tuple[torch.Tensor, ...]]:
        out = []
        for idx in shuffled_length_batches(p_len, batch_size, np.random.default_rng([seed, epoch])):
            p, pl = pad_csr(p_flat, p_off, idx)
            h, hl = pad_csr(h_flat, h_off, idx)
            out.append((p, pl, h, hl, labels[idx]))
        return out

    return batches


def nli_step_loss(model: NLIModel, batch: tuple[torch.Tensor, ...]) -> torch.Tensor:
    """Cross-entropy of the NLI classifier on one ``(p, p_len, h, h_len, labels)`` batch.

    Book: chapter 3 (InferSent: the training loop).
    """
    premise, premise_len, hypothesis, hypothesis_len, labels = batch
    return nli_loss(model(premise, premise_len, hypothesis, hypothesis_len), labels)


def nli_accuracy(model: NLIModel, data: NLIData, batch_size: int = 256, device: str | torch.device = "auto") -> float:
    """Accuracy (percent) of ``model`` on ``data``: both sides embedded by ``encoder.encode``, then classified.

    Book: chapter 3 (InferSent).
    """
    if not isinstance(model, NLIModel):
        raise TypeError(f"model must be an NLIModel, got {type(model).__name__}.")
    if len(data) < 1:
        raise ValueError("no NLI pairs to score.")
    dev = pick_device(device)
    model.to(dev)
    u = model.encoder.encode(list(data.premises), batch_size=batch_size, device=dev)
    v = model.encoder.encode(list(data.hypotheses), batch_size=batch_size, device=dev)
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            logits = model.classifier(torch.from_numpy(u).to(dev), torch.from_numpy(v).to(dev))
    finally:
        model.train(was_training)
    return 100.0 * float((logits.argmax(1).cpu().numpy() == np.asarray(data.labels)).mean())


@dataclass
class NLIRun:
    """One trained encoder: the NLI model, its training history, accuracies (percent) and wall time.

    Book: chapter 3 (InferSent).
    """

    name: str
    width: int
    model: NLIModel
    history: History
    dev_acc: float
    test_acc: float
    seconds: float

    @property
    def encoder(self) -> SentenceEncoder:
        """The trained sentence encoder. Book: chapter 3 (InferSent)."""
        return self.model.encoder

    def summary(self) -> dict[str, Any]:
        """JSON-ready numbers of the run (no weights). Book: chapter 3 (InferSent)."""
        return {"name": self.name, "width": self.width, "dim": self.encoder.output_dim, "nli_dev": self.dev_acc,
                "nli_test": self.test_acc, "seconds": self.seconds, "epochs": len(self.history.epoch),
                "stop_reason": self.history.stop_reason, "dev_curve": list(self.history.dev),
                "lr_curve": list(self.history.lr), "train_loss": list(self.history.train_loss)}


def train_nli_encoder(name: str, corpus: NLICorpus, words: WordSetup, config: InferSentConfig = InferSentConfig(),
                      *, width: int | None = None, device: str | torch.device = "auto", seed: int = 0,
                      progress: bool = False) -> NLIRun:
    """Train encoder ``name`` on ``corpus.train`` with the thesis recipe (:class:`InferSentConfig`) through :func:`fit`.

    The dev accuracy after each epoch drives the schedule and picks the weights kept; the test accuracy
    is measured once, with those weights. Small encoders train on one CPU thread (:func:`cpu_threads_for`).
    Book: chapter 3 (InferSent: training details).
    """
    width = config.width if width is None else width
    model = build_nli_model(name, words, width, config, seed)
    start = time.perf_counter()
    with cpu_threads_for(width, device):
        history = fit(model, nli_step_loss, nli_batches(words.pipeline, corpus.train, config.batch_size, seed),
                      optimizer="sgd", lr=config.lr, epochs=config.epochs, device=device, seed=seed,
                      dev_fn=lambda m: nli_accuracy(m, corpus.dev, config.eval_batch_size, device),
                      schedule=InferSentSchedule(config.decay, config.shrink, config.min_lr),
                      clip_norm=config.clip_norm, progress=progress)
        seconds = time.perf_counter() - start
        test = nli_accuracy(model, corpus.test, config.eval_batch_size, device)
    return NLIRun(name, width, model, history, float(history.best_dev), test, seconds)


# --------------------------------------------------------------------------------------------- transfer suite
@dataclass
class TransferSuite:
    """The transfer tasks of Table 3.7 as :mod:`xsent_lib.eval` task objects, with the SentEval task each one
    stands in for (``papers``), what data is behind it (``standins``) and the suite's notes (what was skipped).

    Book: chapter 3 (InferSent: transfer).
    """

    tasks: list
    papers: dict[str, str]
    standins: dict[str, str]
    notes: list[str] = field(default_factory=list)

    def describe(self) -> list[dict[str, str]]:
        """One row per task: our name, the SentEval task it stands in for, the data behind it.

        Book: chapter 3 (InferSent: transfer).
        """
        return [{"task": t.name, "stands in for": self.papers[t.name], "our data": self.standins[t.name]}
                for t in self.tasks]


def table_3_7_suite(suite: Suite) -> TransferSuite:
    """Keep the tasks of a SentEval-chapter :class:`~xsent_lib.recipes.senteval.Suite` that fill a column of
    Table 3.7 (SST-5 and the rating regression have none) and turn them into evaluation tasks.

    Book: chapter 3 (InferSent: transfer).
    """
    if not isinstance(suite, Suite):
        raise TypeError(f"suite must be a recipes.senteval.Suite, got {type(suite).__name__}.")
    kept = [t for t in suite.tasks if t.paper in TABLE_3_7_COLUMNS]
    if not kept:
        raise ValueError(f"no task of the suite stands in for a Table 3.7 task ({sorted(TABLE_3_7_COLUMNS)}).")
    return TransferSuite([t.evaluator() for t in kept], {t.name: t.paper for t in kept},
                         {t.name: f"{t.source}: {t.description}" for t in kept}, list(suite.notes))


def transfer_suite(seed: int, sizes: SuiteSizes, real: bool = True,
                   cache_dir: str | Path | None = None) -> TransferSuite:
    """Chapter 2's offline suite (:func:`xsent_lib.recipes.senteval.offline_suite`, split protocol) restricted to
    Table 3.7: cached sentiment corpora for MR/CR/SUBJ/MPQA/SST when ``real``, synthetic pairs for SICK-E, MRPC,
    SICK-R and STS'14.

    The synthetic tasks come from the world of seed ``seed + 1``, never from the NLI training world (whose
    ``nli`` stream would otherwise repeat training pairs).
    Book: chapter 3 (InferSent: transfer).
    """
    return table_3_7_suite(offline_suite(SyntheticWorld(seed + 1), sizes, real=real, protocol="split", seed=seed,
                                         cache_dir=cache_dir))


def senteval_transfer_suite(data_dir: str | Path, names: Sequence[str] = SENTEVAL_TABLE_3_7) -> TransferSuite:
    """SentEval's own Table 3.7 tasks from ``data_dir`` (``downstream/`` layout), for the full profile.

    Missing tasks leave a note; if none is found the FileNotFoundError says where the data should be.
    Book: chapter 3 (InferSent: transfer).
    """
    suite = senteval_suite(data_dir, names)
    if not suite.tasks:
        raise FileNotFoundError(f"none of the SentEval tasks {list(names)} is under {data_dir}; get them with "
                                "SentEval's data/downstream/get_transfer_data.bash and pass that folder's parent.")
    return table_3_7_suite(suite)


def aggregate_transfer(results: Mapping[str, Mapping[str, Any]]) -> dict[str, float]:
    """Thesis aggregates over the tasks with a dev accuracy: ``macro`` = mean, ``micro`` = mean weighted by dev size.

    Book: chapter 3 (InferSent: transfer).
    """
    scored = [r for r in results.values() if "devacc" in r and "ndev" in r]
    if not scored:
        raise ValueError("no task result has a dev accuracy ('devacc' and 'ndev'); nothing to aggregate.")
    acc = np.array([r["devacc"] for r in scored], np.float64)
    n = np.array([r["ndev"] for r in scored], np.float64)
    return {"micro": float((acc * n).sum() / n.sum()), "macro": float(acc.mean()), "n_tasks": len(scored)}


def evaluate_transfer(encoder: SentenceEncoder, suite: TransferSuite, seed: int = 1111,
                      device: str | torch.device = "auto", batch_size: int = 256, mode: str = "fast") -> dict[str, Any]:
    """Run every task of ``suite`` on the frozen ``encoder`` with SentEval's ``"fast"`` or the thesis's ``"full"``
    classifier setting.

    Returns ``{"tasks": {name: result}, "micro", "macro", "row": {Table 3.7 column: value}}``.
    Book: chapter 3 (InferSent: transfer).
    """
    params = {"seed": seed, "device": str(pick_device(device)), "tokenized": False, "batch_size": 1024, "mode": mode}
    ev = Evaluation(params, batcher_from_encoder(encoder, batch_size=batch_size, device=device))
    with cpu_threads_for(encoder.output_dim // 2, device):
        results = ev.eval(suite.tasks)
    return {"tasks": results, **aggregate_transfer(results), "row": transfer_row(results, suite.papers)}


def transfer_row(results: Mapping[str, Mapping[str, Any]], papers: Mapping[str, str]) -> dict[str, float]:
    """Table 3.7's columns from task results, ``papers`` naming the SentEval task behind each of our tasks
    (accuracies in percent, correlations as fractions; STS'14 averages its subsets).

    Book: chapter 3 (InferSent: transfer).
    """
    row = {}
    for task, res in results.items():
        paper = papers.get(task)
        for column, key in TABLE_3_7_COLUMNS.get(paper, {}).items():
            row[column] = float(res["mean"][key] if paper == "STS'14" else res[key])
    return row


# --------------------------------------------------------------------------------------------- baselines
def bag_of_words_encoder(words: WordSetup) -> BagOfVectorsEncoder:
    """The average of the chapter's word vectors (GloVe BoW in the thesis), without ``<s>``/``</s>``.

    Book: chapter 3 (InferSent: baselines).
    """
    return BagOfVectorsEncoder(len(words.bow_pipeline.vocab), words.dim, "mean", embeddings=words.weights,
                               freeze=True, pipeline=words.bow_pipeline)


# --------------------------------------------------------------------------------------------- size sweep
def size_sweep(name: str, widths: Sequence[int], corpus: NLICorpus, words: WordSetup, suite: TransferSuite,
               config: InferSentConfig = InferSentConfig(), *, device: str | torch.device = "auto", seed: int = 0,
               done: Mapping[int, Mapping[str, Any]] | None = None, mode: str = "fast") -> list[dict[str, Any]]:
    """Figure 3.5's points for one architecture: train at each width, then NLI and transfer (micro/macro).

    ``done`` maps widths already trained (e.g. the chapter's main run) to their point, which is reused;
    ``mode`` is the classifier budget of :func:`evaluate_transfer`.
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


# --------------------------------------------------------------------------------------------- ranking stand-in
SCENE_ROLES: tuple[str, ...] = ("subj", "subj_adj", "subj_num", "verb", "neg", "obj", "obj_adj", "obj_num", "pp", "adv")


def scene_features(forms: Forms, dim: int = 256, seed: int = 0) -> np.ndarray:
    """"Image" vectors of logical forms: who does what to whom, where, with which attributes, and no words.

    Each (role, value) of the main, coordinated and subordinate clauses (subject, its adjective and number,
    verb, polarity, object, its adjective and number, place, manner) has a fixed random N(0, 1/dim) vector
    (seeded by ``seed``, role and value, so the same concept in two roles gives two vectors); a scene is the
    ReLU of a fixed random linear map of their sum. This stands in for COCO's ResNet features: a
    description of the scene that no sentence encoder has seen.
    Book: chapter 3 (InferSent: caption-image retrieval).
    """
    if not isinstance(forms, Forms):
        raise TypeError(f"forms must be synthetic Forms, got {type(forms).__name__}.")
    if not isinstance(dim, int) or dim < 1:
        raise ValueError(f"dim must be a positive integer, got {dim!r}.")
    total = np.zeros((len(forms), dim), np.float64)
    for kind in ("main", "coord", "sub"):
        rows = np.asarray(getattr(forms, kind))
        present = np.flatnonzero(rows >= 0)
        for r, role in enumerate(SCENE_ROLES):
            values = np.asarray(getattr(forms.clauses, role))[rows[present]]
            if role in ("subj_num", "obj_num"):  # a number only describes a noun that is there
                noun = np.asarray(getattr(forms.clauses, role.split("_")[0]))[rows[present]]
                values = np.where(noun >= 0, values, -1)
            used = values >= 0
            uniq, inverse = np.unique(values[used], return_inverse=True)
            table = np.stack([np.random.default_rng([seed, r, int(v)]).normal(0, dim**-0.5, dim) for v in uniq]) \
                if uniq.size else np.zeros((0, dim))
            np.add.at(total, present[used], table[inverse])
    mix = np.random.default_rng([seed, len(SCENE_ROLES)]).normal(0, dim**-0.5, (dim, dim))
    return np.maximum(total @ mix, 0.0).astype(np.float32)


def scene_ranking_task(world: SyntheticWorld, n_train: int, n_dev: int, n_test: int, dim: int = 256,
                       fold_size: int = 1000, seed: int = 0) -> RankingTask:
    """COCO-style ranking on the synthetic world: English captions vs :func:`scene_features` "images".

    One caption per scene (COCO has five); the test set is cut into folds of ``fold_size`` scenes
    (COCO: five folds of 1k images), or one fold when smaller.
    Book: chapter 3 (InferSent: caption-image retrieval).
    """
    splits = {}
    for split, n in (("train", n_train), ("dev", n_dev), ("test", n_test)):
        if n < 2:
            raise ValueError(f"the {split} split needs at least 2 scenes, got {n}.")
        forms = world.forms(n, "infersent-scenes", split)
        splits[split] = (world.render(forms, "en"), scene_features(forms, dim, seed), np.arange(n))
    return RankingTask(splits, name="scenes", n_folds=max(1, n_test // fold_size))


def evaluate_ranking(encoder: SentenceEncoder, task: RankingTask, seed: int = 1111,
                     device: str | torch.device = "auto") -> dict[str, Any]:
    """Learn the joint space on the frozen ``encoder``'s captions and report R@K / median rank both ways.

    Returns the task result plus ``row``: Table 3.8's columns (Caption = scene-to-caption retrieval,
    Image = caption-to-scene retrieval).
    Book: chapter 3 (InferSent: caption-image retrieval).
    """
    params = {"seed": seed, "device": str(pick_device(device)), "tokenized": False, "batch_size": 1024}
    with cpu_threads_for(encoder.output_dim // 2, device):
        res = Evaluation(params, batcher_from_encoder(encoder, device=device)).eval(task)
    row = {}
    for side, direction in (("Caption", "item_to_query"), ("Image", "query_to_item")):
        for k in (1, 5, 10):
            row[f"{side} R@{k}"] = res[direction][f"r@{k}"]
        row[f"{side} Med r"] = res[direction]["medr"]
    return {**res, "row": row}


# --------------------------------------------------------------------------------------------- max-pool attribution
@dataclass
class MaxPoolAttribution:
    """For one sentence: its tokens (with ``<s>``/``</s>``) and how many max-pooled dimensions each one wins.

    ``counts`` sums to the embedding size; ``percent`` is what the thesis's Figures 3.6-3.9 plot.
    Book: chapter 3 (InferSent: visualising max-pooling).
    """

    sentence: str
    tokens: list[str]
    counts: np.ndarray

    @property
    def percent(self) -> np.ndarray:
        """Share of the dimensions won by each token, in percent.

        Book: chapter 3 (InferSent: visualising max-pooling).
        """
        return 100.0 * self.counts / max(int(self.counts.sum()), 1)


def maxpool_attribution(encoder: RecurrentEncoder, sentences: Sequence[str],
                        batch_size: int = 256) -> list[MaxPoolAttribution]:
    """Count, for each sentence, the max-pooled dimensions whose maximum is reached at each time step.

    Uses :meth:`RecurrentEncoder.max_pool_positions` (the first maximum wins a tie; padding never wins)
    and one ``bincount`` per batch. Unknown words keep their spelling in ``tokens`` (the encoder reads ``<unk>``).
    Book: chapter 3 (InferSent: visualising max-pooling).
    """
    if not isinstance(encoder, RecurrentEncoder) or encoder.pooling != "max":
        raise TypeError("maxpool_attribution needs a max-pooling RecurrentEncoder, "
                        "e.g. build_encoder('bilstm-max', ...).")
    if encoder.pipeline is None:
        raise ValueError("the encoder has no text pipeline; attach_pipeline(...) first.")
    pipe = encoder.pipeline
    words = pipe.tokenize(sentences)
    head, tail = [pipe.bos] if pipe.bos else [], [pipe.eos] if pipe.eos else []
    tokens = [head + (w or [pipe.vocab.unk_token]) + tail for w in words]
    flat, offsets = pipe.encode_flat(list(sentences))
    lengths = np.diff(offsets)
    if any(len(t) != n for t, n in zip(tokens, lengths.tolist())):
        raise RuntimeError("token list and id sequence lengths disagree; the pipeline changed between calls.")
    device = next(encoder.parameters()).device
    counts: list[np.ndarray | None] = [None] * len(tokens)
    was_training = encoder.training
    encoder.eval()
    try:
        with torch.inference_mode():
            for idx in length_buckets(lengths, batch_size):
                ids, lens = pad_csr(flat, offsets, idx)
                pos = encoder.max_pool_positions(ids.to(device), lens.to(device)).cpu().numpy()
                width = ids.shape[1]
                hist = np.bincount((np.arange(len(idx))[:, None] * width + pos).ravel(), minlength=len(idx) * width)
                for row, i in enumerate(idx.tolist()):
                    counts[i] = hist.reshape(len(idx), width)[row, : lengths[i]]
    finally:
        encoder.train(was_training)
    return [MaxPoolAttribution(s, t, c) for s, t, c in zip(sentences, tokens, counts)]


def maxpool_summary(attributions: Sequence[MaxPoolAttribution],
                    function_words: frozenset[str] = FUNCTION_WORDS) -> dict[str, float]:
    """How concentrated max-pooling is, averaged over sentences (all shares in percent).

    ``boundary`` = dimensions won by ``<s>``/``</s>``; ``content`` = won by content words (not in
    ``function_words``), against ``content_tokens`` = the share of positions that hold content words
    (what an even spread would give); ``top_word`` = the share of the single best token.
    Book: chapter 3 (InferSent: visualising max-pooling).
    """
    if not attributions:
        raise ValueError("no attributions to summarise.")
    boundary, content, content_tokens, top = [], [], [], []
    for a in attributions:
        share = a.percent
        is_boundary = np.array([t in (BOS_TOKEN, EOS_TOKEN) for t in a.tokens])
        is_content = np.array([t not in function_words for t in a.tokens]) & ~is_boundary
        boundary.append(share[is_boundary].sum())
        content.append(share[is_content].sum())
        content_tokens.append(100.0 * is_content.mean())
        top.append(share.max())
    return {"boundary": float(np.mean(boundary)), "content": float(np.mean(content)),
            "content_tokens": float(np.mean(content_tokens)), "top_word": float(np.mean(top)),
            "n_sentences": len(attributions)}


def maxpool_items(encoders: Mapping[str, RecurrentEncoder], sentences: Sequence[str],
                  titles: Sequence[str]) -> list[dict[str, Any]]:
    """Gallery items for :func:`xsent_lib.viz.infersent.maxpool_gallery`: per sentence its tokens and, for each
    named encoder, the percentage of dimensions each token wins.

    Book: chapter 3 (InferSent: visualising max-pooling).
    """
    if len(titles) != len(sentences):
        raise ValueError(f"need one title per sentence, got {len(titles)} titles for {len(sentences)} sentences.")
    per_model = {m: maxpool_attribution(enc, list(sentences)) for m, enc in encoders.items()}
    first = next(iter(per_model.values()))
    return [{"title": title, "tokens": first[i].tokens, "percents": {m: per_model[m][i].percent for m in per_model}}
            for i, title in enumerate(titles)]


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


def _claim(claim: str, paper: str, ours: str, holds: bool | None) -> dict[str, Any]:
    return {"claim": claim, "paper": paper, "ours": ours, "holds": holds}


def _best(scores: Mapping[str, float]) -> str:
    return max(scores, key=scores.get)


def infersent_claims(table36: Mapping[str, Mapping[str, float]], table37: Mapping[str, Mapping[str, float]],
                     sweep: Sequence[Mapping[str, Any]], maxpool: Mapping[str, Mapping[str, float]],
                     ranking: Mapping[str, Mapping[str, float]]) -> list[dict[str, Any]]:
    """The thesis's claims of section 3.2 checked on our numbers: ``claim | paper | ours | holds``.

    ``table36`` is :func:`table_3_6_ours`; ``table37`` maps ``"trained"``, ``"untrained"`` and ``"bow"`` to
    Table 3.7 rows; ``sweep`` is :func:`size_sweep`'s points; ``maxpool`` maps ``"untrained"`` / ``"trained"``
    to :func:`maxpool_summary`; ``ranking`` maps ``"trained"`` / ``"bow"`` to Table 3.8 rows.
    Book: chapter 3 (InferSent: discussion).
    """
    test = {k: v["NLI test"] for k, v in table36.items()}
    micro = {k: v["Transfer micro"] for k, v in table36.items()}
    if "BiLSTM-Max" not in test:
        raise ValueError("table36 has no 'BiLSTM-Max' row; the claims are about it.")
    def versus_others(scores: Mapping[str, float]) -> tuple[str, bool]:
        others = {k: v for k, v in scores.items() if k != "BiLSTM-Max"}
        rival = _best(others)
        mine = scores["BiLSTM-Max"]
        return f"BiLSTM-Max {mine:.1f}, best other {rival} {others[rival]:.1f}", mine > others[rival]

    claims = [
        _claim("BiLSTM-Max has the best NLI test accuracy of the seven", "BiLSTM-Max 84.5, next HConvNet 83.4",
               *versus_others(test)),
        _claim("BiLSTM-Max has the best transfer (micro) of the seven", "BiLSTM-Max 85.2, next BiLSTM-Mean 83.1",
               *versus_others(micro)),
        _claim("BiLSTM-Mean has the lowest NLI test accuracy of the seven", "BiLSTM-Mean 78.2, lowest",
               f"lowest: {min(test, key=test.get)} {min(test.values()):.1f}", min(test, key=test.get) == "BiLSTM-Mean"),
    ]
    if len(sweep) >= 2:
        first, last = sweep[0], sweep[-1]
        claims.append(_claim("Transfer (micro) grows with the embedding size (BiLSTM-Max)",
                             "rises from 512 to 4096 dims, most for BiLSTM-Max",
                             f"{first['dim']} dims {first['micro']:.1f} -> {last['dim']} dims {last['micro']:.1f}",
                             last["micro"] > first["micro"]))
    common = [c for c in table37["trained"] if c in table37["bow"] and c in table37["untrained"]]
    accs = [c for c in common if table37["trained"][c] is not None and "STS14" not in c and c != "SICK-R"]
    if accs:
        mean = {k: float(np.mean([table37[k][c] for c in accs])) for k in ("trained", "untrained", "bow")}
        claims.append(_claim("NLI training beats the bag of word vectors on transfer (mean accuracy)",
                             "BiLSTM-Max (SNLI) above GloVe BOW on every task of Table 3.7",
                             f"{mean['trained']:.1f} vs {mean['bow']:.1f} over {len(accs)} tasks",
                             mean["trained"] > mean["bow"]))
        claims.append(_claim("NLI training beats the same encoder untrained (mean accuracy)",
                             "BiLSTM-Max (SNLI) above BiLSTM-Max (untrained) on every task but SUBJ",
                             f"{mean['trained']:.1f} vs {mean['untrained']:.1f} over {len(accs)} tasks",
                             mean["trained"] > mean["untrained"]))
    if "STS14 Pearson" in common:
        t, u = table37["trained"]["STS14 Pearson"], table37["untrained"]["STS14 Pearson"]
        claims.append(_claim("NLI training lifts unsupervised STS above the untrained encoder",
                             "STS14 Pearson .68 vs .39", f"{t:.2f} vs {u:.2f}", t > u))
    if "SICK-E" in common:
        t, b = table37["trained"]["SICK-E"], table37["bow"]["SICK-E"]
        claims.append(_claim("Entailment transfer (SICK-E) is above the bag of words", "86.3 vs 78.6",
                             f"{t:.1f} vs {b:.1f}", t > b))
    mu, mt = maxpool["untrained"], maxpool["trained"]
    claims.append(_claim("Untrained max-pooling leans on the first and last states",
                         "extra weight on <s> and </s> (Figures 3.6, 3.8)",
                         f"<s>+</s> win {mu['boundary']:.1f}% untrained vs {mt['boundary']:.1f}% trained",
                         mu["boundary"] > mt["boundary"]))
    claims.append(_claim("Trained max-pooling concentrates on content words", "Figures 3.7, 3.9",
                         f"content words win {mt['content']:.1f}% trained vs {mu['content']:.1f}% untrained "
                         f"({mt['content_tokens']:.1f}% of positions)", mt["content"] > mu["content"]))
    if "trained" in ranking and "bow" in ranking:
        t, b = ranking["trained"]["Image R@1"], ranking["bow"]["Image R@1"]
        claims.append(_claim("NLI-trained sentence vectors beat a weaker pretrained baseline on retrieval",
                             "Image R@1 33.2 (BiLSTM-Max) vs 30.6 (SkipThought)", f"{t:.1f} vs {b:.1f} (bag of words)",
                             t > b))
    return claims
