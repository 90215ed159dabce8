"""Each chapter run writes ``results/<chapter>/<profile>/metrics.json`` with ``provenance.json``
beside it.

Tables in the book are rendered from these files, never typed in by hand. Results and timings are
kept apart: every wall time, CPU time and rate goes under the one top-level key ``timings`` (at the
same path as it was logged), so two runs with the same parameters and seed give identical
``metrics.json`` outside ``timings``. A field is a timing when its name says so
(:data:`TIMING_FIELD`: ``seconds``, ``wall_s``, ``sentences_per_s``, ``gflops``, ...) and a record
is one when it is marked ``"timed": True`` (a claim that compares timings).
Book: chapter 0 (How to run this book) and chapter 11 (Reproducibility report).
"""
from __future__ import annotations

import json
import math
import os
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from xsent_lib.base.parallel import worker_cpu_seconds
from xsent_lib.results.provenance import collect_provenance

#: the run sizes, smallest first: CI, the rendered book (2 CPU cores), one GPU in minutes, the
#: papers' scale
PROFILES = ("smoke", "book", "gpu", "full")
#: names of metric fields that hold a time, a rate or the machine's load: the word (micro)seconds
#: anywhere, "per second", a rate such as "sentences/s", a speed-up, a load average, or a name
#: ending in _s, per_s, _ms, flops or throughput
TIMING_FIELD = re.compile(r"(^|[^a-z])(micro|milli)?seconds([^a-z]|$)|per[ _]second"
                          r"|[a-z]/s\b|speed[-_ ]?ups?"
                          r"|load[ _]average|(_s|per_s|_ms|flops|throughput)$", re.IGNORECASE)
TIMINGS_KEY = "timings"
_NOTHING = object()


def split_timings(value: Any) -> tuple[Any, Any]:
    """Split a JSON-ready ``value`` into ``(results, timings)``.

    Fields whose name matches :data:`TIMING_FIELD` and records marked ``"timed": True`` go to the
    timings part, everything else stays. In a list, the timings part is aligned with the list as
    logged (``None`` for an element without timings) and a timed record is taken out of the results
    list. A part with nothing in it is ``None`` (timings) or a missing value (results).
    Book: chapter 11 (Reproducibility report).
    """
    if isinstance(value, dict):
        if value.get("timed") is True:
            return _NOTHING, value
        results, timings = {}, {}
        for key, item in value.items():
            if TIMING_FIELD.search(key):
                timings[key] = item
                continue
            res, tim = split_timings(item)
            if res is not _NOTHING:
                results[key] = res
            if tim is not None:
                timings[key] = tim
        return results, timings or None
    if isinstance(value, list):
        parts = [split_timings(item) for item in value]
        results = [res for res, _ in parts if res is not _NOTHING]
        timings = [tim for _, tim in parts]
        return results, timings if any(t is not None for t in timings) else None
    return value, None


