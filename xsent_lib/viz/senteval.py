"""Figures of chapter 2: transfer scores per model and task, the MLP's gain over LogReg, STS
scatter, speed vs score.

Each function takes plain results (dicts of numbers or arrays, as the chapter logs them) and returns
a Figure.
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
from matplotlib.figure import Figure


def _check_nested(scores: Mapping[str, Mapping[str, float]], name: str) -> None:
    if not scores or not all(isinstance(v, Mapping) and v for v in scores.values()):
        raise ValueError(f"{name} must map each model to a non-empty {{task: value}} dict.")


def score_heatmap(scores: Mapping[str, Mapping[str, float]], title: str = "", fmt: str = "{:.1f}",
                  cmap: str = "viridis") -> Figure:
    """Models (rows) x tasks (columns) coloured by score and annotated (a seaborn heatmap); missing
    cells stay blank.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    _check_nested(scores, "scores")
    models = list(scores)
    tasks = list(dict.fromkeys(t for row in scores.values() for t in row))
    grid = np.array([[scores[m].get(t, np.nan) for t in tasks] for m in models], dtype=float)
    labels = np.array([[fmt.format(v) if np.isfinite(v) else "" for v in row] for row in grid],
                      dtype=object)
    fig, ax = plt.subplots(figsize=(1.0 + 0.9 * len(tasks), 0.8 + 0.45 * len(models)))
    sns.heatmap(grid, mask=~np.isfinite(grid), cmap=cmap, annot=labels, fmt="",
                annot_kws={"fontsize": 8},
                cbar_kws={"fraction": 0.03}, xticklabels=tasks, yticklabels=models, ax=ax)
    ax.set_xticks(np.arange(len(tasks)) + 0.5, tasks, rotation=35, ha="right")
    ax.set_yticks(np.arange(len(models)) + 0.5, models, rotation=0)
    ax.set_title(title)
    fig.tight_layout()
    return fig


def mlp_gain(logreg: Mapping[str, Mapping[str, float]], mlp: Mapping[str, Mapping[str, float]],
             dims: Mapping[str, int]) -> Figure:
    """MLP minus LogReg accuracy per task (dots) and on average (bar) for each model, models ordered
    by dimension.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    _check_nested(mlp, "mlp")
    models = sorted((m for m in mlp if m in logreg), key=lambda m: dims.get(m, 0))
    if not models:
        raise ValueError("no model has both LogReg and MLP results.")
    fig, ax = plt.subplots(figsize=(1.5 + 1.3 * len(models), 3.2))
    for i, m in enumerate(models):
        gains = np.array([mlp[m][t] - logreg[m][t] for t in mlp[m] if t in logreg[m]], dtype=float)
        ax.bar(i, gains.mean(), color="0.8", width=0.6)
        ax.scatter(np.full(gains.size, i) + np.linspace(-0.2, 0.2, gains.size), gains, s=14,
                   zorder=3)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(range(len(models)), [f"{m}\n({dims.get(m, '?')}-d)" for m in models])
    ax.set_ylabel("MLP - LogReg (points)")
    ax.set_title("What a hidden layer adds on frozen embeddings")
    fig.tight_layout()
    return fig


def sts_scatter(points: Mapping[str, Mapping[str, np.ndarray]], title: str = "") -> Figure:
    """Cosine against gold score, one colour and one least-squares line per STS subset, Pearson r in
    the legend.

    ``points`` is ``{subset: {"cosine": array, "gold": array}}`` (see
    ``recipes.senteval.sts_points``).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if not points:
        raise ValueError("points must hold at least one subset.")
    fig, ax = plt.subplots(figsize=(5.2, 3.8))
    for name, p in points.items():
        cos, gold = np.asarray(p["cosine"], float), np.asarray(p["gold"], float)
        if cos.shape != gold.shape or cos.size < 2:
            raise ValueError(f"subset {name!r}: cosine and gold must be equal-length arrays of at "
                             "least 2 pairs.")
        r = np.corrcoef(gold, cos)[0, 1]
        dots = ax.scatter(gold, cos, s=6, alpha=0.35)
        slope, intercept = np.polyfit(gold, cos, 1)
        xs = np.array([gold.min(), gold.max()])
        ax.plot(xs, slope * xs + intercept, color=dots.get_facecolor()[0][:3], lw=2,
                label=f"{name}: r = {r:.2f} (n = {cos.size})")
    ax.set_xlabel("gold similarity")
    ax.set_ylabel("cosine of the two embeddings")
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title(title)
    fig.tight_layout()
    return fig


def speed_vs_score(speed: Mapping[str, float], score: Mapping[str, float],
                   ylabel: str = "mean accuracy") -> Figure:
    """Sentences per second (log scale) against a score, one labelled point per model.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    models = [m for m in speed if m in score and speed[m] and np.isfinite(score[m])]
    if not models:
        raise ValueError("speed and score share no model with finite values.")
    fig, ax = plt.subplots(figsize=(5.2, 3.4))
    for m in models:
        ax.scatter(speed[m], score[m], s=30)
        ax.annotate(m, (speed[m], score[m]), textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.set_xscale("log")
    ax.margins(x=0.35, y=0.12)  # room for the labels
    ax.set_xlabel("sentences per second (this machine)")
    ax.set_ylabel(ylabel)
    ax.set_title("Cost and quality of the baselines")
    fig.tight_layout()
    return fig
