"""Figures of chapter 4: probing accuracy during training (Figure 3.10), the Spearman correlation
matrix between probing and downstream tasks (Figure 3.11), and probing accuracy against the
embedding size (Figure 3.12).

Each function takes the plain results the chapter logs (dicts of lists or DataFrames) and returns a
Figure.
Book: chapter 4 (Probing).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure


def _task_colors(tasks: Sequence[str]) -> dict[str, tuple]:
    cmap = plt.get_cmap("tab10" if len(tasks) <= 10 else "tab20")
    return {t: cmap(i % cmap.N) for i, t in enumerate(tasks)}


def epoch_curves(curves: Mapping[str, Mapping], ncols: int = 2) -> Figure:
    """Figure 3.10: one panel per training run, probing accuracy per task against training epochs,
    and the training task's own score (BLEU, perplexity, ...) on a second axis in lavender.

    ``curves`` maps a panel title to ``{"x": [epochs], "probing": {task: [accuracy]}, "score":
    [value], "score_name": str}`` (what :func:`xsent_lib.eval.probing_study.train_encoder` records).
    Book: chapter 4 (Probing: per-epoch curves).
    """
    if not curves:
        raise ValueError("curves is empty: give at least one {'x', 'probing', 'score', "
                         "'score_name'} record.")
    for title, c in curves.items():
        missing = {"x", "probing", "score", "score_name"} - set(c)
        if missing:
            raise ValueError(f"curve {title!r} lacks {sorted(missing)}.")
        if any(len(v) != len(c["x"]) for v in (*c["probing"].values(), c["score"])):
            raise ValueError(f"curve {title!r}: every series needs one value per x.")
    tasks = list(dict.fromkeys(t for c in curves.values() for t in c["probing"]))
    colors = _task_colors(tasks)
    ncols = min(ncols, len(curves))
    nrows = -(-len(curves) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, 3.4 * nrows), squeeze=False,
                             sharey=True)
    for ax, (title, c) in zip(axes.ravel(), curves.items()):
        for t, ys in c["probing"].items():
            ax.plot(c["x"], ys, marker="o", ms=3, color=colors[t], label=t)
        twin = ax.twinx()
        twin.plot(c["x"], c["score"], color="#b19cd9", lw=3, alpha=0.8, label=c["score_name"])
        twin.set_ylabel(c["score_name"], color="#7b68ae")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("training epochs")
        ax.set_ylabel("probing accuracy (%)")
        ax.grid(alpha=0.3)
    for ax in axes.ravel()[len(curves):]:
        ax.axis("off")
    handles, labels = axes.ravel()[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(tasks), 5), fontsize=8,
               frameon=False)
    fig.tight_layout(rect=(0, 0.1 if len(tasks) > 5 else 0.06, 1, 1))
    return fig


def correlation_matrix(rho: pd.DataFrame, significant: pd.DataFrame, title: str = "") -> Figure:
    """Figure 3.11: Spearman's rho of each (probing task, downstream task) pair, annotated; cells
    that are not significant after the multiple-comparison correction are grey (a seaborn heatmap;
    missing rho shows "-").

    ``rho`` and ``significant`` are probing tasks (rows) x downstream tasks (columns), as in
    :class:`xsent_lib.eval.stats.CorrelationResult` (``.block`` and ``.significant``).
    Book: chapter 4 (Probing: correlations with downstream tasks).
    """
    if not isinstance(rho, pd.DataFrame) or not isinstance(significant, pd.DataFrame):
        raise TypeError("rho and significant must be DataFrames (probing tasks x "
                        "downstream tasks).")
    if rho.shape != significant.shape or list(rho.index) != list(significant.index) \
            or list(rho.columns) != list(significant.columns):
        raise ValueError("rho and significant must have the same rows and columns.")
    values = rho.to_numpy(np.float64)
    finite = np.isfinite(values)
    sig = significant.to_numpy(bool) & finite
    labels = np.where(finite, np.char.mod("%.2f", np.nan_to_num(values)), "-")
    fig, ax = plt.subplots(figsize=(1.2 + 0.75 * rho.shape[1], 0.9 + 0.5 * rho.shape[0]))
    # Two seaborn layers on one axis: significant cells coloured by rho (text colour follows the
    # cell's luminance), then the others in grey with black text; each layer annotates only its own
    # cells.
    sns.heatmap(rho.astype(float), mask=~sig, cmap="RdBu_r", vmin=-1, vmax=1, annot=labels, fmt="",
                annot_kws={"fontsize": 7}, cbar_kws={"fraction": 0.04, "label": "Spearman rho"},
                ax=ax)
    sns.heatmap(pd.DataFrame(np.ones_like(values), index=rho.index, columns=rho.columns), mask=sig,
                cmap=ListedColormap(["0.82"]), vmin=0, vmax=1, cbar=False, annot=labels, fmt="",
                annot_kws={"fontsize": 7, "color": "black"}, ax=ax)
    ax.set_xticks(np.arange(rho.shape[1]) + 0.5, list(rho.columns), rotation=40, ha="right")
    ax.set_yticks(np.arange(rho.shape[0]) + 0.5, list(rho.index), rotation=0)
    ax.set_xlabel("")
    ax.set_ylabel("")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def size_curves(results: Mapping[str, Mapping[int, Mapping[str, float]]]) -> Figure:
    """Figure 3.12: probing accuracy per task against the sentence-embedding size, one panel per
    training task.

    ``results`` maps a panel title (e.g. ``"BiLSTM-max / NLI"``) to ``{dim: {task: accuracy}}``.
    Book: chapter 4 (Probing: embedding size).
    """
    if not results or not all(isinstance(v, Mapping) and v for v in results.values()):
        raise ValueError("results must map each training task to a non-empty {dim: {task: "
                         "accuracy}} dict.")
    tasks = list(
        dict.fromkeys(t for by_dim in results.values() for row in by_dim.values() for t in row))
    colors = _task_colors(tasks)
    fig, axes = plt.subplots(1, len(results), figsize=(5.0 * len(results), 3.6), squeeze=False,
                             sharey=True)
    for ax, (title, by_dim) in zip(axes[0], results.items()):
        dims = sorted(int(d) for d in by_dim)
        for t in tasks:
            ys = [by_dim[d].get(t, np.nan) if d in by_dim else by_dim[str(d)].get(t, np.nan)
                  for d in dims]
            ax.plot(dims, ys, marker="o", ms=3, color=colors[t], label=t)
        ax.set_xscale("log", base=2)
        ax.set_xticks(dims, [str(d) for d in dims])
        ax.set_xlabel("sentence embedding size")
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
    axes[0, 0].set_ylabel("probing accuracy (%)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(tasks), 5), fontsize=8,
               frameon=False)
    fig.tight_layout(rect=(0, 0.14 if len(tasks) > 5 else 0.08, 1, 1))
    return fig
