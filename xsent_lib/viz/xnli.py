"""Figures of the XNLI chapter: the alignment curve (XNLI Figure 2 / thesis Figure 4.5), accuracy
against the number of parallel sentences, and accuracy against typological distance from English.

Every function takes plain results (lists of dicts) and returns a matplotlib Figure.
Book: chapter 6 (XNLI and aligned encoders).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure


def alignment_curves(curves: Mapping[str, Sequence[Mapping[str, float]]],
                     score: str = "target dev accuracy (%)") -> Figure:
    """L_align on held-out parallel sentences (left) and the target-language score (right) along
    alignment training, one line per language; ``curves[lang]`` holds ``{"step", "dev_align",
    "evaluate"}`` points.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    if not curves:
        raise ValueError("no curve to draw; pass {language: [{'step', 'dev_align', "
                         "'evaluate'}, ...]}.")
    fig = Figure(figsize=(10, 3.6), layout="constrained")
    left, right = fig.subplots(1, 2, sharex=True)
    for lang, pts in curves.items():
        steps = [p["step"] for p in pts]
        line, = left.plot(steps, [p["dev_align"] for p in pts], marker="o", ms=3, label=lang)
        if all("evaluate" in p for p in pts):
            right.plot(steps, [p["evaluate"] for p in pts], marker="o", ms=3,
                       color=line.get_color(), label=lang)
    left.set_title("alignment loss (parallel dev)", fontsize=10)
    left.set_ylabel("$L_{align}$")
    right.set_title("zero-shot NLI accuracy (target dev)", fontsize=10)
    right.set_ylabel(score)
    for ax in (left, right):
        ax.set_xlabel("alignment steps")
        ax.grid(alpha=0.3)
    right.legend(fontsize=8)
    return fig


def accuracy_vs_parallel(points: Mapping[str, Sequence[Mapping[str, float]]]) -> Figure:
    """Accuracy against the number of parallel sentences (log scale): per series the mean over seeds
    and a band from the lowest to the highest seed; ``points[name]`` holds ``{"n", "seed", "acc"}``.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    if not points:
        raise ValueError("no points to draw.")
    fig = Figure(figsize=(5.6, 3.6), layout="constrained")
    ax = fig.subplots()
    for name, pts in points.items():
        ns = sorted({p["n"] for p in pts})
        accs = [[p["acc"] for p in pts if p["n"] == n] for n in ns]
        mean = [float(np.mean(a)) for a in accs]
        line, = ax.plot(ns, mean, marker="o",
                        label=f"{name} (mean of {max(len(a) for a in accs)} seeds)")
        ax.fill_between(ns, [min(a) for a in accs], [max(a) for a in accs], color=line.get_color(),
                        alpha=0.2)
    ax.set_xscale("log")
    ax.set_xlabel("parallel sentences used for alignment")
    ax.set_ylabel("target test accuracy (%)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    return fig


def accuracy_vs_distance(rows: Sequence[Mapping[str, object]]) -> Figure:
    """Accuracy against typological distance from English: one marker series per ``method``, each
    point labelled with its language; ``rows`` hold ``{"language", "distance", "acc", "method"}``.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    if not rows:
        raise ValueError("no rows to draw.")
    fig = Figure(figsize=(5.6, 3.6), layout="constrained")
    ax = fig.subplots()
    for method in dict.fromkeys(r["method"] for r in rows):
        sel = sorted((r for r in rows if r["method"] == method), key=lambda r: r["distance"])
        ax.plot([r["distance"] for r in sel], [r["acc"] for r in sel], marker="o",
                label=str(method))
        for r in sel:
            ax.annotate(str(r["language"]), (r["distance"], r["acc"]), fontsize=7, xytext=(3, 3),
                        textcoords="offset points")
    ax.set_xlabel("typological distance from English (weighted features)")
    ax.set_ylabel("test accuracy (%)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig
