"""Seq2seq training tasks of the probing study: their corpora, batches, training and scores.

A sentence encoder is trained under an LSTM decoder that sees only its sentence vector (no
attention): auto-encoding, NMT into three invented languages, Seq2Tree (the linearised parse
tree) and SkipThought (the next sentence), as in Conneau et al. (2018). Training goes through
:func:`xsent_lib.train.fit`, keeping the weights of the best dev perplexity.
Book: chapter 4 (Probing: the seq2seq training tasks).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from xsent_lib.base.runtime import pick_device
from xsent_lib.data.probing_sets import SPLITS, check_sizes
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.encoders.decoder import (
    LSTMDecoder,
    Seq2Seq,
    linearize_tree,
    next_sentence_pairs,
    teacher_forcing_pair,
)
from xsent_lib.losses.seq2seq import perplexity, seq2seq_loss, sequence_nll
from xsent_lib.text import BOS_TOKEN, EOS_TOKEN, PAD_TOKEN, UNK_TOKEN, TextPipeline, Vocab
from xsent_lib.text.batching import pad_csr, shuffled_length_batches
from xsent_lib.train.curves import fit_with_curve
from xsent_lib.train.history import History

# Invented languages of the synthetic world standing in for the thesis's NMT targets:
# Romance-like for French, Germanic-like for German, Turkic-like (agglutinative, SOV, case)
# for the distant Finnish.
NMT_TARGETS: dict[str, str] = {"nmt-fr": "xa", "nmt-de": "xe", "nmt-fi": "xd"}
SEQ2SEQ_TASKS: tuple[str, ...] = ("autoencoder", *NMT_TARGETS, "seq2tree", "skipthought")
Batch = tuple[torch.Tensor, ...]
Metric = Callable[[Sequence[str], Sequence[str]], float]


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
        """Every English source sentence of the three splits.

        Book: chapter 4 (Probing: the seq2seq training tasks).
        """
        return [s for split in SPLITS for s in self.source[split]]


def seq2seq_corpus(world: SyntheticWorld, task: str, n_train: int, n_dev: int,
                   n_test: int) -> Seq2SeqCorpus:
    """The data of seq2seq training ``task`` drawn from the synthetic world.

    ``autoencoder``: English sentences rebuilt from their vector; ``nmt-fr/de/fi``:
    English to the invented language of :data:`NMT_TARGETS`; ``seq2tree``: English
    sentence to its linearised tree (Vinyals et al., words dropped); ``skipthought``: a
    sentence of a coherent document to the next one (next only, as Tang et al.).
    Book: chapter 4 (Probing: the training tasks).
    """
    if not isinstance(world, SyntheticWorld):
        raise TypeError(f"world must be a SyntheticWorld, got {type(world).__name__}.")
    if task not in SEQ2SEQ_TASKS:
        raise ValueError(f"unknown training task {task!r}; the seq2seq tasks are "
                         f"{list(SEQ2SEQ_TASKS)}.")
    src: dict[str, list[str]] = {}
    tgt: dict[str, list[str]] = {}
    for split, n in zip(SPLITS, check_sizes((n_train, n_dev, n_test))):
        if task == "autoencoder":
            src[split] = world.sentences(n, "en", split)
            tgt[split] = list(src[split])
        elif task in NMT_TARGETS:
            pairs = world.parallel(n, "en", NMT_TARGETS[task], split)
            src[split], tgt[split] = list(pairs.src), list(pairs.tgt)
        elif task == "seq2tree":
            forms = world.forms(n, "probing-seq2tree", split)
            src[split] = world.render(forms, "en")
            trees = world.render(forms, "en", tree=True)
            tgt[split] = [" ".join(linearize_tree(t)) for t in trees]
        else:  # skipthought: consecutive sentences of documents of 6 sentences
            docs = world.documents(-(-n // 5), 6, "en", split)
            flat = [s for d in docs.documents for s in d]
            a, b = next_sentence_pairs(np.repeat(np.arange(len(docs.documents)), 6))
            src[split] = [flat[i] for i in a[:n].tolist()]
            tgt[split] = [flat[i] for i in b[:n].tolist()]
    what = {"autoencoder": "English -> the same sentence",
            "seq2tree": "English -> linearised parse tree",
            "skipthought": "sentence -> next sentence of its document",
            **{k: f"English -> {v} ({world.typology(v).name})"
               for k, v in NMT_TARGETS.items() if v in world.languages}}
    return Seq2SeqCorpus(task, src, tgt, what[task])


def target_vocab(texts: Sequence[str], max_size: int | None = None) -> Vocab:
    """Whitespace-token vocabulary of seq2seq targets with padding, ``<unk>``, ``<s>``, ``</s>`` (at
    most ``max_size`` entries, specials included; ``None``: every token).

    Book: chapter 4 (Probing: the seq2seq training tasks).
    """
    return Vocab.build([t.split() for t in texts], max_size=max_size,
                       specials=(PAD_TOKEN, UNK_TOKEN, BOS_TOKEN, EOS_TOKEN))


def seq2seq_batches(pipeline: TextPipeline, vocab: Vocab, source: Sequence[str],
                    target: Sequence[str], batch_size: int = 128,
                    seed: int = 0) -> Callable[[int], list[Batch]]:
    """``epoch -> batches`` of ``(source ids, lengths, target ids, lengths)`` for :func:`fit`.

    Each epoch shuffles the pairs with its own seed, sorts windows of 50 batches by source
    length (little padding) and shuffles the batch order.
    Book: chapter 4 (Probing: the seq2seq training tasks).
    """
    if len(source) != len(target) or not source:
        raise ValueError("need as many targets as sources (and at least one), "
                         f"got {len(source)} and {len(target)}.")
    s_flat, s_off = pipeline.encode_flat(list(source))
    t_flat, t_off = vocab.lookup_flat([t.split() for t in target])
    if (np.diff(t_off) == 0).any():
        raise ValueError("a target is empty; every target needs at least one token.")
    s_len = np.diff(s_off)

    def batches(epoch: int) -> list[Batch]:
        groups = shuffled_length_batches(s_len, batch_size, np.random.default_rng([seed, epoch]))
        return [(*pad_csr(s_flat, s_off, idx), *pad_csr(t_flat, t_off, idx)) for idx in groups]

    return batches


def seq2seq_step_loss(model: Seq2Seq, batch: Batch) -> torch.Tensor:
    """Token-averaged cross-entropy of one ``(src, src_len, tgt, tgt_len)`` batch.

    Teacher forcing: the decoder reads ``<s> y_1 .. y_n`` and predicts ``y_1 .. y_n </s>``.
    Book: chapter 4 (Probing: the seq2seq training tasks).
    """
    return seq2seq_loss(model, *batch)


def seq2seq_perplexity(model: Seq2Seq, pipeline: TextPipeline, vocab: Vocab,
                       source: Sequence[str], target: Sequence[str],
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
            for batch in seq2seq_batches(pipeline, vocab, source, target, batch_size)(0):
                src, src_len, tgt, tgt_len = (b.to(dev) for b in batch)
                inputs, gold = teacher_forcing_pair(tgt, tgt_len, bos_id=dec.bos_id,
                                                    eos_id=dec.eos_id, pad_id=dec.pad_id)
                nll, n = sequence_nll(model(src, src_len, inputs), gold)
                total += nll.double().cpu()
                count += int(n)
    finally:
        model.train(was_training)
    return perplexity(total, count)


def greedy_outputs(model: Seq2Seq, pipeline: TextPipeline, vocab: Vocab, source: Sequence[str],
                   max_len: int = 80, batch_size: int = 256) -> list[str]:
    """The model's greedy output for each source sentence, as whitespace-joined target tokens.

    Book: chapter 4 (Probing: the seq2seq training tasks).
    """
    dev = next(model.parameters()).device
    flat, off = pipeline.encode_flat(list(source))
    itos = np.array(vocab.itos, dtype=object)
    out: list[str] = []
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            for s in range(0, len(source), batch_size):
                rows = np.arange(s, min(s + batch_size, len(source)))
                src, src_len = pad_csr(flat, off, rows)
                ids, lens = model.greedy_decode(src.to(dev), src_len.to(dev), max_len=max_len)
                ids, lens = ids.cpu().numpy(), lens.cpu().numpy()
                out += [" ".join(itos[row[:n]]) for row, n in zip(ids, lens)]
    finally:
        model.train(was_training)
    return out


def exact_match(outputs: Sequence[str], targets: Sequence[str]) -> float:
    """Percentage of outputs identical to their target (Seq2Tree's whole-tree accuracy).

    Book: chapter 4 (Probing: training-task scores).
    """
    if len(outputs) != len(targets) or not targets:
        raise ValueError("need one output per target (and at least one), "
                         f"got {len(outputs)} and {len(targets)}.")
    return 100.0 * float(np.mean([o == t for o, t in zip(outputs, targets)]))


@dataclass(frozen=True)
class Seq2SeqConfig:
    """How a seq2seq task is trained: optimiser, epochs, batch sizes and the decoder's shape.

    Book: chapter 4 (Probing: training details).
    """

    epochs: int = 1
    batch_size: int = 128
    optimizer: str = "adam"
    lr: float = 2e-3
    momentum: float = 0.0
    clip_norm: float | None = 5.0
    decoder_dim: int = 256
    decoder_layers: int = 1
    decoder_embed: int = 64
    eval_batch_size: int = 256


@dataclass
class Seq2SeqRun:
    """A trained seq2seq model, its history, test scores and (when asked) its training curve.

    Book: chapter 4 (Probing: the seq2seq training tasks).
    """

    model: Seq2Seq
    vocab: Vocab
    history: History
    score: dict[str, float]
    curve: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


def train_seq2seq(encoder: SentenceEncoder, corpus: Seq2SeqCorpus, pipeline: TextPipeline,
                  config: Seq2SeqConfig = Seq2SeqConfig(), *,
                  metric: tuple[str, Metric] | None, seed: int = 0,
                  device: str | torch.device = "auto",
                  probe: Callable[[SentenceEncoder], Any] | None = None,
                  curve_points: int = 4, progress: bool = False) -> Seq2SeqRun:
    """Train ``encoder`` under a fresh LSTM decoder on ``corpus`` through :func:`fit`.

    The decoder reads the sentence vector at every step; the weights of the best dev
    perplexity are kept. Test scores: perplexity, and ``metric = (name, fn(outputs,
    targets))`` of greedy outputs (BLEU, exact match) unless it is None. With ``probe``
    (``encoder -> {task: accuracy}``), ``curve_points`` evaluations spread over training
    record a curve of the probe and the dev score (the metric, else perplexity).
    Book: chapter 4 (Probing: training the encoders).
    """
    dev = pick_device(device)
    src, tgt = corpus.source, corpus.target
    vocab = target_vocab(tgt["train"])
    decoder = LSTMDecoder(len(vocab), encoder.output_dim, bos_id=vocab.stoi[BOS_TOKEN],
                          eos_id=vocab.stoi[EOS_TOKEN], embed_dim=config.decoder_embed,
                          hidden_dim=config.decoder_dim, n_layers=config.decoder_layers)
    model = Seq2Seq(encoder, decoder)
    batches = seq2seq_batches(pipeline, vocab, src["train"], tgt["train"],
                              config.batch_size, seed)
    bs = config.eval_batch_size
    wide = max(bs, 1024)  # greedy decoding is sequential: one wide batch beats several
    max_len = max(len(t.split()) for t in tgt["train"]) + 5

    def ppl(m: Seq2Seq, split: str) -> float:
        return seq2seq_perplexity(m, pipeline, vocab, src[split], tgt[split], bs)

    def outputs(m: Seq2Seq, split: str) -> list[str]:
        return greedy_outputs(m, pipeline, vocab, src[split], max_len, wide)

    def dev_score(m: Seq2Seq) -> float:
        if metric is None:
            return ppl(m, "dev")
        return metric[1](outputs(m, "dev"), tgt["dev"])

    history, curve, seconds = fit_with_curve(
        model, seq2seq_step_loss, batches, epochs=config.epochs, probe=probe,
        score=dev_score, score_name="perplexity" if metric is None else metric[0],
        points=curve_points, device=dev, seed=seed, dev_fn=lambda m: ppl(m, "dev"),
        dev_mode="min", clip_norm=config.clip_norm, progress=progress,
        optimizer=config.optimizer, lr=config.lr, momentum=config.momentum)
    test_outputs = None if metric is None else outputs(model, "test")
    score = {"perplexity": ppl(model, "test")}
    if metric is not None:
        score[metric[0]] = metric[1](test_outputs, tgt["test"])
    return Seq2SeqRun(model, vocab, history, score, curve, seconds)
