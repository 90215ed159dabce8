"""Aligning a target-language sentence encoder to a frozen English one on parallel sentences (XNLI,
sec. 4.2.3).

The English encoder (trained on NLI, or pretrained for X-CBOW) and its NLI classifier stay fixed. A
target encoder of the same architecture gets its own lookup table over the target vocabulary and is
trained so that the vector ``y`` of a target sentence lands where the English encoder puts ``x``,
the vector of its English translation, with XNLI's

    L_align(x, y) = d(x, y) - lam * (d(x_c, y) + d(x, y_c)),

``x_c`` / ``y_c`` random other sentences of the batch, or with the ranking loss the paper found
worse. After alignment the English classifier reads target-language vectors directly (zero-shot
transfer). The English vectors of the bitext are computed once, so a step costs one forward/backward
of the target encoder.

Choices the paper leaves open, made here: ``d`` is the L2 distance made saturating
(:func:`bounded_l2`, cap = ``bound`` x the mean distance between English vectors of unrelated
sentences) so the loss stays finite; the target encoder starts from a copy of the English encoder's
weights; the weights kept are those with the lowest L_align on a held-out parallel dev set (no
target-language NLI label is used, which the paper's X-BiLSTM selection on XNLI dev did),
ranking-loss runs included (selected on L_align with lam = 0.25, see :func:`alignment_dev_loss`);
Adam with its default rate.
Book: chapter 6 (XNLI and aligned encoders).
"""
from __future__ import annotations

import copy
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch

from xsent_lib.base.runtime import pick_device, seed_everything
from xsent_lib.encoders import BagOfVectorsEncoder
from xsent_lib.encoders.base import SentenceEncoder, build_embedding
from xsent_lib.losses.alignment import alignment_loss, l2_distance, ranking_loss
from xsent_lib.losses.bounded import bounded_l2
from xsent_lib.text import TextPipeline
from xsent_lib.text.batching import pad_csr, shuffled_length_batches
from xsent_lib.train.history import History
from xsent_lib.train.loop import fit

LOSSES = ("align", "rank")


@dataclass(frozen=True)
class AlignConfig:
    """One alignment setting: the loss (``"align"`` = L_align with weight ``lam``, ``"rank"`` = the
    ranking loss with ``margin``, in units of the mean English inter-sentence distance), whether the
    target lookup table is trained (``fine_tune``, the paper's ft), the distance cap (``bound`` x
    the mean English inter-sentence distance; ``None`` = plain, unbounded L2), optimisation (Adam
    ``lr``, ``batch_size``, ``epochs``) and how often the curves are sampled (``eval_every`` steps;
    ``None`` = once per epoch).
    Book: chapter 6 (XNLI and aligned encoders).
    """

    loss: str = "align"
    lam: float = 0.25
    margin: float = 0.5
    fine_tune: bool = True
    bound: float | None = 2.0
    lr: float = 1e-3
    batch_size: int = 64
    epochs: int = 3
    eval_every: int | None = None

    def __post_init__(self) -> None:
        if self.loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, got {self.loss!r}.")
        if self.lam < 0 or self.margin < 0:
            raise ValueError(f"lam and margin must be >= 0, got lam={self.lam}, "
                             f"margin={self.margin}.")
        if self.bound is not None and not self.bound > 0:
            raise ValueError(f"bound must be None or positive, got {self.bound!r}.")
        if self.batch_size < 2:
            raise ValueError("batch_size must be >= 2 (negatives come from the batch), got "
                             f"{self.batch_size}.")

    def label(self) -> str:
        """A short name of the setting, e.g. ``"ft = 1, λ = 0.25"`` or ``"ranking, ft = 1"``.

        Book: chapter 6 (XNLI and aligned encoders).
        """
        ft = f"ft = {int(self.fine_tune)}"
        if self.loss == "rank":
            return f"ranking (α = {self.margin:g}), {ft}"
        return f"{ft}, λ = {self.lam:g}"


