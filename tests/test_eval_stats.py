"""Holm / Bonferroni against brute-force definitions; the Spearman matrix against scipy cell by cell."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr

from xsent_lib.eval.stats import adjust_pvalues, spearman_matrix


def _holm_brute_force(p: np.ndarray) -> np.ndarray:
    """Holm by closed testing: H_i is rejected at alpha iff every intersection hypothesis holding i is
    rejected by Bonferroni, so p~_i = max over subsets S containing i of min(1, |S| min_{j in S} p_j)."""
    m = len(p)
    out = np.zeros(m)
    for i in range(m):
        others = [j for j in range(m) if j != i]
        best = 0.0
        for k in range(m):
            for rest in itertools.combinations(others, k):
                s = (i, *rest)
                best = max(best, min(1.0, len(s) * min(p[j] for j in s)))
        out[i] = best
    return out


def test_holm_and_bonferroni_by_hand():
    p = np.array([[0.01, 0.04], [0.03, 0.005]])
    assert np.allclose(adjust_pvalues(p, "holm"), [[0.03, 0.06], [0.06, 0.02]])
    assert np.allclose(adjust_pvalues(p, "bonferroni"), [[0.04, 0.16], [0.12, 0.02]])
    with_nan = adjust_pvalues(np.array([0.02, np.nan, 0.5]), "holm")
    assert np.isnan(with_nan[1]) and np.allclose(with_nan[[0, 2]], [0.04, 0.5])
    assert np.isnan(adjust_pvalues(np.array([np.nan, np.nan]))).all()
    with pytest.raises(ValueError):
        adjust_pvalues(p, "fdr")
    with pytest.raises(ValueError, match="lie in"):
        adjust_pvalues(np.array([0.5, 1.5]))


@pytest.mark.parametrize("seed", range(6))
def test_holm_matches_closed_testing_and_is_between_p_and_bonferroni(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 8))
    p = rng.uniform(0, 0.3, m) ** 2
    if m > 2:
        p[1] = p[0]  # a tie
    holm = adjust_pvalues(p, "holm")
    assert np.allclose(holm, _holm_brute_force(p))
    assert (p <= holm + 1e-15).all() and (holm <= adjust_pvalues(p, "bonferroni") + 1e-15).all()


def test_spearman_matrix_is_symmetric_and_greys_by_the_corrected_p_values():
    n = 6
    probe = np.array([1, 2, 3, 4, 5, 6.0])
    scores = pd.DataFrame({"A": probe, "B": probe[::-1] * 2.0, "Flat": np.full(n, 50.0),
                           "X": probe * 10, "Y": np.array([2, 1, 4, 3, 6, 5.0])})
    res = spearman_matrix(scores, rows=["A", "B", "Flat"], cols=["X", "Y"], correction="holm", alpha=0.05)
    assert np.allclose(res.rho.to_numpy(), res.rho.to_numpy().T, equal_nan=True)
    assert res.rho.loc["A", "B"] == pytest.approx(-1.0) and res.rho.loc["A", "X"] == pytest.approx(1.0)
    r, p = spearmanr(scores["A"], scores["Y"])
    assert res.rho.loc["A", "Y"] == pytest.approx(r) and res.pvalue.loc["A", "Y"] == pytest.approx(p)
    # rho(A, Y) = 0.829, p = 0.042: significant alone, not after Holm over the 4 testable cells (Flat has none)
    assert p < 0.05
    assert res.p_adjusted.loc["A", "Y"] == pytest.approx(min(1.0, 2 * p))
    assert not res.significant.loc["A", "Y"] and res.significant.loc["A", "X"] and res.significant.loc["B", "X"]
    assert res.significant.loc["Flat"].sum() == 0 and res.p_adjusted.loc["Flat"].isna().all()
    assert list(res.block.index) == ["A", "B", "Flat"] and list(res.block.columns) == ["X", "Y"]
    bonf = spearman_matrix(scores, ["A", "B", "Flat"], ["X", "Y"], correction="bonferroni")
    assert bonf.p_adjusted.loc["A", "Y"] == pytest.approx(min(1.0, 4 * p))
    with pytest.raises(ValueError, match="not columns"):
        spearman_matrix(scores, ["A"], ["Z"])


def test_spearman_matrix_of_two_tasks_and_bad_inputs():
    scores = pd.DataFrame({"A": [1.0, 2, 3, 4], "X": [1.0, 3, 2, 4]})
    res = spearman_matrix(scores, ["A"], ["X"])
    r, p = spearmanr(scores["A"], scores["X"])
    assert res.rho.loc["A", "X"] == pytest.approx(r) and res.pvalue.loc["X", "A"] == pytest.approx(p)
    assert res.rho.loc["A", "A"] == 1.0
    with pytest.raises(ValueError, match="3 encoders"):
        spearman_matrix(scores.iloc[:2], ["A"], ["X"])
    with pytest.raises(ValueError, match="2 distinct"):
        spearman_matrix(scores, ["A"], ["A"])
    with pytest.raises(ValueError, match="NaN"):
        spearman_matrix(scores.assign(X=[1.0, np.nan, 2, 3]), ["A"], ["X"])
    with pytest.raises(TypeError):
        spearman_matrix(scores.to_numpy(), ["A"], ["X"])
