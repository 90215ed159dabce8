"""Gather every chapter run of a profile into one report: provenance per run, and the papers' claims
tested.

Book: chapter 11 (Reproducibility report).
"""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

_RUN_COLUMNS = ["chapter", "profile", "commit", "xsent_lib_version", "xsent_lib_hash", "device",
                "torch", "seed", "wall_time_s", "timestamp_utc", "metrics", "real_data"]
_CLAIM_COLUMNS = ["chapter", "id", "claim", "paper", "ours", "holds", "weaker id", "weaker",
                  "weaker holds", "verdict"]


def _runs(results_dir: str | Path, profile: str):
    root = Path(results_dir).expanduser()
    for prov_path in sorted(root.glob(f"*/{profile}/provenance.json")):
        metrics_path = prov_path.with_name("metrics.json")
        metrics = json.loads(metrics_path.read_text()) if metrics_path.exists() else {}
        yield json.loads(prov_path.read_text()), metrics


def collect_runs(results_dir: str | Path, profile: str) -> pd.DataFrame:
    """One row per finished chapter run of ``profile`` under ``results_dir``: who produced it,
    where, how long, and which of the papers' real data sets it read from ``data_dir``
    (``real_data``; "" for stand-ins only).

    Book: chapter 11 (Reproducibility report).
    """
    rows = []
    for prov, metrics in _runs(results_dir, profile):
        row = {k: prov.get(k) for k in _RUN_COLUMNS if k not in ("metrics", "real_data")}
        row["metrics"] = len(metrics)
        sets = (prov.get("data_sources") or {}).get("datasets", {})
        row["real_data"] = ", ".join(n for n, st in sets.items() if st.get("status") == "real")
        rows.append(row)
    return pd.DataFrame(rows, columns=_RUN_COLUMNS)


def collect_claims(results_dir: str | Path, profile: str) -> pd.DataFrame:
    """Every claims list logged by a chapter (under ``claims`` or a key ending in ``_claims``, e.g.
    chapter 7's ``real_claims``; each row ``id``, ``claim``, ``paper``, ``ours``, ``holds``: the
    strict verdict, ``weaker``, ``weaker holds``, ``verdict`` where the chapter logged them), with
    its chapter; the claims that compare timings (kept under ``timings`` by
    :meth:`~xsent_lib.results.store.Run.log`) come after the others.

    Book: chapter 11 (Reproducibility report).
    """
    rows = []
    for prov, metrics in _runs(results_dir, profile):
        timings = metrics.get("timings") or {}
        lists = [(k, v) for part in (metrics, timings) for k, v in part.items()
                 if k == "claims" or k.endswith("_claims")]
        for key, claims in lists:
            if not isinstance(claims, list):
                raise ValueError(f"{prov.get('chapter')}: {key!r} must be a list of dicts, got "
                                 f"{type(claims).__name__}.")
            for claim in claims:
                if claim is None:  # a place in a list whose row was a result, not a timing
                    continue
                missing = {"claim", "holds"} - set(claim)
                if missing:
                    raise ValueError(f"{prov.get('chapter')}: a claim lacks {sorted(missing)}: "
                                     f"{claim}")
                rows.append({"chapter": prov.get("chapter"),
                             **{k: claim.get(k) for k in _CLAIM_COLUMNS[1:]}})
    return pd.DataFrame(rows, columns=_CLAIM_COLUMNS)


def claim_tally(claims: pd.DataFrame) -> pd.DataFrame:
    """Per chapter: how many strict claims hold, fail and are not testable here (data absent), of
    how many; and how many claims have a weaker form and how many of those hold. Every claim is
    counted: none is dropped for lack of a number.

    Book: chapter 11 (Reproducibility report).
    """
    columns = ["chapter", "claims", "hold", "fail", "not testable", "weaker forms", "weaker hold"]
    rows = []
    for chapter, group in claims.groupby("chapter", sort=True):
        strict = group["holds"].tolist()
        weak = group["weaker holds"].tolist() if "weaker holds" in group else []
        has_weak = group["weaker"].fillna("").astype(bool).tolist() if "weaker" in group else []
        rows.append({"chapter": chapter, "claims": len(strict),
                     "hold": sum(v is True for v in strict),
                     "fail": sum(v is False for v in strict),
                     "not testable": sum(v is None for v in strict), "weaker forms": sum(has_weak),
                     "weaker hold": sum(v is True for v in weak)})
    return pd.DataFrame(rows, columns=columns).set_index("chapter")
