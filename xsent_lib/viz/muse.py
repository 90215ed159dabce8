"""Figures of the MUSE chapter: the 2-D toy (Figure 4.1), criterion vs accuracy (Figure 4.2),
hubness, English-English alignment by word frequency (Figure 4.3) and P@1 per pair and method.

Every function takes results (dicts, arrays, the recipes' dataclasses) and returns a matplotlib
Figure.
Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

METHOD_COLOURS = {"nn": "#4C72B0", "isf": "#DD8452", "csls": "#C44E52"}
SOURCE_COLOUR, TARGET_COLOUR = "#D62728", "#1F77B4"


def _sizes(frequency: np.ndarray, smallest: float = 4.0, largest: float = 90.0) -> np.ndarray:
    f = np.sqrt(np.asarray(frequency, dtype=float))
    span = f.max() - f.min()
    return smallest + (largest - smallest) * ((f - f.min()) / span if span > 0 else np.ones_like(f))


def toy_steps(run) -> Figure:
    """Figure 4.1 from a :class:`~xsent_lib.align.toy_run.ToyRun`: four panels, one per step of the
    method.

    (A) the source cloud X (red) and target cloud Y (blue), dot size by frequency; (B) X mapped by
    the adversarial map, with the points of one discriminator batch starred; (C) the refinement
    anchors (mutual CSLS neighbours) joined to their targets; (D) X under the refined map, each
    point joined to the target it retrieves with CSLS (grey where that is not its true translation).
    Book: chapter 5 (Word translation without parallel data).
    """
    d = run.data
    size = _sizes(d.frequency)
    adv = d.src @ np.asarray(run.W_adversarial).T
    ref = d.src @ np.asarray(run.W_refined).T
    fig = Figure(figsize=(12, 3.4), layout="constrained")
    axes = fig.subplots(1, 4, sharex=True, sharey=True)
    panels = [("(A) X (red) and Y (blue)", d.src), ("(B) adversarial map W X", adv),
              ("(C) refinement anchors", adv), ("(D) refined map + CSLS", ref)]
    for ax, (title, xs) in zip(axes, panels):
        ax.scatter(d.tgt[:, 0], d.tgt[:, 1], s=size, c=TARGET_COLOUR, alpha=0.35, linewidths=0)
        ax.scatter(xs[:, 0], xs[:, 1], s=size, c=SOURCE_COLOUR, alpha=0.45, linewidths=0)
        ax.set_title(title, fontsize=9)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
    b = np.asarray(run.discriminator_batch)
    axes[1].scatter(adv[b, 0], adv[b, 1], marker="*", s=70, c="#2CA02C",
                    label="discriminator batch")
    axes[1].legend(fontsize=7, loc="lower left")
    a = np.asarray(run.anchors)
    if len(a):
        segs = np.stack([adv[a[:, 0]], d.tgt[a[:, 1]]], axis=1)
        for seg in segs:
            axes[2].plot(seg[:, 0], seg[:, 1], c="k", lw=0.5, alpha=0.6)
    axes[2].set_title(f"(C) refinement anchors ({len(a)} mutual CSLS pairs)", fontsize=9)
    found = np.asarray(run.top1["csls"])
    right = found == np.arange(len(found))
    for i in np.flatnonzero(~right):
        axes[3].plot([ref[i, 0], d.tgt[found[i], 0]], [ref[i, 1], d.tgt[found[i], 1]], c="0.5",
                     lw=0.5)
    axes[3].set_title(f"(D) refined map, CSLS P@1 {100 * right.mean():.0f}%", fontsize=9)
    return fig


def criterion_vs_accuracy(history: Sequence[Mapping], restarts: Sequence[Mapping] | None = None,
                          accuracy_key: str = "p@1 csls", title: str = "") -> Figure:
    """Figure 4.2: the unsupervised criterion (black) and test P@1 (blue) per adversarial epoch.

    ``history`` holds epoch records with ``epoch``, ``criterion`` and ``accuracy_key``; the epoch
    with the best criterion is marked, and records with ``stage == "refinement"`` are shaded. With
    ``restarts`` (records with ``refined_criterion`` and ``refined <accuracy_key>``), a second panel
    plots criterion against P@1 per restart, the chosen one ringed.
    Book: chapter 5 (Word translation without parallel data).
    """
    if not history or any(k not in history[0] for k in ("epoch", "criterion", accuracy_key)):
        raise ValueError("history must be epoch records with 'epoch', 'criterion' and "
                         f"{accuracy_key!r}.")
    epochs = [h["epoch"] for h in history]
    crit = np.array([h["criterion"] for h in history])
    acc = np.array([h[accuracy_key] for h in history])
    fig = Figure(figsize=(10 if restarts else 5.5, 3.4), layout="constrained")
    axes = fig.subplots(1, 2 if restarts else 1, squeeze=False)[0]
    ax = axes[0]
    ax.plot(epochs, crit, c="k", marker="o", ms=3, label="criterion")
    ax.set_xlabel("epoch")
    ax.set_ylabel("unsupervised criterion (mean cosine)")
    twin = ax.twinx()
    twin.plot(epochs, acc, c=TARGET_COLOUR, marker="s", ms=3, label="P@1")
    twin.set_ylabel(f"test {accuracy_key} (%)", color=TARGET_COLOUR)
    best = int(np.argmax(crit))
    ax.axvline(epochs[best], c="0.6", ls="--", lw=0.8)
    refined = [e for e, h in zip(epochs, history) if h.get("stage") == "refinement"]
    if refined:
        ax.axvspan(min(refined) - 0.5, max(refined) + 0.5, color="0.92", zorder=0)
        ax.set_xlabel("adversarial epoch, then refinement step (shaded)")
    r = np.corrcoef(crit, acc)[0, 1] if len(crit) > 2 and crit.std() > 0 and acc.std() > 0 \
        else float("nan")
    ax.set_title(f"{title} selected epoch {epochs[best]}, Pearson r = {r:.2f}".strip(), fontsize=9)
    if restarts:
        key = f"refined {accuracy_key}"
        x = np.array([rec["refined_criterion"] for rec in restarts])
        y = np.array([rec[key] for rec in restarts])
        chosen = np.array([bool(rec.get("chosen")) for rec in restarts])
        axes[1].scatter(x, y, c="k", s=18)
        axes[1].scatter(x[chosen], y[chosen], s=120, facecolors="none", edgecolors="#C44E52",
                        label="selected")
        axes[1].set_xlabel("criterion after refinement")
        axes[1].set_ylabel(f"test {accuracy_key} (%)")
        axes[1].set_title("restarts: criterion vs accuracy", fontsize=9)
        axes[1].legend(fontsize=7)
    return fig


def hubness(counts: Mapping[str, np.ndarray], title: str = "") -> Figure:
    """How often each target word is somebody's first neighbour, per retrieval method.

    Left: counts sorted in decreasing order (log-log), so hubs show as a heavy head; right: the
    histogram of counts (how many targets are retrieved 0, 1, 2, ... times).
    Book: chapter 5 (Word translation without parallel data).
    """
    if not counts:
        raise ValueError("counts must map at least one method to its per-target counts.")
    fig = Figure(figsize=(10, 3.4), layout="constrained")
    left, right = fig.subplots(1, 2)
    for method, c in counts.items():
        c = np.asarray(c)
        colour = METHOD_COLOURS.get(method)
        ranked = np.sort(c)[::-1]
        ranked = ranked[ranked > 0]
        left.loglog(np.arange(1, len(ranked) + 1), ranked, c=colour, label=method.upper())
        hist = np.bincount(c)
        right.semilogy(np.arange(len(hist)), np.where(hist > 0, hist, np.nan), c=colour, marker=".",
                       label=method.upper())
    left.set_xlabel("target words, by how often they are retrieved")
    left.set_ylabel("times retrieved first")
    left.set_title(f"{title} hubs: the head of the distribution".strip(), fontsize=9)
    right.set_xlabel("times a target is retrieved first (N1)")
    right.set_ylabel("number of target words")
    right.set_title("distribution of N1", fontsize=9)
    left.legend(fontsize=8)
    right.legend(fontsize=8)
    return fig


def frequency_alignment(panels: Mapping[str, Mapping[str, Mapping]],
                        methods: Sequence[str] = ("nn", "csls")
                        ) -> Figure:
    """Figure 4.3: P@1 per word-frequency bucket, one panel per kind of pair, one line per (pair,
    method).

    ``panels`` maps a panel title to ``{series label: accuracy_by_frequency(...) result}``.
    Book: chapter 5 (Word translation without parallel data).
    """
    if not panels:
        raise ValueError("panels must hold at least one panel.")
    fig = Figure(figsize=(3.2 * len(panels), 3.3), layout="constrained")
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    for ax, (title, series) in zip(axes, panels.items()):
        for i, (label, res) in enumerate(series.items()):
            x = np.arange(len(res["buckets"]))
            for m in methods:
                ax.plot(x, res[m], marker="o", ms=3, c=f"C{i}", ls="-" if m == "csls" else "--",
                        label=f"{label} {m.upper()}")
            ax.set_xticks(x, res["buckets"], rotation=45, fontsize=7)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("frequency rank of the word")
        ax.legend(fontsize=6)
    axes[0].set_ylabel("P@1 (%)")
    axes[0].set_ylim(0, 100)
    return fig


def precision_bars(table: Mapping[str, Mapping[str, float]], title: str = "") -> Figure:
    """Grouped bars of P@1: one group per column (language pair), one bar per row (method).

    ``table`` maps a method label to ``{pair: P@1}`` (Table 4.1's layout).
    Book: chapter 5 (Word translation without parallel data).
    """
    if not table:
        raise ValueError("table must hold at least one row.")
    rows = list(table)
    cols = list(dict.fromkeys(c for r in rows for c in table[r]))
    width = 0.8 / len(rows)
    fig = Figure(figsize=(max(6, 0.9 * len(cols) + 2), 3.4), layout="constrained")
    ax = fig.add_subplot()
    x = np.arange(len(cols))
    for i, r in enumerate(rows):
        ax.bar(x + (i - (len(rows) - 1) / 2) * width, [table[r].get(c, np.nan) for c in cols],
               width, label=r, color=f"C{i}")
    ax.set_xticks(x, cols)
    ax.set_ylabel("P@1 (%)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, ncols=2)
    return fig


DIAL_METHODS = {"Procrustes": "#4C72B0", "Adv - Refine": "#C44E52", "VecMap": "#55A868"}


def _dial_curve(ax, records: Sequence[Mapping], x_key: str, methods: Mapping[str, str]) -> None:
    """Mean and per-seed points of each method's P@1 against ``x_key``."""
    for method, colour in methods.items():
        xs = sorted({r[x_key] for r in records})
        means = [np.mean([r[method] for r in records if r[x_key] == x]) for x in xs]
        ax.plot(xs, means, "-o", color=colour, label=method, ms=4)
        ax.scatter([r[x_key] for r in records], [r[method] for r in records], color=colour, s=10,
                   alpha=0.35)


def isomorphism_dial(records: Sequence[Mapping], distance_size: int | None = None,
                     methods: Mapping[str, str] = DIAL_METHODS) -> Figure:
    """Supervised and unsupervised P@1 on synthetic language pairs: against typological distance,
    and against corpus size.

    ``records`` are the dial's rows (``pair``, ``distance``, ``n_sentences``, ``seed`` and one P@1
    per method, as :func:`xsent_lib.eval.dial.run_dial` returns them). Left: every pair at corpus
    size ``distance_size`` (default the largest), pairs labelled under their distance; right: P@1
    against the number of sentences per language, one panel line style per pair run at several
    sizes. Lines are means over seeds, faint dots single seeds.
    Book: chapter 5 (Word translation without parallel data).
    """
    if not records:
        raise ValueError("records must hold at least one dial point.")
    size = distance_size or max(r["n_sentences"] for r in records)
    at_size = [r for r in records if r["n_sentences"] == size]
    fig = Figure(figsize=(11, 3.6), layout="constrained")
    left, right = fig.subplots(1, 2)
    _dial_curve(left, at_size, "distance", methods)
    labels: dict[int, list[str]] = {}
    for r in at_size:
        labels.setdefault(r["distance"], [])
        if r["pair"] not in labels[r["distance"]]:
            labels[r["distance"]].append(r["pair"])
    left.set_xticks(sorted(labels), [f"{d}\n" + "\n".join(labels[d]) for d in sorted(labels)],
                    fontsize=7)
    left.set_xlabel("typological distance (features that differ)")
    left.set_ylabel("test P@1, CSLS (%)")
    left.set_title(f"{size:,} sentences per language", fontsize=9)
    left.legend(fontsize=7)
    multi = [p for p in dict.fromkeys(r["pair"] for r in records)
             if len({r["n_sentences"] for r in records if r["pair"] == p}) > 1]
    for style, pair in zip(("-", "--", ":", "-."), multi):
        rows = [r for r in records if r["pair"] == pair]
        for method, colour in methods.items():
            xs = sorted({r["n_sentences"] for r in rows})
            means = [np.mean([r[method] for r in rows if r["n_sentences"] == x]) for x in xs]
            right.plot(xs, means, style, marker="o", ms=4, color=colour, label=f"{pair} {method}")
    right.set_xscale("log")
    right.set_xlabel("sentences per language")
    right.set_title("corpus size", fontsize=9)
    if multi:
        right.legend(fontsize=6, ncols=2)
    top = max(5.0, 1.15 * max(r[m] for r in records for m in methods))
    for ax in (left, right):
        ax.set_ylim(-1, top)
        ax.grid(alpha=0.3)
    return fig


def real_dial(records: Sequence[Mapping], methods: Mapping[str, str] = DIAL_METHODS,
              title: str = "") -> Figure:
    """The isomorphism dial on real corpora: P@1 against sentences per side, one panel per corpus
    pair.

    ``records`` are :func:`xsent_lib.eval.dial.run_real_dial`'s rows (``point``, ``n_sentences``,
    ``seed`` and a P@1 per method; a method absent from the rows is not drawn). Lines are means over
    seeds, faint dots single seeds; ``title`` names the data.
    Book: chapter 5 (Word translation without parallel data: the isomorphism dial on real corpora).
    """
    if not records:
        raise ValueError("records must hold at least one real dial point.")
    points = list(dict.fromkeys(r["point"] for r in records))
    fig = Figure(figsize=(3.2 * len(points) + 0.5, 3.4), layout="constrained")
    axes = np.atleast_1d(fig.subplots(1, len(points), sharey=True))
    drawn = {m: c for m, c in methods.items() if all(m in r for r in records)}
    top = max(5.0, 1.15 * max(r[m] for r in records for m in drawn))
    for ax, point in zip(axes, points):
        rows = [r for r in records if r["point"] == point]
        _dial_curve(ax, rows, "n_sentences", drawn)
        ax.set_xscale("log")
        ax.set_title(point.replace(" / ", "\nvs "), fontsize=8)
        ax.set_xlabel("sentences per side")
        ax.set_ylim(-1, top)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("test P@1, CSLS (%)")
    axes[0].legend(fontsize=7)
    if title:
        fig.suptitle(title, fontsize=9)
    return fig
