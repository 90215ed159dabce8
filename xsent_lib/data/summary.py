"""Tables that describe the book's corpora: the catalogue, what the cache holds, samples, token
counts, lengths.

Everything here reads (the catalogue, the cache's manifests and files, a :class:`SyntheticWorld`)
and returns pandas tables or plain dicts that a chapter logs and shows; nothing is fetched or
written. The synthetic world is described by :mod:`xsent_lib.data.synthetic.summary`, the papers'
formats by :mod:`xsent_lib.data.formats.inventory`.
Book: chapter 1 (Data: the corpora and the synthetic world).
"""
from __future__ import annotations

import os
import unicodedata
from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np
import pandas as pd

from xsent_lib.base.neighbors import knn
from xsent_lib.data.cache import cache_status
from xsent_lib.data.catalogue import CATALOGUE, PROFILES, Catalogue
from xsent_lib.data.corpora import (
    load_bitext,
    load_dictionary,
    load_glove50,
    load_labelled,
    load_ratings,
    load_text,
)

SHA_PREFIX = 12
ROW_KEYS = ("pairs", "sentences", "fortunes", "words")
TEXT_KINDS = ("bitext", "monolingual", "labelled")

CHAPTER_TITLES: dict[int, str] = {
    1: "Data", 2: "Evaluating sentence embeddings (SentEval)", 3: "InferSent", 4: "Probing",
    5: "Word translation without parallel data (MUSE)", 6: "XNLI and aligned encoders",
    7: "Joint vs transfer vs mapping", 8: "Paraphrastic embeddings from bitext",
    9: "Embeddings from monolingual text",
    10: "Cross-lingual language models (XLM)", 11: "Reproducibility report",
}


SYNTHETIC_USES: dict[str, tuple[str, tuple[int, ...]]] = {
    "parallel": ("Europarl / UN / OpenSubtitles-style parallel corpora in many language pairs",
                 (6, 7, 8, 9, 10)),
    "sentences": ("monolingual corpora (Wikipedia-style), comparable across languages", (5, 9, 10)),
    "nli / xnli": ("SNLI, MultiNLI and the 15-language XNLI", (3, 6, 7)),
    "sts": ("STS12-16, STS-B and SICK-R graded similarity", (2, 3, 8)),
    "probing": ("the ten probing tasks of Conneau et al. (2018)", (4,)),
    "documents": ("documents for sentence-context objectives", (9,)),
    "lexicon": ("MUSE's bilingual dictionaries for the invented languages", (5, 7)),
}
"""What each part of the synthetic world stands in for, and the chapters that use it (the plan of
the book)."""


# -- the catalogue and the cache -------------------------------------------------------------------
def chapter_list(chapters: Sequence[int]) -> str:
    return ", ".join(map(str, chapters))


def _check_profile(profile: str | None) -> None:
    if profile is not None and profile not in PROFILES:
        raise ValueError(f"profile must be None or one of {PROFILES}, got {profile!r}.")


def source_table(catalogue: Catalogue = CATALOGUE, profile: str | None = None) -> pd.DataFrame:
    """One row per pinned archive: source, registry, package, version, sha256 prefix, licence, size
    (MB), chapters.

    ``profile`` keeps the archives the datasets of that fetch profile need (``None``: all of them).
    The sha256 is cut to its first 12 hex digits for display; the catalogue holds the full digest.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    _check_profile(profile)
    datasets = [d for d in catalogue.datasets.values() if profile is None or d.read_by(profile)]
    rows = [{"source": s.name, "registry": s.client, "package": s.package, "version": s.version,
             "sha256": s.sha256[:SHA_PREFIX], "licence": s.licence,
             "size_mb": round(s.size / 1e6, 2),
             "chapters": chapter_list(s.chapters)}
            for s in catalogue.sources_of(datasets)]
    return pd.DataFrame(rows, columns=["source", "registry", "package", "version", "sha256",
                                       "licence", "size_mb",
                                       "chapters"])


def _row_count(stats: Mapping[str, object]) -> int | None:
    for key in ROW_KEYS:
        if isinstance(stats.get(key), int):
            return int(stats[key])
    return None


def dataset_table(catalogue: Catalogue = CATALOGUE, cache_dir: str | os.PathLike[str] | None = None,
                  profile: str | None = None) -> pd.DataFrame:
    """One row per dataset: kind, languages, rows, licence(s), download and cached size (MB),
    chapters, cached?

    ``rows`` is read from the manifest of a cached dataset (the first of :data:`ROW_KEYS` its
    statistics hold: pairs, sentences, fortunes or words) and is missing (``<NA>``) otherwise;
    ``download_mb`` sums the archives the dataset is built from (shared archives count fully for
    each); ``cached`` is True when the normalised files were built from the pinned archives.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    _check_profile(profile)
    _, entries, _ = cache_status(cache_dir, catalogue, contents=False)  # a listing: sizes only
    by_name = {e.name: e for e in entries}
    rows = []
    for d in catalogue.datasets.values():
        if profile is not None and not d.read_by(profile):
            continue
        sources = [catalogue.sources[s] for s in d.sources]
        entry = by_name.get(d.name)
        rows.append({
            "dataset": d.name, "kind": d.kind, "languages": ", ".join(d.languages),
            "rows": None if entry is None else _row_count(entry.stats),
            "licence": "; ".join(dict.fromkeys(s.licence for s in sources)),
            "download_mb": round(sum(s.size for s in sources) / 1e6, 2),
            "cached_mb": None if entry is None else round(entry.norm_bytes / 1e6, 2),
            "chapters": chapter_list(d.chapters), "profiles": "/".join(d.profiles),
            "cached": entry is not None and entry.ready,
        })
    frame = pd.DataFrame(rows, columns=["dataset", "kind", "languages", "rows", "licence",
                                        "download_mb", "cached_mb",
                                        "chapters", "profiles", "cached"])
    return frame.astype({"rows": "Int64", "cached_mb": "Float64", "cached": bool})


def chapter_table(catalogue: Catalogue = CATALOGUE, profile: str | None = "book") -> pd.DataFrame:
    """What each chapter (2-11) reads: the catalogue datasets of ``profile`` and the synthetic data
    sets.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    _check_profile(profile)
    rows = []
    for chapter in range(2, 12):
        corpora = [d.name for d in catalogue.datasets.values()
                   if chapter in d.chapters and (profile is None or d.read_by(profile))]
        synthetic = [name for name, (_, chapters) in SYNTHETIC_USES.items() if chapter in chapters]
        rows.append({"chapter": chapter, "title": CHAPTER_TITLES[chapter],
                     "corpora": ", ".join(corpora),
                     "synthetic": ", ".join(synthetic)})
    return pd.DataFrame(rows, columns=["chapter", "title", "corpora", "synthetic"])


def cached_datasets(kinds: Sequence[str] = TEXT_KINDS, catalogue: Catalogue = CATALOGUE,
                    cache_dir: str | os.PathLike[str] | None = None,
                    profile: str | None = "book") -> tuple[list[str], list[str]]:
    """Names of the datasets of ``kinds`` (and ``profile``) that are ready in the cache, and of
    those that are not.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    table = dataset_table(catalogue, cache_dir, profile)
    table = table[table["kind"].isin(list(kinds))]
    return table.loc[table["cached"],
                     "dataset"].tolist(), table.loc[~table["cached"], "dataset"].tolist()


# -- token counts ----------------------------------------------------------------------------------
SPACE, WORD, SYMBOL, IDEOGRAPH = range(4)
_IDEOGRAPHS = ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF),
               (0x20000, 0x2FA1F))
_JOINERS = (ord("'"), ord("’"), ord("-"))
_COUNT_CHUNK = 50_000


@lru_cache(maxsize=None)
def _char_class(code: int) -> int:
    ch = chr(code)
    if ch.isspace():
        return SPACE
    if any(lo <= code <= hi for lo, hi in _IDEOGRAPHS):
        return IDEOGRAPH
    cat = unicodedata.category(ch)
    return WORD if cat[0] in "LMN" or cat == "Cf" or ch == "_" else SYMBOL


