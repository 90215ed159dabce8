"""The real corpora of chapter 5's isomorphism dial: which registry texts each one draws from, and
samples of them.

Book: chapter 5 (Word translation without parallel data: the isomorphism dial on real corpora).
"""
from __future__ import annotations

import os

import numpy as np

#: the dial's real corpora: language, registry texts ``(dataset, side)``, and which part of their
#: lines is drawn from. nlp-corpus's English is the source of its French translations, so its
#: English and French come from disjoint halves (comparable text on the same topics, never a
#: sentence and its translation).
REAL_DIAL_CORPORA: dict[str, tuple[str, tuple[tuple[str, str], ...], str]] = {
    "en news": ("en", (("nlp-en-fr", "src"),), "first half"),
    "en news (other half)": ("en", (("nlp-en-fr", "src"),), "second half"),
    "en books": ("en", (("brown", "text"), ("fortunes-en", "text"), ("bible-en-es", "src")), "all"),
    "fr news (other half)": ("fr", (("nlp-en-fr", "tgt"),), "second half"),
    "fr help": ("fr", (("lohelp-en-fr", "tgt"),), "all"),
}


def _real_dial_lines(name: str, cache_dir: str | os.PathLike[str] | None) -> list[str]:
    """The lines that dial corpus ``name`` draws from (its part of its texts)."""
    from xsent_lib.data.corpora import load_monolingual

    if name not in REAL_DIAL_CORPORA:
        raise ValueError(f"unknown dial corpus {name!r}; known: {sorted(REAL_DIAL_CORPORA)}.")
    lang, sources, part = REAL_DIAL_CORPORA[name]
    lines = load_monolingual(lang, sources, cache_dir=cache_dir)
    half = len(lines) // 2
    return {"first half": lines[:half], "second half": lines[half:], "all": lines}[part]


def real_dial_size(name: str, cache_dir: str | os.PathLike[str] | None = None) -> int:
    """How many lines dial corpus ``name`` can draw from.

    Book: chapter 5 (Word translation without parallel data: the isomorphism dial on real corpora).
    """
    return len(_real_dial_lines(name, cache_dir))


def real_dial_text(name: str, n_sentences: int, seed: int = 0,
                   cache_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """``n_sentences`` lines of the dial corpus ``name`` (:data:`REAL_DIAL_CORPORA`).

    They are drawn at random without replacement (``seed``) from its part of the texts, so a small
    corpus covers the same range of documents as a large one. Raises ValueError when the corpus has
    fewer lines, FileNotFoundError when it is not cached.
    Book: chapter 5 (Word translation without parallel data: the isomorphism dial on real corpora).
    """
    lines = _real_dial_lines(name, cache_dir)
    if n_sentences > len(lines):
        raise ValueError(f"{name} has {len(lines)} lines, fewer than the {n_sentences} asked for.")
    keep = np.sort(np.random.default_rng(seed).choice(len(lines), size=n_sentences, replace=False))
    return [lines[i] for i in keep]
