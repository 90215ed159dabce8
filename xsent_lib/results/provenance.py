"""Where a number came from: commit, library version and hash, device, versions, parameters.

Book: chapter 11 (Reproducibility report).
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch

import xsent_lib

LIB_ROOT = Path(xsent_lib.__file__).resolve().parent


def library_hash(root: Path = LIB_ROOT) -> str:
    """Return a short sha256 over every ``.py`` and data file of the library (sorted, path-salted).

    The book's execution cache is keyed on it, so a page never shows outputs of an older library.
    Book: chapter 11 (Reproducibility report).
    """
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if (path.is_file() and path.suffix in {".py", ".json", ".txt", ".tsv"}
                and "__pycache__" not in path.parts):
            h.update(path.relative_to(root).as_posix().encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def git_commit(root: Path = LIB_ROOT.parent) -> str:
    """Return the checkout's commit (``<sha>`` or ``<sha>+dirty``), or ``"unknown"`` outside git.
    The environment variable ``XSENT_COMMIT``, when set, wins: a copy of the tree on a lent GPU
    machine can carry other git metadata than the commit it holds (``benchmarks/run_on_gpu.sh`` says
    how it is set).

    Book: chapter 11 (Reproducibility report).
    """
    if os.environ.get("XSENT_COMMIT"):
        return os.environ["XSENT_COMMIT"]
    try:
        sha = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=root,
                             capture_output=True, text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--",
                                "xsent_lib"], cwd=root, capture_output=True, text=True,
                               timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{sha}+dirty" if dirty else sha


def device_description(device: str | torch.device | None = None) -> str:
    """Describe the compute device in words (GPU name, or CPU model and thread count).

    Book: chapter 11 (Reproducibility report).
    """
    dev = torch.device(device) if device is not None else None
    if (dev is None or dev.type == "cuda") and torch.cuda.is_available():
        idx = dev.index if dev is not None and dev.index is not None else 0
        return f"cuda:{idx} {torch.cuda.get_device_name(idx)}"
    cpu = platform.processor() or platform.machine()
    return f"cpu {cpu} ({torch.get_num_threads()} torch threads)"


def collect_provenance(params: dict[str, Any] | None = None, *,
                       device: str | torch.device | None = None,
                       seed: int | None = None) -> dict[str, Any]:
    """Return a JSON-ready record of everything needed to say which run produced a number.

    Book: chapter 11 (Reproducibility report).
    """
    return {
        "commit": git_commit(),
        "xsent_lib_version": xsent_lib.__version__,
        "xsent_lib_hash": library_hash(),
        "device": device_description(device),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "numpy": np.__version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "seed": seed,
        "params": dict(params or {}),
        "timestamp_utc": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }
