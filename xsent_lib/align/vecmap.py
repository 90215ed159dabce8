"""VecMap's robust unsupervised alignment (Artetxe et al., ACL 2018): similarity-distribution seed,
then self-learning.

Beyond the thesis. The adversarial game of MUSE starts from nothing and has to land inside
refinement's basin by itself; Artetxe, Labaka and Agirre found it fails on harder pairs and proposed
a start that needs no game. If two spaces are isometric, a word and its translation have the same
similarities to all other words *up to the order of those words*: sorting each row of the similarity
matrix gives a language-independent signature. Nearest signatures (CSLS) give a weak seed
dictionary, and a self-learning loop (Procrustes on the dictionary, re-induce the dictionary with
CSLS over the frequent words, keep every score with probability ``keep_prob`` that grows when the
objective stalls) turns it into a good map. The released code ends with a whitening / re-weighting
step; we keep the orthogonal map so that it compares one-to-one with MUSE's.

Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from xsent_lib.align.procrustes import procrustes
from xsent_lib.base.neighbors import l2_normalize

_BLOCK = 2048


@dataclass(frozen=True)
class VecMapConfig:
    """Settings of :func:`vecmap_unsupervised`; the released code's values are in brackets.

    ``init_words``: rows of each side whose similarity distributions seed the dictionary [4,000];
    ``vocab``: rows of each side that self-learning induces dictionaries over [20,000]; ``csls_k``:
    CSLS neighbourhood [10]; ``keep_prob``: starting probability of keeping a score [0.1];
    ``interval``: iterations without improvement before ``keep_prob`` is multiplied by
    ``multiplier`` [50, 2]; ``threshold``: smallest objective gain that counts [1e-6]; ``max_iter``:
    a hard stop (ours: CPU budget).
    Book: chapter 5 (Word translation without parallel data).
    """

    init_words: int = 4000
    vocab: int = 20_000
    csls_k: int = 10
    keep_prob: float = 0.1
    interval: int = 50
    multiplier: float = 2.0
    threshold: float = 1e-6
    max_iter: int = 1000

    def __post_init__(self) -> None:
        for name in ("init_words", "vocab", "csls_k", "interval", "max_iter"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}.")
        if not 0.0 < self.keep_prob <= 1.0 or self.multiplier <= 1.0:
            raise ValueError("keep_prob must be in (0, 1] and multiplier > 1, got "
                             f"{self.keep_prob}, {self.multiplier}.")


def _unit_center_unit(x: np.ndarray) -> np.ndarray:
    x = l2_normalize(x)
    return l2_normalize(x - x.mean(axis=0))


def similarity_signatures(x: np.ndarray, n_words: int) -> np.ndarray:
    """Each of the first ``n_words`` rows described by its sorted similarities to those rows: ``(n,
    n)`` float32.

    VecMap's signature: the square root of the Gram matrix ``(X X^T)^{1/2} = U S U^T`` (from the SVD
    ``X = U S V^T``, which softens the similarity distribution), each row sorted, then rows unit
    length, centred, unit length. Signatures of two isometric spaces agree for translations
    whatever the order of the vocabularies.
    Book: chapter 5 (Word translation without parallel data).
    """
    x = np.asarray(x, dtype=np.float32)
    if x.ndim != 2 or n_words < 2 or x.shape[0] < 2:
        raise ValueError(f"need a (n >= 2, dim) matrix and n_words >= 2, got shape {x.shape}, "
                         f"n_words={n_words}.")
    u, s, _ = np.linalg.svd(x[:n_words], full_matrices=False)
    sim = (u * s) @ u.T
    sim.sort(axis=1)
    return _unit_center_unit(sim)


def _topk_mean(sim: np.ndarray, k: int) -> np.ndarray:
    """Mean of each row's ``k`` largest values."""
    k = min(k, sim.shape[1])
    return np.partition(sim, sim.shape[1] - k, axis=1)[:, -k:].mean(axis=1)


