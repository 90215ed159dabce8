"""Every chapter reruns from the repository root exactly as the README says, offline, in the smoke profile.

``papermill notebooks/<chapter>.ipynb out.ipynb -p profile smoke ...`` is run with the root as working folder
(where a reader types it) and the network cut off (``unshare -n``, loopback only); the chapter's path
defaults must not depend on that folder, and a relative ``results_dir`` is read against it. These reruns
pass no ``data_dir`` (the stand-ins' path); the smoke book build in ``tests/test_book_build.py`` passes a
fixture ``data_dir`` in the papers' layouts (``tools/make_fixture_data.py``) to every chapter and checks the
real-data paths (``tests/chapter_data.py``), so each chapter runs twice in the slow suite: once each way.
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
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PAPERMILL = Path(sys.executable).with_name("papermill")


def _offline_prefix() -> list[str]:
    """``unshare -n`` with loopback up (the kernel talks to papermill over 127.0.0.1), when we may."""
    if shutil.which("unshare") and shutil.which("ip") and subprocess.run(
            ["unshare", "-n", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "offline"]
    pytest.skip("cannot cut the network here (unshare -n needs root): the offline rerun is not checked")


@pytest.mark.slow
@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.stem)
def test_chapter_reruns_from_the_root_offline(nb_path: Path, tmp_path: Path):
    results = tmp_path / "results"
    rel_results = os.path.relpath(results, ROOT)  # relative on purpose: read against the caller's folder
    out = tmp_path / "out.ipynb"
    env = {k: v for k, v in os.environ.items() if k != "XSENT_PROFILE"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    cmd = [*_offline_prefix(), str(PAPERMILL), f"notebooks/{nb_path.name}", str(out), "-p", "profile", "smoke",
           "-p", "device", "auto", "-p", "seed", "1234", "-p", "results_dir", rel_results,
           "--execution-timeout", "600", "--no-progress-bar"]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, f"{nb_path.stem} failed when rerun from the root:\n{proc.stderr[-5000:]}"
    run_dir = results / nb_path.stem / "smoke"
    metrics = json.loads((run_dir / "metrics.json").read_text())
    provenance = json.loads((run_dir / "provenance.json").read_text())
    assert metrics, f"{nb_path.stem} logged no metrics"
    assert provenance["profile"] == "smoke" and provenance["params"]["profile"] == "smoke"
    assert provenance["params"]["results_dir"] == str(results.resolve())
    assert provenance["seed"] == 1234 and provenance["wall_time_s"] > 0
    assert provenance["xsent_lib_version"] and provenance["commit"] and provenance["device"].startswith("cpu")
    assert provenance["library_modules"], "ch.finish() must record the library modules the run imported"
    assert not (ROOT / "results").exists() or (ROOT / "results").is_dir()
    sources = provenance.get("data_sources")
    assert sources is None or sources["data_dir"] is None, f"{nb_path.stem} read a data_dir it was not given"


def test_path_defaults_do_not_depend_on_the_working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from xsent_lib.chapter import DEFAULT_RESULTS_DIR, REPO_ROOT, resolve_path

    monkeypatch.chdir(tmp_path)
    assert resolve_path(None, DEFAULT_RESULTS_DIR) == REPO_ROOT / "_build" / "results"
    assert resolve_path(None) is None
    assert resolve_path("res") == tmp_path.resolve() / "res"
    assert resolve_path(str(tmp_path / "abs")) == tmp_path.resolve() / "abs"


def test_parameters_cells_have_no_relative_path_defaults():
    import nbformat

    for nb_path in NOTEBOOKS:
        cell = next(c for c in nbformat.read(nb_path, as_version=4).cells if c.cell_type == "code")
        assert "parameters" in cell.metadata.get("tags", []), nb_path.name
        scope: dict[str, object] = {}
        exec(cell.source, scope)  # noqa: S102 - our own parameters cell: plain assignments
        for name in ("results_dir", "data_dir"):
            assert scope.get(name) is None, f"{nb_path.name}: {name} must default to None (resolved by start_chapter)"
