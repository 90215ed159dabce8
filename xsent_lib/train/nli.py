"""Training sentence encoders on NLI, the InferSent way: the seven encoders at one width, the
thesis's SGD schedule through :func:`xsent_lib.train.fit`, the NLI classifier's loss and accuracy.

Book: chapter 3 (InferSent: training details).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from xsent_lib.base.runtime import pick_device, seed_everything
from xsent_lib.base.threads import single_thread
from xsent_lib.data.formats import NLIData
from xsent_lib.data.nli_corpus import NLICorpus
from xsent_lib.data.word_setup import WordSetup
from xsent_lib.encoders import NLIClassifier, NLIModel, build_encoder
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.losses.nli import nli_loss
from xsent_lib.text import TextPipeline
from xsent_lib.text.batching import pad_csr, shuffled_length_batches
from xsent_lib.train.history import History
from xsent_lib.train.loop import fit
from xsent_lib.train.schedules import InferSentSchedule

# The seven encoders of thesis Table 3.6, in the table's order.
SEVEN: tuple[str, ...] = ("lstm", "gru", "bigru-last", "bilstm-mean", "inner-attention", "hconvnet",
                          "bilstm-max")
# Encoders at most this wide (per direction) run on one CPU thread: their kernels take microseconds,
# and two threads that must meet at every time step's barrier make a busy 2-core machine many times
# slower (our choice).
SMALL_WIDTH = 128


def small_on_cpu(width: int, device: str | torch.device = "auto") -> bool:
    """Whether an encoder of ``width`` (per direction) on ``device`` should run on one thread
    (:func:`xsent_lib.base.threads.single_thread`): the CPU and ``width`` <= :data:`SMALL_WIDTH`.

    Book: chapter 3 (InferSent: training details).
    """
    return pick_device(device).type == "cpu" and width <= SMALL_WIDTH


def encoder_size_kwargs(name: str, width: int) -> dict[str, int]:
    """Constructor sizes of encoder ``name`` at ``width`` (the per-direction BiLSTM size;
    the thesis uses 2048).

    At width 2048 these give the dimensions of Table 3.6: LSTM 2048, GRU 4096, BiGRU-last /
    BiLSTM 2 x 2048, inner attention 4 views x 2 x 512 = 4096, hierarchical ConvNet
    4 layers x 1024 = 4096. Smaller widths scale every encoder by the same factor.
    Book: chapter 3 (InferSent: the seven encoders).
    """
    if not isinstance(width, (int, np.integer)) or isinstance(width, bool) \
            or width < 4 or width % 4:
        raise ValueError("width must be a positive multiple of 4 (inner attention uses "
                         f"width/4), got {width!r}.")
    width = int(width)
    sizes = {"lstm": {"hidden_dim": width}, "gru": {"hidden_dim": 2 * width},
             "bigru-last": {"hidden_dim": width}, "bilstm-mean": {"hidden_dim": width},
             "bilstm-max": {"hidden_dim": width},
             "inner-attention": {"hidden_dim": width // 4, "num_views": 4},
             "hconvnet": {"channels": width // 2}}
    if name not in sizes:
        raise ValueError(f"unknown encoder {name!r}; the seven of Table 3.6: {list(SEVEN)}.")
    return sizes[name]


@dataclass(frozen=True)
class InferSentConfig:
    """The thesis's NLI training recipe; ``width`` scales the encoders (see
    :func:`encoder_size_kwargs`).

    SGD with lr 0.1, x0.99 per epoch, /5 when dev accuracy does not improve, stop below 1e-5,
    batches of 64, gradient norm clipped at 5 (released code), at most ``epochs`` epochs (released
    code: 20), MLP classifier with one hidden layer of 512 units on ``[u, v, |u-v|, u*v]`` (tanh;
    the thesis names no activation).
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


def build_nli_model(name: str, words: WordSetup, width: int,
                    config: InferSentConfig = InferSentConfig(), seed: int = 0) -> NLIModel:
    """A fresh (seeded) encoder ``name`` on the chapter's word vectors, with the NLI classifier on
    top.

    Book: chapter 3 (InferSent: the NLI training scheme).
    """
    seed_everything(seed)
    encoder = build_encoder(name, len(words.pipeline.vocab), word_dim=words.dim,
                            embeddings=words.weights, freeze_embeddings=words.frozen,
                            pipeline=words.pipeline, **encoder_size_kwargs(name, width))
    head = NLIClassifier(encoder.output_dim, config.classifier_hidden,
                         activation=config.classifier_activation)
    return NLIModel(encoder, head)


def nli_batches(pipeline: TextPipeline, data: NLIData, batch_size: int = 64,
                seed: int = 0) -> Callable[[int], list[tuple[torch.Tensor, ...]]]:
    """``epoch -> batches`` of ``(premise ids, lengths, hypothesis ids, lengths, labels)`` for
    :func:`fit`.

    Each epoch shuffles the pairs with its own seed, sorts windows of 50 batches by premise length
    (little padding) and shuffles the batch order; every pair is seen once per epoch.
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


def nli_accuracy(model: NLIModel, data: NLIData, batch_size: int = 256,
                 device: str | torch.device = "auto") -> float:
    """Accuracy (percent) of ``model`` on ``data``: both sides embedded by ``encoder.encode``, then
    classified.

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
        return {"name": self.name, "width": self.width, "dim": self.encoder.output_dim,
                "nli_dev": self.dev_acc, "nli_test": self.test_acc, "seconds": self.seconds,
                "epochs": len(self.history.epoch), "stop_reason": self.history.stop_reason,
                "dev_curve": list(self.history.dev), "lr_curve": list(self.history.lr),
                "train_loss": list(self.history.train_loss)}


def train_nli_encoder(name: str, corpus: NLICorpus, words: WordSetup,
                      config: InferSentConfig = InferSentConfig(), *, width: int | None = None,
                      device: str | torch.device = "auto", seed: int = 0,
                      progress: bool = False) -> NLIRun:
    """Train encoder ``name`` on ``corpus.train`` with the thesis recipe
    (:class:`InferSentConfig`) through :func:`fit`.

    The dev accuracy after each epoch drives the schedule and picks the weights kept; the
    test accuracy is measured once, with those weights. Small encoders train on one CPU
    thread (:func:`small_on_cpu`).
    Book: chapter 3 (InferSent: training details).
    """
    width = config.width if width is None else width
    model = build_nli_model(name, words, width, config, seed)
    start = time.perf_counter()
    with single_thread(small_on_cpu(width, device)):
        batches = nli_batches(words.pipeline, corpus.train, config.batch_size, seed)
        schedule = InferSentSchedule(config.decay, config.shrink, config.min_lr)
        history = fit(model, nli_step_loss, batches, optimizer="sgd", lr=config.lr,
                      epochs=config.epochs, device=device, seed=seed,
                      dev_fn=lambda m: nli_accuracy(m, corpus.dev, config.eval_batch_size,
                                                    device),
                      schedule=schedule, clip_norm=config.clip_norm, progress=progress)
        seconds = time.perf_counter() - start
        test = nli_accuracy(model, corpus.test, config.eval_batch_size, device)
    return NLIRun(name, width, model, history, float(history.best_dev), test, seconds)
