"""Tables whose every number names where it came from, and the check that a built page still
shows it.

:func:`tagged_table_html` renders paper-vs-ours cells as an HTML table in which each *ours* cell
carries its run (``data-xsent-run``: source, chapter, profile), its path in that run's
``metrics.json`` (``data-xsent-path``) and the factor applied (``data-xsent-scale``), and each
*paper* cell names its stored cell (``data-xsent-paper``: seed, item, row, column).
:func:`check_tagged_html` reads any HTML page, finds every tagged cell and compares the number shown
with the number stored; a page that was edited, stale or rendered from other runs fails it.
Book: chapter 11 (Reproducibility report).
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping, Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pandas as pd

from xsent_lib.results.reproduction import paper_cells

_SHOWN = [
    "item",
    "row",
    "column",
    "paper",
    "ours",
    "delta",
    "within",
    "source",
    "profile",
    "device",
]


def _fmt(value: float | None, decimals: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.{decimals}f}"


def _attrs(**attrs: str) -> str:
    return "".join(f' data-xsent-{k}="{html.escape(v, quote=True)}"' for k, v in attrs.items())


def tagged_table_html(cells: pd.DataFrame, *, decimals: int = 2, caption: str = "") -> str:
    """An HTML table of :func:`~xsent_lib.results.reproduction.compare_item` cells (columns
    ``item``, ``row``, ``column``, ``paper``, ``ours``, ``delta``, ``within``, ``source``,
    ``profile``, ``device``), every number rounded to ``decimals`` and tagged with where it is
    stored.

    Book: chapter 11 (Reproducibility report).
    """
    missing = {"seed", "chapter", "path", "scale", *_SHOWN} - set(cells.columns)
    if missing:
        raise ValueError(
            f"cells lack {sorted(missing)}: pass the frame compare_item / all_cells return."
        )
    head = "".join(f"<th>{html.escape(c)}</th>" for c in _SHOWN)
    body = []
    for cell in cells.to_dict("records"):
        tds = []
        for col in _SHOWN:
            value = cell[col]
            if col == "paper":
                tag = _attrs(
                    paper=json.dumps([cell["seed"], cell["item"], cell["row"], cell["column"]])
                )
                tds.append(f"<td{tag}>{_fmt(value, decimals)}</td>")
            elif col == "ours" and cell["path"] is not None and not pd.isna(value):
                run = json.dumps(
                    {
                        "source": cell["source"],
                        "chapter": cell["chapter"],
                        "profile": cell["profile"],
                    }
                )
                tag = _attrs(run=run, path=cell["path"], scale=repr(float(cell["scale"])))
                tds.append(f"<td{tag}>{_fmt(value, decimals)}</td>")
            elif col in ("ours", "delta"):
                tds.append(f"<td>{_fmt(value, decimals)}</td>")
            else:
                tds.append(f"<td>{html.escape('' if value is None else str(value))}</td>")
        body.append("<tr>" + "".join(tds) + "</tr>")
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return (
        f'<table class="xsent-tagged">{cap}<thead><tr>{head}</tr></thead><tbody>'
        + "".join(body)
        + "</tbody></table>"
    )


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[dict[str, str], str]] = []
        self._open: dict[str, str] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        tags = {k: v or "" for k, v in attrs if k.startswith("data-xsent-")}
        if tag == "td" and tags:
            self._open, self._text = tags, []

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._open is not None:
            self.found.append((self._open, "".join(self._text).strip()))
            self._open = None


def _walk(node: Any, path: Sequence[str]) -> Any:
    for part in path:
        if not isinstance(node, Mapping) or part not in node:
            raise KeyError(part)
        node = node[part]
    return node


def check_tagged_html(page: str, roots: Mapping[str, str | Path]) -> tuple[int, list[str]]:
    """Compare every tagged number in the HTML ``page`` with its stored value: ours cells with
    ``roots[source]/<chapter>/<profile>/metrics.json`` (``roots`` maps ``"build"`` and
    ``"committed"`` to their folders), paper cells with ``results/paper``. Returns (cells checked,
    problems, each naming the cell, the number shown and the number stored).

    Book: chapter 11 (Reproducibility report).
    """
    parser = _Cells()
    parser.feed(page)
    problems: list[str] = []
    cache: dict[Path, Any] = {}
    for tags, shown in parser.found:
        decimals = len(shown.split(".", 1)[1]) if "." in shown else 0
        if "data-xsent-paper" in tags:
            seed, item, row, col = json.loads(tags["data-xsent-paper"])
            stored = paper_cells(seed, item).get((row, col))
            where = f"paper {seed} {item} ({row!r}, {col!r})"
        else:
            run = json.loads(tags.get("data-xsent-run", "{}"))
            path = json.loads(tags.get("data-xsent-path", "[]"))
            where = f"{run.get('source')} {run.get('chapter')}/{run.get('profile')} {path}"
            root = roots.get(run.get("source", ""))
            if root is None:
                problems.append(f"{where}: no folder given for source {run.get('source')!r}")
                continue
            file = Path(root) / run["chapter"] / run["profile"] / "metrics.json"
            if file not in cache:
                cache[file] = json.loads(file.read_text()) if file.exists() else None
            try:
                value = _walk(cache[file], path)
                stored = float(value) * float(tags.get("data-xsent-scale", "1"))
            except (KeyError, TypeError, ValueError):
                problems.append(f"{where}: shown {shown!r}, but {file} has no number there")
                continue
        if stored is None or _fmt(stored, decimals) != shown:
            problems.append(f"{where}: shown {shown!r}, stored {stored!r}")
    return len(parser.found), problems
