"""Paper vs ours for every seed table and figure: status, cells with their difference, per-paper
summary.

The runs come from two places with one layout,
``<root>/<chapter>/<profile>/{metrics,provenance}.json``: the book's own runs (``_build/results``,
on the machine that built the book) and runs committed to the repository (``book/runs``, e.g. a GPU
profile run elsewhere). Each is a *source*; every number keeps the source, profile and device it
came from, and the two are never pooled. The links between paper cells and ``metrics.json`` values
are declared in :mod:`xsent_lib.results.seed_items`.
Book: chapter 11 (Reproducibility report).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from xsent_lib.results.paper import PAPER_DIR, paper_entry
from xsent_lib.results.report import collect_claims
from xsent_lib.results.seed_items import CHAPTER_SEED, SEED_ITEMS, Link, SeedItem

#: committed runs of the repository (``book/runs/<chapter>/<profile>/``)
COMMITTED_DIR = Path(__file__).resolve().parents[2] / "book" / "runs"
STATUSES = ("regenerated", "partly", "paper only", "absent")
_WIDE = re.compile(r"^\('(.+)', '(ours|paper)'\)$")
CELL_COLUMNS = [
    "seed",
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
    "data",
    "chapter",
    "path",
    "scale",
    "tol",
]


@dataclass(frozen=True)
class StoredRun:
    """One stored chapter run: ``source`` is ``"build"`` (the book's runs) or ``"committed"``
    (``book/runs``).

    Book: chapter 11 (Reproducibility report).
    """

    source: str
    chapter: str
    profile: str
    device: str
    metrics: Mapping[str, Any]


def stored_runs(
    results_dir: str | Path,
    profile: str,
    committed_dir: str | Path | None = None,
) -> list[StoredRun]:
    """The book's runs of ``profile`` under ``results_dir``, then every committed run (any profile)
    under ``committed_dir`` (default ``book/runs``; a missing folder means none). Chapter 11's own
    run is left out.

    Book: chapter 11 (Reproducibility report).
    """
    found = []
    roots = [
        ("build", Path(results_dir).expanduser(), profile),
        ("committed", Path(committed_dir or COMMITTED_DIR).expanduser(), "*"),
    ]
    for source, root, prof in roots:
        for metrics_path in sorted(root.glob(f"*/{prof}/metrics.json")):
            chapter, run_profile = metrics_path.parts[-3], metrics_path.parts[-2]
            if chapter == "11_reproducibility":
                continue
            prov_path = metrics_path.with_name("provenance.json")
            prov = json.loads(prov_path.read_text()) if prov_path.exists() else {}
            found.append(
                StoredRun(
                    source,
                    chapter,
                    run_profile,
                    str(prov.get("device") or "unknown"),
                    json.loads(metrics_path.read_text()),
                )
            )
    return found


def paper_cells(seed: str, item: str) -> dict[tuple[str, str], float]:
    """The numeric cells of a stored published item, ``{(row label, column): value}``; empty when
    the seed stores no numbers for it (figures, qualitative tables, a table lost in the extraction).

    Book: chapter 11 (Reproducibility report).
    """
    try:
        entry = paper_entry(seed, item)
    except KeyError:
        return {}
    cells = {}
    for r in entry["rows"]:
        label = f"{r['group']} / {r['name']}" if r.get("group") else r["name"]
        for col, value in r["values"].items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                cells[(label, col)] = float(value)
    return cells


def _results(item: SeedItem) -> dict[tuple[str, str], float]:
    cells = paper_cells(item.seed, item.item)
    return {k: v for k, v in cells.items() if k[1] not in item.settings}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def ours_cells(
    metrics: Mapping[str, Any], link: Link
) -> dict[tuple[str, str], tuple[float | None, list]]:
    """Our cells under ``link`` in one run's metrics, relabelled to the paper's: ``{(row, column):
    (value on the paper's scale or None, path in metrics.json)}``. Empty when the run did not log
    the key or logged something other than a table of numbers.

    Book: chapter 11 (Reproducibility report).
    """
    node: Any = metrics.get(link.key)
    for part in link.sub:
        node = node.get(part) if isinstance(node, Mapping) else None
    base = [link.key, *link.sub]
    table = {link.row: node} if link.row and isinstance(node, Mapping) else node
    if not isinstance(table, Mapping):
        return {}
    cells = {}
    for row, cols in table.items():
        if not isinstance(cols, Mapping):
            continue
        for col, value in cols.items():
            label = col
            if link.wide:
                match = _WIDE.match(col)
                if not match or match.group(2) != "ours":
                    continue
                label = match.group(1)
            path = [*base, col] if link.row else [*base, row, col]
            if not isinstance(value, (int, float, type(None))) or isinstance(value, bool):
                continue
            number = _number(value)
            key = (link.rows.get(row, row), link.columns.get(label, label))
            cells[key] = (None if number is None else number * link.scale, path)
    return cells


def _logged(metrics: Mapping[str, Any], link: Link) -> bool:
    node: Any = metrics.get(link.key)
    for part in link.sub:
        node = node.get(part) if isinstance(node, Mapping) else None
    return node is not None and node != {} and node != []


def compare_item(item: SeedItem, runs: Sequence[StoredRun]) -> pd.DataFrame:
    """Every numeric paper cell of ``item`` beside ours, one line per (cell, source run): ``paper``,
    ``ours`` (NaN where the run has no such cell), ``delta`` = ours - paper, ``within`` =
    \\|delta\\| <= item.tol, the run's ``source``, ``profile``, ``device``, ``chapter`` and the
    cell's ``path`` in its metrics.json.

    Book: chapter 11 (Reproducibility report).
    """
    paper = _results(item)
    lines = []
    for link in item.links:
        for run in runs:
            if run.chapter != link.chapter:
                continue
            ours = ours_cells(run.metrics, link)
            for (row, col), ref in paper.items():
                value, path = ours.get((row, col), (None, None))
                delta = None if value is None else value - ref
                lines.append(
                    {
                        "seed": item.seed,
                        "item": item.item,
                        "row": row,
                        "column": col,
                        "paper": ref,
                        "ours": value,
                        "delta": delta,
                        "within": None if delta is None else abs(delta) <= item.tol,
                        "source": run.source,
                        "profile": run.profile,
                        "device": run.device,
                        "data": "stand-in" if link.stand_in else "paper's labels",
                        "chapter": run.chapter,
                        "path": None if path is None else json.dumps(path),
                        "scale": link.scale,
                        "tol": item.tol,
                    }
                )
    return pd.DataFrame(lines, columns=CELL_COLUMNS)


def item_status(item: SeedItem, runs: Sequence[StoredRun]) -> list[dict[str, Any]]:
    """The status of ``item`` for each source that ran one of its chapters (one row "no run" when
    none did): *regenerated* (logged, every paper cell has ours), *partly* (logged, but some paper
    cells lack ours, none is comparable, or ours are stand-in data under the paper's labels), *paper
    only* (the paper stores numbers, no run logged the item), *absent* (neither).

    Book: chapter 11 (Reproducibility report).
    """
    paper = _results(item)
    chapters = {link.chapter for link in item.links}
    by_source: dict[tuple[str, str], list[StoredRun]] = {}
    for run in runs:
        if run.chapter in chapters:
            by_source.setdefault((run.source, run.profile), []).append(run)
    rows = []
    for (source, profile), group in sorted(by_source.items()) or [(("no run", ""), [])]:
        logged = any(
            _logged(run.metrics, link)
            for run in group
            for link in item.links
            if link.chapter == run.chapter
        )
        cells = compare_item(item, group)
        have = int(cells["ours"].notna().sum())
        within = int(cells["within"].eq(True).sum())
        if logged:
            full = have == len(paper) and not any(link.stand_in for link in item.links)
            status = "regenerated" if full else "partly"
        else:
            status = "paper only" if paper else "absent"
        missing = sorted({c for c in cells.loc[cells["ours"].isna(), "column"]})
        rows.append(
            {
                "seed": item.seed,
                "item": item.item,
                "title": item.title,
                "status": status,
                "source": source,
                "profile": profile,
                "device": ", ".join(sorted({r.device for r in group})),
                "paper cells": len(paper),
                "ours": have,
                "within tol": within,
                "tol": item.tol,
                "missing columns": ", ".join(missing[:8]) + (" ..." if len(missing) > 8 else ""),
                "why": ""
                if status == "regenerated" and not item.why
                else item.why or _NO_WHY[status],
            }
        )
    return rows


_NO_WHY = {
    "regenerated": "",
    "partly": "see the chapter",
    "paper only": "no run of its chapter here",
    "absent": "no numbers in the seed and no run here",
}


def status_table(runs: Sequence[StoredRun], items: Iterable[SeedItem] = SEED_ITEMS) -> pd.DataFrame:
    """:func:`item_status` for every published item (default: the whole registry), one frame.

    Book: chapter 11 (Reproducibility report).
    """
    return pd.DataFrame([row for item in items for row in item_status(item, runs)])


def all_cells(runs: Sequence[StoredRun], items: Iterable[SeedItem] = SEED_ITEMS) -> pd.DataFrame:
    """:func:`compare_item` for every published item, one frame (the cells of the ours-vs-paper
    figure).

    Book: chapter 11 (Reproducibility report).
    """
    frames = [compare_item(item, runs) for item in items]
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=CELL_COLUMNS)


def claim_verdicts(
    results_dir: str | Path,
    profile: str,
    committed_dir: str | Path | None = None,
) -> pd.DataFrame:
    """Every claim verdict by id with its ``seed``, ``source`` (``build`` / ``committed``) and
    profile: the book's runs of ``profile`` and every committed run, never pooled (chapter 11 itself
    left out).

    Book: chapter 11 (Reproducibility report).
    """
    frames = []
    committed = Path(committed_dir or COMMITTED_DIR).expanduser()
    profiles = sorted({p.parent.name for p in committed.glob("*/*/metrics.json")})
    for source, root, prof in [
        ("build", results_dir, profile),
        *(("committed", committed, p) for p in profiles),
    ]:
        claims = collect_claims(root, prof)
        claims = claims[claims["chapter"] != "11_reproducibility"].copy()
        claims.insert(0, "profile", prof)
        claims.insert(0, "source", source)
        claims.insert(0, "seed", claims["chapter"].map(CHAPTER_SEED).fillna("(machine)"))
        frames.append(claims)
    return pd.concat(frames, ignore_index=True)


def _count(column: pd.Series, value: bool | None) -> int:
    return sum(v is value for v in column.tolist())


def paper_summary(
    statuses: pd.DataFrame, cells: pd.DataFrame, claims: pd.DataFrame
) -> pd.DataFrame:
    """One line per (seed, source, profile): items by status, paper cells, cells we have and cells
    within tolerance, and the strict claims holding / failing / not testable, with the weaker forms
    that hold.

    Book: chapter 11 (Reproducibility report).
    """
    seeds = sorted(p.stem for p in PAPER_DIR.glob("*.json"))
    keys = sorted(
        {
            (s, src, prof)
            for s, src, prof in statuses[["seed", "source", "profile"]].itertuples(index=False)
            if src != "no run"
        }
        | {
            (s, src, prof)
            for s, src, prof in claims[["seed", "source", "profile"]].itertuples(index=False)
            if s in seeds
        }
    )
    rows = []
    for seed, source, profile in keys:
        st = statuses[
            (statuses["seed"] == seed)
            & (statuses["source"] == source)
            & (statuses["profile"] == profile)
        ]
        seen = set(st["item"])
        rest = statuses[(statuses["seed"] == seed) & ~statuses["item"].isin(seen)]
        rest = rest.drop_duplicates("item")
        counts = pd.concat([st, rest])["status"].value_counts()
        ce = cells[
            (cells["seed"] == seed) & (cells["source"] == source) & (cells["profile"] == profile)
        ]
        cl = claims[
            (claims["seed"] == seed) & (claims["source"] == source) & (claims["profile"] == profile)
        ]
        rows.append(
            {
                "paper": seed,
                "source": source,
                "profile": profile,
                **{s: int(counts.get(s, 0)) for s in STATUSES},
                "cells compared": int(ce["ours"].notna().sum()),
                "within tolerance": int(ce["within"].eq(True).sum()),
                "claims": len(cl),
                "hold": _count(cl["holds"], True),
                "fail": _count(cl["holds"], False),
                "not testable": _count(cl["holds"], None),
                "weaker hold": _count(cl["weaker holds"], True),
            }
        )
    columns = [
        "paper",
        "source",
        "profile",
        *STATUSES,
        "cells compared",
        "within tolerance",
        "claims",
        "hold",
        "fail",
        "not testable",
        "weaker hold",
    ]
    return pd.DataFrame(rows, columns=columns)
