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


def test_every_recipe_is_in_the_independence_contract():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    listed = {m for c in contracts if c["type"] == "independence" for m in c["modules"]}
    recipes = ROOT / "xsent_lib" / "recipes"
    found = {f"xsent_lib.recipes.{p.stem if p.is_file() else p.name}" for p in recipes.iterdir()
             if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()}
    assert found == listed, f"list every recipe in the independence contract of pyproject.toml: {sorted(found ^ listed)}"


def test_modules_stay_small():
    """A recipe holds a chapter's plan, calls and claims (~450 lines at most); a library module ~550."""
    lib = ROOT / "xsent_lib"
    sizes = {p.relative_to(lib).as_posix(): len(p.read_text().splitlines()) for p in lib.rglob("*.py")}
    big_recipes = {m: n for m, n in sizes.items() if m.startswith("recipes/") and n > 470}
    big_modules = {m: n for m, n in sizes.items() if n > 575}
    assert not big_recipes, f"recipes over ~450 lines (move method code to its layer): {big_recipes}"
    assert not big_modules, f"library modules over ~550 lines (split them): {big_modules}"
