"""The library's layers hold (import-linter contracts in pyproject.toml) and the code is lint-clean (ruff)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def test_import_contracts_are_kept():
    proc = subprocess.run([str(BIN / "lint-imports"), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, "an import goes against the layers of pyproject.toml:\n" + proc.stdout[-4000:]


def test_ruff_is_clean():
    proc = subprocess.run([str(BIN / "ruff"), "check", "--no-cache", "xsent_lib", "tests", "benchmarks", "tools"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:]
