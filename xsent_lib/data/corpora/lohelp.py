"""Debian ``libreoffice-help-<lang>``: the LibreOffice 7.4 help in HTML, one file tree per language.

Layout: ``usr/share/libreoffice/help/<LANG>/text/**/*.html`` (``en-US``, ``fr``, ``zh-CN``, ...).
Every language has the same files, and every paragraph or heading carries a stable id
(``id="par_id3154943"``, ``id="hd_id3147124"``). Aligning by (file, id) gives professional
human translations with no sentence aligner. Parsing uses the standard library's ``html.parser``.
Kept: pairs whose English has at least ``min_words`` words and whose translation is not empty and
differs from the English (untranslated paragraphs stay English in the translated help);
exact duplicate pairs are kept once. Order: by help file path, then by position in the file.
Book: chapter 1 (Data: the corpora and the synthetic world).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path

from xsent_lib.data.corpora.bitext import PAIRS_FILE, PAIRS_HEADER
from xsent_lib.data.corpora.tables import one_line, write_table

FORMAT_VERSION = 1
HELP_ROOT = Path("usr/share/libreoffice/help")
_PARAGRAPH_ID = re.compile(r"^(?:par|hd)_id")
_SKIPPED = {"script", "style"}


class _ParagraphParser(HTMLParser):
    """Collect the text of every element whose id is a help paragraph id; nested markup is flattened
    to text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.paragraphs: dict[str, str] = {}
        # (tag, id, text parts, [depth])
        self._open: list[tuple[str, str, list[str], list[int]]] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self._skip += 1
            return
        pid = dict(attrs).get("id") or ""
        if _PARAGRAPH_ID.match(pid):
            self._open.append((tag, pid, [], [1]))
        elif self._open and self._open[-1][0] == tag:
            self._open[-1][3][0] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self._skip = max(0, self._skip - 1)
            return
        if not self._open or self._open[-1][0] != tag:
            return
        depth = self._open[-1][3]
        depth[0] -= 1
        if depth[0] == 0:
            _, pid, parts, _ = self._open.pop()
            self.paragraphs.setdefault(pid, one_line("".join(parts)))

    def handle_data(self, data: str) -> None:
        if self._open and not self._skip:
            self._open[-1][2].append(data)


def parse_help_file(path: Path) -> dict[str, str]:
    """Paragraph id -> one-line text for one help HTML file (first occurrence of a repeated id
    wins).

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    parser = _ParagraphParser()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    parser.close()
    return parser.paragraphs


@lru_cache(maxsize=2)
def parse_help_tree(lang_dir: Path) -> dict[str, dict[str, str]]:
    """Help file path (relative to ``<LANG>/``) -> its paragraphs, for one language folder. Cached:
    English is reused.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    if not (lang_dir / "text").is_dir():
        raise ValueError(f"{lang_dir / 'text'} is not a folder: is this an unpacked "
                         "libreoffice-help package?")
    return {p.relative_to(lang_dir).as_posix(): parse_help_file(p)
            for p in sorted((lang_dir / "text").rglob("*.html"))}


def align_help(english: Mapping[str, Mapping[str, str]], other: Mapping[str, Mapping[str, str]],
               min_words: int = 3) -> list[tuple[str, str, str]]:
    """Align two parsed help trees by (file, paragraph id) into ``(english, translation,
    "file#id")`` rows, filtered.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    rows, seen = [], set()
    for rel in sorted(english.keys() & other.keys()):
        theirs = other[rel]
        for pid, en in english[rel].items():
            tr = theirs.get(pid, "")
            if len(en.split()) < min_words or not tr or tr == en or (en, tr) in seen:
                continue
            seen.add((en, tr))
            rows.append((en, tr, f"{rel}#{pid}"))
    return rows


def _english_dir(raw: Path) -> Path:
    candidates = sorted(p for p in (raw / HELP_ROOT).glob("en-*") if p.is_dir())
    if not candidates:
        raise ValueError(f"{raw / HELP_ROOT} holds no en-* folder: is this libreoffice-help-en-us?")
    return candidates[0]


def normalise_lohelp(raw: Mapping[str, Path], out: Path, source: str, target: str, target_dir: str,
                     min_words: int = 3) -> dict[str, object]:
    """Write ``pairs.tsv``: the English help of ``source`` aligned with the help folder
    ``target_dir`` of ``target``.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    english = parse_help_tree(_english_dir(raw[source]))
    other = parse_help_tree(raw[target] / HELP_ROOT / target_dir)
    rows = align_help(english, other, min_words)
    n = write_table(out / PAIRS_FILE, PAIRS_HEADER, rows)
    return {"pairs": n, "files_aligned": len(english.keys() & other.keys()),
            "english_words": sum(len(r[0].split()) for r in rows)}
