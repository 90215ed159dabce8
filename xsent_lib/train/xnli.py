"""The English side of XNLI: an NLI model trained the way the XNLI paper trains it, then frozen.

P3 trains its English BiLSTMs and classifier on MultiNLI with Adam at its default parameters (chapter 3's
InferSent recipe uses SGD with a dev-driven schedule instead), and for X-CBOW trains only the classifier over
the average of fixed word vectors. :func:`train_english_nli` covers both: it trains whatever parameters of
``model`` require gradients (a frozen bag-of-vectors encoder leaves just the classifier), keeps the epoch with
the best English dev accuracy, and reports the English test accuracy. Batches, loss and accuracy are chapter 3's
(:mod:`xsent_lib.train.nli`).
Book: chapter 6 (XNLI and aligned encoders).
"""
from __future__ import annotations

import time

import torch

from xsent_lib.base.threads import single_thread
from xsent_lib.data.nli_corpus import NLICorpus
from xsent_lib.encoders import NLIModel
from xsent_lib.text import TextPipeline
from xsent_lib.train.loop import fit
from xsent_lib.train.nli import NLIRun, nli_accuracy, nli_batches, nli_step_loss, small_on_cpu


def train_english_nli(name: str, model: NLIModel, pipeline: TextPipeline, corpus: NLICorpus, *, epochs: int = 5,
                      lr: float = 1e-3, batch_size: int = 64, width: int = 0, device: str | torch.device = "auto",
                      seed: int = 0) -> NLIRun:
    """Train ``model`` on ``corpus.train`` (texts through ``pipeline``) with Adam for ``epochs`` epochs, keep the
    best English dev epoch and measure English test accuracy. ``width`` (per-direction size) decides whether a
    small model runs on one CPU thread. Book: chapter 6 (XNLI and aligned encoders).
    """
    if not isinstance(model, NLIModel):
        raise TypeError(f"model must be an NLIModel, got {type(model).__name__}.")
    start = time.perf_counter()
    with single_thread(small_on_cpu(max(width, 1), device)):
        history = fit(model, nli_step_loss, nli_batches(pipeline, corpus.train, batch_size, seed), optimizer="adam",
                      lr=lr, epochs=epochs, device=device, seed=seed, progress=False,
                      dev_fn=lambda m: nli_accuracy(m, corpus.dev, 256, device))
        test = nli_accuracy(model, corpus.test, 256, device)
    return NLIRun(name, width, model, history, float(history.best_dev), test, time.perf_counter() - start)