def _jsonable(value: Any) -> Any:
    """Convert numpy / torch scalars and arrays (nested in dicts and lists) into plain JSON
    values."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, torch.Tensor):
        return _jsonable(value.detach().cpu().numpy())
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, np.generic):
        return _jsonable(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"cannot store a {type(value).__name__} in metrics.json; log numbers, strings, "
                    "lists or dicts.")


def merge_timings(results: Any, timings: Any) -> Any:
    """The value as it was logged, from its two parts (the inverse of :func:`split_timings`).

    Book: chapter 11 (Reproducibility report).
    """
    if timings is None:
        return results
    if isinstance(timings, dict) and timings.get("timed") is True:
        return timings
    if isinstance(timings, dict):
        merged = dict(results) if isinstance(results, dict) else {}
        for key, part in timings.items():
            merged[key] = part if TIMING_FIELD.search(key) else merge_timings(merged.get(key), part)
        return merged
    if isinstance(timings, list):
        rest = iter(results if isinstance(results, list) else [])
        return [part if isinstance(part, dict) and part.get("timed") is True
                else merge_timings(next(rest), part)
                for part in timings]
    return timings  # a value logged under a timing name is all timing


@dataclass
class Run:
    """A chapter run in progress: collects metrics, then writes them with their provenance.

    Book: chapter 0 (How to run this book).
    """

    chapter: str
    profile: str
    directory: Path
    params: dict[str, Any]
    seed: int | None = None
    device: str | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    started: float = field(default_factory=time.perf_counter)
    started_cpu: float = field(default_factory=time.process_time)
    started_workers_cpu: float = field(default_factory=worker_cpu_seconds)

    @property
    def metrics_path(self) -> Path:
        return self.directory / "metrics.json"

    @property
    def provenance_path(self) -> Path:
        return self.directory / "provenance.json"

    def log(self, key: str, value: Any) -> Any:
        """Record ``value`` under ``key`` (e.g. ``"table_3_6"``), its timings under ``timings`` (see
        :func:`split_timings`), write metrics.json at once, and return the whole stored value.

        Book: chapter 0 (How to run this book).
        """
        if not isinstance(key, str) or not key:
            raise ValueError("a metric key must be a non-empty string such as 'table_3_6'.")
        if key == TIMINGS_KEY:
            raise ValueError(f"{TIMINGS_KEY!r} is where Run.log puts the timings it finds; log "
                             "them under their own name (e.g. 'wall_seconds') instead.")
        stored = _jsonable(value)
        results, timings = split_timings({key: stored})
        self.metrics.pop(key, None)
        self.metrics.get(TIMINGS_KEY, {}).pop(key, None)
        self.metrics.update(results)
        if timings is not None:
            self.metrics.setdefault(TIMINGS_KEY, {}).update(timings)
        self._write(self.metrics_path, self.metrics)
        return stored

    def log_timing(self, key: str, value: Any) -> Any:
        """Record ``value`` whole under ``timings[key]``: a table of speeds, a load average, a ratio
        of two timings; anything a rerun with the same seed need not reproduce. Returns the stored
        value.

        Book: chapter 0 (How to run this book).
        """
        if not isinstance(key, str) or not key:
            raise ValueError("a timing key must be a non-empty string such as 'table_4'.")
        stored = _jsonable(value)
        self.metrics.pop(key, None)
        self.metrics.setdefault(TIMINGS_KEY, {})[key] = stored
        self._write(self.metrics_path, self.metrics)
        return stored

    def logged(self, key: str) -> Any:
        """The value stored under ``key``, read back from metrics.json with its timings merged in.

        Book: chapter 0 (How to run this book).
        """
        metrics = json.loads(self.metrics_path.read_text())
        if key not in metrics and key not in metrics.get(TIMINGS_KEY, {}):
            raise KeyError(f"{self.metrics_path} holds no {key!r}; logged keys: {sorted(metrics)}.")
        timings = metrics.get(TIMINGS_KEY, {}).get(key)
        return timings if key not in metrics else merge_timings(metrics[key], timings)

    def finish(self, **extra: Any) -> dict[str, Any]:
        """Write provenance.json (commit, versions, device, parameters, wall time and CPU time: this
        process's plus its :func:`~xsent_lib.base.parallel.parallel_map` workers', also apart; on a
        busy machine the wall time grows with the other jobs, the CPU time much less) and return it.

        Book: chapter 0 (How to run this book).
        """
        workers = worker_cpu_seconds() - self.started_workers_cpu
        prov = collect_provenance(self.params, device=self.device, seed=self.seed)
        prov.update(chapter=self.chapter, profile=self.profile,
                    wall_time_s=round(time.perf_counter() - self.started, 3),
                    cpu_time_s=round(time.process_time() - self.started_cpu + workers, 3),
                    worker_cpu_time_s=round(workers, 3),
                    load_average=[round(x, 2) for x in os.getloadavg()], **_jsonable(extra))
        self._write(self.metrics_path, self.metrics)
        self._write(self.provenance_path, prov)
        return prov

    @staticmethod
    def _write(path: Path, payload: dict[str, Any]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n")
        tmp.replace(path)


def _refuse_unwritable(directory: Path, results_dir: str | Path) -> None:
    """Create the run folder and write a test file in it; raise ValueError naming the path when that
    fails."""
    existing = next(p for p in (directory, *directory.parents) if p.exists())
    if existing.is_dir():
        try:
            directory.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryFile(dir=directory):
                return
        except OSError as exc:
            why = f"{exc.strerror or exc}: {exc.filename or directory}"
    else:
        why = f"{existing} is a file, not a folder"
    raise ValueError(f"results_dir={str(results_dir)!r} cannot hold the results ({why}): the run "
                     f"folder {directory} cannot be written; pass results_dir= a folder you can "
                     "write to (for a chapter, results_dir=None writes to "
                     "<repository>/_build/results).")


def start_run(chapter: str, profile: str, results_dir: str | Path, *,
              params: dict[str, Any] | None = None, seed: int | None = None,
              device: str | None = None) -> Run:
    """Open a run of ``chapter`` in ``profile``; its files go to
    ``results_dir/<chapter>/<profile>/``.

    That folder is created and a test file written in it now, so a ``results_dir`` that is a file,
    cannot be written or cannot hold folders (``/proc``) raises ValueError naming it before the run
    does any work.
    Book: chapter 0 (How to run this book).
    """
    if profile not in PROFILES:
        raise ValueError(f"profile={profile!r} is not one of {PROFILES}; 'smoke' is for CI, 'book' "
                         "the default, 'gpu' minutes on one GPU, 'full' the paper scale.")
    if not chapter or "/" in chapter:
        raise ValueError(f"chapter={chapter!r} must be a plain name such as '03_infersent'.")
    directory = Path(results_dir).expanduser().resolve() / chapter / profile
    _refuse_unwritable(directory, results_dir)
    return Run(chapter=chapter, profile=profile, directory=directory, params=dict(params or {}),
               seed=seed, device=None if device is None else str(device))


def load_metrics(chapter: str, profile: str,
                 results_dir: str | Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Read back ``(metrics, provenance)`` of a finished run.

    Book: chapter 11 (Reproducibility report).
    """
    directory = Path(results_dir).expanduser() / chapter / profile
    mpath, ppath = directory / "metrics.json", directory / "provenance.json"
    if not mpath.exists():
        raise FileNotFoundError(f"{mpath} does not exist: run the chapter '{chapter}' with "
                                f"profile='{profile}' and results_dir='{results_dir}' first.")
    metrics = json.loads(mpath.read_text())
    provenance = json.loads(ppath.read_text()) if ppath.exists() else {}
    return metrics, provenance
