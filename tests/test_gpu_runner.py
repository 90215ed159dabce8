"""The gpu profile and the runner for a bare GPU machine (benchmarks/run_chapters_on_gpu.sh).

The slow test runs the script itself on the CPU at smoke sizes with IPython, papermill, jupytext and
nbformat blocked, as on a machine without the notebook stack, and checks the run's files land in the
layout the book reads (results/<chapter>/<profile>/) with the runner's record in provenance.json.
"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from xsent_lib.data.cache import norm_dir
from xsent_lib.data.catalogue import CATALOGUE
from xsent_lib.data.pack import pack_datasets, unpack_datasets
from xsent_lib.recipes import muse, wieting, xlm
from xsent_lib.results import gpu_runs

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import offline_env  # noqa: E402
import run_chapter  # noqa: E402

BLOCKED = "IPython,papermill,jupytext,nbformat,ipykernel,ipywidgets,jupyterquiz"


def test_the_gpu_profile_lies_between_book_and_full_in_work():
    for plans, work in ((muse.PROFILES, muse.work), (wieting.PLANS, wieting.work), (xlm.PLANS, xlm.work)):
        assert list(plans) == ["smoke", "book", "gpu", "full"]
        sizes = [work(plans[p]) for p in plans]
        assert sizes == sorted(sizes) and sizes[1] < sizes[2] < sizes[3]
        assert not gpu_runs.plan_changes(plans).empty


def test_plan_changes_reads_nested_plans_field_by_field():
    book = muse.PROFILES["book"]
    plans = {"book": book, "gpu": replace(book, restarts=9, adv=replace(book.adv, dis_hidden=7)),
             "full": muse.PROFILES["full"]}
    got = gpu_runs.plan_changes(plans).set_index("setting")
    assert list(got.index) == ["restarts", "adv.dis_hidden"]
    assert got.loc["adv.dis_hidden", "gpu"] == "7" and got.loc["adv.dis_hidden", "full"] == "2048"


def _fake_run(root: Path, chapter: str, claims: list[dict], **runner) -> Path:
    run = root / chapter / "gpu"
    (run / "figures").mkdir(parents=True)
    (run / "figures" / "fig_01.png").write_bytes(b"png")
    (run / "metrics.json").write_text(json.dumps({"claims": claims, "table_x": [{"a": 1}]}))
    (run / "provenance.json").write_text(json.dumps({"commit": "abc123", "wall_time_s": 90.0,
                                                     "timestamp_utc": "2026-11-27T05:00:00"}))
    (run / "runner.json").write_text(json.dumps(runner))
    return run


def test_a_committed_run_is_labelled_and_its_verdicts_set_beside_ours(tmp_path):
    assert gpu_runs.committed_run("10_xlm", runs_dir=tmp_path) is None
    assert "No 'gpu'-profile run of 10_xlm" in gpu_runs.absent_line("10_xlm")
    theirs = [{"id": "c1", "claim": "x", "holds": True}, {"id": "c2", "claim": "y", "verdict": "fails"}]
    _fake_run(tmp_path, "10_xlm", theirs, status="ok", seconds=120.0,
              machine={"gpu": "NVIDIA H100 80GB HBM3"})
    run = gpu_runs.committed_run("10_xlm", runs_dir=tmp_path)
    assert run is not None and run.status == "ok" and run.seconds == 120.0
    assert run.label.startswith("NVIDIA H100 80GB HBM3 · commit abc123 · 2026-11-27")
    assert [f.name for f in run.figures] == ["fig_01.png"] and run.table("table_x").shape == (1, 1)
    ours = [{"id": "c1", "claim": "x", "holds": False}, {"id": "c2", "claim": "y", "verdict": "fails"}]
    table = gpu_runs.claims_beside(ours, run, "this run (book)").set_index("id")
    assert table.loc["c1", "changes with scale"] == "yes" and table.loc["c2", "changes with scale"] == ""
    line = gpu_runs.full_estimate(run, work_run=10.0, work_full=300.0, unit="steps")
    assert "about 1.0 GPU hours" in line and "NVIDIA H100" in line  # 120 s x 30 = 1 h


def test_full_estimate_falls_back_to_a_benchmark_or_says_unmeasured(tmp_path):
    _fake_run(tmp_path, "05_muse", [], status="timed out", seconds=200.0)
    stopped = gpu_runs.committed_run("05_muse", runs_dir=tmp_path)
    assert stopped is not None and stopped.status == "timed out"
    line = gpu_runs.full_estimate(stopped, work_run=1.0, work_full=7200.0, unit="x", benchmark=(2.0, "b"))
    assert "about 1.0 GPU hours" in line and "no GPU run" in line
    assert "unmeasured" in gpu_runs.full_estimate(None, work_run=1.0, work_full=5.0, unit="x")
    rate = xlm.benchmark_rate(ROOT / "benchmarks" / "results" / "xlm_gpu.json")
    assert rate is not None and rate[0] > 1e12 and "H100" in rate[1]
    assert xlm.benchmark_rate(tmp_path / "none.json") is None


def test_the_gpu_profile_reads_the_book_datasets_and_packs_them(tmp_path):
    assert all(d.read_by("gpu") == d.read_by("book") for d in CATALOGUE.datasets.values())
    cache = tmp_path / "cache"
    folder = norm_dir("fortunes-en", cache)
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text("{}")
    (folder / "text.tsv").write_text("a line\n")
    made = pack_datasets(tmp_path / "p.tar.xz", names=["fortunes-en", "fortunes-de", "usem3"],
                         cache_dir=cache)
    assert made["datasets"] == ["fortunes-en"] and set(made["left_out"]) == {"fortunes-de", "usem3"}
    back = unpack_datasets(tmp_path / "p.tar.xz", tmp_path / "other")
    assert back["datasets"] == ["fortunes-en"]
    assert (norm_dir("fortunes-en", tmp_path / "other") / "text.tsv").read_text() == "a line\n"
    with pytest.raises(ValueError, match="nothing to pack"):
        pack_datasets(tmp_path / "q.tar.xz", cache_dir=cache)


def test_cells_are_read_from_myst_with_tags_and_magics_skipped():
    source = ("# T\n\n```{code-cell}\n:tags: [parameters]\n\nprofile = 'book'\n```\n\ntext\n\n"
              "```{code-cell} ipython3\n---\ntags: [raises-exception]\n---\n%matplotlib inline\n1 / 0\n```\n")
    cells = run_chapter.parse_cells(source)
    assert [c["tags"] for c in cells] == [["parameters"], ["raises-exception"]]
    assert cells[0]["code"].strip() == "profile = 'book'" and "# %matplotlib" in cells[1]["code"]
    assert run_chapter.parameter_value("0.5") == 0.5 and run_chapter.parameter_value("gpu") == "gpu"


def test_offline_env_picks_only_wheels_that_fit_this_python():
    ours = f"cp{sys.version_info.major}{sys.version_info.minor}"
    assert offline_env.fits("py3", "none", "any")
    assert offline_env.fits(ours, ours, "manylinux_2_24_x86_64.manylinux_2_28_x86_64") == (os.uname().machine
                                                                                        == "x86_64")
    assert not offline_env.fits("cp27", "cp27", "manylinux_2_28_x86_64")


@pytest.mark.slow
def test_the_runner_script_runs_a_chapter_without_the_notebook_stack(tmp_path):
    """benchmarks/run_chapters_on_gpu.sh at smoke sizes on the CPU, IPython and papermill blocked."""
    env = {**os.environ, "PYTHON": sys.executable, "PROFILE": "smoke", "DEVICE": "cpu",
           "RESULTS": str(tmp_path / "runs"), "WHEELS": str(tmp_path / "no-wheels"),
           "DATA_PACK": str(tmp_path / "no-pack.tar.xz"), "XSENT_BLOCK_IMPORTS": BLOCKED,
           "XSENT_COMMIT": "test-commit", "OUT": str(tmp_path / "out"), "LIMIT_S": "120"}
    (tmp_path / "out").mkdir()
    done = subprocess.run(["bash", str(ROOT / "benchmarks" / "run_chapters_on_gpu.sh"), "10_xlm"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    run = tmp_path / "runs" / "10_xlm" / "smoke"
    runner = json.loads((run / "runner.json").read_text())
    assert runner["status"] == "ok" and set(BLOCKED.split(",")) <= set(runner["blocked_imports"])
    prov = json.loads((run / "provenance.json").read_text())
    assert prov["profile"] == "smoke" and prov["commit"] == "test-commit"
    assert prov["runner"]["machine"]["python"] and prov["runner"]["seconds"] > 0
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["claims"] and list((run / "figures").glob("fig_*.png"))
    assert "No 'gpu'-profile run of 10_xlm is committed" in (run / "output.txt").read_text() or \
        "Committed GPU-profile run" in (run / "output.txt").read_text()
    assert (tmp_path / "out" / "runs-smoke.tar.gz").stat().st_size > 0
    assert "0 of 1 chapters failed" in done.stdout


def _run_tiny(tmp_path: Path, name: str, cells: str, *args: str) -> tuple[int, Path]:
    md = tmp_path / "notebooks" / f"{name}.md"
    md.parent.mkdir(exist_ok=True)
    md.write_text("# tiny\n\n```{code-cell}\n:tags: [parameters]\n\nprofile = 'book'\nn = 1\n```\n\n" + cells)
    env = {**os.environ, "XSENT_BLOCK_IMPORTS": BLOCKED, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "run_chapter.py"), str(md), "--profile",
                           "smoke", "--results-dir", str(tmp_path / "runs"), *args],
                          env=env, capture_output=True, text=True, timeout=300)
    return done.returncode, tmp_path / "runs" / name / "smoke"


def _guarded(tree: ast.AST) -> set[int]:
    """Line numbers of imports inside a ``try`` that catches ImportError."""
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
                isinstance(h.type, ast.Name) and h.type.id in ("ImportError", "ModuleNotFoundError")
                for h in node.handlers):
            lines |= {n.lineno for stmt in node.body for n in ast.walk(stmt)
                      if isinstance(n, (ast.Import, ast.ImportFrom))}
    return lines


def test_chapters_and_library_use_only_what_the_runner_shim_provides():
    """On the bare host IPython is tools/run_chapter.py's shim: ``IPython.display`` with ``display``,
    ``clear_output`` and the classes of SHOWN. A chapter importing anything else from IPython, or a library
    module doing it outside ``try ... except ImportError``, stops there (chapters 3, 5, 7 did, at the
    explorers)."""
    provided = {"display", "clear_output", *run_chapter.SHOWN}
    wrong = []
    for md in sorted((ROOT / "notebooks").glob("[0-9]*.md")):
        for i, cell in enumerate(run_chapter.parse_cells(md.read_text())):
            for node in ast.walk(ast.parse(cell["code"])):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("IPython"):
                    names = {a.name for a in node.names}
                    if node.module != "IPython.display" or not names <= provided:
                        wrong.append(f"{md.name} cell {i}: from {node.module} import {sorted(names)}")
    for path in sorted((ROOT / "xsent_lib").rglob("*.py")):
        tree = ast.parse(path.read_text())
        guarded = _guarded(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("IPython"):
                names = {a.name for a in node.names}
                shimmed = (node.module == "IPython.display" and names <= provided) or (
                    node.module == "IPython" and names <= {"get_ipython", "display"})
                if not shimmed and node.lineno not in guarded:
                    wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}: from {node.module} import "
                                 f"{sorted(names)} (not in the shim, not guarded)")
    assert not wrong, "\n".join(wrong)


def test_an_explorer_runs_without_ipython(tmp_path):
    """Chapters 3, 5 and 7 precompute explorer states with IPython's capture; the bare host's shim
    has none, so the printed text is captured instead. ``display`` is there unimported, as in a
    kernel (chapter 11 calls it so)."""
    rc, run = _run_tiny(tmp_path, "98_explorer",
                        "```{code-cell}\nfrom xsent_lib.chapter import Control, explore_states\n"
                        "display(explore_states(lambda word: print('state', word), "
                        "word=Control('a', ['a', 'b'])))\n```\n\n```{code-cell}\n"
                        "from xsent_lib.viz.explorer import capture_html\n"
                        "assert capture_html(print, {'end': '<b>'}) == '<pre>&lt;b&gt;</pre>'\n```")
    assert rc == 0, (run / "output.txt").read_text()[-2000:]
    assert "state a" in (run / "output.txt").read_text()


def test_run_chapter_shows_tables_and_saves_figures_without_ipython(tmp_path):
    """A tiny MyST chapter through tools/run_chapter.py with IPython blocked (the shim stands in)."""
    rc, run = _run_tiny(tmp_path, "99_tiny",
                        "```{code-cell}\nimport pandas as pd\nfrom IPython.display import Markdown, display\n"
                        "import matplotlib.pyplot as plt\nplt.plot([1, 2])\n"
                        "display(Markdown(f'profile is {profile}, n is {n}'))\npd.DataFrame({'col': [n]})\n```"
                        "\n\n```{code-cell}\n:tags: [raises-exception]\n\n1 / 0\n```\n", "-p", "n", "7")
    runner = json.loads((run / "runner.json").read_text())
    assert rc == 0 and runner["status"] == "ok"
    out = (run / "output.txt").read_text()
    assert "profile is smoke, n is 7" in out and "col" in out and "ZeroDivisionError" in out
    assert runner["figures"] == ["fig_01.png"] and (run / "figures" / "fig_01.png").stat().st_size > 0


def test_run_chapter_stops_at_its_time_limit(tmp_path):
    rc, run = _run_tiny(tmp_path, "98_slow", "```{code-cell}\nimport time\ntime.sleep(60)\n```\n",
                        "--time-limit", "2")
    runner = json.loads((run / "runner.json").read_text())
    assert rc == 1 and runner["status"] == "timed out" and "2 s" in runner["error"]
    assert not (run / "provenance.json").exists()
