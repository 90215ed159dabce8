"""The probing recipe (thesis section 3.3, Conneau et al. 2018): ten probing sets, three encoders trained in
several ways, MLP and logistic-regression probes, baselines, downstream scores, and their Spearman correlations.

Every step is a function over library parts: the probing sets of :mod:`xsent_lib.data.synthetic` (exact labels)
or built here from the tagged Brown corpus, the encoders and the sentence-vector LSTM decoder of
:mod:`xsent_lib.encoders`, the loop :func:`xsent_lib.train.fit` (with callbacks for the per-epoch curves), the
batched probes of :mod:`xsent_lib.eval` and, for the word vectors, the NLI batches and the transfer suite, the
InferSent recipe (:mod:`xsent_lib.recipes.infersent`). Accuracies are in percent, as the thesis prints them.
Book: chapter 4 (Probing).
"""
from __future__ import annotations

import time
import warnings
import zlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import torch
from scipy.stats import spearmanr

from xsent_lib.data.corpora.monolingual import TaggedSentences
from xsent_lib.data.formats.containers import ClassificationTask, LabelledSentences
from xsent_lib.data.formats.vectors import WordVectors
from xsent_lib.data.synthetic import PROBING_TASKS, SyntheticWorld
from xsent_lib.encoders import GatedConvNetEncoder, LSTMDecoder, NLIClassifier, NLIModel, RecurrentEncoder, Seq2Seq
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.encoders.decoder import linearize_tree, next_sentence_pairs, teacher_forcing_pair
from xsent_lib.eval import probing_baselines
from xsent_lib.eval.classifier import ClassifierConfig
from xsent_lib.eval.protocols import one_hot, split_select
from xsent_lib.losses.seq2seq import perplexity, seq2seq_loss, sequence_nll
from xsent_lib.recipes.infersent import (TABLE_3_7_COLUMNS, NLICorpus, TransferSuite, WordSetup, build_word_setup, nli_accuracy, nli_batches,
                                         nli_step_loss, synthetic_nli)
from xsent_lib.base.runtime import pick_device, seed_everything
from xsent_lib.text import BOS_TOKEN, EOS_TOKEN, PAD_TOKEN, UNK_TOKEN, Vocab
from xsent_lib.text.batching import pad_csr, shuffled_length_batches
from xsent_lib.train import History, fit

SPLITS = ("train", "dev", "test")
# The encoders of the probing study, by library name, with the thesis's row-group labels (Tables 3.10, 3.12, 3.13).
ENCODERS: dict[str, str] = {"bilstm-last": "BiLSTM-last", "bilstm-max": "BiLSTM-max", "gated-convnet": "GatedConvNet"}
TABLE_3_11_ROWS: dict[str, str] = {"gated-convnet": "Gated ConvNet", "bilstm-last": "BiLSTM-last", "bilstm-max": "BiLSTM-max"}
# Training tasks, by our key, with the thesis's row labels.
TRAINING_TASKS: dict[str, str] = {"untrained": "Untrained", "autoencoder": "AutoEncoder", "nmt-fr": "NMT En-Fr",
                                  "nmt-de": "NMT En-De", "nmt-fi": "NMT En-Fi", "seq2tree": "Seq2Tree",
                                  "skipthought": "SkipThought", "nli": "NLI"}
# Invented languages of the synthetic world standing in for the thesis's NMT targets: Romance-like for French,
# Germanic-like for German, Turkic-like (agglutinative, SOV, case) for the distant Finnish.
NMT_TARGETS: dict[str, str] = {"nmt-fr": "xa", "nmt-de": "xe", "nmt-fi": "xd"}
TABLE_3_11_COLUMNS: dict[str, str] = {"nmt-fr": "En-Fr", "nmt-de": "En-De", "nmt-fi": "En-Fi", "seq2tree": "Seq2Tree",
                                      "nli": "NLI"}
# The thesis reports WC with logistic regression in every table (LR was consistently better on 1000 classes).
LOGREG_ONLY: tuple[str, ...] = ("WC",)
PROBES = ("mlp", "logreg")
PROBE_MODES = ("smoke", "fast", "full")  # classifier budgets, see probe_config
EXACT_MAX_CLASSES = 32  # "fast" logistic regression is solved exactly up to this many classes
# Baseline rows, by the thesis's labels (group / name); the bag-of-vectors row is spelled differently per table.
BASELINES = "Baseline representations"
MAJORITY_ROW = f"{BASELINES} / Majority vote"
CHANCE_ROW = f"{BASELINES} / Chance"
BOV_ROWS: dict[str, str] = {"table_3_10": f"{BASELINES} / BoV-fastText", "table_3_12": f"{BASELINES} / BoV fastText",
                            "table_3_13": f"{BASELINES} / BoV fastText"}
# Table 3.7 columns (the ``row`` of :func:`xsent_lib.recipes.infersent.evaluate_transfer`) -> Table 3.13 columns.
# STS14 is not in Table 3.13; it keeps its own name so the correlation matrix can use it.
TABLE_3_13_COLUMNS: dict[str, str] = {"MR": "MR", "CR": "CR", "SUBJ": "SUBJ", "MPQA": "MPQA", "SST": "SST-2",
                                      "TREC": "TREC", "MRPC acc": "MRPC", "SICK-E": "SICK-E", "SICK-R": "SICK-R",
                                      "STS14 Pearson": "STS14"}
CORRELATION_COLUMNS = frozenset({"SICK-R", "STS14"})  # Pearson r, printed x 100
BROWN_TASKS: tuple[str, ...] = ("SentLen", "WC", "BShift", "Tense")
MIN_WORDS, MAX_WORDS = 5, 28
# Brown tags of finite verbs whose tense the tag alone decides (base forms "vb", "do", "hv" may be finite present
# or infinitive, so they are not used).
BROWN_PAST = frozenset({"vbd", "bed", "bedz", "hvd", "dod"})
BROWN_PRESENT = frozenset({"vbz", "bez", "bem", "ber", "hvz", "doz"})


def row_label(arch: str, task: str) -> str:
    """The thesis's row label of encoder ``arch`` trained on ``task`` in Tables 3.10, 3.12 and 3.13.

    Book: chapter 4 (Probing).
    """
    if arch not in ENCODERS or task not in TRAINING_TASKS:
        raise ValueError(f"unknown encoder {arch!r} or training task {task!r}; known {list(ENCODERS)} and "
                         f"{list(TRAINING_TASKS)}.")
    return f"{ENCODERS[arch]} encoder / {TRAINING_TASKS[task]}"


# --------------------------------------------------------------------------------------------- probing sets
def _check_sizes(sizes: Sequence[int]) -> tuple[int, int, int]:
    if len(sizes) != 3 or any(not isinstance(n, (int, np.integer)) or n < 1 for n in sizes):
        raise ValueError(f"sizes must be three positive integers (train, dev, test), got {sizes!r}.")
    return int(sizes[0]), int(sizes[1]), int(sizes[2])


