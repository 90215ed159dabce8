"""Training a student encoder onto fixed vectors (representation transfer, distillation) or by
InfoNCE on bitext.

* :func:`regress_encoder`: the student reads sentences and is pulled onto fixed target vectors with
  :func:`xsent_lib.losses.transfer.transfer_loss` (L1, L2 or cosine). Aldarmaki & Diab's
  representation transfer is this with the target-language side of the bitext as input and the
  frozen English encoder's vectors of the English side as targets. Multilingual knowledge
  distillation (Reimers & Gurevych 2020, not in the seed paper) is the same call with a shared
  student reading *both* sides and a shipped teacher's English vectors (reduced by
  :func:`pca_targets` to the student's size) as targets.
* :func:`contrastive_encoder`: one shared encoder trained with in-batch InfoNCE
  (:func:`xsent_lib.losses.contrastive.info_nce_loss`) on translation pairs.

Both run a fixed number of Adam steps (:func:`xsent_lib.train.joint.steps_for`), so a curve over
bitext sizes gives a bigger bitext more steps, the way training to convergence would.
Book: chapter 7 (Joint vs transfer vs mapping).
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch

from xsent_lib.base.runtime import pick_device, seed_everything
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.losses.contrastive import info_nce_loss
from xsent_lib.losses.transfer import TRANSFER_KINDS, transfer_loss
from xsent_lib.text.batching import pad_csr
from xsent_lib.train.history import History
from xsent_lib.train.joint import random_batches, steps_for
from xsent_lib.train.loop import fit


@dataclass(frozen=True)
class StudentConfig:
    """A student run: ``loss`` (``"l1"`` the paper's, ``"l2"``, ``"cosine"``; ignored by InfoNCE),
    Adam ``lr``, ``batch_size``, ``epochs`` over the data turned into steps between ``min_steps``
    and ``max_steps``, and the InfoNCE ``temperature``. Book: chapter 7 (Joint vs transfer vs
    mapping).
    """

    loss: str = "l1"
    lr: float = 1e-3
    batch_size: int = 64
    epochs: float = 3.0
    min_steps: int = 20
    max_steps: int = 2000
    temperature: float = 0.05

    def __post_init__(self) -> None:
        if self.loss not in TRANSFER_KINDS:
            raise ValueError(f"loss must be one of {TRANSFER_KINDS}, got {self.loss!r}.")
        if self.batch_size < 2 or self.epochs <= 0 or self.lr <= 0 or self.temperature <= 0:
            raise ValueError("need batch_size >= 2 and positive epochs, lr and temperature.")


@dataclass
class StudentRun:
    """A trained student: the encoder, its steps, loss history and wall time.

    Book: chapter 7 (Joint vs transfer vs mapping).
    """

    encoder: SentenceEncoder
    config: StudentConfig
    steps: int
    history: History
    seconds: float

    def summary(self) -> dict[str, Any]:
        """JSON-ready numbers of the run. Book: chapter 7 (Joint vs transfer vs mapping)."""
        return {"config": asdict(self.config), "steps": self.steps, "seconds": self.seconds,
                "train_loss": list(self.history.train_loss)}


def pca_targets(vectors: np.ndarray, dim: int) -> np.ndarray:
    """Teacher vectors reduced to ``dim`` dimensions: centred, projected on their first ``dim``
    principal axes, rows rescaled to unit length (so a cosine or L2 student loss sees directions,
    not the teacher's scale).

    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    x = np.asarray(vectors, np.float64)
    if x.ndim != 2 or x.shape[0] < 2 or not np.isfinite(x).all():
        raise ValueError(f"vectors must be a finite (n >= 2, d) matrix, got shape {x.shape}.")
    if not 1 <= dim <= min(x.shape):
        raise ValueError(f"dim must be in [1, {min(x.shape)}] for {x.shape[0]} vectors of size "
                         f"{x.shape[1]}, got {dim}.")
    x = x - x.mean(axis=0)
    _, _, vt = np.linalg.svd(x, full_matrices=False)
    z = x @ vt[:dim].T
    return (z / np.maximum(np.linalg.norm(z, axis=1, keepdims=True), 1e-12)).astype(np.float32)


def _check_student(encoder: SentenceEncoder) -> None:
    if not isinstance(encoder, SentenceEncoder) or encoder.pipeline is None:
        raise ValueError("the student must be a SentenceEncoder with a text pipeline (see "
                         "attach_pipeline).")


def regress_encoder(student: SentenceEncoder, sentences: Sequence[str], targets: np.ndarray,
                    config: StudentConfig = StudentConfig(), *, device: str | torch.device = "auto",
                    seed: int = 0) -> StudentRun:
    """Train ``student`` so that its vector of ``sentences[i]`` matches the fixed ``targets[i]``.

    Representation transfer: ``sentences`` = the new language's side of the bitext, ``targets`` =
    the frozen English encoder's vectors of the English side. Distillation: both sides as
    ``sentences``, the teacher's English vectors (twice) as ``targets``. Book: chapter 7 (Joint vs
    transfer vs mapping).
    """
    _check_student(student)
    sentences = list(sentences)
    t = np.asarray(targets, np.float32)
    if t.ndim != 2 or t.shape[0] != len(sentences) or not np.isfinite(t).all():
        raise ValueError(f"targets must be finite, one row per sentence: {len(sentences)} "
                         f"sentences, shape {t.shape}.")
    if t.shape[1] != student.output_dim:
        raise ValueError(f"targets have {t.shape[1]} dimensions but the student outputs "
                         f"{student.output_dim}; reduce a bigger teacher with pca_targets(vectors, "
                         "student.output_dim).")
    flat, offsets = student.pipeline.encode_flat(sentences)
    steps = steps_for(len(sentences), config.batch_size, config.epochs, config.min_steps,
                      config.max_steps)
    plan = random_batches(len(sentences), config.batch_size, steps,
                          np.random.default_rng([seed, 3]))
    tt = torch.from_numpy(t)

    def batches(epoch: int) -> list[tuple[torch.Tensor, ...]]:
        return [(*pad_csr(flat, offsets, idx), tt[idx]) for idx in plan]

    def step_loss(model: SentenceEncoder, batch: tuple[torch.Tensor, ...]) -> torch.Tensor:
        ids, lens, target = batch
        return transfer_loss(model(ids, lens), target, kind=config.loss)

    seed_everything(seed)
    start = time.perf_counter()
    history = fit(student, step_loss, batches, optimizer="adam", lr=config.lr, epochs=1,
                  device=pick_device(device), seed=seed, progress=False)
    return StudentRun(student, config, steps, history, time.perf_counter() - start)


def contrastive_encoder(encoder: SentenceEncoder, pairs: tuple[Sequence[str], Sequence[str]],
                        config: StudentConfig = StudentConfig(), *,
                        device: str | torch.device = "auto", seed: int = 0) -> StudentRun:
    """Train one shared ``encoder`` with symmetric in-batch InfoNCE on translation ``pairs`` (two
    aligned lists): each sentence must find its translation among the batch's others.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    _check_student(encoder)
    a, b = (list(s) for s in pairs)
    if len(a) != len(b) or len(a) < 2:
        raise ValueError(f"need two aligned lists of at least 2 sentences, got {len(a)} and "
                         f"{len(b)}.")
    fa, oa = encoder.pipeline.encode_flat(a)
    fb, ob = encoder.pipeline.encode_flat(b)
    steps = steps_for(len(a), config.batch_size, config.epochs, config.min_steps, config.max_steps)
    plan = random_batches(len(a), config.batch_size, steps, np.random.default_rng([seed, 5]))

    def batches(epoch: int) -> list[tuple[torch.Tensor, ...]]:
        return [(*pad_csr(fa, oa, idx), *pad_csr(fb, ob, idx)) for idx in plan]

    def step_loss(model: SentenceEncoder, batch: tuple[torch.Tensor, ...]) -> torch.Tensor:
        xa, la, xb, lb = batch
        return info_nce_loss(model(xa, la), model(xb, lb), temperature=config.temperature)

    seed_everything(seed)
    start = time.perf_counter()
    history = fit(encoder, step_loss, batches, optimizer="adam", lr=config.lr, epochs=1,
                  device=pick_device(device), seed=seed, progress=False)
    return StudentRun(encoder, config, steps, history, time.perf_counter() - start)
