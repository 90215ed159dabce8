"""Rank correlations between task scores and family-wise corrections of their p-values.

:func:`spearman_matrix` correlates every pair of score columns over encoders (one
``scipy.stats.spearmanr`` call) and tests a block of them, its p-values corrected by
:func:`adjust_pvalues` (Holm's step-down, or Bonferroni).
Book: chapter 4 (Probing: correlations with downstream tasks).
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

CORRECTIONS = ("holm", "bonferroni")


def adjust_pvalues(p: np.ndarray, method: str = "holm") -> np.ndarray:
    """Family-wise adjusted p-values: ``"bonferroni"`` (``m p``) or ``"holm"``, capped at 1.

    Holm: with ascending ``p_(1) <= ... <= p_(m)``,
    ``p~_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))``; reject when ``p~ <= alpha``.
    Missing values (NaN, e.g. a constant score) are left out of ``m`` and stay NaN.
    Book: chapter 4 (Probing: correlations with downstream tasks).
    """
    if method not in CORRECTIONS:
        raise ValueError(f"method must be 'holm' or 'bonferroni', got {method!r}.")
    p = np.asarray(p, np.float64)
    flat = p.ravel()
    ok = np.isfinite(flat)
    if ((flat[ok] < 0) | (flat[ok] > 1)).any():
        raise ValueError("p-values must lie in [0, 1].")
    m = int(ok.sum())
    out = np.full(flat.shape, np.nan)
    if m == 0:
        return out.reshape(p.shape)
    vals = flat[ok]
    if method == "bonferroni":
        adj = np.minimum(1.0, m * vals)
    else:
        order = np.argsort(vals, kind="stable")
        steps = np.minimum(1.0, (m - np.arange(m)) * vals[order])
        adj = np.empty(m)
        adj[order] = np.maximum.accumulate(steps)
    out[ok] = adj
    return out.reshape(p.shape)


@dataclass
class CorrelationResult:
    """Spearman correlations between task scores over encoders, and which survive the test.

    ``rho`` / ``pvalue`` are square and symmetric over every task; ``p_adjusted`` and
    ``significant`` cover the tested block (``rows`` x ``cols``), corrected over its ``m``
    cells by ``correction``.
    Book: chapter 4 (Probing: correlations with downstream tasks).
    """

    rho: pd.DataFrame
    pvalue: pd.DataFrame
    p_adjusted: pd.DataFrame
    significant: pd.DataFrame
    correction: str
    alpha: float
    n_encoders: int

    @property
    def block(self) -> pd.DataFrame:
        """The tested block of ``rho`` (probing rows x downstream columns).

        Book: chapter 4 (Probing: correlations with downstream tasks).
        """
        return self.rho.loc[self.significant.index, self.significant.columns]


def _check_scores(scores: pd.DataFrame, tasks: Sequence[str], alpha: float) -> np.ndarray:
    if not isinstance(scores, pd.DataFrame):
        raise TypeError("scores must be a DataFrame (encoders x tasks), "
                        f"got {type(scores).__name__}.")
    missing = [c for c in tasks if c not in scores.columns]
    if missing:
        raise ValueError(f"tasks {missing} are not columns of scores ({list(scores.columns)}).")
    if len(tasks) < 2:
        raise ValueError(f"need at least 2 distinct tasks to correlate, got {list(tasks)}.")
    if scores.shape[0] < 3:
        raise ValueError(f"need at least 3 encoders to correlate, got {scores.shape[0]}.")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}.")
    values = scores[list(tasks)].to_numpy(np.float64)
    if not np.isfinite(values).all():
        raise ValueError("scores hold NaN or infinite values; every encoder needs every score.")
    return values


def spearman_matrix(scores: pd.DataFrame, rows: Sequence[str], cols: Sequence[str],
                    correction: str = "holm", alpha: float = 0.05) -> CorrelationResult:
    """Spearman's rho between every pair of task columns of ``scores`` (rows: encoders).

    The ``rows`` x ``cols`` block (probing x downstream tasks in Figure 3.11) is
    tested: its two-sided p-values (scipy's t approximation) are adjusted by
    ``correction`` (Holm, or Bonferroni) over the block's cells, and a cell is
    significant when the adjusted p-value is at most ``alpha``. A task with a constant
    score has no correlation (NaN), never significant.
    Book: chapter 4 (Probing: correlations with downstream tasks).
    """
    tasks = list(dict.fromkeys([*rows, *cols]))
    values = _check_scores(scores, tasks, alpha)
    constant = np.ptp(values, axis=0) == 0
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore")  # constant columns: set to NaN below
        rho, p = spearmanr(values, axis=0)
    if np.ndim(rho) == 0:  # two tasks: scipy returns one coefficient
        rho, p = np.array([[1.0, rho], [rho, 1.0]]), np.array([[0.0, p], [p, 0.0]])
    rho, p = np.array(rho, np.float64), np.array(p, np.float64)
    rho[constant, :] = rho[:, constant] = np.nan
    p[constant, :] = p[:, constant] = np.nan
    np.fill_diagonal(rho, np.where(constant, np.nan, 1.0))
    rho_df, p_df = pd.DataFrame(rho, tasks, tasks), pd.DataFrame(p, tasks, tasks)
    block = p_df.loc[list(rows), list(cols)].to_numpy()
    adj = pd.DataFrame(adjust_pvalues(block, correction), list(rows), list(cols))
    significant = adj.le(alpha) & adj.notna()
    return CorrelationResult(rho_df, p_df, adj, significant, correction, alpha,
                             scores.shape[0])
