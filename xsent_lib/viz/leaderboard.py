"""The leaderboard as a table: one row per encoder, sortable in the static page without a kernel.

:func:`leaderboard_rows` flattens the suite's results (scores or "n/a" with the reason) beside each
encoder's card; :func:`sortable_table` renders rows as an HTML table with a few lines of our own
JavaScript inline (no CDN: the book reads offline): a click on a column header sorts by it, again
reverses.
Book: chapter 11 (Reproducibility report: the leaderboard).
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from xsent_lib.eval.leaderboard import TASKS

#: column header of each task's score
SCORE_COLUMNS = {
    "transfer": "transfer acc",
    "sts": "STS r",
    "probing": "probing acc",
    "retrieval": "retrieval P@1",
    "mining": "mining F1",
    "xnli": "XNLI zero-shot",
}
SPEED_COLUMN = "sentences/s"


def leaderboard_rows(
    cards: Sequence[Any],
    results: Mapping[str, Mapping[str, Any]],
    speeds: Mapping[str, float | None],
) -> list[dict[str, Any]]:
    """One dict per encoder: its card (chapter, training data, supervision, parameters, languages),
    each task's score or ``"n/a: reason"``, and its speed (``speeds[name]``).

    Book: chapter 11 (Reproducibility report: the leaderboard).
    """
    rows = []
    for card in cards:
        res = results.get(card.name)
        if res is None:
            raise KeyError(f"no results for encoder {card.name!r}; evaluate it first.")
        row = {
            "encoder": card.name,
            "chapter": card.chapter,
            "training data": card.training_data,
            "supervision": card.supervision,
            "parameters": card.parameters,
            "languages": " ".join(card.languages),
        }
        for task in TASKS:
            part = res[task]
            row[SCORE_COLUMNS[task]] = part["score"] if "score" in part else f"n/a: {part['n/a']}"
        row[SPEED_COLUMN] = speeds.get(card.name)
        rows.append(row)
    return rows


def _cell(value: Any) -> tuple[str, str]:
    """(text shown, sort key) of one cell: numbers sort by value, text and n/a after every number.
    """
    if isinstance(value, bool) or value is None:
        return ("n/a" if value is None else str(value)), ""
    if isinstance(value, (int, float)) and math.isfinite(value):
        if isinstance(value, int):
            text = f"{value:,}"
        else:
            text = f"{value:.3f}" if 0 < abs(value) < 1 else f"{value:.1f}"
        return text, repr(float(value))
    return str(value), ""


_SCRIPT = """
<script>
(function () {
  var table = document.getElementById(%s);
  if (!table) return;
  var heads = table.tHead.rows[0].cells;
  for (var c = 0; c < heads.length; c++) {
    heads[c].style.cursor = "pointer";
    heads[c].title = "click to sort";
    heads[c].addEventListener("click", (function (col) { return function () {
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var up = table.getAttribute("data-col") == col ? table.getAttribute("data-dir") != "up" :
      false;
      rows.sort(function (a, b) {
        var x = a.cells[col].getAttribute("data-sort"), y = b.cells[col].getAttribute("data-sort");
        if (x !== "" && y !== "") { return up ? x - y : y - x; }
        if (x !== "") return -1;
        if (y !== "") return 1;
        var s = a.cells[col].textContent.localeCompare(b.cells[col].textContent);
        return up ? -s : s;
      });
      for (var i = 0; i < rows.length; i++) body.appendChild(rows[i]);
      table.setAttribute("data-col", col);
      table.setAttribute("data-dir", up ? "up" : "down");
    }; })(c));
  }
})();
</script>
"""


def leaderboard_sources(
    cards: Sequence[Any], results: Mapping[str, Mapping[str, Any]], run: Mapping[str, str]
) -> list[dict[str, list[str]]]:
    """Where each number of :func:`leaderboard_rows` is stored: per row, ``{column: path}`` in the
    ``metrics.json`` of ``run`` (``{"source", "chapter", "profile"}``), for every score and speed
    (:func:`sortable_table_html` tags the cells with it, and the book's page-vs-metrics test reads
    them back).

    Book: chapter 11 (Reproducibility report: the leaderboard).
    """
    sources = []
    for card in cards:
        res = results[card.name]
        paths = {SCORE_COLUMNS[t]: ["leaderboard", "scores", card.name, t, "score"]
                 for t in TASKS if "score" in res[t]}
        paths[SPEED_COLUMN] = ["timings", "leaderboard_speed", card.name]
        sources.append({"run": dict(run), **paths})
    return sources


def sortable_table_html(
    rows: Sequence[Mapping[str, Any]],
    table_id: str = "xsent-leaderboard",
    sources: Sequence[Mapping[str, Any]] | None = None,
) -> str:
    """An HTML ``<table>`` of ``rows`` (the first row's keys are the columns) that sorts on a header
    click: numbers first, descending on the first click; the JavaScript is inline. ``sources``
    (:func:`leaderboard_sources`) tags each stored number with its run and path
    (``data-xsent-run``, ``data-xsent-path``, as chapter 11's report tables).

    Book: chapter 11 (Reproducibility report: the leaderboard).
    """
    if not rows:
        raise ValueError("no rows to show: evaluate at least one encoder.")
    if not table_id.replace("-", "").replace("_", "").isalnum():
        raise ValueError(f"table_id {table_id!r} must be letters, digits, '-' or '_'.")
    columns = list(rows[0])
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in columns)
    if sources is not None and len(sources) != len(rows):
        raise ValueError(f"{len(sources)} sources for {len(rows)} rows: give one per row.")
    body = []
    for i, row in enumerate(rows):
        cells = []
        for col in columns:
            text, key = _cell(row.get(col))
            tag = ""
            if sources is not None and col in sources[i] and key:
                run, path = json.dumps(sources[i]["run"]), json.dumps(sources[i][col])
                tag = (f' data-xsent-run="{html.escape(run, quote=True)}"'
                       f' data-xsent-path="{html.escape(path, quote=True)}"')
            cells.append(f'<td data-sort="{html.escape(key)}"{tag}>{html.escape(text)}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    table = (
        f'<table id="{table_id}" class="dataframe xsent-sortable"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )
    return table + _SCRIPT % json.dumps(table_id)


class SortableTable:
    """A notebook output that shows :func:`sortable_table_html` (``_repr_html_``).

    Book: chapter 11 (Reproducibility report: the leaderboard).
    """

    def __init__(
        self,
        rows: Sequence[Mapping[str, Any]],
        table_id: str = "xsent-leaderboard",
        sources: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        self.html = sortable_table_html(rows, table_id, sources)
        self.n_rows = len(rows)

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return f"<sortable table of {self.n_rows} rows: open the page or the notebook to see it>"
