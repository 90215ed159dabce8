"""A machine that has never run the project: the README's test command fetches what it needs, and CI starts from
an empty data cache, no venv and no build folder, so a missing install or fetch step fails CI instead of a reader.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _dry_run(target: str) -> list[str]:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    # -B: as if nothing were built yet (a fresh clone); -n: print the commands only
    proc = subprocess.run(["make", "-nB", target], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def test_make_test_fetches_the_smoke_data_before_the_tests():
    lines = _dry_run("test")
    fetch = next(i for i, line in enumerate(lines) if "xsent-data fetch --profile smoke" in line)
    pytest_line = next(i for i, line in enumerate(lines) if "-m pytest" in line)
    assert fetch < pytest_line
    assert any("pip install" in line and "requirements.txt" in line for line in lines[:fetch])


def test_make_book_fetches_a_profile_that_includes_the_smoke_data():
    from xsent_lib.data.catalogue import CATALOGUE

    assert any("xsent-data fetch --profile book" in line for line in _dry_run("book"))
    smoke = {d.name for d in CATALOGUE.select(profile="smoke")}
    assert smoke and smoke <= {d.name for d in CATALOGUE.select(profile="book")}


def test_ci_runs_the_readme_test_command_on_an_empty_cache_without_leftovers():
    script = (ROOT / ".ci" / "run").read_text()
    lines = [line.strip() for line in script.splitlines() if line.strip() and not line.strip().startswith("#")]
    run = lines.index("make test")
    assert any(line.startswith("XSENT_DATA_CACHE=\"$(mktemp -d") for line in lines[:run])
    assert "export XSENT_DATA_CACHE" in lines[:run]
    assert "rm -rf .venv _build" in lines[:run]
    readme = (ROOT / "README.md").read_text()
    assert "make test   #" in readme, "the README's test command must be the one CI runs"
