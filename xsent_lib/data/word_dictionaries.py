"""Where chapter 5's bilingual data comes from: FreeDict pairs, MUSE's fastText files, what the
cache lacks.

Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

import os
from collections.abc import Iterable


def freedict_pairs(src_lang: str, tgt_lang: str, cache_dir: str | os.PathLike[str] | None = None
                   ) -> tuple[list[tuple[str, str]], list[tuple[str, str]], str]:
    """FreeDict train and test word pairs for ``src_lang -> tgt_lang``: ``(train, test,
    description)``.

    Uses ``freedict-<src>-<tgt>`` when it is cached; otherwise flips ``freedict-<tgt>-<src>`` (its
    test words become the targets of the flipped test pairs; the setting builder then drops every
    training pair whose source word is a test source word, so the split stays disjoint).
    Book: chapter 5 (Word translation without parallel data).
    """
    from xsent_lib.data.corpora import load_dictionary

    def pairs(name: str, split: str, flip: bool) -> list[tuple[str, str]]:
        d = load_dictionary(name, split, cache_dir=cache_dir)
        return list(zip(d.target, d.source)) if flip else list(zip(d.source, d.target))

    direct, reverse = f"freedict-{src_lang}-{tgt_lang}", f"freedict-{tgt_lang}-{src_lang}"
    try:
        return pairs(direct, "train", False), pairs(direct, "test", False), direct
    except (FileNotFoundError, KeyError, ValueError):
        pass
    try:
        return pairs(reverse, "train", True), pairs(reverse, "test", True), f"{reverse} (flipped)"
    except (FileNotFoundError, KeyError, ValueError) as exc:
        raise FileNotFoundError(f"neither {direct} nor {reverse} is cached: run `xsent-data fetch "
                                f"{direct}` (or {reverse}).") from exc


def missing_real_data(langs: Iterable[str], pairs: Iterable[tuple[str, str]],
                      cache_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """Datasets the real-data path of chapter 5 needs and the cache lacks (empty: everything is
    there).

    A language needs every dataset of its default monolingual text; a pair needs its FreeDict
    dictionary in either direction.
    Book: chapter 5 (Word translation without parallel data).
    """
    from xsent_lib.data.cache import cache_status
    from xsent_lib.data.corpora.monolingual import MONOLINGUAL_SOURCES

    _, entries, _ = cache_status(cache_dir, contents=False)  # which are there: sizes are enough
    ready = {e.name for e in entries if e.ready}
    missing = []
    for lang in langs:
        if lang not in MONOLINGUAL_SOURCES:
            missing.append(f"monolingual text for {lang!r}")
            continue
        missing += [name for name, _ in MONOLINGUAL_SOURCES[lang] if name not in ready]
    for s, t in pairs:
        if f"freedict-{s}-{t}" not in ready and f"freedict-{t}-{s}" not in ready:
            missing.append(f"freedict-{s}-{t}")
    return sorted(set(missing))


def fasttext_files(data_dir: str | os.PathLike[str] | None,
                   pairs: Iterable[tuple[str, str]]) -> bool:
    """Whether ``data_dir`` holds MUSE's setting for every pair: ``wiki.<lang>.vec`` and both
    dictionaries.

    Expected layout: ``<data_dir>/wiki.<lang>.vec`` (fastText Wikipedia vectors) and
    ``<data_dir>/crosslingual/dictionaries/<src>-<tgt>.{0-5000,5000-6500}.txt`` in both directions.
    Book: chapter 5 (Word translation without parallel data).
    """
    if data_dir is None:
        return False
    from pathlib import Path

    root = Path(data_dir)
    need = [root / f"wiki.{lang}.vec" for p in pairs for lang in p]
    need += [root / "crosslingual" / "dictionaries" / f"{a}-{b}.{split}.txt" for s, t in pairs
             for a, b in ((s, t), (t, s)) for split in ("0-5000", "5000-6500")]
    return all(p.is_file() for p in need)
