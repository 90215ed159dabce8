"""Figure of chapter 8: quality against encoding speed, and the mega-batch study.

Book: chapter 8 (Paraphrastic embeddings from bitext).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure


def quality_speed_megabatch(quality: Mapping[str, Mapping[str, float]], speed: Mapping[str, float],
                            ablation: Mapping[int, Mapping[str, float]], *,
                            quality_keys: tuple[str, str],
                            title: str = "",
                            random_negatives: Mapping[str, float] | None = None) -> Figure:
    """Three panels: (a) two quality scores per encoder, (b) sentences/s per encoder on a log scale,
    (c) both scores against the mega-batch size (1 = in-batch hardest negatives), with the in-batch
    random-negative scores as dashed lines when ``random_negatives`` is given.

    ``quality`` is ``{encoder: {key: value}}`` read at ``quality_keys`` (e.g. STS and mining F1),
    ``speed`` ``{encoder: sentences/s}``, ``ablation`` ``{mega-batch size: {key: value}}``,
    ``random_negatives`` ``{key: value}``.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    if not quality or not ablation:
        raise ValueError("quality and ablation must hold at least one entry each.")
    fig = Figure(figsize=(13, 3.8), layout="constrained")
    ax_q, ax_s, ax_m = fig.subplots(1, 3, width_ratios=[1.3, 1.1, 0.9])
    names = list(quality)
    x = np.arange(len(names))
    for i, (key, colour) in enumerate(zip(quality_keys, ("#4C72B0", "#DD8452"))):
        vals = [quality[n].get(key, np.nan) for n in names]
        ax_q.bar(x + (i - 0.5) * 0.4, vals, width=0.4, color=colour, label=key)
    ax_q.set_xticks(x, names, rotation=30, ha="right", fontsize=8)
    ax_q.set_title("(a) quality per encoder", fontsize=9)
    ax_q.legend(fontsize=7)
    s_names = list(speed)
    ax_s.barh(np.arange(len(s_names)), [speed[n] for n in s_names], color="#55A868")
    ax_s.set_yticks(np.arange(len(s_names)), s_names, fontsize=8)
    ax_s.set_xscale("log")
    ax_s.set_xlabel("sentences / s (log scale)", fontsize=8)
    ax_s.set_title("(b) encoding speed, 1 CPU thread", fontsize=9)
    sizes = sorted(ablation)
    for key, colour in zip(quality_keys, ("#4C72B0", "#DD8452")):
        ax_m.plot(sizes, [ablation[s][key] for s in sizes], marker="o", color=colour,
                  label=f"{key}, hardest")
        if random_negatives is not None and key in random_negatives:
            ax_m.axhline(random_negatives[key], color=colour, linestyle="--", linewidth=1,
                         label=f"{key}, in-batch random")
    ax_m.set_xscale("log", base=2)
    ax_m.set_xticks(sizes, [str(s) for s in sizes])
    ax_m.set_xlabel("mini-batches per mega-batch", fontsize=8)
    ax_m.set_title("(c) where negatives are mined", fontsize=9)
    ax_m.legend(fontsize=7)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def language_choice(rows: list[Mapping[str, object]], *, x: str = "SP overlap (types)",
                    ys: tuple[str, ...] = ("STS en-en", "mining F1"), title: str = "") -> Figure:
    """Figure 1 on our languages: each score of ``ys`` against the SP overlap ``x``, one point per
    (language pair, vocabulary size), coloured by pair and marked by size.

    ``rows`` are :func:`xsent_lib.eval.paraphrase_study.language_choice`'s.
    Book: chapter 8 (Paraphrastic embeddings from bitext: language choice).
    """
    if not rows:
        raise ValueError("language_choice needs at least one row.")
    fig = Figure(figsize=(4.2 * len(ys), 3.6), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(ys)))
    pairs = list(dict.fromkeys(str(r["pair"]) for r in rows))
    vocabs = sorted({int(r["vocab"]) for r in rows})  # type: ignore[call-overload]
    markers = "os^Dv<>"
    colours = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3"]
    for ax, y in zip(axes, ys):
        for r in rows:
            # type: ignore[arg-type]
            # type: ignore[call-overload]
            ax.scatter(float(r[x]), float(r[y]),
                       color=colours[pairs.index(str(r["pair"])) % len(colours)],
                       marker=markers[vocabs.index(int(r["vocab"])) % len(markers)], s=50)
        ax.set_xlabel(f"{x} (%)")
        ax.set_ylabel(y)
        ax.grid(alpha=0.3)
    handles = [axes[0].scatter([], [], color=colours[i % len(colours)], label=p) for i,
               p in enumerate(pairs)]
    handles += [axes[0].scatter([], [], color="grey", marker=markers[i % len(markers)],
                                label=f"{v} pieces")
                for i, v in enumerate(vocabs)]
    axes[-1].legend(handles=handles, fontsize=8, loc="best")
    if title:
        fig.suptitle(title)
    return fig
