"""The papers' published numbers, kept as data (``xsent_lib/results/paper/<seed>.json``), and
paper-vs-ours tables.

Book: every chapter that regenerates a table ("paper | ours | delta").
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

PAPER_DIR = Path(__file__).resolve().parent / "paper"


@lru_cache(maxsize=None)
def _load_seed(seed: str) -> dict[str, Any]:
    path = PAPER_DIR / f"{seed}.json"
    if not path.exists():
        known = sorted(p.stem for p in PAPER_DIR.glob("*.json"))
        raise FileNotFoundError(f"no paper numbers for seed {seed!r}; known seeds: {known}.")
    return json.loads(path.read_text())


def paper_entry(seed: str, table_id: str) -> dict[str, Any]:
    """Return the raw entry (caption, columns, rows, notes) of one published table or figure.

    Book: chapter 11 (Reproducibility report).
    """
    tables = _load_seed(seed)["tables"]
    if table_id not in tables:
        raise KeyError(f"{seed} has no table {table_id!r}; it has {sorted(tables)}.")
    return tables[table_id]


def _row_label(row: Mapping[str, Any]) -> str:
    return f"{row['group']} / {row['name']}" if row.get("group") else row["name"]


def paper_table(seed: str, table_id: str) -> pd.DataFrame:
    """Return a published table as a DataFrame (rows ``[group / ]name``, the paper's columns).

    Book: every chapter that regenerates a table.
    """
    entry = paper_entry(seed, table_id)
    frame = pd.DataFrame({_row_label(r): r["values"] for r in entry["rows"]}).T
    return frame.reindex(columns=entry["columns"])


def compare(seed: str, table_id: str, ours: Mapping[str, Mapping[str, float | None]],
            *, scale: float = 1.0) -> pd.DataFrame:
    """Put our numbers next to the paper's: one line per (row, column) with ``paper``, ``ours``,
    ``delta``.

    ``ours`` maps the paper's row labels to ``{column: value}``; rows or columns absent from the
    paper are kept with ``paper`` empty, so nothing we measured is hidden. ``scale`` multiplies our
    values (e.g. 100 to turn a fraction into the paper's percentages). Book: every chapter that
    regenerates a table.
    """
    paper = paper_table(seed, table_id)
    lines = []
    for row, cols in ours.items():
        for col, value in cols.items():
            ref = paper.at[row, col] if row in paper.index and col in paper.columns else None
            ref = None if ref is None or pd.isna(ref) else float(ref)
            mine = None if value is None else float(value) * scale
            delta = None if ref is None or mine is None else mine - ref
            lines.append({"row": row, "column": col, "paper": ref, "ours": mine, "delta": delta})
    return pd.DataFrame(lines, columns=["row", "column", "paper", "ours", "delta"])


def side_by_side(seed: str, table_id: str, ours: Mapping[str, Mapping[str, float | None]], *,
                 scale: float = 1.0, short_rows: bool = True,
                 rename: Mapping[str, str] | None = None,
                 paper_only_rows: bool = False) -> pd.DataFrame:
    """A published table beside ours, wide: one row per table row, columns
    ``(paper column, "paper" | "ours")``.

    Rows keep the order of ``ours``; columns follow the paper's order, then columns only we have.
    Our rows without a paper counterpart show an empty paper cell; ``paper_only_rows`` appends the
    paper's other rows (with empty ours) for reference. For display, ``rename`` relabels rows (full
    labels as keys) and ``short_rows`` drops the paper's group from the other labels
    (``"group / name"`` -> ``"name"``). ``scale`` multiplies our values as in :func:`compare`, on
    which this is built. Book: every chapter that regenerates a table.
    """
    long = compare(seed, table_id, ours, scale=scale)
    if long.empty:
        raise ValueError(f"ours holds no number to put beside {seed} {table_id}; pass {{row: "
                         f"{{column: value}}}}.")
    paper = paper_table(seed, table_id)
    rows = list(dict.fromkeys(long["row"]))
    present = list(dict.fromkeys(long["column"]))
    cols = ([c for c in paper.columns if c in set(present)]
            + [c for c in present if c not in paper.columns])
    wide = long.pivot(index="row", columns="column", values=["paper", "ours"]).swaplevel(axis=1)
    wide = wide.reindex(index=rows,
                        columns=pd.MultiIndex.from_product([cols, ["paper", "ours"]])).astype(float)
    if paper_only_rows:
        for r in paper.index.difference(rows, sort=False):
            wide.loc[r] = [paper.at[r, c] if c in paper.columns and k == "paper" else np.nan
                           for c, k in wide.columns]
    rename = dict(rename or {})
    wide.index = [rename[label] if label in rename
                  else label.rsplit(" / ", 1)[-1] if short_rows else label
                  for label in wide.index]
    return wide