@lru_cache(maxsize=1)
def _bmp_classes() -> np.ndarray:
    return np.array([_char_class(c) for c in range(0x10000)], dtype=np.int8)


def _count_chunk(texts: list[str]) -> np.ndarray:
    sizes = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    codes = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    if codes.size == 0:
        return np.zeros(len(texts), np.int64)
    cls = _bmp_classes()[np.minimum(codes, 0xFFFF)]
    astral = codes > 0xFFFF
    # outside the Basic Multilingual Plane: rare, classified one distinct character at a time
    if astral.any():
        uniq, inverse = np.unique(codes[astral], return_inverse=True)
        cls[astral] = np.array([_char_class(c) for c in uniq.tolist()], dtype=np.int8)[inverse]
    text_of = np.repeat(np.arange(len(texts), dtype=np.int64), sizes)
    first = np.zeros(codes.size, bool)
    first[np.cumsum(sizes)[sizes > 0] - sizes[sizes > 0]] = True
    # an apostrophe or hyphen between two word characters of the same text joins them ("don't",
    # "well-known")
    inner = np.zeros(codes.size, bool)
    joiner = (codes == _JOINERS[0]) | (codes == _JOINERS[1]) | (codes == _JOINERS[2])
    inner[1:-1] = (joiner[1:-1] & (cls[:-2] == WORD) & (cls[2:] == WORD)
                   & (text_of[:-2] == text_of[2:]))
    cls[inner] = WORD
    prev_word = np.concatenate([[False], cls[:-1] == WORD]) & ~first
    starts = (cls == SYMBOL) | (cls == IDEOGRAPH) | ((cls == WORD) & ~prev_word)
    return np.bincount(text_of[starts], minlength=len(texts))


def token_counts(texts: Sequence[str]) -> np.ndarray:
    """Tokens per text, Moses-like: runs of letters, marks and digits are one token ("don't",
    "well-known" too), every other visible character is one token, and every Chinese character or
    Japanese kana is one token.

    Our choice, vectorised over all characters at once: XNLI counted Moses tokens, with a word
    segmenter for Chinese, so our counts for Chinese and Japanese are character counts (about 1.5x a
    segmenter's words).
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    if isinstance(texts, str):
        raise TypeError("token_counts takes a list of texts, not one string.")
    texts = list(texts)
    bad = next((i for i, t in enumerate(texts) if not isinstance(t, str)), None)
    if bad is not None:
        raise TypeError(f"texts[{bad}] is {type(texts[bad]).__name__}, not str.")
    parts = [_count_chunk(texts[s:s + _COUNT_CHUNK]) for s in range(0, len(texts), _COUNT_CHUNK)]
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


# -- the cached corpora ----------------------------------------------------------------------------
def corpus_sides(name: str, max_rows: int | None = None,
                 cache_dir: str | os.PathLike[str] | None = None) -> dict[str, list[str]]:
    """The texts of a cached bitext, monolingual or labelled dataset by language, e.g. ``{"en":
    [...], "fr": [...]}``.

    ``max_rows`` keeps the first rows (file order). Dictionaries, vectors and encoders hold no
    sentences and raise ValueError; an uncached dataset raises the reader's FileNotFoundError (it
    says what to fetch).
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    d = CATALOGUE.dataset(name)
    if d.kind not in TEXT_KINDS:
        raise ValueError(f"{name!r} is a {d.kind}, which holds no sentences; sentence datasets are "
                         f"of kinds {TEXT_KINDS}.")
    if max_rows is not None and max_rows < 1:
        raise ValueError(f"max_rows must be a positive number of rows or None, got {max_rows!r}.")
    if d.kind == "bitext":
        src, tgt = load_bitext(name, max_rows, cache_dir)
        return {d.languages[0]: src, d.languages[1]: tgt}
    if d.kind == "monolingual":
        return {d.languages[0]: load_text(name, max_rows, cache_dir)}
    texts = (load_ratings(name, cache_dir)[0] if name.startswith("vader-")
             else load_labelled(name, cache_dir).sentences)
    return {d.languages[0]: texts[:max_rows]}


