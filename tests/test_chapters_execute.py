"""Every chapter reruns from the repository root exactly as the README says, offline, in the smoke profile, and
reads the real data it is given.

``papermill notebooks/<chapter>.ipynb out.ipynb -p profile smoke ...`` is run with the root as working folder
(where a reader types it) and the network cut off (``unshare -n``, loopback only); the chapter's path
defaults must not depend on that folder, and a relative ``results_dir`` is read against it. A chapter that
can read real data gets a fixture ``data_dir`` in the papers' layouts (``tools/make_fixture_data.py``) and its
provenance must list the data sets it read with their files' sizes and sha256. (Without ``data_dir`` every
chapter runs in ``tests/test_book_build.py``'s smoke build, so each chapter runs twice in the slow suite, not
three times.)
"""
from __future__ import annotations

import hashlib
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
sys.path.insert(0, str(ROOT / "tools"))

#: chapter -> the data sets its smoke run must read from the fixture data_dir (status "real" in provenance)
CHAPTER_USES: dict[str, tuple[str, ...]] = {
    "01_data": ("snli", "multinli", "senteval", "probing", "xnli", "xnli-mt", "muse-en-fr", "bucc"),
    "02_senteval": ("senteval", "glove-840b", "fasttext-crawl"),
    "03_infersent": ("snli", "senteval", "glove-840b"),
    "04_probing": ("probing", "senteval", "bitext", "monolingual"),  # smoke trains no NLI encoder: snli unused
    "05_muse": ("fasttext-en", "fasttext-fr", "fasttext-de", "muse-en-fr", "muse-en-de", "bitext"),
    "06_xnli": ("xnli", "xnli-mt"),
    "07_aldarmaki": ("bitext",),
    "08_wieting": ("sts", "bucc"),
    "09_wang": ("monolingual", "bitext", "xnli", "xnli-mt"),
    "10_xlm": ("xnli", "xnli-mt"),
}


@pytest.fixture(scope="module")
def fixture_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import make_fixture_data

    return make_fixture_data.build(tmp_path_factory.mktemp("papers") / "data")


def _check_real_data(stem: str, run_dir: Path, out: Path, fixture_data: Path) -> None:
    """The chapter's provenance lists every data set of ``CHAPTER_USES[stem]`` as read, with exact checksums,
    and its first output lines say what it found."""
    import nbformat

    sources = json.loads((run_dir / "provenance.json").read_text())["data_sources"]
    assert sources["data_dir"] == str(fixture_data.resolve())
    for name in CHAPTER_USES[stem]:
        assert sources["datasets"][name]["status"] == "real", f"{stem} did not read {name}: {sources['datasets'][name]}"
    assert sources["files"], f"{stem} lists no file read from data_dir"
    for f in sources["files"]:
        path = fixture_data / f["path"]
        assert f["bytes"] == path.stat().st_size
        assert f["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    nb = nbformat.read(out, as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code" and "start_chapter(" in c.source)
    text = "".join(o.get("text", "") for o in first.outputs if o.get("output_type") == "stream")
    assert f"data_dir: {fixture_data.resolve()}" in text
    assert all(f"found    {name}:" in text for name in CHAPTER_USES[stem])


def _offline_prefix() -> list[str]:
    """``unshare -n`` with loopback up (the kernel talks to papermill over 127.0.0.1), when we may."""
    if shutil.which("unshare") and shutil.which("ip") and subprocess.run(
            ["unshare", "-n", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "offline"]
    pytest.skip("cannot cut the network here (unshare -n needs root): the offline rerun is not checked")


@pytest.mark.slow
@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.stem)
def test_chapter_reruns_from_the_root_offline(nb_path: Path, tmp_path: Path, request: pytest.FixtureRequest):
    data = request.getfixturevalue("fixture_data") if nb_path.stem in CHAPTER_USES else None
    results = tmp_path / "results"
    rel_results = os.path.relpath(results, ROOT)  # relative on purpose: read against the caller's folder
    out = tmp_path / "out.ipynb"
    env = {k: v for k, v in os.environ.items() if k != "XSENT_PROFILE"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    cmd = [*_offline_prefix(), str(PAPERMILL), f"notebooks/{nb_path.name}", str(out), "-p", "profile", "smoke",
           "-p", "device", "auto", "-p", "seed", "1234", "-p", "results_dir", rel_results,
           *(["-p", "data_dir", str(data)] if data else []), "--execution-timeout", "600", "--no-progress-bar"]
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
    if data is not None:
        _check_real_data(nb_path.stem, run_dir, out, data)


def test_every_chapter_that_reads_data_dir_is_checked_with_it():
    for nb_path in NOTEBOOKS:
        if "uses=(" in nb_path.with_suffix(".md").read_text():
            assert nb_path.stem in CHAPTER_USES, f"{nb_path.stem} declares real data sets: add it to CHAPTER_USES"


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
