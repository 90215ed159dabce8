"""The English side of XNLI: an NLI model trained the way the XNLI paper trains it, then frozen.

P3 trains its English BiLSTMs and classifier on MultiNLI with Adam at its default parameters
(chapter 3's InferSent recipe uses SGD with a dev-driven schedule instead), and for X-CBOW trains
only the classifier over the average of fixed word vectors. :func:`train_english_nli` covers both:
it trains whatever parameters of ``model`` require gradients (a frozen bag-of-vectors encoder leaves
just the classifier), keeps the epoch with the best English dev accuracy, and reports the English
test accuracy. Batches, loss and accuracy are chapter 3's (:mod:`xsent_lib.train.nli`).
Book: chapter 6 (XNLI and aligned encoders).
"""
from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from xsent_lib.base.runtime import pick_device, seed_everything
from xsent_lib.base.threads import single_thread
from xsent_lib.data.nli_corpus import NLICorpus
from xsent_lib.encoders import NLIClassifier, NLIModel
from xsent_lib.text import TextPipeline
from xsent_lib.train.loop import fit
from xsent_lib.train.nli import NLIRun, nli_accuracy, nli_batches, nli_step_loss, small_on_cpu


def train_english_nli(name: str, model: NLIModel, pipeline: TextPipeline, corpus: NLICorpus, *,
                      epochs: int = 5, lr: float = 1e-3, batch_size: int = 64, width: int = 0,
                      device: str | torch.device = "auto", seed: int = 0) -> NLIRun:
    """Train ``model`` on ``corpus.train`` (texts through ``pipeline``) with Adam for ``epochs``
    epochs, keep the best English dev epoch and measure English test accuracy. ``width``
    (per-direction size) decides whether a small model runs on one CPU thread. Book: chapter 6 (XNLI
    and aligned encoders).
    """
    if not isinstance(model, NLIModel):
        raise TypeError(f"model must be an NLIModel, got {type(model).__name__}.")
    start = time.perf_counter()
    with single_thread(small_on_cpu(max(width, 1), device)):
        history = fit(model, nli_step_loss, nli_batches(pipeline, corpus.train, batch_size, seed),
                      optimizer="adam", lr=lr, epochs=epochs, device=device, seed=seed,
                      progress=False, dev_fn=lambda m: nli_accuracy(m, corpus.dev, 256, device))
        test = nli_accuracy(model, corpus.test, 256, device)
    return NLIRun(name, width, model, history, float(history.best_dev), test,
                  time.perf_counter() - start)


@dataclass
class FrozenVectorsRun:
    """XNLI's classifier trained on a frozen, shipped sentence encoder (the reference row): the
    classifier, the ``encode`` function it reads, English dev/test accuracy (percent), the dev curve
    and the seconds spent encoding and training. Book: chapter 6 (XNLI and aligned encoders).
    """

    name: str
    classifier: NLIClassifier
    encode: Callable[[list[str]], np.ndarray]
    dev_acc: float
    test_acc: float
    dev_curve: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        """JSON-ready numbers of the run. Book: chapter 6 (XNLI and aligned encoders)."""
        return {"name": self.name, "nli_dev": self.dev_acc, "nli_test": self.test_acc,
                "dev_curve": self.dev_curve, "seconds": self.seconds,
                "dim": int(self.classifier.mlp.input_dim // 4)}


def _pair_vectors(encode: Callable[[list[str]], np.ndarray], premises: list[str],
                  hypotheses: list[str]
                  ) -> tuple[torch.Tensor, torch.Tensor]:
    u = np.asarray(encode(list(premises)), np.float32)
    v = np.asarray(encode(list(hypotheses)), np.float32)
    if u.ndim != 2 or u.shape != v.shape or u.shape[0] != len(premises):
        raise ValueError(f"encode returned shapes {u.shape} / {v.shape} for {len(premises)} pairs; "
                         "it must return one row per sentence.")
    return torch.from_numpy(u), torch.from_numpy(v)


def train_on_vectors(name: str, encode: Callable[[list[str]], np.ndarray], corpus: NLICorpus, *,
                     epochs: int = 10, lr: float = 1e-3, batch_size: int = 64, hidden: int = 128,
                     dropout: float = 0.1, device: str | torch.device = "auto",
                     seed: int = 0) -> FrozenVectorsRun:
    """XNLI's classifier (``[u, v, |u - v|, u * v]``, ``hidden`` tanh units, ``dropout``) trained
    with Adam on the frozen vectors ``encode`` gives the English pairs of ``corpus``; the epoch with
    the best English dev accuracy is kept and scored on English test. The encoder is never trained
    (it need not be torch).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    if not callable(encode):
        raise TypeError("encode must be callable: encode(list[str]) -> array [N, dim].")
    if epochs < 1 or batch_size < 1:
        raise ValueError(f"epochs and batch_size must be positive, got {epochs}, {batch_size}.")
    start = time.perf_counter()
    seed_everything(seed)
    dev = pick_device(device)
    sets = {s: (*_pair_vectors(encode, d.premises, d.hypotheses),
                torch.as_tensor(np.asarray(d.labels), dtype=torch.long))
            for s, d in (("train", corpus.train), ("dev", corpus.dev), ("test", corpus.test))}
    u, v, y = (t.to(dev) for t in sets["train"])
    classifier = NLIClassifier(u.shape[1], hidden, dropout=dropout).to(dev)
    opt = torch.optim.Adam(classifier.parameters(), lr=lr)
    gen = torch.Generator().manual_seed(int(seed))

    def accuracy(split: str) -> float:
        su, sv, sy = (t.to(dev) for t in sets[split])
        classifier.eval()
        with torch.inference_mode():
            pred = classifier(su, sv).argmax(1)
        classifier.train()
        return 100.0 * float((pred == sy).float().mean())

    best, best_state, curve = -1.0, None, []
    for _ in range(epochs):
        order = torch.randperm(len(y), generator=gen).to(dev)
        for i in range(0, len(y), batch_size):
            idx = order[i : i + batch_size]
            loss = torch.nn.functional.cross_entropy(classifier(u[idx], v[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        curve.append(accuracy("dev"))
        if curve[-1] > best:
            best, best_state = curve[-1], copy.deepcopy(classifier.state_dict())
    classifier.load_state_dict(best_state)
    classifier.eval()
    return FrozenVectorsRun(name, classifier, encode, best, accuracy("test"), curve,
                            time.perf_counter() - start)
