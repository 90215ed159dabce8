"""Figure 4.1: the whole method (adversarial restarts, refinement, criterion, CSLS) on 2-D toy
clouds.

Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from xsent_lib.align.adversarial import AdversarialConfig
from xsent_lib.align.pipeline import run_adversarial, starting_map
from xsent_lib.align.procrustes import apply_map
from xsent_lib.align.refinement import mutual_nn_dictionary, refine
from xsent_lib.align.toy import PlantedAlignment, figure_4_1_toy
from xsent_lib.base.neighbors import csls_knn, knn
from xsent_lib.base.threads import single_thread


def rotation_angle(W: np.ndarray) -> float:
    """The angle in degrees of a 2-D map's rotation part (``atan2(W[1,0], W[0,0])``).

    Book: chapter 5 (Word translation without parallel data).
    """
    W = np.asarray(W)
    if W.shape != (2, 2):
        raise ValueError(f"rotation_angle needs a 2x2 map, got shape {W.shape}.")
    return float(np.degrees(np.arctan2(W[1, 0], W[0, 0])))


@dataclass
class ToyRun:
    """Every step of the method on the 2-D toy, for Figure 4.1.

    ``data`` holds the clouds and the planted rotation; ``W_adversarial`` / ``W_refined`` the maps;
    ``discriminator_batch`` the source rows of one discriminator batch (the frequent words it is
    fed); ``anchors`` the mutual-CSLS pairs of the first refinement step; ``top1`` the target each
    source point retrieves with ``nn`` and ``csls`` after refinement; ``restarts`` one record per
    restart.
    Book: chapter 5 (Word translation without parallel data).
    """

    data: PlantedAlignment
    W_adversarial: np.ndarray
    W_refined: np.ndarray
    discriminator_batch: np.ndarray
    anchors: np.ndarray
    top1: dict[str, np.ndarray]
    restarts: list[dict]
    chosen: int


def toy_run(*, n_points: int = 300, angle_degrees: float = 60.0, noise: float = 0.05,
            n_restarts: int = 6, config: AdversarialConfig | None = None, seed: int = 0) -> ToyRun:
    """Run adversarial training, refinement and CSLS retrieval on :func:`figure_4_1_toy` clouds.

    Restarts (seed ``seed + r``, the first from the identity, the others from random rotations) are
    ranked by the refined map's unsupervised criterion, as in :func:`unsupervised_align`. The
    default ``config`` is a small discriminator (64 units) fed with every point, 4 epochs of 100
    rounds.
    Book: chapter 5 (Word translation without parallel data).
    """
    data = figure_4_1_toy(n_points, angle_degrees=angle_degrees, noise=noise, seed=seed)
    cfg = config \
        or AdversarialConfig(dis_hidden=64, batch_size=32, dis_steps=3, epoch_size=3200, n_epochs=4,
                                      most_frequent=n_points, criterion_words=n_points)
    runs, records = [], []
    with single_thread():
        for r in range(n_restarts):
            start = starting_map("identity" if r == 0 else "random", 2, seed + r)
            adv = run_adversarial(data.src, data.tgt, cfg, seed=seed + r, device="cpu", init=start)
            ref = refine(data.src, data.tgt, adv.W, n_iter=3, max_rank=n_points,
                         criterion_words=n_points, k_neighbors=cfg.k_neighbors)
            crit = max(h["criterion"] for h in ref.history)
            error = (rotation_angle(ref.W) - angle_degrees + 180.0) % 360.0 - 180.0
            records.append({"restart": r, "start angle": rotation_angle(start),
                            "adversarial angle": rotation_angle(adv.W),
                            "refined angle": rotation_angle(ref.W),
                            "angle error": abs(error), "refined_criterion": crit})
            runs.append((adv, ref))
    chosen = int(np.argmax([rec["refined_criterion"] for rec in records]))
    for rec in records:
        rec["chosen"] = rec["restart"] == chosen
    adv, ref = runs[chosen]
    rng = np.random.default_rng(seed)
    batch = rng.integers(0, min(cfg.most_frequent, n_points), cfg.batch_size)
    anchors = mutual_nn_dictionary(apply_map(data.src, adv.W), data.tgt, max_rank=n_points,
                                   k_neighbors=cfg.k_neighbors)
    mapped = apply_map(data.src, ref.W)
    rows = np.arange(len(mapped))
    top1 = {"nn": knn(mapped, data.tgt, 1)[1][:, 0],
            "csls": csls_knn(mapped, data.tgt, cfg.k_neighbors, 1, queries=rows)[1][:, 0]}
    return ToyRun(data, adv.W, ref.W, batch, anchors, top1, records, chosen)
