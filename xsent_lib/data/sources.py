"""Which of the papers' real data sets a chapter found in ``data_dir``, which it used, and which
fell back.

A chapter names the data sets it can use (``start_chapter(..., uses=("snli", "senteval"))``); every
name is a :class:`RealDataSet` of :data:`REAL_DATA`, whose ``markers`` are the files (globs,
relative to ``data_dir``) of the papers' own layout that show it is there. :class:`DataSources`
looks them up once, prints one line per data set on the chapter's first output (``found`` with the
folder, or ``stand-in`` with the reason), and collects what the chapter then decides:
:meth:`DataSources.use` (the real files are read) or :meth:`DataSources.fallback` (a stand-in
replaces them, with the reason). Every file that the loaders of :mod:`xsent_lib.data.formats` opened
under ``data_dir`` is recorded (see :func:`files_read`) and listed in the chapter's provenance with
its size and sha256 by :meth:`DataSources.report`, beside each data set's final status: ``real``
(read), ``stand-in`` (missing, or fell back) or ``unused`` (found, but not needed by this profile).

Sizes follow the profile (:meth:`DataSources.limit`): ``smoke`` reads a few hundred examples of each
data set, ``book`` the chapter's book sizes, ``full`` everything.
Book: chapter 0 (How to run this book: your own data).
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xsent_lib.data.formats._io import files_read
from xsent_lib.text.tokenizers import WordTokenizer

#: examples of each real data set that the ``smoke`` profile reads (the first ones of each file /
#: split)
SMOKE_EXAMPLES = 300
STATUSES = ("real", "stand-in", "unused")


@dataclass(frozen=True)
class RealDataSet:
    """One of the papers' data sets in its published layout under ``data_dir``.

    ``markers``: relative paths (``glob`` patterns allowed) of which ``need`` must match at least
    one file for the data set to count as present (``need="all"``: every marker); ``where``: where
    to get it.
    Book: chapter 0 (How to run this book: your own data).
    """

    name: str
    title: str
    markers: tuple[str, ...]
    where: str
    need: str = "any"

    def present(self, root: Path) -> list[Path]:
        """The marker files found under ``root`` (empty when the data set is not there, or is
        incomplete)."""
        found = [sorted(p for p in root.glob(m) if p.is_file()) for m in self.markers]
        if self.need == "all" and not all(found):
            return []
        return [p for group in found for p in group]


def _vec(lang: str) -> RealDataSet:
    return RealDataSet(f"fasttext-{lang}", f"fastText Wikipedia vectors ({lang})",
                       (f"wiki.{lang}.vec",),
                       "https://fasttext.cc/docs/en/pretrained-vectors.html")


def _muse(a: str, b: str) -> RealDataSet:
    files = tuple(f"crosslingual/dictionaries/{x}-{y}.{s}.txt" for x, y in ((a, b), (b, a))
                  for s in ("0-5000", "5000-6500"))
    return RealDataSet(f"muse-{a}-{b}", f"MUSE dictionaries {a}-{b}, both directions", files,
                       "MUSE's get_evaluation.sh (https://github.com/facebookresearch/MUSE)",
                       need="all")


_SENTEVAL = ("SentEval's data/downstream (https://github.com/facebookresearch/SentEval, "
             "get_transfer_data.bash)")
#: every real data set a chapter may name in ``uses``
REAL_DATA: dict[str, RealDataSet] = {d.name: d for d in [
    RealDataSet("snli", "SNLI 1.0", ("snli_1.0/snli_1.0_train.jsonl",),
                "https://nlp.stanford.edu/projects/snli/"),
    RealDataSet("multinli", "MultiNLI 1.0", ("multinli_1.0/multinli_1.0_train.jsonl",),
                "https://cims.nyu.edu/~sbowman/multinli/"),
    RealDataSet("senteval", "SentEval transfer tasks", ("downstream/*/*", "downstream/*/*/*"),
                _SENTEVAL),
    RealDataSet("sts", "STS 2012-2016 and STS Benchmark", ("downstream/STS/*/*",), _SENTEVAL),
    RealDataSet("probing", "SentEval probing tasks", ("probing/*.txt",),
                "SentEval's data/probing "
                "(https://github.com/facebookresearch/SentEval/tree/main/data/probing)"),
    RealDataSet("glove-840b", "GloVe 840B 300d", ("glove.840B.300d.txt",),
                "https://nlp.stanford.edu/projects/glove/"),
    RealDataSet("fasttext-crawl", "fastText Common Crawl 300d", ("crawl-300d-2M.vec",),
                "https://fasttext.cc/docs/en/english-vectors.html"),
    *[_vec(lang) for lang in ("en", "fr", "de", "es", "ru", "zh")],
    *[_muse("en", lang) for lang in ("fr", "de", "es", "ru")],
    RealDataSet("xnli", "XNLI 1.0", ("XNLI-1.0/xnli.dev.tsv", "XNLI-1.0/xnli.test.tsv"),
                "https://github.com/facebookresearch/XNLI", need="all"),
    RealDataSet("xnli-mt", "XNLI-MT 1.0 (machine-translated MultiNLI)",
                ("XNLI-MT-1.0/multinli/multinli.train.*.tsv",),
                "https://github.com/facebookresearch/XNLI"),
    RealDataSet("bucc", "BUCC 2018 shared task", ("bucc2018/*/*",),
                "https://comparable.limsi.fr/bucc2018/"),
    RealDataSet("bitext", "Moses-format parallel text (e.g. Europarl)", ("bitext/*.en",),
                "https://www.statmt.org/europarl/ (bitext/<name>.<lang> files, one sentence "
                "a line)"),
    RealDataSet("monolingual", "monolingual text, one sentence a line", ("monolingual/*.txt",),
                "any sentence-per-line text, e.g. monolingual/en.txt (Toronto BookCorpus style, in "
                "document order)"),
]}


def sha256_file(path: str | os.PathLike[str], chunk: int = 1 << 20) -> str:
    """The sha256 of a file, read in 1 MiB chunks (a 5 GB GloVe file never sits in memory).

    Book: chapter 0 (How to run this book: your own data).
    """
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


@dataclass
class DataSources:
    """The real data of one chapter run: what was found in ``root``, used, or replaced by a
    stand-in.

    Book: chapter 0 (How to run this book: your own data).
    """

    root: Path | None
    profile: str
    uses: tuple[str, ...] = ()
    found: dict[str, list[Path]] = field(default_factory=dict)
    status: dict[str, dict[str, str]] = field(default_factory=dict)
    checksum_cache: Path | None = None
    _seen_before: frozenset[Path] = frozenset()

    def __post_init__(self) -> None:
        unknown = [n for n in self.uses if n not in REAL_DATA]
        if unknown:
            raise ValueError(f"unknown real data set(s) {unknown}; the known ones are "
                             f"{sorted(REAL_DATA)} (add a RealDataSet to "
                             "xsent_lib.data.sources.REAL_DATA for a new one).")
        if self.root is not None and not self.root.is_dir():
            raise FileNotFoundError(f"data_dir {self.root} is not a folder; point it at the folder "
                                    "holding the papers' data in their published layout (see "
                                    "book/how_to_use.md), or pass None.")
        self._seen_before = frozenset(files_read())
        for name in self.uses:
            self.found[name] = REAL_DATA[name].present(self.root) if self.root is not None else []
            if not self.found[name]:
                why = "no data_dir given" if self.root is None else \
                    (f"not in data_dir (expected {', '.join(REAL_DATA[name].markers)}; "
                     f"get it from {REAL_DATA[name].where})")
                self.status[name] = {"status": "stand-in", "note": why}

    def lines(self) -> list[str]:
        """One line per named data set: found (read by the chapter, at the profile's size) or
        replaced by a stand-in (and why). A found data set the chapter cannot use after all gets a
        note (:meth:`fallback`)."""
        out = [f"data_dir: {self.root if self.root is not None else 'none'} · profile "
               f"'{self.profile}' reads {self.limit_text()} of each real data set found (a later "
               "note says when one falls back)"]
        for name in self.uses:
            title = REAL_DATA[name].title
            if self.found[name]:
                out.append(f"  found    {name}: {title} in {self.root}")
            else:
                out.append(f"  stand-in {name}: {title} {self.status[name]['note']}")
        return out

    def limit_text(self) -> str:
        return {"smoke": f"the first {SMOKE_EXAMPLES} examples", "book": "the chapter's book sizes",
                "gpu": "the chapter's book sizes", "full": "all"}[self.profile]

    def available(self, name: str) -> bool:
        """Whether data set ``name`` (declared in ``uses``) is in ``data_dir`` in its published
        layout."""
        if name not in self.found:
            raise ValueError(f"{name!r} is not among the data sets this chapter declared "
                             f"({list(self.uses)}); add it to start_chapter(..., uses=...).")
        return bool(self.found[name])

    def use(self, name: str, what: str = "") -> Path:
        """Mark ``name`` as read from ``data_dir`` (``what`` says how much) and return
        ``data_dir``."""
        if not self.available(name):
            raise FileNotFoundError(f"{name} is not in data_dir {self.root}: "
                                    f"{self.status[name]['note']}.")
        self.status[name] = {"status": "real", "note": what}
        assert self.root is not None
        return self.root

    def fallback(self, name: str, reason: str) -> None:
        """Record (and print) that ``name`` was found but a stand-in replaced it, e.g. after a
        format error."""
        self.available(name)
        self.status[name] = {"status": "stand-in", "note": reason}
        print(f"note: {name} falls back to its stand-in: {reason}")

    def limit(self, book: int | None, smoke: int = SMOKE_EXAMPLES) -> int | None:
        """How many examples of a real data set this profile reads: ``smoke`` at most ``smoke`` (a
        few hundred), ``book`` and ``gpu`` the chapter's ``book`` size (``None``: all), ``full`` all
        (``None``)."""
        if self.profile == "smoke":
            return smoke if book is None else min(smoke, book)
        return book if self.profile in ("book", "gpu") else None

    def files(self) -> list[Path]:
        """The files under ``data_dir`` that the format loaders opened during this run, sorted."""
        if self.root is None:
            return []
        return sorted(p for p in files_read() - self._seen_before if p.is_relative_to(self.root))

    def report(self) -> dict[str, Any]:
        """For provenance.json: ``data_dir``, each named data set's status, and every file read
        (path relative to ``data_dir``, bytes, sha256). A data set found but never marked used nor
        fallen back counts as unused."""
        sets = {}
        for name in self.uses:
            st = self.status.get(name) or {"status": "unused",
                                           "note": "found in data_dir, not read: this profile "
                                                   "does not need it, or another data set served"}
            sets[name] = dict(st)
        cache = _load_cache(self.checksum_cache)
        files = []
        for p in self.files():
            stat = p.stat()
            key = f"{p}\0{stat.st_size}\0{stat.st_mtime_ns}"
            digest = cache.get(key) or sha256_file(p)
            cache[key] = digest
            files.append({"path": p.relative_to(self.root).as_posix(), "bytes": stat.st_size,
                          "sha256": digest})
        _save_cache(self.checksum_cache, cache)
        return {"data_dir": None if self.root is None else str(self.root),
                "profile_limit": self.limit_text(),
                "datasets": sets, "files": files}


def vocabulary_of(sentences: Iterable[str]) -> set[str]:
    """Every word form of ``sentences`` under the book's tokenisers, cased and lower-cased: the rows
    to keep when streaming a large vector file (``load_glove_txt(...,
    vocabulary=vocabulary_of(texts))``).

    Used by chapters 2 and 3 for GloVe 840B / fastText.

    Book: chapter 0 (How to run this book: your own data).
    """
    cased, lower = WordTokenizer(lowercase=False), WordTokenizer(lowercase=True)
    words: set[str] = set()
    for s in sentences:
        words.update(s.split())
        words.update(cased.tokenize(s))
        words.update(lower.tokenize(s))
    words.update([w.lower() for w in words])
    return words


def _load_cache(path: Path | None) -> dict[str, str]:
    if path is None or not path.is_file():
        return {}
    try:
        return dict(json.loads(path.read_text()))
    except (ValueError, TypeError):
        return {}


def _save_cache(path: Path | None, cache: dict[str, str]) -> None:
    if path is None or not cache:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cache, indent=0, sort_keys=True))
