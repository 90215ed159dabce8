"""Our own skip-gram word vectors, trained per language with gensim on the cached monolingual text,
and cached.

No registry ships fastText/MUSE-style vectors for several languages, so chapter 5 trains them:
skip-gram with negative sampling on ``load_monolingual(lang)`` tokenised by
``tables.word_tokens`` (lower-cased words), each language separately, with no alignment signal.
The result is stored under ``<cache>/models/wordvecs/<lang>-<key>/`` where ``key`` hashes every
parameter and the manifests of the text used, so a second call loads it in a fraction of a second.

Determinism: with ``workers=1`` (the default) the same text and seed give bit-identical vectors.
With more workers gensim trains faster but its threads race, so vectors differ from run to run
(results are statistically the same); the cache key includes ``workers`` so the two are never mixed.
Defaults follow MUSE's fastText setting in dimension (300) and use gensim's defaults otherwise,
except ``min_count=5`` and ``epochs=5`` (the papers trained on Wikipedia; our text is 1-3M tokens).
Book: chapter 5 (Word translation without parallel data: MUSE).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from xsent_lib.data.cache import (
    MANIFEST,
    cache_root,
    models_dir,
    read_json,
    require_dataset,
    write_json,
)
from xsent_lib.data.corpora.monolingual import MONOLINGUAL_SOURCES, load_monolingual
from xsent_lib.data.corpora.tables import read_lines, write_lines
from xsent_lib.data.formats.vectors import WordVectors
from xsent_lib.text.tokenizers import word_tokens

WORDS_FILE = "words.txt"
VECTORS_FILE = "vectors.npy"
PARAMS_FILE = "params.json"


def _key(params: dict[str, object]) -> str:
    return hashlib.sha256(json.dumps(params, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def _train(sentences: Sequence[str], dim: int, window: int, min_count: int, epochs: int,
           negative: int,
           sample: float, seed: int, workers: int) -> tuple[list[str], np.ndarray]:
    from gensim.models import Word2Vec  # heavy import, only when training

    corpus = [toks for toks in (word_tokens(s) for s in sentences) if toks]
    if not corpus:
        raise ValueError("the text holds no word tokens: nothing to train on.")
    model = Word2Vec(sentences=corpus, vector_size=dim, window=window, min_count=min_count, sg=1,
                     negative=negative, sample=sample, epochs=epochs, seed=seed, workers=workers)
    return list(model.wv.index_to_key), np.asarray(model.wv.vectors, dtype=np.float32)


def train_wordvecs(lang: str, sources: Sequence[tuple[str, str]] | None = None,
                   sentences: Sequence[str] | None = None, dim: int = 300, window: int = 5,
                   min_count: int = 5,
                   epochs: int = 5, negative: int = 10, sample: float = 1e-4, seed: int = 0,
                   workers: int = 1,
                   cache_dir: str | os.PathLike[str] | None = None) -> WordVectors:
    """Skip-gram vectors for ``lang``, trained once and then loaded from the cache; words in
    frequency order.

    The text is ``sentences`` when given (e.g. a chapter's own slice), else
    ``load_monolingual(lang, sources)``. ``seed`` seeds gensim; ``workers=1`` makes the result
    bit-reproducible (see the module docstring).
    Book: chapter 5 (Word translation without parallel data: MUSE).
    """
    for name, value in (("dim", dim), ("window", window), ("min_count", min_count),
                        ("epochs", epochs),
                        ("negative", negative), ("workers", workers)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}.")
    if not 0 <= sample < 1:
        raise ValueError(f"sample must be in [0, 1), got {sample!r}.")
    params: dict[str, object] = {"lang": lang, "dim": dim, "window": window, "min_count": min_count,
                                 "epochs": epochs, "negative": negative, "sample": sample,
                                 "seed": seed,
                                 "workers": workers,
                                 "algorithm": "gensim skip-gram, negative sampling"}
    chosen = list(sources) if sources is not None else list(MONOLINGUAL_SOURCES.get(lang, ()))
    if sentences is not None:
        text = list(sentences)
        params["text_sha256"] = hashlib.sha256("\n".join(text).encode("utf-8")).hexdigest()
    elif not chosen:
        raise ValueError(f"no default text for language {lang!r} (known: "
                         f"{sorted(MONOLINGUAL_SOURCES)}); pass sources=[(dataset, side), ...] or "
                         "sentences=[...].")
    else:
        params["sources"] = [list(s) for s in chosen]
        manifests = {name: read_json(require_dataset(name, cache_dir) / MANIFEST) or {}
                     for name, _ in chosen}
        params["text_from"] = {name: [m.get("sources"), m.get("format_version")]
                               for name, m in manifests.items()}
    folder = models_dir(cache_root(cache_dir), "wordvecs") / f"{lang}-{_key(params)}"
    if read_json(folder / PARAMS_FILE) == params:
        words = read_lines(folder / WORDS_FILE)
        vectors = np.load(folder / VECTORS_FILE)
        return WordVectors(words, vectors, len(words), 0, {w: i for i, w in enumerate(words)})
    if sentences is None:
        text = load_monolingual(lang, chosen, cache_dir=cache_dir)
    words, vectors = _train(text, dim, window, min_count, epochs, negative, sample, seed, workers)
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{lang}-", dir=folder.parent))
    try:
        write_lines(staging / WORDS_FILE, words)
        np.save(staging / VECTORS_FILE, vectors)
        write_json(staging / PARAMS_FILE, params)
        if folder.exists():
            shutil.rmtree(folder, ignore_errors=True)
        try:
            staging.rename(folder)
        # another process (a chapter run beside this one) put the same vectors there meanwhile
        except OSError:
            if read_json(folder / PARAMS_FILE) != params:
                raise
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return WordVectors(words, vectors, len(words), 0, {w: i for i, w in enumerate(words)})
