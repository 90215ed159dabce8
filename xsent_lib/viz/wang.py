"""Figures of the Wang et al. chapter: accuracy and mined-pair precision against the number of
regression rounds (Figure 3), and same-domain against mismatched-domain training corpora (Figure 2).

Every function takes plain results (lists of dicts) and returns a matplotlib Figure; ``note`` (which
stand-in data, what the paper's figure shows) is printed under the panels, ``title`` above them.
Book: chapter 9 (Multilingual embeddings from monolingual text).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure


def _label(fig: Figure, title: str, note: str) -> None:
    if title:
        fig.suptitle(title, fontsize=11)
    if note:
        fig.text(0.5, -0.02, note, ha="center", va="top", fontsize=8, wrap=True)


def rounds_curves(series: Mapping[str, Sequence[float | None]],
                  precision: Mapping[str, Sequence[float | None]], *,
                  mark_round: int | None = None, title: str = "", note: str = "") -> Figure:
    """Left: accuracy per round (one line per series, round 0 = stage 1 only); right: mined-pair
    precision on held-out gold per round (one line per language pair). ``mark_round`` draws a dotted
    line at the round the "+iteration" rows report.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    if not series:
        raise ValueError("no series to draw; pass {name: [accuracy at round 0, 1, ...]}.")
    fig = Figure(figsize=(10, 3.6), layout="constrained")
    left, right = fig.subplots(1, 2, sharex=True)
    for name, ys in series.items():
        left.plot(range(len(ys)), [float("nan") if y is None else y for y in ys], marker="o",
                  label=name)
    for name, ys in precision.items():
        right.plot(range(len(ys)), [float("nan") if y is None else y for y in ys], marker="o",
                   label=name)
    left.set_ylabel("accuracy (%)")
    left.set_title("transfer accuracy against rounds (Figure 3)", fontsize=10)
    right.set_ylabel("precision of mined pairs (%)")
    right.set_title("mined pairs against held-out gold", fontsize=10)
    for ax in (left, right):
        if mark_round is not None:
            ax.axvline(mark_round, color="0.5", linestyle=":", linewidth=1,
                       label=f"'+iteration' (round {mark_round})")
        ax.set_xlabel("regression rounds (0 = stage 1 only)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    _label(fig, title, note)
    return fig


def domain_bars(results: Mapping[str, Mapping[str, float]], *, title: str = "",
                note: str = "") -> Figure:
    """Grouped bars: ``results[setting][direction] = accuracy`` (e.g. settings "help-help" and
    "bible-help").

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    if not results:
        raise ValueError("no result to draw; pass {setting: {direction: accuracy}}.")
    fig = Figure(figsize=(6, 3.4), layout="constrained")
    ax = fig.subplots()
    dirs = list(next(iter(results.values())))
    width = 0.8 / len(results)
    for i, (name, acc) in enumerate(results.items()):
        ax.bar([d + i * width for d in range(len(dirs))], [acc.get(k, 0.0) for k in dirs], width,
               label=name)
    ax.set_xticks([d + 0.4 - width / 2 for d in range(len(dirs))], dirs)
    ax.set_ylabel("accuracy (%)")
    ax.set_title("training corpora from the same or different domains (Figure 2)", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, axis="y")
    _label(fig, title, note)
    return fig
