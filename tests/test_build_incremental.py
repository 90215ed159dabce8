"""The book build re-executes only the chapters whose inputs changed.

Each chapter is keyed on the xsent_lib modules its own run imported (recorded in provenance.json by
``ch.finish()``), its code, requirements.txt and the profile. Built once (smoke, two chapters, no HTML, in
a copy of the repository), then ``xsent_lib/viz/muse.py`` (imported by chapter 5 only) is edited:
the rebuild executes chapter 5 again and reuses chapter 0.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
CHAPTERS = "00_how_to_run,05_muse"
TOUCHED = "viz/muse.py"


def _copy_repo(dest: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.splitlines()
    for rel in files:
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


def _build(repo: Path, out: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"XSENT_PROFILE", "PYTHONPATH"}}
    proc = subprocess.run([sys.executable, str(repo / "tools" / "build_book.py"), "--profile", "smoke", "--out", str(out),
                           "--chapters", CHAPTERS, "--no-html"], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=1800)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return json.loads((out / "_build" / "exec" / "smoke" / "last_build.json").read_text())


@pytest.mark.slow
def test_editing_one_module_reexecutes_only_the_chapter_that_imports_it(tmp_path: Path):
    repo = _copy_repo(tmp_path / "repo")
    out = tmp_path / "out"
    first = _build(repo, out)
    assert first["00_how_to_run"] == "executed" and first["05_muse"] == "executed", first
    exec_dir = out / "_build" / "exec" / "smoke"
    mods = {s: json.loads((exec_dir / f"{s}.key.json").read_text())["library_modules"] for s in CHAPTERS.split(",")}
    assert TOUCHED in mods["05_muse"] and TOUCHED not in mods["00_how_to_run"], mods
    assert _build(repo, out) == {**first, "00_how_to_run": "reused", "05_muse": "reused"}
    with open(repo / "xsent_lib" / TOUCHED, "a") as fh:
        fh.write("\n# edited by test_build_incremental\n")
    third = _build(repo, out)
    assert third["00_how_to_run"] == "reused" and third["05_muse"] == "executed", third


def test_toc_lists_every_chapter_notebook():
    from build_book import toc_chapters

    assert sorted(toc_chapters()) == sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
