"""Figures of the data chapter: corpus sizes, sentence-length histograms, and word order in the
synthetic languages.

Each function takes plain tables or arrays (what :mod:`xsent_lib.data.summary` returns) and returns
a Figure.
Book: chapter 1 (Data: the corpora and the synthetic world).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch

ROLE_COLOURS: dict[str, str] = {"subject": "#4C72B0", "verb": "#C44E52", "object": "#55A868",
                                "adjective": "#DD8452", "other": "#DDDDDD"}


def corpus_sizes(table: pd.DataFrame, value: str = "rows") -> Figure:
    """Horizontal bars (log scale) of ``value`` per dataset, coloured by kind; rows with no value
    are left out.

    ``table`` has the columns ``dataset``, ``kind`` and ``value`` (e.g.
    :func:`~xsent_lib.data.summary.dataset_table`).
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    missing = {"dataset", "kind", value} - set(table.columns)
    if missing:
        raise ValueError(f"table lacks the columns {sorted(missing)}.")
    shown = table[table[value].notna()]
    if shown.empty:
        raise ValueError(f"no dataset has a {value!r} value to plot (is anything cached?).")
    kinds = list(dict.fromkeys(shown["kind"]))
    colours = {k: f"C{i}" for i, k in enumerate(kinds)}
    fig = Figure(figsize=(8, 0.22 * len(shown) + 1.2), layout="constrained")
    ax = fig.add_subplot()
    y = np.arange(len(shown))[::-1]
    ax.barh(y, shown[value].astype(float), color=[colours[k] for k in shown["kind"]])
    ax.set_yticks(y, shown["dataset"], fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel(value)
    ax.legend(handles=[Patch(color=colours[k], label=k) for k in kinds], fontsize=8,
              loc="lower right")
    return fig


def length_histograms(lengths: Mapping[str, Mapping[str, np.ndarray]], ncols: int = 3,
                      clip: float = 99.0, unit: str = "tokens") -> Figure:
    """One panel per dataset with one density histogram (step line) per language of its text
    lengths.

    Bins are unit-wide integers up to the ``clip`` percentile of all the lengths of the panel (the
    longest texts are counted in the last bin); the legend gives each language's mean.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    panels = {name: sides for name, sides in lengths.items() if any(len(v) for v in sides.values())}
    if not panels:
        raise ValueError("no lengths to plot.")
    if ncols < 1 or not 0 < clip <= 100:
        raise ValueError(f"ncols must be >= 1 and clip in (0, 100], got ncols={ncols}, "
                         f"clip={clip}.")
    ncols = min(ncols, len(panels))
    nrows = -(-len(panels) // ncols)
    fig = Figure(figsize=(4 * ncols, 2.6 * nrows), layout="constrained")
    for i, (name, sides) in enumerate(panels.items()):
        ax = fig.add_subplot(nrows, ncols, i + 1)
        every = np.concatenate([np.asarray(v) for v in sides.values()])
        top = max(int(np.ceil(np.percentile(every, clip))), 1)
        bins = np.arange(0, top + 2) - 0.5
        for lang, counts in sides.items():
            counts = np.asarray(counts)
            if counts.size == 0:
                continue
            ax.hist(np.minimum(counts, top), bins=bins, density=True, histtype="step",
                    linewidth=1.3, label=f"{lang} (mean {counts.mean():.1f})")
        ax.set_title(name, fontsize=10)
        ax.set_xlabel(unit, fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=7)
    return fig


def word_order(roles: Mapping[str, Sequence[tuple[str, str, str]]],
               title: str | None = None) -> Figure:
    """One row per language: the words of one sentence left to right, each in a box coloured by its
    role (subject, verb, object, adjective, other) with its gloss underneath. ``roles`` is
    :func:`~xsent_lib.data.synthetic.summary.word_roles`.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    if not roles:
        raise ValueError("roles is empty: pass {language: [(word, gloss, role), ...]}.")
    unknown = {r for words in roles.values() for _, _, r in words} - set(ROLE_COLOURS)
    if unknown:
        raise ValueError(f"unknown roles {sorted(unknown)}; known: {list(ROLE_COLOURS)}.")
    widths = {lang: [max(len(w), len(g)) + 2 for w, g, _ in words] for lang, words in roles.items()}
    total = max(sum(w) for w in widths.values())
    fontsize = min(10.0, 1250 / total)
    fig = Figure(figsize=(12, 0.75 * len(roles) + 0.6), layout="constrained")
    axes = fig.subplots(len(roles), 1, squeeze=False)[:, 0]
    for ax, (lang, words) in zip(axes, roles.items()):
        x = 0.0
        for (word, gloss, role), width in zip(words, widths[lang]):
            centre = x + width / 2
            ax.text(centre, 0.62, word, ha="center", va="center", family="monospace",
                    fontsize=fontsize,
                    bbox={"boxstyle": "round,pad=0.25", "facecolor": ROLE_COLOURS[role],
                          "edgecolor": "none", "alpha": 0.9})
            ax.text(centre, 0.12, gloss, ha="center", va="center", family="monospace",
                    fontsize=fontsize * 0.75, color="#555555")
            x += width
        ax.set_xlim(0, total)
        ax.set_ylim(0, 1)
        ax.set_yticks([0.5], [lang])
        ax.set_xticks([])
        for side in ("top", "right", "bottom", "left"):
            ax.spines[side].set_visible(False)
    handles = [Patch(color=c, label=r) for r, c in ROLE_COLOURS.items()]
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig
