"""Static checks of the book: chapter contract, table of contents, pins, no committed outputs."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
REQUIRED_PARAMETERS = ("profile", "device", "seed", "data_dir", "results_dir")


def _toc_files() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    found = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                found.append(node["file"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc.get("parts", []))
    return found


def test_there_are_chapters():
    assert NOTEBOOKS, "notebooks/ holds no chapter"


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_has_no_outputs(nb_path: Path):
    nb = json.loads(nb_path.read_text())
    dirty = [i for i, c in enumerate(nb["cells"])
             if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))]
    assert not dirty, f"{nb_path.name}: cells {dirty} carry outputs; strip them before committing"


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.name)
def test_first_code_cell_is_the_parameters_cell(nb_path: Path):
    nb = json.loads(nb_path.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code, f"{nb_path.name} has no code"
    first = code[0]
    assert "parameters" in first.get("metadata", {}).get("tags", []), \
        f"{nb_path.name}: the first code cell must be tagged 'parameters' (papermill)"
    src = "".join(first["source"])
    for name in REQUIRED_PARAMETERS:
        assert re.search(rf"^{name}\s*=", src, re.M), f"{nb_path.name}: parameters cell lacks '{name} = ...'"
    assert re.search(r'^profile\s*=\s*"book"', src, re.M), f"{nb_path.name}: the default profile must be 'book'"
    assert re.search(r'^device\s*=\s*"auto"', src, re.M), f"{nb_path.name}: the default device must be 'auto'"


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.name)
def test_chapter_follows_the_library_contract(nb_path: Path):
    """A chapter starts its run through the library, finishes it, and never defines models itself."""
    nb = json.loads(nb_path.read_text())
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert "start_chapter(" in code and "ch.finish()" in code, f"{nb_path.name}: use start_chapter / ch.finish"
    assert not re.search(r"class \w+\((nn\.Module|torch\.nn\.Module)\)", code), \
        f"{nb_path.name} defines a torch module; models live in xsent_lib"
    assert ".cuda()" not in code, f"{nb_path.name}: bare .cuda(); let the library pick the device"
    markdown = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert "## Exercises" in markdown, f"{nb_path.name}: a chapter ends with exercises"


def test_every_toc_entry_exists():
    for entry in _toc_files():
        candidates = [ROOT / (entry + ext) for ext in ("", ".md", ".ipynb")]
        assert any(p.is_file() for p in candidates), f"_toc.yml names {entry}, which does not exist"


def test_every_chapter_is_in_the_toc():
    listed = set(_toc_files())
    for nb_path in NOTEBOOKS:
        assert f"notebooks/{nb_path.stem}" in listed, f"{nb_path.name} is not in _toc.yml"


def test_requirements_are_pinned_exactly():
    lines = [l.strip() for l in (ROOT / "requirements.txt").read_text().splitlines()
             if l.strip() and not l.startswith("#")]
    assert all("==" in l for l in lines), [l for l in lines if "==" not in l]
    pins = dict(l.split("==") for l in lines)
    assert pins["jupyter-book"].startswith("1."), "jupyter-book 2 is another tool"
    assert pins["torch"] == "2.13.0", "torch must stay the local CPU wheel"


def test_vendored_assets_live_outside_static():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    sphinx = config["sphinx"]["config"]
    assert not sphinx["mathjax_path"].startswith("http")
    assert all(not k.startswith("http") for k in sphinx["nb_ipywidgets_js"])
    assert all("_static" not in p for p in sphinx["html_static_path"])


def test_shared_book_lint_passes(shared_dir):
    lint = shared_dir / "checks" / "book_lint.py"
    if not lint.exists():
        pytest.skip(f"{lint} does not exist")
    proc = subprocess.run([sys.executable, str(lint)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
