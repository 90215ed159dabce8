"""Run results and their provenance, and the papers' published numbers as data.

Book: chapter 11 (Reproducibility report); every chapter writes through :func:`start_run`.
"""
from __future__ import annotations

from xsent_lib.results.paper import compare, paper_table, side_by_side
from xsent_lib.results.provenance import collect_provenance, library_hash
from xsent_lib.results.report import claim_tally, collect_claims, collect_runs
from xsent_lib.results.store import Run, load_metrics, start_run

__all__ = ["Run", "claim_tally", "collect_claims", "collect_provenance", "collect_runs", "compare",
           "library_hash", "load_metrics", "paper_table", "side_by_side", "start_run"]
