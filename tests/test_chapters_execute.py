"""Every chapter reruns from the repository root exactly as the README says, offline, in the smoke profile, and
the same seed gives the same numbers.

``papermill notebooks/<chapter>.ipynb out.ipynb -p profile smoke ...`` (plain papermill, the README's command)
is run with the root as working folder (where a reader types it) and the network cut off (``unshare -n``,
loopback only); the chapter's path defaults must not depend on that folder, and a relative ``results_dir`` is
read against it. Each chapter runs three times: twice with seed 1234, once with 1235. The two runs with one
seed must write the same ``metrics.json`` outside its ``timings`` key, and the other seed must change it
wherever the chapter draws random numbers. The runs go two at a time (2 cores; a smoke run is mostly one
thread). These reruns pass no ``data_dir`` (the stand-ins' path); the smoke book build in
``tests/test_book_build.py`` passes a fixture ``data_dir`` in the papers' layouts (``tools/make_fixture_data.py``)
to every chapter and checks the real-data paths (``tests/chapter_data.py``).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PAPERMILL = Path(sys.executable).with_name("papermill")
#: run name -> seed: a and b must agree outside timings, c must differ from them
SEEDS = {"a": 1234, "b": 1234, "c": 1235}
#: chapters whose results do not depend on the seed, and why
SEED_FREE = {"11_reproducibility": "it only gathers the other chapters' stored results"}


def _offline_prefix() -> list[str] | None:
    """``unshare -n`` with loopback up (the kernel talks to papermill over 127.0.0.1), when we may."""
    if shutil.which("unshare") and shutil.which("ip") and subprocess.run(
            ["unshare", "-n", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "offline"]
    return None


@dataclass
class Rerun:
    stem: str
    seed: int
    results: Path
    returncode: int
    stderr: str

    def metrics(self) -> dict:
        return json.loads((self.results / self.stem / "smoke" / "metrics.json").read_text())

    def provenance(self) -> dict:
        return json.loads((self.results / self.stem / "smoke" / "provenance.json").read_text())


def _rerun(stem: str, run: str, base: Path, prefix: list[str]) -> Rerun:
    results = base / f"{stem}-{run}" / "results"
    results.parent.mkdir(parents=True)
    rel_results = os.path.relpath(results, ROOT)  # relative on purpose: read against the caller's folder
    env = {k: v for k, v in os.environ.items() if k not in ("XSENT_PROFILE", "XSENT_WIDGETS")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env["OMP_NUM_THREADS"] = "1"  # two runs at a time on two cores: one thread each
    cmd = [*prefix, str(PAPERMILL), f"notebooks/{stem}.ipynb", str(results.parent / "out.ipynb"), "-p", "profile",
           "smoke", "-p", "device", "auto", "-p", "seed", str(SEEDS[run]), "-p", "results_dir", rel_results,
           "--execution-timeout", "600", "--no-progress-bar"]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    return Rerun(stem, SEEDS[run], results, proc.returncode, proc.stderr[-5000:])


@pytest.fixture(scope="session")
def reruns(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Rerun]:
    prefix = _offline_prefix()
    if prefix is None:
        pytest.skip("cannot cut the network here (unshare -n needs root): the offline reruns are not checked")
    base = tmp_path_factory.mktemp("reruns")
    jobs = [(nb.stem, run) for nb in NOTEBOOKS for run in SEEDS]
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = pool.map(lambda job: _rerun(*job, base, prefix), jobs)
        return dict(zip(jobs, done))


@pytest.mark.slow
@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.stem)
def test_chapter_reruns_from_the_root_offline(nb_path: Path, reruns: dict[tuple[str, str], Rerun]):
    for run in SEEDS:
        done = reruns[nb_path.stem, run]
        assert done.returncode == 0, f"{nb_path.stem} (seed {done.seed}) failed when rerun from the root:\n{done.stderr}"
    done = reruns[nb_path.stem, "a"]
    metrics, provenance = done.metrics(), done.provenance()
    assert metrics, f"{nb_path.stem} logged no metrics"
    assert provenance["profile"] == "smoke" and provenance["params"]["profile"] == "smoke"
    assert provenance["params"]["results_dir"] == str(done.results.resolve())
    assert provenance["seed"] == 1234 and provenance["wall_time_s"] > 0
    assert provenance["xsent_lib_version"] and provenance["commit"] and provenance["device"].startswith("cpu")
    assert provenance["library_modules"], "ch.finish() must record the library modules the run imported"
    assert not (ROOT / "results").exists() or (ROOT / "results").is_dir()
    sources = provenance.get("data_sources")
    assert sources is None or sources["data_dir"] is None, f"{nb_path.stem} read a data_dir it was not given"


def _differences(a: object, b: object, path: str = "") -> list[str]:
    """Paths where two JSON values differ (the first few), for a readable failure."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in _differences(a.get(k), b.get(k), f"{path}/{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {str(a)[:80]!r} vs {str(b)[:80]!r}"]


@pytest.mark.slow
@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_same_seed_gives_the_same_numbers_and_another_seed_other_numbers(
        nb_path: Path, reruns: dict[tuple[str, str], Rerun]):
    runs = {run: reruns[nb_path.stem, run] for run in SEEDS}
    if any(r.returncode for r in runs.values()):
        pytest.fail(f"{nb_path.stem}: a rerun failed (see test_chapter_reruns_from_the_root_offline)")
    results = {run: {k: v for k, v in r.metrics().items() if k != "timings"} for run, r in runs.items()}
    same = _differences(results["a"], results["b"])
    assert not same, f"{nb_path.stem}: two runs with seed 1234 differ outside 'timings':\n" + "\n".join(same[:15])
    if nb_path.stem in SEED_FREE:
        assert results["a"] == results["c"], f"{nb_path.stem} is declared seed-free ({SEED_FREE[nb_path.stem]})"
    else:
        assert _differences(results["a"], results["c"]), f"{nb_path.stem}: seeds 1234 and 1235 gave the same numbers"


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
