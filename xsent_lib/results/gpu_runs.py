"""The committed GPU-profile runs of the chapters: read them, set them beside this run, extrapolate
``full``.

``benchmarks/run_chapters_on_gpu.sh`` runs chapters at the ``gpu`` profile on a lent GPU and the
results are committed under ``book/runs/<chapter>/gpu/`` in the layout of ``_build/results``
(``metrics.json``, ``provenance.json``, ``runner.json``, ``output.txt``, ``figures/``). A chapter
shows that run beside its own: which GPU, commit and date, how long it took, its tables and figures,
and each claim's verdict at both sizes (:func:`claims_beside`). :func:`full_estimate` says what
``full`` would cost on that GPU, scaled from the measured run by the recipe's work count of each
plan (a linear extrapolation, labelled as one).
Book: chapter 11 (Reproducibility report).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any

import pandas as pd

#: where the committed runs live: ``<repository>/book/runs/<chapter>/<profile>/``
RUNS_DIR = Path(__file__).resolve().parents[2] / "book" / "runs"
RUNNER = "benchmarks/run_chapters_on_gpu.sh"


@dataclass(frozen=True)
class CommittedRun:
    """One committed run of a chapter: its metrics, provenance, the runner's record and its figures.

    Book: chapter 11 (Reproducibility report).
    """

    chapter: str
    profile: str
    directory: Path
    metrics: dict[str, Any]
    provenance: dict[str, Any]
    runner: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> str:
        """``ok``, ``failed`` or ``timed out`` (the runner's word; ``ok`` for a run that finished
        without one).

        Book: chapter 11 (Reproducibility report).
        """
        return str(self.runner.get("status", "ok" if self.provenance else "failed"))

    @property
    def seconds(self) -> float | None:
        """The run's wall time (the runner's, else provenance's).

        Book: chapter 11 (Reproducibility report).
        """
        value = self.runner.get("seconds", self.provenance.get("wall_time_s"))
        return None if value is None else float(value)

    @property
    def device(self) -> str:
        """The GPU (or device) it ran on. Book: chapter 11 (Reproducibility report)."""
        gpu = (self.runner.get("machine") or {}).get("gpu")
        return str(gpu or self.provenance.get("device") or "unknown device")

    @property
    def label(self) -> str:
        """``<GPU> · commit <sha> · <date> · <profile> profile · <seconds> s (<status>)``.

        Book: chapter 11 (Reproducibility report).
        """
        commit = self.runner.get("commit") or self.provenance.get("commit") or "unknown commit"
        date = str(self.provenance.get("timestamp_utc") or self.runner.get("date") or "undated")[
            :10
        ]
        took = "?" if self.seconds is None else f"{self.seconds:.0f}"
        return (
            f"{self.device} · commit {commit} · {date} · '{self.profile}' profile · {took} s "
            f"({self.status})"
        )

    @property
    def figures(self) -> list[Path]:
        """The PNG figures the run saved, in order. Book: chapter 11 (Reproducibility report)."""
        return sorted((self.directory / "figures").glob("*.png"))

    def table(self, key: str) -> pd.DataFrame | None:
        """The run's logged table ``key`` (records or a dict of rows), or None when absent.

        Book: chapter 11 (Reproducibility report).
        """
        value = self.metrics.get(key)
        if isinstance(value, list) and value and all(isinstance(r, dict) for r in value):
            return pd.DataFrame(value)
        if isinstance(value, dict) and value and all(isinstance(r, dict) for r in value.values()):
            return pd.DataFrame(value).T
        return None


def _read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text()) if path.is_file() else {}


def committed_run(
    chapter: str, profile: str = "gpu", runs_dir: str | Path | None = None
) -> CommittedRun | None:
    """The committed run ``runs_dir/<chapter>/<profile>/`` (default ``book/runs``), or None.

    Book: chapter 11 (Reproducibility report).
    """
    directory = Path(runs_dir if runs_dir is not None else RUNS_DIR) / chapter / profile
    if not (directory / "metrics.json").is_file() and not (directory / "runner.json").is_file():
        return None
    return CommittedRun(
        chapter,
        profile,
        directory,
        _read(directory / "metrics.json"),
        _read(directory / "provenance.json"),
        _read(directory / "runner.json"),
    )


def absent_line(chapter: str, profile: str = "gpu") -> str:
    """The one line a chapter prints when no run of ``profile`` is committed.

    Book: chapter 11 (Reproducibility report).
    """
    return (
        f"No '{profile}'-profile run of {chapter} is committed "
        f"(book/runs/{chapter}/{profile}/ is empty): "
        f"{RUNNER} {chapter} on a GPU machine makes one."
    )


def _verdict(claim: dict[str, Any]) -> str:
    if claim.get("verdict"):
        return str(claim["verdict"])
    holds = claim.get("holds")
    return "n/a" if holds is None else ("holds" if holds else "fails")


def claims_beside(
    ours: list[dict[str, Any]] | None, other: CommittedRun, ours_label: str
) -> pd.DataFrame:
    """Each claim's verdict in this run and in the committed run, and whether it changes with scale.

    Book: chapter 11 (Reproducibility report).
    """
    mine = {c["id"]: c for c in (ours or []) if isinstance(c, dict) and "id" in c}
    theirs = {
        c["id"]: c for c in other.metrics.get("claims") or [] if isinstance(c, dict) and "id" in c
    }
    rows = []
    for cid in list(mine) + [c for c in theirs if c not in mine]:
        a, b = mine.get(cid), theirs.get(cid)
        va = _verdict(a) if a else "not run"
        vb = _verdict(b) if b else "not run"
        rows.append(
            {
                "id": cid,
                "claim": (a or b or {}).get("claim", ""),
                ours_label: va,
                f"{other.profile} ({other.device})": vb,
                "changes with scale": "yes" if a and b and va != vb else "",
            }
        )
    return pd.DataFrame(rows)


def full_estimate(
    run: CommittedRun | None,
    *,
    work_run: float | None,
    work_full: float,
    unit: str,
    benchmark: tuple[float, str] | None = None,
) -> str:
    """One computed line: ``full``'s estimated GPU hours.

    From the committed run when there is one that finished: its seconds times ``work_full /
    work_run`` (the recipe's count of ``unit`` in each plan; a linear extrapolation). Else from
    ``benchmark`` (``(units per second, where it was measured)``, a committed GPU throughput record)
    when given, else it says the cost is unmeasured.
    Book: chapter 11 (Reproducibility report).
    """
    counted = f"full's plan counts {work_full:.3g} ({unit})"
    if run is not None and run.status == "ok" and run.seconds and work_run:
        hours = run.seconds * work_full / work_run / 3600
        return (
            f"full: about {hours:.1f} GPU hours on one {run.device}, extrapolated linearly "
            f"from the '{run.profile}' run's {run.seconds:.0f} s: {counted}, "
            f"the run's {work_run:.3g}."
        )
    if benchmark is not None:
        rate, where = benchmark
        return (
            f"full: about {work_full / rate / 3600:.1f} GPU hours at {rate:.3g} per second "
            f"({where}): {counted}; no GPU run of the chapter is committed yet."
        )
    return f"full: GPU hours unmeasured (no GPU run of it committed, no GPU benchmark): {counted}."


def _short(value: Any, width: int = 60) -> str:
    text = str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _diff(a: Any, b: Any, c: Any, name: str, rows: list[dict[str, str]]) -> None:
    """Rows for the settings where ``b`` differs from ``a``; same-type dataclasses are compared
    field by field (``adv.dis_hidden``), anything else whole."""
    if is_dataclass(a) and type(a) is type(b) and not isinstance(a, type):
        for f in fields(a):
            sub = getattr(c, f.name, None) if type(c) is type(a) else None
            _diff(getattr(a, f.name), getattr(b, f.name), sub, f"{name}.{f.name}".lstrip("."), rows)
    elif a != b:
        rows.append({"setting": name, "a": _short(a), "b": _short(b), "c": _short(c)})


def plan_changes(
    plans: Mapping[str, Any], *, base: str = "book", profile: str = "gpu"
) -> pd.DataFrame:
    """The settings in which ``plans[profile]`` differs from ``plans[base]`` (nested plans compared
    field by field, as ``adv.dis_hidden``), with ``full``'s value beside them: what the GPU profile
    changes, read from the plans themselves.

    Book: chapter 11 (Reproducibility report).
    """
    rows: list[dict[str, str]] = []
    _diff(plans[base], plans[profile], plans.get("full"), "", rows)
    frame = pd.DataFrame(rows, columns=["setting", "a", "b", "c"])
    return frame.rename(columns={"a": base, "b": profile, "c": "full"})