def translated_embeddings(source: SentenceEncoder, source_pipeline: TextPipeline,
                          target_pipeline: TextPipeline, pairs: Sequence[tuple[str, str]],
                          seed: int = 0) -> tuple[np.ndarray, float]:
    """Initial target word vectors: the source vector of each target word's translation in ``pairs``
    (``(target word, source word)``; the first listed translation wins), seeded random vectors with
    the source vectors' spread for the other words. Returns the ``[len(target vocab), dim]`` matrix
    and the share of target vocabulary entries that got a translation. Stands in for the paper's
    MUSE-aligned vectors.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    emb = getattr(source, "embedding", None)
    if not isinstance(emb, torch.nn.Embedding):
        raise TypeError("the source encoder needs an nn.Embedding lookup table, "
                        f"{type(source).__name__} has none.")
    src = emb.weight.detach().cpu().numpy()
    rng = np.random.default_rng(seed)
    weights = rng.normal(0.0, float(src[1:].std()),
                         (len(target_pipeline.vocab), src.shape[1])).astype(np.float32)
    found = 0
    seen: set[str] = set()
    for tgt_word, src_word in pairs:
        if (tgt_word in seen or tgt_word not in target_pipeline.vocab.stoi
                or src_word not in source_pipeline.vocab.stoi):
            continue
        seen.add(tgt_word)
        weights[target_pipeline.vocab.stoi[tgt_word]] = src[source_pipeline.vocab.stoi[src_word]]
        found += 1
    for special in (source_pipeline.bos, source_pipeline.eos, source_pipeline.vocab.itos[1]):
        if (special is not None and special in target_pipeline.vocab.stoi
                and special in source_pipeline.vocab.stoi):
            weights[target_pipeline.vocab.stoi[special]] = src[source_pipeline.vocab.stoi[special]]
    weights[0] = 0.0
    return weights, found / max(len(target_pipeline.vocab) - 1, 1)


def target_encoder(source: SentenceEncoder, pipeline: TextPipeline, weights: np.ndarray,
                   fine_tune: bool = True) -> SentenceEncoder:
    """A target-language copy of ``source``: same architecture and (copied) weights, a new lookup
    table ``weights`` over ``pipeline``'s vocabulary, trained or frozen as ``fine_tune`` says.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    if not isinstance(source, SentenceEncoder):
        raise TypeError(f"source must be a SentenceEncoder, got {type(source).__name__}.")
    weights = np.asarray(weights, np.float32)
    if weights.shape != (len(pipeline.vocab), weights.shape[1] if weights.ndim == 2 else -1):
        raise ValueError(f"weights must be [len(vocab)={len(pipeline.vocab)}, dim], got "
                         f"{weights.shape}.")
    if isinstance(source, BagOfVectorsEncoder):
        return BagOfVectorsEncoder(len(pipeline.vocab), weights.shape[1], pooling=source.pooling,
                                   embeddings=weights, freeze=not fine_tune, pipeline=pipeline)
    target = copy.deepcopy(source).cpu()
    target.pipeline = None
    target.embedding = build_embedding(len(pipeline.vocab), weights.shape[1], weights,
                                       freeze=not fine_tune)
    for p in target.parameters():
        if p is not target.embedding.weight:
            p.requires_grad_(True)
    return target.attach_pipeline(pipeline)


def _criterion(config: AlignConfig, cap: float | None,
               spread: float) -> Callable[..., torch.Tensor]:
    distance = bounded_l2(cap) if cap is not None else l2_distance
    if config.loss == "rank":  # the margin is in units of the mean English inter-sentence distance
        return lambda x, y, g: ranking_loss(x, y, margin=config.margin * spread,
                                            distance=l2_distance, generator=g)
    return lambda x, y, g: alignment_loss(x, y, lam=config.lam, distance=distance, generator=g)


