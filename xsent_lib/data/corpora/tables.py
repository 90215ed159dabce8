"""The normalised file formats shared by the corpora: one-line texts, tab-separated tables with a header, word tokens.

Every normalised text is on one line: runs of whitespace (tabs, newlines, no-break spaces)
become one space, so a TSV row never needs quoting. Tables are UTF-8, ``\\n``-terminated, with a
header row.
Book: chapter 1 (Data: the corpora and the synthetic world).
"""
from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path


def one_line(text: str) -> str:
    """Collapse every run of whitespace (including tabs, newlines and no-break spaces) to one space, and strip.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    return " ".join(text.split())


@lru_cache(maxsize=1)
def _word_pattern() -> re.Pattern[str]:
    """Letters and combining marks: ``\\w`` leaves out marks, which would cut Hindi words at every vowel sign."""
    marks, start = [], None
    for code in range(sys.maxunicode + 2):
        is_mark = code <= sys.maxunicode and unicodedata.category(chr(code)).startswith("M")
        if is_mark and start is None:
            start = code
        elif not is_mark and start is not None:
            marks.append(f"{re.escape(chr(start))}-{re.escape(chr(code - 1))}")
            start = None
    return re.compile(rf"(?:[^\W\d_]|[{''.join(marks)}])+")


def word_tokens(text: str) -> list[str]:
    """Lower-cased runs of letters (with their combining marks): the word tokens of frequency ranks and word vectors.

    Digits, punctuation and apostrophes split words (``l'homme`` gives ``l``, ``homme``), which
    matches the single-word dictionary entries the book evaluates on.
    Book: chapter 5 (Word translation without parallel data: MUSE).
    """
    return _word_pattern().findall(text.lower())


def is_word(text: str) -> bool:
    """Whether ``text`` is exactly one word token in the sense of :func:`word_tokens` (any case).

    Book: chapter 5 (Word translation without parallel data: MUSE).
    """
    return _word_pattern().fullmatch(text) is not None


def write_table(path: Path, header: Sequence[str], rows: Iterable[Sequence[object]]) -> int:
    """Write a tab-separated table with a header; return the number of rows. Cells must be one-line strings or numbers.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    n = 0
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        fh.write("\t".join(header) + "\n")
        for row in rows:
            if len(row) != len(header):
                raise ValueError(f"{path.name}: row {n + 1} has {len(row)} cells, the header {len(header)}.")
            cells = [str(c) for c in row]
            if any("\t" in c or "\n" in c for c in cells):
                raise ValueError(f"{path.name}: row {n + 1} holds a tab or newline; pass texts through one_line().")
            fh.write("\t".join(cells) + "\n")
            n += 1
    return n


def read_table(path: Path, columns: Sequence[str], max_rows: int | None = None) -> dict[str, list[str]]:
    """Read the named columns of a table written by :func:`write_table` (all rows, or the first ``max_rows``).

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    if max_rows is not None and max_rows < 0:
        raise ValueError(f"max_rows must be >= 0 or None, got {max_rows}.")
    with path.open(encoding="utf-8", newline="\n") as fh:
        header = fh.readline().rstrip("\n").split("\t")
        missing = [c for c in columns if c not in header]
        if missing:
            raise ValueError(f"{path}: columns {missing} are missing (header: {header}); refetch the dataset.")
        idx = [header.index(c) for c in columns]
        out: dict[str, list[str]] = {c: [] for c in columns}
        for n, line in enumerate(fh):
            if max_rows is not None and n >= max_rows:
                break
            cells = line.rstrip("\n").split("\t")
            for c, i in zip(columns, idx):
                out[c].append(cells[i])
    return out


def write_lines(path: Path, lines: Iterable[str]) -> int:
    """Write one-line texts, one a line; return how many.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    n = 0
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        for line in lines:
            if "\n" in line:
                raise ValueError(f"{path.name}: text {n + 1} holds a newline; pass texts through one_line().")
            fh.write(line + "\n")
            n += 1
    return n


def read_lines(path: Path, max_lines: int | None = None) -> list[str]:
    """Read the texts written by :func:`write_lines` (all, or the first ``max_lines``).

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    if max_lines is not None and max_lines < 0:
        raise ValueError(f"max_lines must be >= 0 or None, got {max_lines}.")
    out = []
    with path.open(encoding="utf-8", newline="\n") as fh:
        for n, line in enumerate(fh):
            if max_lines is not None and n >= max_lines:
                break
            out.append(line.rstrip("\n"))
    return out


def dedupe(items: Iterable[str]) -> list[str]:
    """Drop repeated items, keeping the first occurrence and the order.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    return list(dict.fromkeys(items))