def corpus_lengths(names: Sequence[str], max_rows: int | None = None,
                   cache_dir: str | os.PathLike[str] | None = None
                   ) -> dict[str, dict[str, np.ndarray]]:
    """Token counts (:func:`token_counts`) of every side of each dataset: ``{dataset: {language:
    counts}}``.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    return {name: {lang: token_counts(texts)
                   for lang, texts in corpus_sides(name, max_rows, cache_dir).items()}
            for name in names}


def length_stats(lengths: Mapping[str, Mapping[str, np.ndarray]]) -> pd.DataFrame:
    """One row per (dataset, language): texts, mean, median, 95th percentile and maximum length in
    tokens.

    Percentiles use numpy's default (linear) interpolation; empty sides are left out.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    rows = []
    for name, sides in lengths.items():
        for lang, counts in sides.items():
            c = np.asarray(counts, dtype=np.float64)
            if c.size == 0:
                continue
            rows.append({"dataset": name, "language": lang, "texts": int(c.size),
                         "mean": round(float(c.mean()), 2),
                         "median": float(np.median(c)),
                         "p95": round(float(np.percentile(c, 95)), 2),
                         "max": int(c.max())})
    return pd.DataFrame(rows, columns=["dataset", "language", "texts", "mean", "median", "p95",
                                       "max"])


def _pick(n: int, k: int, seed: int) -> np.ndarray:
    return np.sort(np.random.default_rng(seed).choice(n, size=min(k, n), replace=False))


def corpus_samples(name: str, k: int = 3, seed: int = 0,
                   cache_dir: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """``k`` rows of a cached dataset drawn with ``seed`` (in file order), shown as the dataset's
    kind suggests.

    Bitexts give one column per language; monolingual text a ``text`` column; labelled sets ``text``
    and ``label`` (VADER: the mean human rating); dictionaries ``k`` train and ``k`` test pairs;
    GloVe ``k`` words drawn among the 50,000 most frequent with their three nearest neighbours by
    cosine. Encoders hold no text and raise ValueError.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    if k < 1:
        raise ValueError(f"k must be a positive number of samples, got {k!r}.")
    d = CATALOGUE.dataset(name)
    if d.kind == "bitext" or d.kind == "monolingual":
        sides = corpus_sides(name, cache_dir=cache_dir)
        idx = _pick(len(next(iter(sides.values()))), k, seed)
        columns = list(sides) if d.kind == "bitext" else ["text"]
        return pd.DataFrame({c: [texts[i] for i in idx]
                             for c, texts in zip(columns, sides.values())})
    if d.kind == "labelled":
        if name.startswith("vader-"):
            texts, labels = load_ratings(name, cache_dir)
        else:
            data = load_labelled(name, cache_dir)
            texts, labels = data.sentences, data.labels
        idx = _pick(len(texts), k, seed)
        return pd.DataFrame({"text": [texts[i] for i in idx], "label": np.asarray(labels)[idx]})
    if d.kind == "dictionary":
        parts = []
        for split in ("train", "test"):
            pairs = load_dictionary(name, split, cache_dir)
            idx = _pick(len(pairs), k, seed)
            parts.append(pd.DataFrame({d.languages[0]: [pairs.source[i] for i in idx],
                                       d.languages[1]: [pairs.target[i] for i in idx],
                                       "split": split}))
        return pd.concat(parts, ignore_index=True)
    if d.kind == "vectors":
        vecs = load_glove50(50_000, cache_dir)
        idx = _pick(len(vecs), k, seed)
        _, nn = knn(vecs.vectors[idx], vecs.vectors, 4)
        return pd.DataFrame({"rank": idx, "word": [vecs.words[i] for i in idx],
                             "nearest neighbours": [", ".join(vecs.words[j] for j in row[1:])
                                                    for row in nn]})
    raise ValueError(f"{name!r} is a {d.kind}: it holds a model, not text; load it with "
                     "xsent_lib.data.corpora.import_encoder.")
