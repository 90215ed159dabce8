"""pyproject.toml declares what xsent_lib imports, and requirements.txt (the exact lock) pins only what is declared.

`pip install .` must give a package that imports: every third-party module the library imports at module
level is a runtime dependency; one imported only inside a function (notebook helpers) may come from an extra.
Every runtime dependency is imported somewhere (or listed in NOT_IMPORTED with the reason), and every
exact pin of requirements.txt is a declared dependency or extra whose range it satisfies.
"""
from __future__ import annotations

import ast
import re
import sys
from functools import cache
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
import tomllib
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
# Runtime dependencies the library needs without importing them by name.
NOT_IMPORTED = {"pyarrow": "pandas.read_parquet's engine for the GloVe word index (data.corpora.vectors)"}
# Import names whose distribution is not installed in every environment where the test runs.
KNOWN = {"faiss": "faiss-cpu", "sklearn": "scikit-learn", "yaml": "pyyaml", "IPython": "ipython"}


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _names(reqs: list[str]) -> dict[str, Requirement]:
    return {canonicalize_name(r.name): r for r in map(Requirement, reqs)}


@cache
def _library_imports() -> dict[str, bool]:
    """Third-party top-level module -> True if some module imports it at module level (not in a function)."""
    found: dict[str, bool] = {}
    for path in sorted((ROOT / "xsent_lib").rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        lazy = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                for n in ast.walk(f) if n is not f}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                mods = [node.module]
            else:
                continue
            for mod in mods:
                top = mod.split(".")[0]
                if top in sys.stdlib_module_names or top in ("xsent_lib", "__future__"):
                    continue
                found[top] = found.get(top, False) or id(node) not in lazy
    return found


@cache
def _installed() -> dict[str, list[str]]:
    return packages_distributions()


def _distribution(module: str) -> str:
    dists = _installed().get(module) or [KNOWN.get(module, module)]
    return canonicalize_name(dists[0])


def test_every_third_party_import_is_declared():
    project = _project()
    runtime = _names(project["dependencies"])
    extras = {name: _names(reqs) for name, reqs in project["optional-dependencies"].items()}
    assert {"book", "test"} <= set(extras)
    for module, eager in _library_imports().items():
        dist = _distribution(module)
        if eager:
            assert dist in runtime, f"xsent_lib imports {module} at module level: declare {dist} in dependencies"
        else:
            where = [name for name, reqs in extras.items() if dist in reqs]
            assert dist in runtime or where, f"xsent_lib imports {module}: declare {dist} in dependencies or an extra"


def test_every_runtime_dependency_is_imported():
    imported = {_distribution(m) for m in _library_imports()}
    unused = set(_names(_project()["dependencies"])) - imported - set(NOT_IMPORTED)
    assert not unused, f"declared runtime dependencies that xsent_lib never imports: {sorted(unused)}"


def test_torch_is_a_range_not_an_exact_pin():
    torch = _names(_project()["dependencies"])["torch"]
    assert "2.13.0" in torch.specifier and "2.99" in torch.specifier and "3.0" not in torch.specifier


def test_requirements_lock_pins_only_declared_packages_inside_their_ranges():
    project = _project()
    declared = _names(project["dependencies"])
    for reqs in project["optional-dependencies"].values():
        declared.update(_names(reqs))
    lines = [ln.split("#")[0].strip() for ln in (ROOT / "requirements.txt").read_text().splitlines()]
    pins = [Requirement(ln) for ln in lines if ln]
    assert pins and all(re.fullmatch(r"==[^,*]+", str(p.specifier)) for p in pins), "requirements.txt is an exact lock"
    for pin in pins:
        name = canonicalize_name(pin.name)
        assert name in declared, f"requirements.txt pins {pin.name}, which pyproject.toml does not declare (unused?)"
        version = str(pin.specifier).removeprefix("==")
        assert declared[name].specifier.contains(version, prereleases=True), \
            f"the lock's {pin} is outside pyproject's range {declared[name]}"
    missing = set(declared) - {canonicalize_name(p.name) for p in pins}
    assert not missing, f"declared but not in the lock that `make` installs: {sorted(missing)}"


@pytest.mark.parametrize("module", sorted(NOT_IMPORTED))
def test_not_imported_exceptions_are_still_declared(module):
    assert module in _names(_project()["dependencies"])