def _csls_argmax(a: np.ndarray, b: np.ndarray, k: int, keep_prob: float = 1.0,
                 rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    """For each row of ``a``: best row of ``b`` by ``cos - r_b/2`` (CSLS for ranking), with score
    dropout.

    Returns ``(best target rows, best plain cosine)``, blocked so the full matrix is never held.
    """
    r_b = np.concatenate([_topk_mean(b[i:i + _BLOCK] @ a.T, k) for i in range(0, len(b), _BLOCK)])
    best, best_sim = np.empty(len(a), np.int64), np.empty(len(a), np.float32)
    for i in range(0, len(a), _BLOCK):
        sim = a[i:i + _BLOCK] @ b.T
        best_sim[i:i + _BLOCK] = sim.max(axis=1)
        sim -= r_b[None, :] / 2
        if keep_prob < 1.0:
            sim *= rng.random(sim.shape) >= 1.0 - keep_prob
        best[i:i + _BLOCK] = sim.argmax(axis=1)
    return best, best_sim


def _union(a2b: np.ndarray, b2a: np.ndarray) -> np.ndarray:
    """VecMap's ``union`` dictionary: every source row with its target, every target row with its
    source."""
    src = np.concatenate([np.arange(len(a2b)), b2a])
    tgt = np.concatenate([a2b, np.arange(len(b2a))])
    return np.stack([src, tgt], axis=1).astype(np.int64)


def similarity_init_dictionary(src: np.ndarray, tgt: np.ndarray, *, n_words: int = 4000,
                               csls_k: int = 10) -> np.ndarray:
    """VecMap's unsupervised seed: CSLS nearest signatures (:func:`similarity_signatures`) in both
    directions.

    Rows must be sorted by frequency; the first ``n_words`` of each side are used. Returns the
    ``union`` dictionary (each source word with its best target, each target with its best source)
    as ``(2 n, 2)`` int64 rows ``[source row, target row]``.
    Book: chapter 5 (Word translation without parallel data).
    """
    n = min(n_words, len(src), len(tgt))
    xs, zs = similarity_signatures(src, n), similarity_signatures(tgt, n)
    fwd, _ = _csls_argmax(xs, zs, csls_k)
    bwd, _ = _csls_argmax(zs, xs, csls_k)
    return _union(fwd, bwd)


@dataclass
class VecMapResult:
    """The map, the seed dictionary, and per self-learning iteration the objective and
    ``keep_prob``.

    Book: chapter 5 (Word translation without parallel data).
    """

    W: np.ndarray
    seed_pairs: np.ndarray
    history: list[dict] = field(default_factory=list)


def self_learning(src: np.ndarray, tgt: np.ndarray, pairs: np.ndarray,
                  config: VecMapConfig = VecMapConfig(),
                  *, seed: int = 0) -> tuple[np.ndarray, list[dict]]:
    """VecMap's stochastic self-learning from a seed dictionary: ``(W, history)``.

    Each iteration fits Procrustes on the dictionary, then re-induces it (``union`` of both
    directions) over the first ``config.vocab`` rows by CSLS with every score kept with probability
    ``keep_prob``. The objective is the mean best cosine of both directions; after ``interval``
    iterations without a gain of ``threshold``, ``keep_prob`` is multiplied by ``multiplier``; once
    it has reached 1 and stalled again, the last Procrustes fit is returned. ``W`` maps source rows
    to target space (``src @ W.T``).
    Book: chapter 5 (Word translation without parallel data).
    """
    src, tgt = l2_normalize(src), l2_normalize(tgt)
    pairs = np.asarray(pairs)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or len(pairs) < 2:
        raise ValueError(f"pairs must be an (n >= 2, 2) integer array, got shape {pairs.shape}.")
    rng = np.random.default_rng(seed)
    xs, zs = src[: config.vocab], tgt[: config.vocab]
    keep, best, last_gain, history = config.keep_prob, -np.inf, 0, []
    W = procrustes(src[pairs[:, 0]], tgt[pairs[:, 1]])
    for it in range(1, config.max_iter + 1):
        if it - last_gain > config.interval:
            if keep >= 1.0:
                break
            keep, last_gain = min(1.0, config.multiplier * keep), it
        xw = xs @ W.T
        fwd, sim_f = _csls_argmax(xw, zs, config.csls_k, keep, rng)
        bwd, sim_b = _csls_argmax(zs, xw, config.csls_k, keep, rng)
        objective = float(np.mean(sim_f) + np.mean(sim_b)) / 2
        history.append({"iteration": it, "objective": objective, "keep_prob": keep})
        if objective - best >= config.threshold:
            best, last_gain = objective, it
        pairs = _union(fwd, bwd)
        W = procrustes(src[pairs[:, 0]], tgt[pairs[:, 1]])
    return W, history


def vecmap_unsupervised(src: np.ndarray, tgt: np.ndarray, config: VecMapConfig = VecMapConfig(), *,
                        seed: int = 0) -> VecMapResult:
    """Fully unsupervised map: :func:`similarity_init_dictionary`, then :func:`self_learning`.

    ``src`` and ``tgt`` are frequency-sorted embeddings (unit length and centred, as chapter 5's
    spaces are). No dictionary, no identical strings, no adversary.
    Book: chapter 5 (Word translation without parallel data).
    """
    src, tgt = np.asarray(src), np.asarray(tgt)
    if src.ndim != 2 or tgt.ndim != 2 or src.shape[1] != tgt.shape[1]:
        raise ValueError(f"src and tgt must be (n, d) matrices of one dimension, got {src.shape} "
                         f"and {tgt.shape}.")
    if min(len(src), len(tgt)) <= config.csls_k:
        raise ValueError(f"need more than csls_k={config.csls_k} words per side, got {len(src)} "
                         f"and {len(tgt)}.")
    seed_pairs = similarity_init_dictionary(src, tgt, n_words=config.init_words,
                                            csls_k=config.csls_k)
    W, history = self_learning(src, tgt, seed_pairs, config, seed=seed)
    return VecMapResult(W, seed_pairs, history)