def alignment_dev_loss(target: SentenceEncoder, x: np.ndarray, sentences: Sequence[str],
                       config: AlignConfig, cap: float | None,
                       device: str | torch.device = "auto") -> float:
    """L_align of ``target`` on held-out pairs (``x`` = English vectors of ``sentences``'
    translations) with fixed negatives (each row's contrastive sentence is the next row), the
    quantity of XNLI Figure 2.

    A ranking-loss setting (``config.loss == "rank"``) is measured with L_align at ``lam = 0.25``
    (the paper's default), not with its own loss: :func:`align_encoder` selects its epoch on this
    value, so ranking runs are selected, and their curves drawn, on the same quantity as the L_align
    runs.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    y = torch.from_numpy(target.encode(list(sentences), device=device))
    xs = torch.from_numpy(np.asarray(x, np.float32))
    distance = bounded_l2(cap) if cap is not None else l2_distance
    lam = config.lam if config.loss == "align" else 0.25
    return float(alignment_loss(xs, y, x_c=xs.roll(1, 0), y_c=y.roll(1, 0), lam=lam,
                                distance=distance))


@dataclass
class AlignRun:
    """One aligned target encoder: the setting, the training history, the curve sampled along
    training (``curve``: step, dev L_align and, when an evaluation was given, its value) and the
    wall time.

    Book: chapter 6 (XNLI and aligned encoders).
    """

    config: AlignConfig
    encoder: SentenceEncoder
    history: History
    curve: list[dict[str, float]]
    cap: float | None
    seconds: float
    init_coverage: float

    def summary(self) -> dict[str, Any]:
        """JSON-ready numbers of the run (no weights). Book: chapter 6 (XNLI and aligned
        encoders)."""
        return {"config": asdict(self.config), "label": self.config.label(), "curve": self.curve,
                "cap": self.cap, "seconds": self.seconds,
                "train_loss": list(self.history.train_loss), "best_epoch": self.history.best_epoch,
                "init_coverage": self.init_coverage}


def align_encoder(source: SentenceEncoder, target: SentenceEncoder,
                  parallel: tuple[Sequence[str], Sequence[str]],
                  parallel_dev: tuple[Sequence[str], Sequence[str]],
                  config: AlignConfig = AlignConfig(), *,
                  evaluate: Callable[[SentenceEncoder], float] | None = None,
                  init_coverage: float = float("nan"), device: str | torch.device = "auto",
                  seed: int = 0) -> AlignRun:
    """Train ``target`` so that it maps each target sentence of ``parallel`` (``(english, target)``
    lists) onto the frozen ``source`` vector of its English translation; keep the epoch with the
    lowest dev L_align (:func:`alignment_dev_loss`; for the ranking loss too, L_align at
    ``lam = 0.25``).

    ``evaluate(target) -> float`` (e.g. target-language NLI dev accuracy through the English
    classifier) is sampled with the dev L_align every ``config.eval_every`` steps for the alignment
    curve; it never influences training or selection. Book: chapter 6 (XNLI and aligned encoders).
    """
    en, tgt = (list(s) for s in parallel)
    en_dev, tgt_dev = (list(s) for s in parallel_dev)
    if len(en) != len(tgt) or len(en_dev) != len(tgt_dev):
        raise ValueError(f"parallel sides differ in length: {len(en)} vs {len(tgt)}, dev "
                         f"{len(en_dev)} vs {len(tgt_dev)}.")
    if len(en) < config.batch_size or len(en_dev) < 2:
        raise ValueError(f"need at least one batch ({config.batch_size}) of parallel pairs and 2 "
                         f"dev pairs, got {len(en)} and {len(en_dev)}.")
    if target.pipeline is None:
        raise ValueError("the target encoder needs its text pipeline (see target_encoder).")
    dev = pick_device(device)
    x = source.encode(en, device=dev)
    x_dev = source.encode(en_dev, device=dev)
    spread = max(float(np.linalg.norm(x_dev - np.roll(x_dev, 1, 0), axis=1).mean()), 1e-6)
    cap = None if config.bound is None else float(config.bound * spread)
    criterion = _criterion(config, cap, spread)
    flat, offsets = target.pipeline.encode_flat(tgt)
    lengths = np.diff(offsets)
    xt = torch.from_numpy(x)
    generator = torch.Generator().manual_seed(seed)

    def batches(epoch: int) -> list[tuple[torch.Tensor, ...]]:
        out = []
        for idx in shuffled_length_batches(lengths, config.batch_size,
                                           np.random.default_rng([seed, epoch])):
            if len(idx) < 2:
                continue
            ids, lens = pad_csr(flat, offsets, idx)
            out.append((ids, lens, xt[idx]))
        return out

    def step_loss(model: SentenceEncoder, batch: tuple[torch.Tensor, ...]) -> torch.Tensor:
        ids, lens, xb = batch
        return criterion(xb, model(ids, lens), generator)

    def dev_loss(model: SentenceEncoder) -> float:
        return alignment_dev_loss(model, x_dev, tgt_dev, config, cap, dev)

    callbacks = {"dev_align": dev_loss, **({"evaluate": evaluate} if evaluate is not None else {})}
    seed_everything(seed)
    start = time.perf_counter()
    history = fit(target, step_loss, batches, optimizer="adam", lr=config.lr, epochs=config.epochs,
                  device=dev, seed=seed, dev_fn=dev_loss, dev_mode="min", callbacks=callbacks,
                  eval_every=config.eval_every, progress=False)
    seconds = time.perf_counter() - start
    curve = [{"step": r["step"], "dev_align": r["value"],
              **({"evaluate": history.evals["evaluate"][i]["value"]} if evaluate is not None
                 else {})}
             for i, r in enumerate(history.evals["dev_align"])]
    return AlignRun(config, target, history, curve, cap, seconds, init_coverage)


def curve_correlation(curve: Sequence[Mapping[str, float]]) -> float | None:
    """Pearson correlation between dev L_align and the evaluated score along one alignment curve
    (``None`` when fewer than three points or a constant series). Book: chapter 6 (XNLI and aligned
    encoders).
    """
    pts = [(p["dev_align"], p["evaluate"]) for p in curve if "evaluate" in p]
    if len(pts) < 3:
        return None
    a, b = np.asarray(pts, float).T
    if a.std() == 0 or b.std() == 0:
        return None
    return float(np.corrcoef(a, b)[0, 1])
