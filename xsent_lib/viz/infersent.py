"""Figures of the InferSent chapter: NLI training curves, transfer vs embedding size (Figure 3.5),
and the max-pooling bar charts of Figures 3.6-3.9 (share of the max-pooled dimensions each word
wins).

Each function takes plain results (dicts, lists, arrays) and returns a matplotlib Figure.
Book: chapter 3 (InferSent).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

MODEL_COLOURS: tuple[str, ...] = ("#8C8C8C", "#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3",
                                  "#937860")


def training_curves(curves: Mapping[str, Sequence[float | None]],
                    ylabel: str = "NLI dev accuracy (%)") -> Figure:
    """One line per encoder of its dev score after each epoch (epochs without a score are skipped).

    Book: chapter 3 (InferSent: training details).
    """
    if not curves or not any(any(v is not None for v in c) for c in curves.values()):
        raise ValueError("no curve has a value to plot.")
    fig = Figure(figsize=(6, 3.4), layout="constrained")
    ax = fig.add_subplot()
    for i, (name, values) in enumerate(curves.items()):
        epochs = [e + 1 for e, v in enumerate(values) if v is not None]
        ax.plot(epochs, [v for v in values if v is not None], marker="o", label=name,
                color=MODEL_COLOURS[i % len(MODEL_COLOURS)])
    ax.set_xlabel("epoch")
    ax.set_ylabel(ylabel)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend(fontsize=8, ncols=2)
    ax.grid(alpha=0.3)
    return fig


def transfer_vs_size(points: Mapping[str, Sequence[Mapping[str, float]]], metric: str = "micro",
                     side_metric: str | None = "nli_dev") -> Figure:
    """Figure 3.5: transfer score (``metric``, micro by default) against the sentence-embedding
    size, one line per architecture; with ``side_metric`` a second panel shows the NLI dev accuracy
    the same way.

    ``points[name]`` lists dicts with ``dim`` and the metrics (what ``size_sweep`` returns).
    Book: chapter 3 (InferSent: embedding size).
    """
    if not points or not any(points.values()):
        raise ValueError("no sweep points to plot.")
    shown = [metric] + ([side_metric] if side_metric else [])
    for name, pts in points.items():
        for p in pts:
            missing = {"dim", *shown} - set(p)
            if missing:
                raise ValueError(f"a point of {name!r} lacks {sorted(missing)}.")
    labels = {"micro": "transfer dev accuracy, micro (%)",
              "macro": "transfer dev accuracy, macro (%)",
              "nli_dev": "NLI dev accuracy (%)", "nli_test": "NLI test accuracy (%)"}
    fig = Figure(figsize=(4.2 * len(shown), 3.4), layout="constrained")
    axes = fig.subplots(1, len(shown), squeeze=False)[0]
    for ax, key in zip(axes, shown):
        for i, (name, pts) in enumerate(points.items()):
            pts = sorted(pts, key=lambda p: p["dim"])
            ax.plot([p["dim"] for p in pts], [p[key] for p in pts], marker="o", label=name,
                    color=MODEL_COLOURS[(i + 1) % len(MODEL_COLOURS)])
        dims = sorted({p["dim"] for pts in points.values() for p in pts})
        ax.set_xscale("log", base=2)
        ax.set_xticks(dims, [str(d) for d in dims])
        ax.minorticks_off()
        ax.set_xlabel("sentence embedding size")
        ax.set_ylabel(labels.get(key, key))
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    return fig


def _bars(ax: Axes, tokens: Sequence[str], percent: np.ndarray, title: str, colour: str,
          top: float) -> None:
    x = np.arange(len(tokens))
    ax.bar(x, percent, color=colour)
    ax.set_xticks(x, list(tokens), rotation=60, ha="right", fontsize=8)
    ax.set_ylim(0, top)
    ax.set_title(title, fontsize=9)
    ax.grid(axis="y", alpha=0.3)


def _check_item(tokens: Sequence[str], percents: Mapping[str, np.ndarray]) -> None:
    if not tokens or not percents:
        raise ValueError("need the tokens of a sentence and at least one model's percentages.")
    for model, p in percents.items():
        if np.shape(p) != (len(tokens),):
            raise ValueError(f"{model!r} gives {np.shape(p)} values for {len(tokens)} tokens; "
                             "one per token.")


def maxpool_bars(tokens: Sequence[str], percents: Mapping[str, np.ndarray],
                 title: str = "") -> Figure:
    """Figures 3.6-3.9 for one sentence: one bar per word, its share (%) of the max-pooled
    dimensions, one panel per model (e.g. ``{"untrained": ..., "trained on NLI": ...}``), panels on
    a common scale.

    Book: chapter 3 (InferSent: visualising max-pooling).
    """
    return maxpool_gallery([{"title": title, "tokens": tokens, "percents": percents}])


def maxpool_gallery(items: Sequence[Mapping[str, object]]) -> Figure:
    """A grid of max-pool bar charts: one row per sentence, one column per model, on a common y
    scale.

    Each item is ``{"title": str, "tokens": [...], "percents": {model: array}}``; every item must
    name the same models.
    Book: chapter 3 (InferSent: visualising max-pooling).
    """
    if not items:
        raise ValueError("no sentence to draw.")
    models = list(items[0]["percents"])
    for item in items:
        _check_item(item["tokens"], item["percents"])
        if list(item["percents"]) != models:
            raise ValueError(f"every item must give the models {models}, got "
                             f"{list(item['percents'])}.")
    top = 1.1 * max(float(np.max(p)) for item in items for p in item["percents"].values())
    width = max(len(item["tokens"]) for item in items)
    fig = Figure(figsize=(max(3.0, 0.38 * width + 1.2) * len(models), 2.7 * len(items)),
                 layout="constrained")
    axes = fig.subplots(len(items), len(models), squeeze=False)
    for r, item in enumerate(items):
        for c, model in enumerate(models):
            title = f"{item['title']} · {model}" if item.get("title") else model
            _bars(axes[r, c], item["tokens"], np.asarray(item["percents"][model]), title,
                  MODEL_COLOURS[c % len(MODEL_COLOURS)], top)
        axes[r, 0].set_ylabel("% of dimensions")
    return fig