def synthetic_probing_sets(world: SyntheticWorld, sizes: Sequence[int],
                           overrides: Mapping[str, Sequence[int]] | None = None,
                           tasks: Sequence[str] = PROBING_TASKS, wc_classes: int | None = None) -> dict[str, ClassificationTask]:
    """The ten probing tasks of the synthetic world (labels exact), as ``{task: ClassificationTask}``.

    ``sizes`` is ``(train, dev, test)`` for every task; ``overrides`` gives other sizes per task (WC has
    hundreds of classes and needs more examples per split than the binary tasks). Classes are balanced and
    splits share no sentence (see :mod:`xsent_lib.data.synthetic.probing` for each task's definition).
    ``wc_classes`` keeps only the first (most frequent) WC target words, so that a small WC set still has
    enough examples per word: the world's WC set is drawn large enough and filtered (classes stay balanced
    up to a few examples). Without it WC has every target word of the world (about 340 in English).
    Book: chapter 4 (Probing: the ten tasks).
    """
    if not isinstance(world, SyntheticWorld):
        raise TypeError(f"world must be a SyntheticWorld, got {type(world).__name__}.")
    unknown = [t for t in tasks if t not in PROBING_TASKS] + [t for t in (overrides or {}) if t not in PROBING_TASKS]
    if unknown:
        raise ValueError(f"unknown probing tasks {unknown}; the ten are {list(PROBING_TASKS)}.")
    if wc_classes is not None and (not isinstance(wc_classes, (int, np.integer)) or wc_classes < 2):
        raise ValueError(f"wc_classes must be None or an integer >= 2, got {wc_classes!r}.")
    out = {}
    for task in tasks:
        want = _check_sizes((overrides or {}).get(task, sizes))
        keep = None
        if task == "WC" and wc_classes is not None:
            n_all = len(world.probing("WC", 1, 1, 1).classes)
            if wc_classes < n_all:
                keep = int(wc_classes)
                want = tuple(int(np.ceil(n * n_all / keep)) + n_all for n in want)
        ps = world.probing(task, *want)
        splits = {}
        for s, n in zip(SPLITS, _check_sizes((overrides or {}).get(task, sizes))):
            part = getattr(ps, s)
            labels = np.asarray(part.labels, np.int64)
            rows = np.flatnonzero(labels < keep)[:n] if keep else np.arange(labels.size)
            splits[s] = LabelledSentences([part.sentences[i] for i in rows.tolist()], labels[rows])
        out[task] = ClassificationTask(task, splits, tuple(ps.classes[:keep] if keep else ps.classes))
    return out


def _stable_split(keys: Sequence[str], salt: str, fractions: tuple[float, float, float] = (0.8, 0.1, 0.1)) -> np.ndarray:
    """Split id (0 train, 1 dev, 2 test) of each key, from crc32 (the same on every machine)."""
    u = np.array([zlib.crc32(f"{salt}:{k}".encode()) for k in keys], np.float64) / 2**32
    return np.searchsorted(np.cumsum(fractions)[:-1], u, side="right")


def _balanced_draw(labels: np.ndarray, split_of: np.ndarray, sizes: tuple[int, int, int], n_classes: int,
                   rng: np.random.Generator, task: str) -> dict[str, np.ndarray]:
    """Indices of balanced train / dev / test sets: rows with ``split_of == s`` and ``labels >= 0``."""
    order = rng.permutation(labels.size)
    out = {}
    for s, (name, n) in enumerate(zip(SPLITS, sizes)):
        rows = order[(split_of[order] == s) & (labels[order] >= 0)]
        need = n // n_classes + (np.arange(n_classes) < n % n_classes)
        by_class = rows[np.argsort(labels[rows], kind="stable")]
        counts = np.bincount(labels[rows], minlength=n_classes)
        if (counts < need).any():
            c = int(np.argmax(need - counts))
            raise ValueError(f"Brown {task}: the {name} split has {counts[c]} sentences of class {c}, {need[c]} are "
                             f"needed; ask for fewer examples.")
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        take = np.concatenate([by_class[starts[c]: starts[c] + need[c]] for c in range(n_classes)])
        out[name] = take[rng.permutation(take.size)]
    return out


def brown_probing_sets(tagged: TaggedSentences, sizes: Sequence[int], seed: int = 0, wc_classes: int = 50,
                       wc_first_rank: int = 300, tasks: Sequence[str] = BROWN_TASKS) -> dict[str, ClassificationTask]:
    """SentLen, WC, BShift and Tense built from real tagged sentences (the Brown corpus) by the thesis's recipe.

    Sentences of 5-28 words (tokens with a letter or digit) are kept, once each. **SentLen**: 6 equal bins of
    the word count. **WC**: ``wc_classes`` mid-frequency words (lower-cased frequency ranks ``wc_first_rank``
    onward; the thesis takes ranks 2k-3k of a far larger corpus), sentences holding exactly one of them.
    **BShift**: half the sentences get two adjacent words (letters or digits, not equal) inverted.
    **Tense**: past vs present where every finite verb whose tag fixes the tense agrees (no parse is at hand to
    find the main clause, so sentences mixing tenses are left out); the tense-carrying verb forms of the three
    splits are disjoint, as in the thesis. Classes are balanced; splits share no sentence.
    Book: chapter 4 (Probing: real tagged sentences).
    """
    sizes = _check_sizes(sizes)
    unknown = [t for t in tasks if t not in BROWN_TASKS]
    if unknown:
        raise ValueError(f"Brown tasks are {list(BROWN_TASKS)}, got {unknown}.")
    is_word = [[any(ch.isalnum() for ch in w) for w in ws] for ws in tagged.words]
    n_words = np.array([sum(f) for f in is_word])
    seen: set[str] = set()
    keep = []
    for i, ws in enumerate(tagged.words):
        s = " ".join(ws)
        if MIN_WORDS <= n_words[i] <= MAX_WORDS and s not in seen:
            seen.add(s)
            keep.append(i)
    if not keep:
        raise ValueError("no sentence of 5-28 words in the tagged corpus.")
    words = [tagged.words[i] for i in keep]
    tags = [[t.split("-")[0].split("+")[-1].rstrip("*") for t in tagged.tags[i]] for i in keep]
    wordy = [is_word[i] for i in keep]
    lengths = n_words[keep]
    sentences = [" ".join(ws) for ws in words]
    rng = np.random.default_rng([seed, 4])
    split_of = _stable_split(sentences, "brown-sentence")
    out: dict[str, ClassificationTask] = {}

    def make(task: str, labels: np.ndarray, classes: tuple[str, ...], texts: Sequence[str], split: np.ndarray) -> None:
        idx = _balanced_draw(labels, split, sizes, len(classes), rng, task)
        out[task] = ClassificationTask(task, {s: LabelledSentences([texts[i] for i in idx[s].tolist()], labels[idx[s]])
                                              for s in SPLITS}, classes)

    if "SentLen" in tasks:
        make("SentLen", (lengths - MIN_WORDS) // 4, tuple(f"{lo}-{lo + 3}" for lo in range(MIN_WORDS, MAX_WORDS, 4)),
             sentences, split_of)
    if "WC" in tasks:
        counts = Counter(w.lower() for ws, f in zip(words, wordy) for w, ok in zip(ws, f) if ok and w.isalpha())
        ranked = [w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
        band = ranked[wc_first_rank: wc_first_rank + wc_classes]
        if len(band) < wc_classes:
            raise ValueError(f"the corpus has only {len(ranked)} word types; lower wc_first_rank or wc_classes.")
        index = {w: k for k, w in enumerate(band)}
        hits = [[index[w.lower()] for w in ws if w.lower() in index] for ws in words]
        labels = np.array([h[0] if len(set(h)) == 1 and len(h) == 1 else -1 for h in hits])
        make("WC", labels, tuple(band), sentences, split_of)
    if "BShift" in tasks:
        label = (rng.random(len(words)) < 0.5).astype(np.int64)
        texts = []
        for ws, f, flip in zip(words, wordy, label.tolist()):
            can = [k for k in range(len(ws) - 1) if f[k] and f[k + 1] and ws[k] != ws[k + 1]]
            if flip and can:
                k = can[int(rng.integers(len(can)))]
                ws = ws[:k] + [ws[k + 1], ws[k]] + ws[k + 2:]
            texts.append(" ".join(ws))
        make("BShift", label, ("original", "inverted"), texts, split_of)
    if "Tense" in tasks:
        labels, verb = np.full(len(words), -1), [""] * len(words)
        for i, (ws, ts) in enumerate(zip(words, tags)):
            tensed = [(w.lower(), t in BROWN_PAST) for w, t in zip(ws, ts) if t in BROWN_PAST or t in BROWN_PRESENT]
            if tensed and len({past for _, past in tensed}) == 1:
                labels[i], verb[i] = int(not tensed[0][1]), tensed[0][0]
        make("Tense", labels, ("past", "present"), sentences, _stable_split(verb, "brown-tense-verb"))
    return out


def suite_sentences(suite: Mapping[str, ClassificationTask]) -> list[str]:
    """Every sentence of every split of a probing suite (what the vocabulary must cover).

    Book: chapter 4 (Probing).
    """
    return [s for task in suite.values() for split in task.splits.values() for s in split.sentences]


def subsample_suite(suite: Mapping[str, ClassificationTask], sizes: Sequence[int], seed: int = 0) -> dict[str, ClassificationTask]:
    """The first ``sizes = (train, dev, test)`` examples of each split (already shuffled), for cheap periodic probes.

    Book: chapter 4 (Probing: per-epoch curves).
    """
    sizes = _check_sizes(sizes)
    return {name: ClassificationTask(name, {s: LabelledSentences(list(t.splits[s].sentences[:n]), t.splits[s].labels[:n])
                                            for s, n in zip(SPLITS, sizes)}, t.label_names)
            for name, t in suite.items()}


# --------------------------------------------------------------------------------------------- word vectors
def probing_word_setup(texts: Sequence[str], vectors: WordVectors | None = None, dim: int = 50, seed: int = 0,
                       source: str = "GloVe 6B") -> WordSetup:
    """Vocabulary and frozen input word vectors for every encoder of the chapter.

    The thesis feeds fixed pretrained fastText vectors to all encoders, so that an untrained encoder is a random
    projection of them. With ``vectors`` (GloVe 50d when cached) every word of ``texts`` that has a vector is
    kept; without, skip-gram vectors of size ``dim`` are trained on ``texts`` themselves (gensim, seeded,
    cached; see :func:`xsent_lib.data.wordvecs.train_wordvecs`). Other words map to ``<unk>``.
    Book: chapter 4 (Probing: the encoders).
    """
    if vectors is None:
        from xsent_lib.data.wordvecs import train_wordvecs

        vectors = train_wordvecs("en", sentences=list(texts), dim=dim, min_count=1, seed=seed)
        source = "skip-gram (gensim) on the chapter's own sentences"
    return build_word_setup(texts, vectors, dim=dim, seed=seed, source=source)


# --------------------------------------------------------------------------------------------- encoders
def make_encoder(arch: str, words: WordSetup, dim: int, conv_layers: int = 4, seed: int = 0) -> SentenceEncoder:
    """A fresh seeded encoder of sentence-vector size ``dim`` on the chapter's frozen word vectors.

    ``bilstm-last`` / ``bilstm-max``: one BiLSTM layer of ``dim / 2`` units per direction (the thesis: 2 layers
    of 512); ``gated-convnet``: ``conv_layers`` gated convolutions of ``dim`` channels, kernel 3 (the thesis: 8
    layers of 512). The same ``seed`` gives the same initial weights, so each trained encoder starts from its
    untrained row.
    Book: chapter 4 (Probing: the encoders).
    """
    if arch not in ENCODERS:
        raise ValueError(f"unknown encoder {arch!r}; the probing encoders are {list(ENCODERS)}.")
    if not isinstance(dim, (int, np.integer)) or dim < 2 or (arch != "gated-convnet" and dim % 2):
        raise ValueError(f"dim must be a positive (even, for BiLSTMs) integer, got {dim!r}.")
    seed_everything(seed)
    common = {"word_dim": words.dim, "embeddings": words.weights, "freeze_embeddings": words.frozen,
              "pipeline": words.pipeline}
    if arch == "gated-convnet":
        return GatedConvNetEncoder(len(words.pipeline.vocab), hidden_dim=int(dim), num_layers=conv_layers,
                                   kernel_size=3, **common)
    return RecurrentEncoder.from_architecture(arch, len(words.pipeline.vocab), hidden_dim=int(dim) // 2, **common)


# --------------------------------------------------------------------------------------------- training data
@dataclass
class Seq2SeqCorpus:
    """(source, target) sentence pairs of one seq2seq training task, in three splits.

    Targets are whitespace-tokenised (sentences of the synthetic languages, linearised trees).
    Book: chapter 4 (Probing: the seq2seq training tasks).
    """

    task: str
    source: dict[str, list[str]]
    target: dict[str, list[str]]
    description: str

    def sentences(self) -> list[str]:
        """Every English source sentence of the three splits. Book: chapter 4 (Probing)."""
        return [s for split in SPLITS for s in self.source[split]]


def training_corpus(world: SyntheticWorld, task: str, n_train: int, n_dev: int, n_test: int) -> Seq2SeqCorpus | NLICorpus:
    """The data of training ``task`` drawn from the synthetic world.

    ``autoencoder``: English sentences rebuilt from their vector; ``nmt-fr/de/fi``: English to the invented
    language of :data:`NMT_TARGETS`; ``seq2tree``: English sentence to its linearised tree (Vinyals et al.,
    words dropped); ``skipthought``: a sentence of a coherent document to the next one (next only, as Tang et
    al.); ``nli``: English NLI pairs (an :class:`~xsent_lib.recipes.infersent.NLICorpus`).
    Book: chapter 4 (Probing: the training tasks).
    """
    if not isinstance(world, SyntheticWorld):
        raise TypeError(f"world must be a SyntheticWorld, got {type(world).__name__}.")
    sizes = dict(zip(SPLITS, _check_sizes((n_train, n_dev, n_test))))
    if task == "nli":
        return synthetic_nli(world, *sizes.values())
    src: dict[str, list[str]] = {}
    tgt: dict[str, list[str]] = {}
    for split, n in sizes.items():
        if task == "autoencoder":
            src[split] = world.sentences(n, "en", split)
            tgt[split] = list(src[split])
        elif task in NMT_TARGETS:
            pairs = world.parallel(n, "en", NMT_TARGETS[task], split)
            src[split], tgt[split] = list(pairs.src), list(pairs.tgt)
        elif task == "seq2tree":
            forms = world.forms(n, "probing-seq2tree", split)
            src[split] = world.render(forms, "en")
            tgt[split] = [" ".join(linearize_tree(t)) for t in world.render(forms, "en", tree=True)]
        elif task == "skipthought":
            n_sents = 6
            docs = world.documents(-(-n // (n_sents - 1)), n_sents, "en", split)
            flat = [s for d in docs.documents for s in d]
            a, b = next_sentence_pairs(np.repeat(np.arange(len(docs.documents)), n_sents))
            src[split], tgt[split] = [flat[i] for i in a[:n].tolist()], [flat[i] for i in b[:n].tolist()]
        else:
            raise ValueError(f"unknown training task {task!r}; use one of {[t for t in TRAINING_TASKS if t != 'untrained']}.")
    what = {"autoencoder": "English -> the same sentence", "seq2tree": "English -> linearised parse tree",
            "skipthought": "sentence -> next sentence of its document",
            **{k: f"English -> {v} ({world.typology(v).name})" for k, v in NMT_TARGETS.items() if v in world.languages}}
    return Seq2SeqCorpus(task, src, tgt, what[task])


def target_vocab(texts: Sequence[str]) -> Vocab:
    """Whitespace-token vocabulary of seq2seq targets with padding, ``<unk>``, ``<s>`` and ``</s>``.

    Book: chapter 4 (Probing: the seq2seq training tasks).
    """
    return Vocab.build([t.split() for t in texts], specials=(PAD_TOKEN, UNK_TOKEN, BOS_TOKEN, EOS_TOKEN))


def seq2seq_batches(words: WordSetup, vocab: Vocab, source: Sequence[str], target: Sequence[str], batch_size: int = 128,
                    seed: int = 0) -> Callable[[int], list[tuple[torch.Tensor, ...]]]:
    """``epoch -> batches`` of ``(source ids, lengths, target ids, lengths)`` for :func:`fit`.

    Each epoch shuffles the pairs with its own seed, sorts windows of 50 batches by source length (little
    padding) and shuffles the batch order.
    Book: chapter 4 (Probing: the seq2seq training tasks).
    """
    if len(source) != len(target) or not source:
        raise ValueError(f"need as many targets as sources (and at least one), got {len(source)} and {len(target)}.")
    s_flat, s_off = words.pipeline.encode_flat(list(source))
    t_flat, t_off = vocab.lookup_flat([t.split() for t in target])
    if (np.diff(t_off) == 0).any():
        raise ValueError("a target is empty; every target needs at least one token.")
    s_len = np.diff(s_off)

    def batches(epoch: int) -> list[tuple[torch.Tensor, ...]]:
        groups = shuffled_length_batches(s_len, batch_size, np.random.default_rng([seed, epoch]))
        return [(*pad_csr(s_flat, s_off, idx), *pad_csr(t_flat, t_off, idx)) for idx in groups]

    return batches


def seq2seq_step_loss(model: Seq2Seq, batch: tuple[torch.Tensor, ...]) -> torch.Tensor:
    """Token-averaged cross-entropy of one ``(src, src_len, tgt, tgt_len)`` batch under teacher forcing.

    Book: chapter 4 (Probing: the seq2seq training tasks).
    """
    return seq2seq_loss(model, *batch)


def seq2seq_perplexity(model: Seq2Seq, words: WordSetup, vocab: Vocab, source: Sequence[str], target: Sequence[str],
                       batch_size: int = 256) -> float:
    """Perplexity of ``target`` (plus ``</s>``) given ``source`` under teacher forcing.

    Book: chapter 4 (Probing: the seq2seq training tasks).
    """
    dev = next(model.parameters()).device
    total, count = torch.zeros((), dtype=torch.float64), 0
    dec = model.decoder
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            for batch in seq2seq_batches(words, vocab, source, target, batch_size)(0):
                src, src_len, tgt, tgt_len = (b.to(dev) for b in batch)
                inputs, gold = teacher_forcing_pair(tgt, tgt_len, bos_id=dec.bos_id, eos_id=dec.eos_id, pad_id=dec.pad_id)
                nll, n = sequence_nll(model(src, src_len, inputs), gold)
                total += nll.double().cpu()
                count += int(n)
    finally:
        model.train(was_training)
    return perplexity(total, count)


def greedy_outputs(model: Seq2Seq, words: WordSetup, vocab: Vocab, source: Sequence[str], max_len: int = 80,
                   batch_size: int = 256) -> list[str]:
    """The model's greedy output for each source sentence, as whitespace-joined target tokens.

    Book: chapter 4 (Probing: the seq2seq training tasks).
    """
    dev = next(model.parameters()).device
    flat, off = words.pipeline.encode_flat(list(source))
    itos = np.array(vocab.itos, dtype=object)
    out: list[str] = []
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            for s in range(0, len(source), batch_size):
                src, src_len = pad_csr(flat, off, np.arange(s, min(s + batch_size, len(source))))
                ids, lens = model.greedy_decode(src.to(dev), src_len.to(dev), max_len=max_len)
                ids, lens = ids.cpu().numpy(), lens.cpu().numpy()
                out += [" ".join(itos[row[:n]]) for row, n in zip(ids, lens)]
    finally:
        model.train(was_training)
    return out


def corpus_bleu(hypotheses: Sequence[str], references: Sequence[str]) -> float:
    """Corpus BLEU-4 (sacreBLEU) of already tokenised text, as MOSES ``multi-bleu.perl`` scores it (no re-tokenising).

    Book: chapter 4 (Probing: training-task scores).
    """
    import sacrebleu

    if len(hypotheses) != len(references) or not references:
        raise ValueError(f"need one hypothesis per reference (and at least one), got {len(hypotheses)} and {len(references)}.")
    return float(sacrebleu.corpus_bleu(list(hypotheses), [list(references)], tokenize="none", force=True).score)


# --------------------------------------------------------------------------------------------- training
@dataclass(frozen=True)
class TrainSettings:
    """How the encoders are trained: sizes, optimisers, the decoder and the NLI head, the curve probes.

    Thesis: Adam for the BiLSTMs, SGD with momentum for the gated ConvNet (Adam gave very poor results there);
    decoder 2 layers x 512 fed the sentence vector at every step; NLI head an MLP of 100 hidden units. Our
    defaults shrink the decoder (``decoder_layers`` x ``decoder_dim``); the learning rates, momentum 0.9 and the
    gradient clip at 5 are our choices (the thesis gives none). ``curve_points`` evaluations (plus one before
    training) make the per-epoch curves, each with ``curve_probe`` probes.
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
    curve_points: int = 4
    curve_probe: str = "logreg"
    probe_mode: str = "fast"
    eval_batch_size: int = 256


@dataclass
class TrainedEncoder:
    """One encoder of the study: its architecture, training task, size, the trained module and what was measured.

    ``score`` holds the training task's test figure of merit (``bleu`` for NMT and the auto-encoder, ``exact``
    match for Seq2Tree, ``perplexity`` for SkipThought, ``accuracy`` for NLI); ``curve`` the periodic
    evaluations (``x`` in epochs, ``probing`` ``{task: [acc]}``, ``score`` and its name).
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


def _curve(history: History, steps_per_epoch: int, score_name: str) -> dict[str, Any]:
    probes = history.evals["probing"]
    return {"x": [r["step"] / steps_per_epoch for r in probes], "score_name": score_name,
            "score": [r["value"] for r in history.evals["score"]],
            "probing": {t: [r["value"][t] for r in probes] for t in probes[0]["value"]}}


def train_encoder(arch: str, task: str, data: Seq2SeqCorpus | NLICorpus | None, words: WordSetup, dim: int,
                  settings: TrainSettings = TrainSettings(), *, seed: int = 0, device: str | torch.device = "auto",
                  curve_suite: Mapping[str, ClassificationTask] | None = None, progress: bool = False) -> TrainedEncoder:
    """Build encoder ``arch`` (see :func:`make_encoder`) and train it on ``task`` through :func:`fit`.

    ``untrained`` returns the fresh encoder. Seq2seq tasks put an :class:`~xsent_lib.encoders.LSTMDecoder`
    on the sentence vector (no attention) and keep the weights of the best dev perplexity; NLI puts the
    ``[u, v, |u-v|, u*v]`` MLP on top and keeps the best dev accuracy. After training, the test figure of
    merit is measured (BLEU of greedy outputs, exact tree match, perplexity or accuracy). With ``curve_suite``,
    ``settings.curve_points`` evaluations spread over training probe the encoder on it and score the task on
    dev (BLEU for NMT and the auto-encoder, perplexity for SkipThought, accuracy otherwise).
    Book: chapter 4 (Probing: training the encoders).
    """
    dev = pick_device(device)
    encoder = make_encoder(arch, words, dim, settings.conv_layers, seed)
    if task == "untrained":
        return TrainedEncoder(arch, task, encoder.output_dim, encoder.to(dev))
    if task not in TRAINING_TASKS:
        raise ValueError(f"unknown training task {task!r}; use one of {list(TRAINING_TASKS)}.")
    is_nli = task == "nli"
    if is_nli != isinstance(data, NLICorpus) or (not is_nli and not isinstance(data, Seq2SeqCorpus)):
        raise TypeError(f"task {task!r} needs {'an NLICorpus' if is_nli else 'a Seq2SeqCorpus'} from training_corpus().")
    optim = {"optimizer": "sgd", "lr": settings.sgd_lr, "momentum": settings.momentum} if arch == "gated-convnet" \
        else {"optimizer": "adam", "lr": settings.adam_lr}
    bs = settings.eval_batch_size
    gbs = max(bs, 1024)  # greedy decoding is sequential in time: one wide batch beats several narrow ones
    if is_nli:
        model = NLIModel(encoder, NLIClassifier(encoder.output_dim, settings.nli_hidden))
        batches = nli_batches(words.pipeline, data.train, settings.batch_size, seed)
        loss, dev_mode = nli_step_loss, "max"
        dev_fn = lambda m: nli_accuracy(m, data.dev, bs, dev)  # noqa: E731
        score_name, score_fn = "accuracy", dev_fn
    else:
        vocab = target_vocab(data.target["train"])
        decoder = LSTMDecoder(len(vocab), encoder.output_dim, bos_id=vocab.stoi[BOS_TOKEN], eos_id=vocab.stoi[EOS_TOKEN],
                              embed_dim=settings.decoder_embed, hidden_dim=settings.decoder_dim,
                              n_layers=settings.decoder_layers)
        model = Seq2Seq(encoder, decoder)
        batches = seq2seq_batches(words, vocab, data.source["train"], data.target["train"], settings.batch_size, seed)
        loss, dev_mode = seq2seq_step_loss, "min"
        max_len = max(len(t.split()) for t in data.target["train"]) + 5
        dev_fn = lambda m: seq2seq_perplexity(m, words, vocab, data.source["dev"], data.target["dev"], bs)  # noqa: E731
        if task == "skipthought":
            score_name, score_fn = "perplexity", dev_fn
        elif task == "seq2tree":
            score_name = "exact"
            score_fn = lambda m: _exact_match(greedy_outputs(m, words, vocab, data.source["dev"], max_len, gbs),  # noqa: E731
                                              data.target["dev"])
        else:
            score_name = "bleu"
            score_fn = lambda m: corpus_bleu(greedy_outputs(m, words, vocab, data.source["dev"], max_len, gbs),  # noqa: E731
                                             data.target["dev"])
    steps_per_epoch = len(batches(0))
    callbacks, eval_every = None, None
    if curve_suite is not None:
        probe = settings.curve_probe
        callbacks = {"probing": lambda m: probe_encoder(m.encoder, curve_suite, probe, settings.probe_mode, seed + 1,
                                                        dev, bs),
                     "score": score_fn}
        eval_every = max(1, steps_per_epoch * settings.epochs // max(settings.curve_points, 1))
    start = time.perf_counter()
    history = fit(model, loss, batches, epochs=settings.epochs, device=dev, seed=seed, dev_fn=dev_fn, dev_mode=dev_mode,
                  clip_norm=settings.clip_norm, callbacks=callbacks, eval_every=eval_every, progress=progress, **optim)
    seconds = time.perf_counter() - start
    if is_nli:
        score = {"accuracy": nli_accuracy(model, data.test, bs, dev)}
    else:
        outputs = None if task == "skipthought" else greedy_outputs(model, words, vocab, data.source["test"], max_len, gbs)
        score = {"perplexity": seq2seq_perplexity(model, words, vocab, data.source["test"], data.target["test"], bs)}
        if task == "seq2tree":
            score["exact"] = _exact_match(outputs, data.target["test"])
        elif outputs is not None:
            score["bleu"] = corpus_bleu(outputs, data.target["test"])
    curve = _curve(history, steps_per_epoch, score_name) if curve_suite is not None else {}
    return TrainedEncoder(arch, task, encoder.output_dim, encoder, history, score, curve, seconds)


def _exact_match(outputs: Sequence[str], targets: Sequence[str]) -> float:
    return 100.0 * float(np.mean([o == t for o, t in zip(outputs, targets)]))


# --------------------------------------------------------------------------------------------- probes
def probe_config(probe: str, mode: str = "fast", seed: int = 1111, device: str | torch.device = "auto",
                 n_classes: int = 2) -> ClassifierConfig:
    """The classifier of a probe: the thesis's Sigmoid MLP (``"mlp"``) or logistic regression (``"logreg"``).

    ``mode="full"``: the MLP grid of the thesis (hidden 50/100/200, dropout 0/0.1/0.2, 4 L2 values) and the
    exact L2-penalised logistic regression. ``mode="fast"``: the MLP with 50 hidden units, dropout 0/0.1 and 2
    L2 values, trained with minibatches of 256 at learning rate 0.01 (our budget setting: few steps per epoch
    on small probing sets); logistic regression solved exactly (L-BFGS) with 2 L2 values, except for tasks of
    more than :data:`EXACT_MAX_CLASSES` classes (WC), where the exact solution costs minutes and Adam with
    early stopping on dev (the thesis's solver) takes its place. Everything is tuned on dev, as in the thesis.
    ``mode="smoke"`` is ``"fast"`` stopped after 3 epochs: it only checks that the code runs (CI), its
    accuracies mean nothing.
    Book: chapter 4 (Probing: the probing classifier).
    """
    if probe not in PROBES:
        raise ValueError(f"probe must be one of {PROBES}, got {probe!r}.")
    if mode not in PROBE_MODES:
        raise ValueError(f"mode must be one of {PROBE_MODES}, got {mode!r}.")
    dev = str(pick_device(device))
    if mode == "full":
        return ClassifierConfig.probe("full", seed=seed, device=dev) if probe == "mlp" else \
            ClassifierConfig.full(seed=seed, device=dev)
    budget = {"batch_size": 256, "min_steps_per_epoch": 10}
    if mode == "smoke":
        budget["max_epochs"] = 3
    if probe == "mlp":
        return ClassifierConfig.probe("fast", seed=seed, device=dev, lr=1e-2, **budget)
    if n_classes > EXACT_MAX_CLASSES:
        return ClassifierConfig.fast(seed=seed, device=dev, solver="adam", lr=3e-3, **budget)
    return ClassifierConfig.fast(seed=seed, device=dev)


def suite_features(encoder: SentenceEncoder, suite: Mapping[str, ClassificationTask], batch_size: int = 256,
                   device: str | torch.device = "auto") -> dict[str, dict[str, np.ndarray]]:
    """Embed every split of every task with one ``encoder.encode`` call: ``{task: {split: [n, d]}}``.

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


def probe_features(features: Mapping[str, Mapping[str, np.ndarray]], suite: Mapping[str, ClassificationTask],
                   probe: str = "mlp", mode: str = "fast", seed: int = 1111,
                   device: str | torch.device = "auto") -> dict[str, float]:
    """Test accuracy (percent) of a probe trained on frozen features of each task, tuned on dev.

    Features are standardised with the training split's mean and standard deviation per dimension (our
    choice: the coordinates of small untrained encoders differ in scale by orders of magnitude, and the
    probes, trained with a fixed budget, underfit raw features badly; SentEval feeds them raw). With
    ``probe="mlp"`` the tasks of :data:`LOGREG_ONLY` (WC) are still probed by logistic regression, as in every
    table of the thesis.
    Book: chapter 4 (Probing: the probing classifier).
    """
    out = {}
    for name, task in suite.items():
        if name not in features:
            raise ValueError(f"no features for task {name!r}; build them with suite_features(encoder, suite).")
        kind = "logreg" if probe == "mlp" and name in LOGREG_ONLY else probe
        n = len(task.label_names)
        config = probe_config(kind, mode, seed, device, n)
        labels = {s: np.asarray(task.splits[s].labels) for s in SPLITS}
        mu = features[name]["train"].mean(0)
        sd = features[name]["train"].std(0) + 1e-6
        x = {s: (features[name][s] - mu) / sd for s in SPLITS}
        res = split_select(x["train"], one_hot(labels["train"], n), x["dev"], one_hot(labels["dev"], n), x["test"],
                           config)
        out[name] = 100.0 * float((res["test_probs"].argmax(-1) == labels["test"]).mean())
    return out


def probe_encoder(encoder: SentenceEncoder, suite: Mapping[str, ClassificationTask], probe: str = "mlp",
                  mode: str = "fast", seed: int = 1111, device: str | torch.device = "auto",
                  batch_size: int = 256) -> dict[str, float]:
    """Embed the suite with ``encoder`` and probe every task (see :func:`probe_features`).

    Book: chapter 4 (Probing).
    """
    return probe_features(suite_features(encoder, suite, batch_size, device), suite, probe, mode, seed, device)


def baseline_scores(suite: Mapping[str, ClassificationTask], mode: str = "fast", seed: int = 1111) -> dict[str, dict[str, float]]:
    """The representation-free baselines of Tables 3.10 / 3.12 on each task, by the thesis's row labels.

    ``Majority vote``, ``Length`` (logistic regression on the token count), ``NB-uni-tfidf`` and
    ``NB-bi-tfidf`` (multinomial naive Bayes on tf-idf), from :func:`xsent_lib.eval.probing_baselines`; rows
    are labelled ``"Baseline representations / <name>"`` as in the tables.
    Book: chapter 4 (Probing: baselines).
    """
    rows = {"Majority vote": "majority", "Length": "length", "NB-uni-tfidf": "nb_uni_tfidf", "NB-bi-tfidf": "nb_bi_tfidf"}
    per_task = {name: probing_baselines(task, None, mode, seed) for name, task in suite.items()}
    return {f"{BASELINES} / {row}": {name: res[key] for name, res in per_task.items()} for row, key in rows.items()}


# --------------------------------------------------------------------------------------------- downstream
def downstream_scores(row: Mapping[str, float]) -> dict[str, float]:
    """Table 3.13's columns (accuracy, or Pearson x 100 for relatedness) from a transfer row: the ``"row"`` of
    :func:`xsent_lib.recipes.infersent.evaluate_transfer` (Table 3.7 columns, correlations as fractions).

    Columns Table 3.13 has no place for (MRPC F1, STS14 Spearman) are dropped; STS14 Pearson is kept as
    ``"STS14"`` for the correlation matrix.
    Book: chapter 4 (Probing: downstream tasks).
    """
    unknown = [c for c in row if c not in TABLE_3_13_COLUMNS and c not in ("MRPC F1", "STS14 Spearman")]
    if unknown:
        raise ValueError(f"no Table 3.13 column for {unknown}; a row of evaluate_transfer has {list(TABLE_3_13_COLUMNS)}.")
    out = {}
    for column, value in row.items():
        if column in TABLE_3_13_COLUMNS:
            name = TABLE_3_13_COLUMNS[column]
            out[name] = float(value) * (100.0 if name in CORRELATION_COLUMNS else 1.0)
    return out


def chance_scores(suite: TransferSuite) -> dict[str, float]:
    """The thesis's "Chance" row (:data:`CHANCE_ROW`) of a transfer suite: the test share of the most frequent
    training class for classification tasks, 0 for correlations.

    Book: chapter 4 (Probing: downstream tasks).
    """
    out = {}
    for task in suite.tasks:
        columns = TABLE_3_7_COLUMNS.get(suite.papers.get(task.name, ""), {})
        for column in columns:
            if column not in TABLE_3_13_COLUMNS:
                continue
            name = TABLE_3_13_COLUMNS[column]
            if name in CORRELATION_COLUMNS:
                out[name] = 0.0
                continue
            train = np.asarray(task.splits["train"].labels)
            test = np.asarray(task.splits["test"].labels)
            out[name] = 100.0 * float((test == np.bincount(train).argmax()).mean())
    return out


# --------------------------------------------------------------------------------------------- correlations
def adjust_pvalues(p: np.ndarray, method: str = "holm") -> np.ndarray:
    """Family-wise adjusted p-values: ``"bonferroni"`` (``m p``) or ``"holm"`` (step-down), capped at 1.

    Holm: with ascending ``p_(1) <= ... <= p_(m)``, ``p~_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))``; reject
    when ``p~ <= alpha``. Missing values (NaN, e.g. a constant score) are left out of ``m`` and stay NaN.
    Book: chapter 4 (Probing: correlations with downstream tasks).
    """
    if method not in ("holm", "bonferroni"):
        raise ValueError(f"method must be 'holm' or 'bonferroni', got {method!r}.")
    p = np.asarray(p, np.float64)
    flat = p.ravel()
    ok = np.isfinite(flat)
    if ((flat[ok] < 0) | (flat[ok] > 1)).any():
        raise ValueError("p-values must lie in [0, 1].")
    m = int(ok.sum())
    out = np.full(flat.shape, np.nan)
    if m == 0:
        return out.reshape(p.shape)
    vals = flat[ok]
    if method == "bonferroni":
        adj = np.minimum(1.0, m * vals)
    else:
        order = np.argsort(vals, kind="stable")
        steps = np.minimum(1.0, (m - np.arange(m)) * vals[order])
        adj = np.empty(m)
        adj[order] = np.maximum.accumulate(steps)
    out[ok] = adj
    return out.reshape(p.shape)


@dataclass
class CorrelationResult:
    """Spearman correlations between task scores over encoders, and which survive the multiple-comparison test.

    ``rho`` / ``pvalue`` are square and symmetric over every task; ``p_adjusted`` and ``significant`` cover the
    tested block (``rows`` x ``cols``), corrected over its ``m`` cells by ``correction``.
    Book: chapter 4 (Probing: correlations with downstream tasks).
    """

    rho: pd.DataFrame
    pvalue: pd.DataFrame
    p_adjusted: pd.DataFrame
    significant: pd.DataFrame
    correction: str
    alpha: float
    n_encoders: int

    @property
    def block(self) -> pd.DataFrame:
        """The tested block of ``rho`` (probing rows x downstream columns). Book: chapter 4 (Probing)."""
        return self.rho.loc[self.significant.index, self.significant.columns]


def spearman_matrix(scores: pd.DataFrame, rows: Sequence[str], cols: Sequence[str], correction: str = "holm",
                    alpha: float = 0.05) -> CorrelationResult:
    """Spearman's rho between every pair of task columns of ``scores`` (one row per encoder).

    The ``rows`` x ``cols`` block (probing x downstream tasks in Figure 3.11) is tested: its two-sided p-values
    (scipy's t approximation) are adjusted by ``correction`` (Holm, or Bonferroni) over the block's cells, and a
    cell is significant when the adjusted p-value is at most ``alpha``. A task with a constant score has no
    correlation (NaN), never significant.
    Book: chapter 4 (Probing: correlations with downstream tasks).
    """
    if not isinstance(scores, pd.DataFrame):
        raise TypeError(f"scores must be a DataFrame (encoders x tasks), got {type(scores).__name__}.")
    missing = [c for c in (*rows, *cols) if c not in scores.columns]
    if missing:
        raise ValueError(f"tasks {missing} are not columns of scores ({list(scores.columns)}).")
    if scores.shape[0] < 3:
        raise ValueError(f"need at least 3 encoders to correlate, got {scores.shape[0]}.")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}.")
    tasks = list(dict.fromkeys([*rows, *cols]))
    values = scores[tasks].to_numpy(np.float64)
    if not np.isfinite(values).all():
        raise ValueError("scores hold NaN or infinite values; every encoder needs every task's score.")
    constant = np.ptp(values, axis=0) == 0
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore")  # constant columns: handled below
        rho, p = spearmanr(values, axis=0) if len(tasks) > 2 else _pair_spearman(values)
    rho, p = np.atleast_2d(rho).astype(np.float64), np.atleast_2d(p).astype(np.float64)
    rho[constant, :] = rho[:, constant] = np.nan
    p[constant, :] = p[:, constant] = np.nan
    np.fill_diagonal(rho, np.where(constant, np.nan, 1.0))
    rho_df, p_df = pd.DataFrame(rho, tasks, tasks), pd.DataFrame(p, tasks, tasks)
    block = p_df.loc[list(rows), list(cols)].to_numpy()
    adj = pd.DataFrame(adjust_pvalues(block, correction), list(rows), list(cols))
    return CorrelationResult(rho_df, p_df, adj, adj.le(alpha) & adj.notna(), correction, alpha, scores.shape[0])


def _pair_spearman(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r, p = spearmanr(values[:, 0], values[:, 1])
    return np.array([[1.0, r], [r, 1.0]]), np.array([[0.0, p], [p, 0.0]])


# --------------------------------------------------------------------------------------------- claims
def _claim(claim: str, paper: str, ours: str, holds: bool | None) -> dict[str, Any]:
    return {"claim": claim, "paper": paper, "ours": ours, "holds": holds}


def probing_claims(mlp: Mapping[str, Mapping[str, float]], logreg: Mapping[str, Mapping[str, float]],
                   curves: Mapping[str, Mapping[str, Any]], sizes: Mapping[str, Mapping[int, Mapping[str, float]]],
                   correlation: CorrelationResult | None) -> list[dict[str, Any]]:
    """Section 3.3's claims checked on our numbers: ``claim | paper | ours | holds``.

    ``mlp`` / ``logreg`` are Tables 3.10 / 3.12: row labels as the thesis's (``"BiLSTM-max encoder / Untrained"``,
    :data:`MAJORITY_ROW`, :data:`BOV_ROWS`) to ``{task: accuracy}``; ``curves`` maps a training-task row label
    to its per-epoch curve; ``sizes`` maps a training task row label to ``{dim: {task: accuracy}}``.
    Book: chapter 4 (Probing: discussion).
    """
    def get(row: str, task: str, table: Mapping = mlp) -> float:
        return float(table.get(row, {}).get(task, np.nan))

    claims = []
    tasks = [t for t in PROBING_TASKS if t in mlp.get(MAJORITY_ROW, {})]
    u_max, bov = "BiLSTM-max encoder / Untrained", BOV_ROWS["table_3_10"]
    if u_max in mlp:
        wc, maj = get(u_max, "WC"), get(MAJORITY_ROW, "WC")
        claims.append(_claim("Untrained BiLSTM-max is already strong on WC", "88.8 (chance 0.5)",
                             f"{wc:.1f} (chance {maj:.1f})", wc > 5 * maj))
        somo = get(u_max, "SOMO")
        claims.append(_claim("Untrained BiLSTM-max is well above chance on SOMO", "73.3 vs 50",
                             f"{somo:.1f} vs {get(MAJORITY_ROW, 'SOMO'):.1f}", somo > get(MAJORITY_ROW, "SOMO") + 5))
    if bov in mlp:
        b = {t: get(bov, t) for t in tasks}
        maj = {t: get(MAJORITY_ROW, t) for t in tasks}
        claims.append(_claim("Bag of vectors is good on SentLen and WC", "SentLen 66.6, WC 91.6",
                             f"SentLen {b['SentLen']:.1f} (chance {maj['SentLen']:.1f}), WC {b['WC']:.1f} "
                             f"(chance {maj['WC']:.1f})", b["SentLen"] > 2 * maj["SentLen"] and b["WC"] > 10 * maj["WC"]))
        claims.append(_claim("Bag of vectors is near chance on BShift (word order)", "50.8 (chance 50)",
                             f"{b['BShift']:.1f}", abs(b["BShift"] - maj["BShift"]) < 5))
        trained = [r for r in mlp if r.endswith(("Seq2Tree", "NMT En-Fr")) and "BiLSTM-max" in r]
        if trained:
            best = max(get(r, "BShift") for r in trained)
            claims.append(_claim("Trained encoders beat bag of vectors on BShift", "BiLSTM-max Seq2Tree 82.1 vs BoV 50.8",
                                 f"best BiLSTM-max (NMT En-Fr / Seq2Tree) {best:.1f} vs BoV {b['BShift']:.1f}",
                                 best > b["BShift"] + 5))
    pairs = [(r, r.replace("BiLSTM-max", "BiLSTM-last")) for r in mlp if r.startswith("BiLSTM-max encoder")]
    pairs = [(a, b) for a, b in pairs if b in mlp]
    if pairs:
        tasks_no_len = [t for t in tasks if t != "SentLen"]
        wins = sum(get(a, t) > get(b, t) for a, b in pairs for t in tasks_no_len)
        total = len(pairs) * len(tasks_no_len)
        claims.append(_claim("BiLSTM-max beats BiLSTM-last (all tasks but SentLen)", "on every task but SentLen",
                             f"wins {wins} of {total} (encoder, task) pairs", wins > total / 2))
    ae = "BiLSTM-max encoder / AutoEncoder"
    if ae in mlp and u_max in mlp:
        others = [get(r, "SentLen") for r in mlp if r.startswith("BiLSTM-max encoder") and r != ae]
        claims.append(_claim("The auto-encoder excels at SentLen", "99.1 (BiLSTM-max), best of its column",
                             f"{get(ae, 'SentLen'):.1f} vs best other BiLSTM-max {max(others):.1f}",
                             get(ae, "SentLen") >= max(others)))
        claims.append(_claim("The auto-encoder is poor at WC", "17.5 vs untrained 88.8 (BiLSTM-max)",
                             f"{get(ae, 'WC'):.1f} vs untrained {get(u_max, 'WC'):.1f}", get(ae, "WC") < get(u_max, "WC")))
    s2t = "BiLSTM-max encoder / Seq2Tree"
    if s2t in mlp and u_max in mlp:
        gain = {t: get(s2t, t) - get(u_max, t) for t in ("TreeDepth", "TopConst", "BShift")}
        claims.append(_claim("Seq2Tree helps the syntactic tasks (TreeDepth, TopConst, BShift) most",
                             "63.8 / 89.6 / 82.1 vs untrained 46.2 / 71.8 / 70.6",
                             ", ".join(f"{t} {g:+.1f}" for t, g in gain.items()), all(g > 0 for g in gain.values())))
    nmt, nli = "BiLSTM-max encoder / NMT En-Fr", "BiLSTM-max encoder / NLI"
    if nmt in mlp and nli in mlp:
        rest = [t for t in tasks if t != "WC"]
        wins = sum(get(nmt, t) > get(nli, t) for t in rest)
        claims.append(_claim("NMT encoders probe better than NLI encoders (but on WC)", "NMT above NLI on 9 of 10",
                             f"NMT En-Fr above NLI on {wins} of {len(rest)} tasks", wins > len(rest) / 2))
    row = nmt if nmt in mlp and nmt in logreg else u_max
    if row in mlp and row in logreg:
        gains = {t: get(row, t) - get(row, t, logreg) for t in tasks if t not in LOGREG_ONLY}
        top = sorted(gains, key=gains.get, reverse=True)[:3]
        claims.append(_claim("The MLP probe gains over logistic regression", "BiLSTM-max NMT En-Fr: > 3 points on "
                             "TreeDepth, SOMO and CoordInv",
                             f"{row.split(' / ')[-1]}: mean gain {np.mean(list(gains.values())):+.1f}, largest "
                             + ", ".join(f"{t} {gains[t]:+.1f}" for t in top), float(np.mean(list(gains.values()))) > 0))
    nmt_curves = {k: c for k, c in curves.items() if "NMT" in k}
    if nmt_curves:
        drops = {k: c["probing"]["SentLen"][-1] - max(c["probing"]["SentLen"][1:] or c["probing"]["SentLen"])
                 for k, c in nmt_curves.items() if "SentLen" in c["probing"]}
        wc_up = {k: c["probing"]["WC"][-1] - c["probing"]["WC"][1] for k, c in nmt_curves.items()
                 if "WC" in c["probing"] and len(c["probing"]["WC"]) > 2}
        if wc_up:
            claims.append(_claim("WC keeps rising during NMT training", "Figure 3.10",
                                 ", ".join(f"{k.split(' / ')[-1]} {v:+.1f}" for k, v in wc_up.items()),
                                 all(v > 0 for v in wc_up.values())))
        if drops:
            claims.append(_claim("SentLen drops during NMT training (after its peak)", "Figure 3.10",
                                 ", ".join(f"{k.split(' / ')[-1]} {v:+.1f}" for k, v in drops.items()),
                                 all(v < 0 for v in drops.values())))
    if len(sizes) == 2 and all(len(s) >= 2 for s in sizes.values()):
        means = {}
        for k, by_dim in sizes.items():
            dims = sorted(by_dim)
            means[k] = float(np.mean([by_dim[dims[-1]][t] - by_dim[dims[0]][t] for t in by_dim[dims[0]]]))
        nli_key = next((k for k in means if k.endswith("NLI")), None)
        nmt_key = next((k for k in means if "NMT" in k), None)
        if nli_key and nmt_key:
            claims.append(_claim("A larger embedding helps NLI encoders more than NMT encoders on probing",
                                 "Figure 3.12", f"mean gain smallest->largest: NLI {means[nli_key]:+.1f}, "
                                 f"NMT En-Fr {means[nmt_key]:+.1f}", means[nli_key] > means[nmt_key]))
    if correlation is not None:
        sig = correlation.significant
        if "WC" in sig.index:
            pos = int(((correlation.block.loc["WC"] > 0) & sig.loc["WC"]).sum())
            claims.append(_claim("WC correlates positively and significantly with downstream tasks",
                                 "with all of them", f"{pos} of {sig.shape[1]} downstream tasks", pos > sig.shape[1] / 2))
        if "SentLen" in sig.index:
            neg = int((correlation.block.loc["SentLen"] < 0).sum())
            claims.append(_claim("SentLen correlates negatively with most downstream tasks", "negative for most",
                                 f"negative rho for {neg} of {sig.shape[1]}", neg > sig.shape[1] / 2))
    return claims
