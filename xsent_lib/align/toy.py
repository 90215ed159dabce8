"""Synthetic "two languages, one rotation apart" point clouds, for Figure 4.1 and for the tests.

The source cloud is a Gaussian mixture with clusters of unequal size and shape (so that no rotation
but the planted one maps the distribution onto itself); the target cloud is the same points
rotated by a random rotation plus noise. Row ``i`` of both is the same "word", and rows are
sorted by a Zipf frequency, most frequent first, like real embedding files.

Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import expm


def random_orthogonal(dim: int, rng: np.random.Generator, *, proper: bool = False) -> np.ndarray:
    """A Haar-random ``dim x dim`` orthogonal matrix (QR of a Gaussian matrix with the sign fix).

    ``proper=True`` returns a rotation (determinant +1) by flipping the first column of a
    reflection.
    Book: chapter 5 (Word translation without parallel data).
    """
    if dim < 1:
        raise ValueError(f"dim must be >= 1, got {dim}.")
    Q, R = np.linalg.qr(rng.normal(size=(dim, dim)))
    Q = Q * np.sign(np.diag(R))
    if proper and np.linalg.det(Q) < 0:
        Q[:, 0] = -Q[:, 0]
    return Q


def rotation_with_angle(dim: int, degrees: float, rng: np.random.Generator) -> np.ndarray:
    """A random rotation whose largest principal angle is ``degrees``: ``expm(t A)`` for a random
    skew ``A``.

    Book: chapter 5 (Word translation without parallel data).
    """
    if dim < 2:
        raise ValueError(f"a rotation needs dim >= 2, got {dim}.")
    a = rng.normal(size=(dim, dim))
    a = a - a.T
    return expm(a * np.deg2rad(degrees) / np.abs(np.linalg.eigvals(a).imag).max())


@dataclass(frozen=True)
class PlantedAlignment:
    """Two clouds with a known answer: ``tgt ~ src @ rotation.T``; row i of both is word i.

    ``frequency`` is a Zipf weight per word (decreasing with the row index) and ``cluster`` the
    mixture component each word was drawn from.
    Book: chapter 5 (Word translation without parallel data).
    """

    src: np.ndarray
    tgt: np.ndarray
    rotation: np.ndarray
    frequency: np.ndarray
    cluster: np.ndarray


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


def planted_rotation(n_points: int = 2000, dim: int = 10, *, n_clusters: int = 8,
                     noise: float = 0.0,
                     cluster_spread: float = 0.35, normalize: bool = True,
                     max_angle_degrees: float | None = None, seed: int = 0) -> PlantedAlignment:
    """Sample a clustered source cloud and its rotated, noisy copy.

    Cluster centres are standard normal, cluster weights and per-axis scales are random, so the
    mixture has no symmetry an adversary could confuse with the planted rotation. ``noise`` is the
    standard deviation of isotropic Gaussian noise added to the target. With ``normalize`` the
    source is centred and its rows scaled to unit length before rotating (MUSE's preprocessing; the
    noisy target is re-normalised). The planted map is a proper rotation (determinant +1): the
    adversarial map starts at the identity and the orthogonalisation keeps it near the rotations, so
    it could never reach a reflection. By default the rotation is Haar-random; ``max_angle_degrees``
    instead plants one that turns no direction by more than that angle, i.e. one that starts inside
    the adversarial game's basin around the identity.
    Book: chapter 5 (Word translation without parallel data).
    """
    if n_points < 2 or dim < 1 or n_clusters < 1:
        raise ValueError(f"need n_points >= 2, dim >= 1, n_clusters >= 1; got {n_points}, {dim}, "
                         f"{n_clusters}.")
    if noise < 0 or cluster_spread <= 0:
        raise ValueError(f"noise must be >= 0 and cluster_spread > 0, got {noise}, "
                         f"{cluster_spread}.")
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_clusters, dim))
    scales = cluster_spread * rng.uniform(0.3, 1.0, size=(n_clusters, dim))
    weights = rng.dirichlet(np.full(n_clusters, 2.0))
    cluster = rng.choice(n_clusters, size=n_points, p=weights)
    src = centres[cluster] + scales[cluster] * rng.normal(size=(n_points, dim))
    if normalize:
        src = _unit(src - src.mean(axis=0))
    if max_angle_degrees is None:
        rotation = random_orthogonal(dim, rng, proper=True)
    else:
        rotation = rotation_with_angle(dim, max_angle_degrees, rng)
    tgt = src @ rotation.T + noise * rng.normal(size=(n_points, dim))
    if normalize and noise > 0:
        tgt = _unit(tgt)
    frequency = 1.0 / np.arange(1, n_points + 1)
    return PlantedAlignment(src.astype(np.float32), tgt.astype(np.float32), rotation,
                            frequency / frequency.sum(), cluster)


def figure_4_1_toy(n_points: int = 300, *, angle_degrees: float = 60.0, noise: float = 0.05,
                   seed: int = 0) -> PlantedAlignment:
    """The 2-D toy of Figure 4.1: an "English" cloud X and an "Italian" cloud Y, a rotation by
    ``angle`` apart.

    Dot sizes in the figure are meant to be proportional to ``frequency``. The rotation is fixed by
    ``angle_degrees`` (not random) so that the picture reads well; clusters come from
    :func:`planted_rotation` with 5 clusters.
    Book: chapter 5 (Word translation without parallel data).
    """
    base = planted_rotation(n_points, 2, n_clusters=5, noise=0.0, cluster_spread=0.3, seed=seed)
    a = np.deg2rad(angle_degrees)
    rotation = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    rng = np.random.default_rng(seed + 1)
    tgt = base.src @ rotation.T + noise * rng.normal(size=base.src.shape)
    return PlantedAlignment(base.src, tgt.astype(np.float32), rotation, base.frequency,
                            base.cluster)
