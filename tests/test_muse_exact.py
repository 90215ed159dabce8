"""Our refinement dictionary and criterion against a brute-force numpy re-statement of MUSE's rules.

MUSE (``src/dico_builder.py``, ``src/evaluation/evaluator.py``): ``get_candidates`` takes the first
``dico_max_rank`` words as queries, scores ``2 cos - r_src - r_tgt`` against *all* rows of the other
side (neighbourhood terms over all rows), and drops pairs whose larger row index exceeds
``dico_max_rank``; ``S2T&T2S`` intersects both directions' candidates; ``dist_mean_cosine`` builds an
``S2T`` dictionary with ``dico_max_rank = 10,000`` and averages the cosine of its pairs.
"""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.align.criterion import EMPTY_CRITERION, unsupervised_criterion
from xsent_lib.align.refinement import mutual_nn_dictionary, refine


def unit(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    return a / np.linalg.norm(a, axis=1, keepdims=True)


def muse_candidates(emb1: np.ndarray, emb2: np.ndarray, max_rank: int, knn: int) -> set[tuple[int, int]]:
    """MUSE's ``get_candidates`` with ``csls_knn_<knn>``, brute force over full matrices (as a set)."""
    e1, e2 = unit(emb1), unit(emb2)
    sims = e1 @ e2.T
    avg1 = np.sort(sims, axis=1)[:, -knn:].mean(1)  # each emb1 word to its knn nearest emb2 words
    avg2 = np.sort(sims, axis=0)[-knn:, :].mean(0)  # each emb2 word to its knn nearest emb1 words
    n_src = min(max_rank, len(e1))
    scores = 2 * sims[:n_src] - avg1[:n_src, None] - avg2[None, :]
    best = scores.argmax(1)
    return {(i, int(j)) for i, j in enumerate(best) if max(i, j) <= max_rank}


def muse_mutual(x: np.ndarray, y: np.ndarray, max_rank: int, knn: int) -> list[tuple[int, int]]:
    s2t = muse_candidates(x, y, max_rank, knn)
    t2s = {(i, j) for j, i in muse_candidates(y, x, max_rank, knn)}
    return sorted(s2t & t2s)


def muse_mean_cosine(x: np.ndarray, y: np.ndarray, max_rank: int, knn: int) -> float:
    pairs = sorted(muse_candidates(x, y, max_rank, knn))
    if not pairs:
        return -1e9
    i, j = np.array(pairs).T
    return float(np.mean(np.sum(unit(x)[i] * unit(y)[j], axis=1)))


@pytest.fixture(scope="module")
def fixture_vectors() -> tuple[np.ndarray, np.ndarray]:
    """Mapped source rows are noisy copies of target rows of nearby frequency rank (a local shuffle),
    with unequal vocabulary sizes, so some true neighbours lie past any rank cut."""
    rng = np.random.default_rng(11)
    y = rng.normal(size=(400, 8))
    order = np.argsort(np.arange(400) + rng.normal(0.0, 25.0, 400))[:300]
    return y[order] + rng.normal(0.0, 0.35, (300, 8)), y


@pytest.mark.parametrize("max_rank", [40, 120, 300, 1000])
def test_mutual_dictionary_is_musees(fixture_vectors, max_rank):
    x, y = fixture_vectors
    got = [tuple(p) for p in mutual_nn_dictionary(x, y, max_rank=max_rank, k_neighbors=10).tolist()]
    assert got == muse_mutual(x, y, max_rank, 10)
    assert len(got) > 0


def test_muse_rule_differs_from_the_cut_rule(fixture_vectors):
    x, y = fixture_vectors
    muse = mutual_nn_dictionary(x, y, max_rank=100, k_neighbors=10)
    cut = mutual_nn_dictionary(x, y, max_rank=100, k_neighbors=10, rule="cut")
    assert {tuple(p) for p in muse.tolist()} != {tuple(p) for p in cut.tolist()}
    assert muse.max() < 100 and cut.max() < 100


@pytest.mark.parametrize("n_words", [30, 100, 300])
def test_criterion_is_musees_dist_mean_cosine(fixture_vectors, n_words):
    x, y = fixture_vectors
    got = unsupervised_criterion(x, y, n_words=n_words, k_neighbors=10)
    assert got == pytest.approx(muse_mean_cosine(x, y, n_words, 10), abs=1e-5)


def test_criterion_all_rule_averages_every_translation_and_empty_is_musees_value():
    x = np.eye(6)[[0, 1, 2, 3, 4, 5]] + 0.01
    y = np.eye(6)[[5, 4, 3, 2, 1, 0]] + 0.01  # word i's translation is the rarest target 5 - i
    assert unsupervised_criterion(x, y, n_words=1, k_neighbors=2) == EMPTY_CRITERION
    assert unsupervised_criterion(x, y, n_words=1, k_neighbors=2, rule="all") == pytest.approx(1.0, abs=1e-4)
    with pytest.raises(ValueError, match="rule"):
        unsupervised_criterion(x, y, rule="mean")
    with pytest.raises(ValueError, match="rule"):
        mutual_nn_dictionary(x, y, rule="full")
    with pytest.raises(ValueError, match="rule"):
        refine(x, y, np.eye(6), rule="full")
