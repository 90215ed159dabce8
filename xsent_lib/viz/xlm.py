"""Figures of the XLM chapter: the model's actual input (thesis Figure 4.6), pretraining curves,
perplexities.

Every function takes plain results (lists and dicts) and returns a matplotlib Figure.
Book: chapter 10 (Cross-lingual language models, XLM).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch

_LANG_COLOURS = ("#c6dbef", "#fdd0a2", "#c7e9c0", "#dadaeb", "#fcbba1", "#d9d9d9")


def _box(ax, x: float, y: float, text: str, colour: str, *, bold: bool = False,
         fontsize: float = 7.5) -> None:
    ax.add_patch(FancyBboxPatch((x - 0.44, y - 0.36), 0.88, 0.72,
                                boxstyle="round,pad=0.02,rounding_size=0.08",
                                facecolor=colour, edgecolor="#555555", linewidth=0.6))
    ax.text(x, y, text, ha="center", va="center", fontsize=fontsize,
            fontweight="bold" if bold else "normal", clip_on=True)


def xlm_inputs(panels: Sequence[Mapping[str, object]]) -> Figure:
    """Thesis Figure 4.6 drawn from real batches: one panel per objective (e.g. MLM on a stream, TLM
    on a pair).

    Each panel is ``{"title", "tokens", "targets", "positions", "langs"}``: the input pieces as the
    model reads them (``<mask>`` and random replacements included), the piece to predict at each
    chosen position (``None`` elsewhere), the position ids and the language names. Rows from bottom
    to top: language embeddings, position embeddings, token embeddings, the Transformer, the
    predicted pieces.
    Book: chapter 10 (Cross-lingual language models, XLM: Figure 4.6).
    """
    if not panels:
        raise ValueError("no panel to draw; pass [{'title', 'tokens', 'targets', 'positions', "
                         "'langs'}, ...].")
    width = max(len(p["tokens"]) for p in panels)
    fig = Figure(figsize=(max(7.0, 0.62 * width + 1.6), 3.0 * len(panels)), layout="constrained")
    axes = fig.subplots(len(panels), 1, squeeze=False)[:, 0]
    # one colour per language
    all_langs = list(dict.fromkeys(lang for p in panels for lang in p["langs"]))
    for ax, panel in zip(axes, panels):
        tokens, targets = list(panel["tokens"]), list(panel["targets"])
        positions, langs = list(panel["positions"]), list(panel["langs"])
        if not (len(tokens) == len(targets) == len(positions) == len(langs)):
            raise ValueError(f"panel {panel.get('title')!r}: tokens, targets, positions and langs "
                             "differ in length.")
        colour = {lang: _LANG_COLOURS[i % len(_LANG_COLOURS)] for i, lang in enumerate(all_langs)}
        for i, (tok, tgt, pos, lang) in enumerate(zip(tokens, targets, positions, langs)):
            x = i + 1.0
            _box(ax, x, 0.0, str(lang), colour[lang])
            _box(ax, x, 1.0, str(pos), "#f0f0f0")
            _box(ax, x, 2.0, str(tok), "#fff7bc" if tgt is not None else "white",
                 bold=tgt is not None)
            ax.text(x, 1.5, "+", ha="center", va="center", fontsize=7, color="#777777")
            ax.text(x, 0.5, "+", ha="center", va="center", fontsize=7, color="#777777")
            if tgt is not None:
                _box(ax, x, 4.0, str(tgt), "#fee391", bold=True)
                ax.annotate("", xy=(x, 3.62), xytext=(x, 3.3),
                            arrowprops={"arrowstyle": "->", "lw": 0.7})
        ax.add_patch(FancyBboxPatch((0.56, 2.6), len(tokens) - 0.12, 0.62,
                                    boxstyle="round,pad=0.02",
                                    facecolor="#e5e5e5", edgecolor="#555555", linewidth=0.6))
        ax.text((len(tokens) + 1) / 2, 2.91, "Transformer", ha="center", va="center", fontsize=8)
        for y, label in ((4.0, "predicted"), (2.0, "token\nembeddings"),
                         (1.0, "position\nembeddings"), (0.0, "language\nembeddings")):
            ax.text(0.3, y, label, ha="right", va="center", fontsize=7.5)
        ax.set_xlim(-1.4, width + 0.6)
        ax.set_ylim(-0.5, 4.5)
        ax.set_title(str(panel.get("title", "")), fontsize=9, loc="left")
        ax.axis("off")
    return fig


def pretraining_curves(runs: Mapping[str, Mapping[str, Sequence[float]]],
                       ylabel: str = "held-out MLM loss (nats)",
                       reference: float | None = None,
                       reference_label: str = "unigram entropy") -> Figure:
    """Held-out loss against steps for several pretraining runs; ``runs[name] = {"steps", "loss"}``.

    ``reference`` draws a horizontal line (e.g. the unigram entropy a context-blind model reaches).
    Book: chapter 10 (Cross-lingual language models, XLM: pretraining).
    """
    if not runs:
        raise ValueError("no run to draw.")
    fig = Figure(figsize=(5.6, 3.4), layout="constrained")
    ax = fig.subplots()
    for name, run in runs.items():
        ax.plot(list(run["steps"]), list(run["loss"]), marker="o", ms=3, label=name)
    if reference is not None:
        ax.axhline(reference, color="grey", ls="--", lw=0.8, label=reference_label)
    ax.set_xlabel("training steps")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return fig
