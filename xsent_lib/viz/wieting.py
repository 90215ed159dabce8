"""Figure of chapter 8: quality against encoding speed, and the mega-batch study.

Book: chapter 8 (Paraphrastic embeddings from bitext).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure


def quality_speed_megabatch(quality: Mapping[str, Mapping[str, float]], speed: Mapping[str, float],
                            ablation: Mapping[int, Mapping[str, float]], *, quality_keys: tuple[str, str],
                            title: str = "") -> Figure:
    """Three panels: (a) two quality scores per encoder, (b) sentences/s per encoder on a log scale,
    (c) both scores against the mega-batch size (1 = in-batch negatives).

    ``quality`` is ``{encoder: {key: value}}`` read at ``quality_keys`` (e.g. STS and mining F1),
    ``speed`` ``{encoder: sentences/s}``, ``ablation`` ``{mega-batch size: {key: value}}``.
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
        ax_m.plot(sizes, [ablation[s][key] for s in sizes], marker="o", color=colour, label=key)
    ax_m.set_xscale("log", base=2)
    ax_m.set_xticks(sizes, [str(s) for s in sizes])
    ax_m.set_xlabel("mini-batches per mega-batch", fontsize=8)
    ax_m.set_title("(c) where negatives are mined", fontsize=9)
    ax_m.legend(fontsize=7)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig
