"""Figures of the Aldarmaki & Diab chapter: alignment curves (a score against the size of the
bitext, mean over seeds with a min-max band), drawn from the records the chapter logged to
metrics.json.

A record is ``{"system", "family", "n", "seed", <metric>: value or {direction: value}}``; ``n`` is
``None`` for a system that uses no bitext (joint InferSent, the static dictionary, the teacher),
drawn as a flat line.
Book: chapter 7 (Joint vs transfer vs mapping).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

#: line style per kind of row: the baselines and rows beyond the paper by the word their name starts
#: with, the neural frameworks by the word that names the framework ("SIF mapping" is a SIF row, not
#: a neural mapping)
ROW_STYLES = {"SIF": "-.", "InfoNCE": (0, (3, 1, 1, 1)), "distillation": (0, (5, 2)),
              "teacher": (0, (1, 1))}
FRAMEWORK_STYLES = {"joint": "-", "transfer": "--", "mapping": ":"}


def _value(record: Mapping[str, Any], metric: str, direction: str | None) -> float:
    value = record[metric]
    if direction is None:
        if isinstance(value, Mapping):
            raise ValueError(f"metric {metric!r} holds one value per direction; name a direction.")
        return float(value)
    return float(value[direction])


def line_style(system: str) -> Any:
    """The line style of a curve: :data:`ROW_STYLES` when the system's name starts with one of its
    keys, else the framework word of its name (:data:`FRAMEWORK_STYLES`), else solid.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    first = system.split(" ", 1)[0]
    if first in ROW_STYLES:
        return ROW_STYLES[first]
    return next((FRAMEWORK_STYLES[w] for w in system.split() if w in FRAMEWORK_STYLES), "-")


def draw_curves(ax: Axes, records: Sequence[Mapping[str, Any]], systems: Sequence[str],
                metric: str = "retrieval_avg", direction: str | None = None) -> None:
    """Draw one line per system on ``ax``: mean over seeds against the bitext size, band from the
    lowest to the highest seed; systems without bitext are flat lines across the sizes. Book:
    chapter 7.
    """
    sizes = sorted({r["n"] for r in records if r["n"] is not None})
    if not sizes:
        raise ValueError("no record has a bitext size n; nothing to draw a curve over.")
    for system in systems:
        rows = [r for r in records if r["system"] == system]
        if not rows:
            continue
        if all(r["n"] is None for r in rows):
            vals = [_value(r, metric, direction) for r in rows]
            lows, means, highs = [min(vals)] * len(sizes), [float(np.mean(vals))] * len(sizes), [
                max(vals)] * len(sizes)
            xs = sizes
        else:
            xs = [n for n in sizes if any(r["n"] == n for r in rows)]
            per = [[_value(r, metric, direction) for r in rows if r["n"] == n] for n in xs]
            lows, means, highs = ([min(v) for v in per], [float(np.mean(v)) for v in per],
                                  [max(v) for v in per])
        line, = ax.plot(xs, means, marker="o" if len(xs) > 1 and rows[0]["n"] is not None else None,
                        ms=3, linestyle=line_style(system), label=system)
        ax.fill_between(xs, lows, highs, color=line.get_color(), alpha=0.18, linewidth=0)
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes, [f"{n / 1000:g}k" if n >= 1000 else str(n) for n in sizes])
    ax.grid(alpha=0.3)


def alignment_curves(records: Sequence[Mapping[str, Any]], panels: Mapping[str, Sequence[str]], *,
                     metric: str = "retrieval_avg", direction: str | None = None,
                     ylabel: str = "retrieval P@1 (%)", title: str = "", note: str = "") -> Figure:
    """One panel per entry of ``panels`` (``{panel title: systems}``), each with
    :func:`draw_curves`; ``note`` (what data, where the curve stops, what the band is) is printed
    under the panels.

    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    if not records:
        raise ValueError("no records to draw; pass the chapter's logged curve records.")
    if not panels:
        raise ValueError("name at least one panel: {title: [system, ...]}.")
    fig = Figure(figsize=(4.6 * len(panels), 3.9), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(panels), sharey=True))
    for ax, (name, systems) in zip(axes, panels.items()):
        draw_curves(ax, records, systems, metric, direction)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("parallel sentence pairs (log scale)")
        ax.legend(fontsize=7, loc="best")
    axes[0].set_ylabel(ylabel)
    if title:
        fig.suptitle(title, fontsize=11)
    if note:
        fig.text(0.5, -0.02, note, ha="center", va="top", fontsize=8, wrap=True)
    return fig


def direction_grid(records: Sequence[Mapping[str, Any]], systems: Sequence[str],
                   directions: Sequence[str], *,
                   metric: str = "retrieval", ylabel: str = "retrieval P@1 (%)",
                   note: str = "") -> Figure:
    """Small multiples: one panel per language direction (the paper's Figs. 5-6 layout, as we read
    it), the same ``systems`` in each.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    if not directions:
        raise ValueError("name at least one direction, e.g. 'en→xa'.")
    cols = min(3, len(directions))
    rows = -(-len(directions) // cols)
    fig = Figure(figsize=(3.7 * cols, 2.9 * rows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(rows, cols, sharey=True, sharex=True)).ravel()
    for ax, d in zip(axes, directions):
        draw_curves(ax, records, systems, metric, d)
        ax.set_title(d, fontsize=10)
    for ax in axes[len(directions):]:
        ax.set_visible(False)
    axes[0].legend(fontsize=6, loc="best")
    fig.supylabel(ylabel, fontsize=9)
    fig.supxlabel("parallel sentence pairs (log scale)", fontsize=9)
    if note:
        fig.text(0.5, -0.02, note, ha="center", va="top", fontsize=8, wrap=True)
    return fig
