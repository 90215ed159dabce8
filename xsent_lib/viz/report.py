"""The figure of the reproduction report: ours against the paper for every numeric cell we have.

Book: chapter 11 (Reproducibility report).
"""

from __future__ import annotations

import math

import pandas as pd
from matplotlib.figure import Figure

_MARKERS = {"build": "o", "committed": "^"}


def ours_vs_paper(cells: pd.DataFrame, *, columns: int = 6, title: str = "") -> Figure:
    """One small panel per published item with at least one cell of ours: paper value (x) against
    ours (y), the diagonal y = x and the item's tolerance band around it; the book's runs as
    circles, committed runs as triangles, stand-in cells hollow. Takes the frame of
    :func:`~xsent_lib.results.reproduction.all_cells` (columns ``seed``, ``item``, ``paper``,
    ``ours``, ``delta``, ``within``, ``source``, ``data``, ``tol``).

    Book: chapter 11 (Reproducibility report).
    """
    have = cells[cells["ours"].notna()]
    if have.empty:
        raise ValueError(
            "no cell of ours to draw: run the chapters first (make book), then this one."
        )
    groups = list(have.groupby(["seed", "item"], sort=False))
    rows = math.ceil(len(groups) / columns)
    fig = Figure(figsize=(2.3 * columns, 2.2 * rows + 0.4), layout="constrained")
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
    for ax, ((seed, item), group) in zip(axes, groups):
        lo = float(min(group["paper"].min(), group["ours"].min()))
        hi = float(max(group["paper"].max(), group["ours"].max()))
        pad = (hi - lo) * 0.05 or 1.0
        tol = float(group["tol"].iloc[0]) if "tol" in group else 0.0
        line = [lo - pad, hi + pad]
        ax.plot(line, line, color="0.4", lw=0.8)
        ax.fill_between(line, [v - tol for v in line], [v + tol for v in line], color="0.85")
        for (source, data), part in group.groupby(["source", "data"]):
            hollow = data == "stand-in"
            ax.scatter(
                part["paper"],
                part["ours"],
                s=12,
                marker=_MARKERS.get(source, "s"),
                facecolors="none" if hollow else "C0",
                edgecolors="C0",
                linewidths=0.8,
            )
        counts = ", ".join(
            f"{src} {int(part['within'].eq(True).sum())}/{len(part)}"
            for src, part in group.groupby("source")
        )
        label = item.replace("table_", "T").replace("_", ".")
        ax.set_title(f"{seed} {label}\n{counts} within ±{tol:g}", fontsize=7)
        ax.tick_params(labelsize=6)
    for ax in axes[len(groups) :]:
        ax.set_visible(False)
    fig.supxlabel("paper", fontsize=8)
    fig.supylabel("ours", fontsize=8)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig
