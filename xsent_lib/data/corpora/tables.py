"""The normalised file formats shared by the corpora: one-line texts and tab-separated tables with a
header.

Every normalised text is on one line: runs of whitespace (tabs, newlines, no-break spaces)
become one space, so a TSV row never needs quoting. Tables are UTF-8, ``\\n``-terminated, with a
header row.
Book: chapter 1 (Data: the corpora and the synthetic world).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path


def one_line(text: str) -> str:
    """Collapse every run of whitespace (including tabs, newlines and no-break spaces) to one space,
    and strip.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    return " ".join(text.split())


def write_table(path: Path, header: Sequence[str], rows: Iterable[Sequence[object]]) -> int:
    """Write a tab-separated table with a header; return the number of rows. Cells must be one-line
    strings or numbers.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    n = 0
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        fh.write("\t".join(header) + "\n")
        for row in rows:
            if len(row) != len(header):
                raise ValueError(f"{path.name}: row {n + 1} has {len(row)} cells, the header "
                                 f"{len(header)}.")
            cells = [str(c) for c in row]
            if any("\t" in c or "\n" in c for c in cells):
                raise ValueError(f"{path.name}: row {n + 1} holds a tab or newline; pass texts "
                                 "through one_line().")
            fh.write("\t".join(cells) + "\n")
            n += 1
    return n


def read_table(path: Path, columns: Sequence[str],
               max_rows: int | None = None) -> dict[str, list[str]]:
    """Read the named columns of a table written by :func:`write_table` (all rows, or the first
    ``max_rows``).

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    if max_rows is not None and max_rows < 0:
        raise ValueError(f"max_rows must be >= 0 or None, got {max_rows}.")
    with path.open(encoding="utf-8", newline="\n") as fh:
        header = fh.readline().rstrip("\n").split("\t")
        missing = [c for c in columns if c not in header]
        if missing:
            raise ValueError(f"{path}: columns {missing} are missing (header: {header}); refetch "
                             "the dataset.")
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
                raise ValueError(f"{path.name}: text {n + 1} holds a newline; pass texts through "
                                 "one_line().")
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
