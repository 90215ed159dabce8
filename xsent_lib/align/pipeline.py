"""MUSE's unsupervised pipeline on a setting: adversarial restarts, refinement, selection by the
criterion.

The supervised baseline (:func:`supervised_map`) and the unsupervised one
(:func:`unsupervised_align`) fit maps; nothing here looks at test pairs. Test scores for display
(per restart, per epoch) come in through a ``monitor(W) -> dict`` callback that the evaluation layer
provides.
Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from xsent_lib.align.adversarial import AdversarialAligner, AdversarialConfig, scheduled_lr
from xsent_lib.align.criterion import unsupervised_criterion
from xsent_lib.align.procrustes import apply_map, procrustes
from xsent_lib.align.refinement import RefinementResult, mutual_nn_dictionary, refine
from xsent_lib.align.setting import WordTranslationSetting, identical_string_pairs
from xsent_lib.align.toy import random_orthogonal
from xsent_lib.base.threads import single_thread

Monitor = Callable[[np.ndarray], dict]


def supervised_map(setting: WordTranslationSetting) -> np.ndarray:
    """Orthogonal Procrustes on the setting's training pairs (the paper's supervised baseline, eq.
    4.2).

    Book: chapter 5 (Word translation without parallel data).
    """
    s = setting
    return procrustes(s.src.vectors[s.train[:, 0]], s.tgt.vectors[s.train[:, 1]])


def criterion_of(setting: WordTranslationSetting, W: np.ndarray, n_words: int = 10_000,
                 vocab: int | None = None) -> float:
    """The unsupervised validation criterion of map ``W`` on a setting (no dictionary involved).

    ``vocab`` restricts both spaces to their most frequent words first (as ``align_vocab`` does in
    :func:`unsupervised_align`), so the CSLS neighbourhoods are those the pipeline saw.
    Book: chapter 5 (Word translation without parallel data).
    """
    return unsupervised_criterion(apply_map(setting.src.vectors[:vocab], W),
                                  setting.tgt.vectors[:vocab], n_words=n_words)


@dataclass
class AdversarialRun:
    """One adversarial training run: the map kept (best criterion), and per epoch the losses and
    criterion.

    ``history`` rows hold ``epoch``, ``dis_loss``, ``map_loss``, ``criterion``, ``lr`` and, when a
    monitor was given, what it returned (e.g. the test P@1 for Figure 4.2; never used for
    selection).
    Book: chapter 5 (Word translation without parallel data).
    """

    W: np.ndarray
    best_epoch: int
    best_criterion: float
    history: list[dict]


def run_adversarial(src: np.ndarray, tgt: np.ndarray, config: AdversarialConfig, *, seed: int,
                    device: str | torch.device = "cpu", init: np.ndarray | None = None,
                    monitor: Monitor | None = None) -> AdversarialRun:
    """Adversarial training with :class:`AdversarialAligner`'s steps and schedule, watched after
    every epoch.

    The same loop as :meth:`AdversarialAligner.fit` (``dis_steps`` discriminator steps then one
    mapping step with orthogonalisation; after each epoch the criterion, best-map bookkeeping and
    :func:`scheduled_lr`), plus a starting map ``init`` (default the identity) and an optional
    ``monitor(W)`` whose result is stored in the epoch's record.
    Book: chapter 5 (Word translation without parallel data).
    """
    aligner = AdversarialAligner(src, tgt, config, seed=seed, device=device)
    if init is not None:
        init = np.asarray(init, dtype=np.float32)
        if init.shape != aligner.W.shape:
            raise ValueError(f"init must have shape {aligner.W.shape}, got {init.shape}.")
        with torch.no_grad():
            aligner.mapping.weight.copy_(torch.from_numpy(init))
    n_rounds = max(1, config.epoch_size // config.batch_size)
    lr, previous = config.lr, -np.inf
    best = (-1, -np.inf, aligner.W)
    history = []
    for epoch in range(config.n_epochs):
        dis: list[float] = []
        map_losses: list[float] = []
        for _ in range(n_rounds):
            dis += [aligner.discriminator_step() for _ in range(config.dis_steps)]
            map_losses.append(aligner.mapping_step())
        W = aligner.W
        record = {"epoch": epoch, "dis_loss": float(np.mean(dis)),
                  "map_loss": float(np.mean(map_losses)),
                  "criterion": aligner.criterion(), "lr": lr}
        if monitor is not None:
            record.update(monitor(W))
        history.append(record)
        if record["criterion"] > best[1]:
            best = (epoch, record["criterion"], W)
        lr, previous = scheduled_lr(lr, record["criterion"], previous, config), record["criterion"]
        for opt in (aligner.map_optimizer, aligner.dis_optimizer):
            for group in opt.param_groups:
                group["lr"] = lr
    return AdversarialRun(best[2], best[0], float(best[1]), history)


@dataclass
class UnsupervisedResult:
    """The unsupervised pipeline's outcome: the selected refined map and what every restart did.

    ``W`` is the refined map of the selected restart, ``W_adversarial`` its adversarial map (the
    "Adv" rows of Table 4.1). ``restarts`` has one record per restart (seed, starting map,
    adversarial and refined criteria, refinement dictionary size, and, when ``setting`` had test
    pairs and a ``monitor`` was given, what it returned for both maps, e.g. their test P@1 for
    display: selection never looks at it).
    Book: chapter 5 (Word translation without parallel data).
    """

    W: np.ndarray
    W_adversarial: np.ndarray
    chosen: int
    restarts: list[dict]
    adversarial: AdversarialRun
    refinement: RefinementResult


def starting_map(kind: str, dim: int, seed: int) -> np.ndarray:
    """The adversarial stage's starting map: ``"identity"`` (MUSE's code) or a Haar-``"random"``
    rotation.

    Book: chapter 5 (Word translation without parallel data).
    """
    if kind == "identity":
        return np.eye(dim, dtype=np.float32)
    if kind == "random":
        return random_orthogonal(dim, np.random.default_rng(seed), proper=True).astype(np.float32)
    raise ValueError(f"starting map must be 'identity' or 'random', got {kind!r}.")


def unsupervised_align(setting: WordTranslationSetting, config: AdversarialConfig, *,
                       n_restarts: int = 3, seed: int = 0,
                       device: str | torch.device = "cpu", init: str = "identity",
                       refine_iters: int = 5, max_rank: int = 15_000,
                       align_vocab: int | None = None, monitor: Monitor | None = None,
                       monitor_every_epoch: bool = False) -> UnsupervisedResult:
    """``n_restarts`` adversarial runs, each refined; the best criterion wins.

    Restart ``r`` uses seed ``seed + r``; with ``init="random"`` every restart after
    the first starts from its own random rotation (the first always starts at the
    identity). Each restart's adversarial map is refined
    (:func:`~xsent_lib.align.refinement.refine`: mutual CSLS neighbours among the
    ``max_rank`` most frequent words, Procrustes, ``refine_iters`` times) and restarts
    are ranked by the refined map's unsupervised criterion, which needs no dictionary.
    The thesis selects epochs and hyper-parameters with the same criterion; ranking
    restarts after refinement is our choice (a refined wrong map scores far below a
    refined right one). ``align_vocab`` (a frequency cut-off) gives the game, the
    refinement and the criterion only the most frequent words of each side; the maps
    are then evaluated against the whole target vocabulary. ``monitor(W)`` (e.g.
    :func:`xsent_lib.eval.word_maps.p1_monitor`) scores each restart's adversarial and
    refined maps for display, with ``monitor_every_epoch`` every epoch too (Figure
    4.2); selection never looks at it.
    Book: chapter 5 (Word translation without parallel data).
    """
    if n_restarts < 1:
        raise ValueError(f"n_restarts must be >= 1, got {n_restarts}.")
    if align_vocab is not None and align_vocab < 2 * config.k_neighbors:
        raise ValueError(f"align_vocab={align_vocab} < 2 k_neighbors={config.k_neighbors}.")
    dev = torch.device(device) if not isinstance(device, torch.device) else device
    src, tgt = setting.src.vectors[:align_vocab], setting.tgt.vectors[:align_vocab]
    runs, records = [], []
    with single_thread(dev.type == "cpu"):
        for r in range(n_restarts):
            kind = "identity" if r == 0 else init
            start = starting_map(kind, setting.src.dim, seed + r)
            adv = run_adversarial(src, tgt, config, seed=seed + r, device=dev, init=start,
                                  monitor=monitor if monitor_every_epoch else None)
            ref = refine(src, tgt, adv.W, n_iter=refine_iters, max_rank=max_rank,
                         criterion_words=config.criterion_words,
                         k_neighbors=config.k_neighbors)
            record = {"restart": r, "seed": seed + r, "start": kind,
                      "best_epoch": adv.best_epoch, "adv_criterion": adv.best_criterion,
                      "refined_criterion": max(h["criterion"] for h in ref.history),
                      "refine_pairs": max(h["n_pairs"] for h in ref.history)}
            if monitor is not None:
                record.update({f"adv {k}": v for k, v in monitor(adv.W).items()})
                record.update({f"refined {k}": v for k, v in monitor(ref.W).items()})
            runs.append((adv, ref))
            records.append(record)
    chosen = int(np.argmax([rec["refined_criterion"] for rec in records]))
    for rec in records:
        rec["chosen"] = rec["restart"] == chosen
    adv, ref = runs[chosen]
    return UnsupervisedResult(ref.W, adv.W, chosen, records, adv, ref)


def identical_strings_map(setting: WordTranslationSetting, *, refine_iters: int = 5,
                          max_rank: int = 15_000,
                          align_vocab: int | None = None, criterion_words: int = 10_000
                          ) -> tuple[int, RefinementResult | None]:
    """MUSE's ``identical_char`` start: Procrustes on the words spelled alike (among the
    ``max_rank`` most frequent of each side), then refinement as in :func:`unsupervised_align`.

    Returns the number of identical words and the refinement, or ``None`` in its place when there
    are fewer than twice the dimension (too few to fit an orthogonal map: languages of different
    scripts).
    Book: chapter 5 (Word translation without parallel data: a free weak signal).
    """
    seed_pairs = identical_string_pairs(setting.src, setting.tgt, max_rank=max_rank)
    if len(seed_pairs) < 2 * setting.src.dim:
        return int(len(seed_pairs)), None
    W0 = procrustes(setting.src.vectors[seed_pairs[:, 0]], setting.tgt.vectors[seed_pairs[:, 1]])
    ref = refine(setting.src.vectors[:align_vocab], setting.tgt.vectors[:align_vocab], W0,
                 n_iter=refine_iters, max_rank=max_rank, criterion_words=criterion_words)
    return int(len(seed_pairs)), ref


def reverse_direction(setting: WordTranslationSetting, forward: UnsupervisedResult, *,
                      refine_iters: int = 5,
                      max_rank: int = 15_000, align_vocab: int | None = None,
                      criterion_words: int = 10_000
                      ) -> UnsupervisedResult:
    """The unsupervised map of the reverse direction from a forward run: transpose, then refine this
    way.

    An orthogonal map's inverse is its transpose, so the forward adversarial map already aligns the
    reverse direction; MUSE trains each direction separately, we reuse the forward adversarial stage
    to halve its cost and refine in the reverse direction (mutual neighbours and criterion from the
    new source side). ``setting`` is the reverse setting (its source is the forward target).
    Book: chapter 5 (Word translation without parallel data).
    """
    W_adv = np.ascontiguousarray(forward.W_adversarial.T)
    src, tgt = setting.src.vectors[:align_vocab], setting.tgt.vectors[:align_vocab]
    ref = refine(src, tgt, W_adv, n_iter=refine_iters, max_rank=max_rank,
                 criterion_words=criterion_words)
    records = [{"restart": forward.chosen, "start": "transposed forward map", "chosen": True,
                "refined_criterion": max(h["criterion"] for h in ref.history)}]
    return UnsupervisedResult(ref.W, W_adv, forward.chosen, records, forward.adversarial, ref)


def monitored_run(setting: WordTranslationSetting, config: AdversarialConfig, monitor: Monitor, *,
                  seed: int = 0,
                  refine_iters: int = 3, max_rank: int = 15_000, align_vocab: int | None = None,
                  device: str | torch.device = "cpu") -> list[dict]:
    """One unsupervised run with the test P@1 recorded after every adversarial epoch and refinement
    step.

    For Figure 4.2: each record has ``stage`` (``adversarial`` / ``refinement``), ``step`` (a
    running index), the unsupervised criterion and what ``monitor(W)`` returns (the test P@1: never
    used to select anything). Refinement follows :func:`~xsent_lib.align.refinement.refine` step by
    step (mutual CSLS dictionary, Procrustes), starting from the adversarial stage's selected map.
    Book: chapter 5 (Word translation without parallel data).
    """
    dev = torch.device(device) if not isinstance(device, torch.device) else device
    src, tgt = setting.src.vectors[:align_vocab], setting.tgt.vectors[:align_vocab]
    with single_thread(dev.type == "cpu"):
        adv = run_adversarial(src, tgt, config, seed=seed, device=dev, monitor=monitor)
    records = [{"stage": "adversarial", **h} for h in adv.history]
    W = adv.W
    for it in range(1, refine_iters + 1):
        dico = mutual_nn_dictionary(apply_map(src, W), tgt, max_rank=max_rank,
                                    k_neighbors=config.k_neighbors)
        if len(dico) < 2:
            break
        W = procrustes(src[dico[:, 0]], tgt[dico[:, 1]])
        crit = unsupervised_criterion(apply_map(src, W), tgt, n_words=config.criterion_words,
                                      k_neighbors=config.k_neighbors)
        records.append({"stage": "refinement", "epoch": config.n_epochs - 1 + it, "criterion": crit,
                        "n_pairs": int(len(dico)), **monitor(W)})
    for step, rec in enumerate(records):
        rec["step"] = step
    return records


def rotate_every_plane(W: np.ndarray, degrees: float, seed: int = 0) -> np.ndarray:
    """``R W`` where the rotation ``R`` turns every vector by ``degrees`` (random planes, seeded).

    ``R = Q B Q^T`` with ``B`` block-diagonal 2x2 rotations by ``degrees`` and ``Q`` random
    orthogonal, so no direction stays close to where it was (an odd dimension leaves one axis
    fixed).
    Book: chapter 5 (Word translation without parallel data).
    """
    W = np.asarray(W, dtype=np.float64)
    dim = W.shape[0]
    t = np.radians(degrees)
    block = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    B = np.eye(dim)
    for k in range(dim // 2):
        B[2 * k:2 * k + 2, 2 * k:2 * k + 2] = block
    Q = random_orthogonal(dim, np.random.default_rng(seed))
    return (Q @ B @ Q.T @ W).astype(np.float32)


def refinement_basin(setting: WordTranslationSetting, W: np.ndarray, angles: Sequence[float],
                     monitor: Monitor, *,
                     refine_iters: int = 2, max_rank: int = 10_000,
                     align_vocab: int | None = 10_000,
                     criterion_words: int = 5_000, seed: int = 0) -> list[dict]:
    """How far from a good map refinement can start and still find it: one record per angle.

    Every plane of ``W`` (e.g. the supervised map) is turned by ``angle``
    (:func:`rotate_every_plane`), then refined without any dictionary; the record holds what
    ``monitor(W)`` returns (e.g. the test P@1 with CSLS) and the criterion, before and after. This
    is the target the adversarial stage has to hit: a map inside this basin.
    Book: chapter 5 (Word translation without parallel data).
    """
    src, tgt = setting.src.vectors[:align_vocab], setting.tgt.vectors[:align_vocab]
    out = []
    for angle in angles:
        start = rotate_every_plane(W, angle, seed)
        ref = refine(src, tgt, start, n_iter=refine_iters, max_rank=max_rank,
                     criterion_words=criterion_words)
        before, after = monitor(start), monitor(ref.W)
        out.append({"angle": float(angle), **{f"start {k}": v for k, v in before.items()},
                    **{f"refined {k}": v for k, v in after.items()},
                    "start criterion": ref.history[0]["criterion"],
                    "refined criterion": max(h["criterion"] for h in ref.history)})
    return out
