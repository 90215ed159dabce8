"""Chapter 11's report: the registry of every published item, status / difference / summary on fixture runs,
a committed (GPU) run kept apart from the book's, the tagged table and its check on a tampered page, and
``make report`` executing chapter 11 only."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from xsent_lib.results.paper import PAPER_DIR, paper_table
from xsent_lib.results.reproduction import (
    all_cells,
    claim_verdicts,
    compare_item,
    item_status,
    ours_cells,
    paper_summary,
    status_table,
    stored_runs,
)
from xsent_lib.results.seed_items import SEED_ITEMS, Link, SeedItem
from xsent_lib.results.tagged import check_tagged_html, tagged_table_html

ROOT = Path(__file__).resolve().parents[1]
T36 = SeedItem("thesis", "table_3_6", "encoders", (Link("03_infersent", "table_3_6"),), tol=1.0,
               settings=("dim",))
FIG = SeedItem("thesis", "figure_3_5", "curve", (Link("03_infersent", "figure_3_5"),))
QUAL = SeedItem("thesis", "table_3_9", "examples")


def _write_run(root: Path, chapter: str, profile: str, metrics: dict, device: str) -> None:
    run = root / chapter / profile
    run.mkdir(parents=True, exist_ok=True)
    (run / "metrics.json").write_text(json.dumps(metrics))
    (run / "provenance.json").write_text(json.dumps({"chapter": chapter, "profile": profile,
                                                    "device": device}))


def _paper_36() -> dict:
    t = paper_table("thesis", "table_3_6").drop(columns="dim")
    return {row: {c: float(v) for c, v in vals.items()} for row, vals in t.iterrows()}


@pytest.fixture()
def roots(tmp_path: Path) -> tuple[Path, Path]:
    """A book run of chapter 3 with every Table 3.6 cell of the paper (one off by 5, one by 0.5) and a
    committed GPU run with only the BiLSTM-Max row; claims in both."""
    build, committed = tmp_path / "results", tmp_path / "runs"
    full = _paper_36()
    full["LSTM"]["NLI dev"] += 5.0
    full["GRU"]["NLI test"] += 0.5
    claims = [{"id": "ch03.a", "claim": "a", "holds": True, "weaker id": "ch03.a_mean", "weaker": "w",
               "weaker holds": True},
              {"id": "ch03.b", "claim": "b", "holds": False},
              {"id": "ch03.c", "claim": "c", "holds": None}]
    _write_run(build, "03_infersent", "smoke", {"table_3_6": full, "claims": claims}, "cpu x86_64")
    gpu = {"table_3_6": {"BiLSTM-Max": _paper_36()["BiLSTM-Max"]},
           "figure_3_5": {"BiLSTM-Max": [1, 2]},
           "claims": [{"id": "ch03.a", "claim": "a", "holds": False}]}
    _write_run(committed, "03_infersent", "gpu", gpu, "NVIDIA H100 80GB HBM3")
    _write_run(build, "11_reproducibility", "smoke", {"claims": claims}, "cpu")
    return build, committed


def test_every_stored_paper_table_is_in_the_registry_once():
    ids = [(i.seed, i.item) for i in SEED_ITEMS]
    assert len(ids) == len(set(ids)), "an item is declared twice"
    for path in PAPER_DIR.glob("*.json"):
        for table in json.loads(path.read_text())["tables"]:
            assert (path.stem, table) in ids, f"{path.stem} {table} has no entry in seed_items.py"
    chapters = {p.stem for p in (ROOT / "notebooks").glob("*.md")}
    for item in SEED_ITEMS:
        for link in item.links:
            assert link.chapter in chapters, f"{item.item}: no chapter {link.chapter}"
            source = (ROOT / "notebooks" / f"{link.chapter}.md").read_text()
            logged = f'"{link.key}"' in source or any(  # f"table_4_15_{name}" logs table_4_15_synthetic
                f'f"{link.key[:i]}{{' in source for i in range(len(link.key) - 1, 5, -1))
            assert logged, f"{item.seed} {item.item}: {link.chapter} logs no {link.key!r}"
        if not item.links:
            assert item.why, f"{item.seed} {item.item}: say why no run regenerates it"


def test_ours_cells_rename_scale_descend_and_read_wide_tables():
    metrics = {"t": {"rows": {"mine": {"a": 0.5, "b": None, "c": "text"}}},
               "flat": {"en": 80.0},
               "wide": {"r": {"('fr', 'ours')": 40.0, "('fr', 'paper')": 70.0}}}
    cells = ours_cells(metrics, Link("x", "t", sub=("rows",), rows={"mine": "R"}, columns={"a": "A"},
                                     scale=100.0))
    assert cells == {("R", "A"): (50.0, ["t", "rows", "mine", "a"]),
                     ("R", "b"): (None, ["t", "rows", "mine", "b"])}
    assert ours_cells(metrics, Link("x", "flat", row="joint")) == {("joint", "en"): (80.0, ["flat", "en"])}
    assert ours_cells(metrics, Link("x", "wide", wide=True)) == {("r", "fr"): (40.0, ["wide", "r",
                                                                                      "('fr', 'ours')"])}
    assert ours_cells(metrics, Link("x", "missing")) == {}


def test_difference_and_tolerance_per_cell(roots):
    build, committed = roots
    runs = [r for r in stored_runs(build, "smoke", committed) if r.source == "build"]
    cells = compare_item(T36, runs)
    assert len(cells) == 7 * 4 and "dim" not in set(cells["column"]), "settings columns are left out"
    lstm = cells[(cells["row"] == "LSTM") & (cells["column"] == "NLI dev")].iloc[0]
    assert lstm["delta"] == pytest.approx(5.0) and not lstm["within"]
    gru = cells[(cells["row"] == "GRU") & (cells["column"] == "NLI test")].iloc[0]
    assert gru["delta"] == pytest.approx(0.5) and gru["within"]
    assert int(cells["within"].eq(True).sum()) == 27
    assert set(cells["device"]) == {"cpu x86_64"} and set(cells["profile"]) == {"smoke"}


def test_status_regenerated_partly_paper_only_absent(roots, tmp_path: Path):
    build, committed = roots
    runs = stored_runs(build, "smoke", committed)
    rows = {(r["source"], r["profile"]): r for r in item_status(T36, runs)}
    assert rows[("build", "smoke")]["status"] == "regenerated"
    gpu = rows[("committed", "gpu")]
    assert gpu["status"] == "partly" and gpu["ours"] == 4 and gpu["paper cells"] == 28
    assert gpu["device"] == "NVIDIA H100 80GB HBM3" and "NLI dev" in gpu["missing columns"]
    fig = {r["source"]: r["status"] for r in item_status(FIG, runs)}
    assert fig == {"build": "absent", "committed": "regenerated"}, "a figure is regenerated when logged"
    nobody = stored_runs(tmp_path / "none", "smoke", tmp_path / "none")
    assert [r["status"] for r in item_status(T36, nobody)] == ["paper only"]
    assert [r["status"] for r in item_status(QUAL, nobody)] == ["absent"]


def test_committed_runs_are_tallied_apart_from_the_book(roots):
    build, committed = roots
    runs = stored_runs(build, "smoke", committed)
    assert {r.chapter for r in runs} == {"03_infersent"}, "chapter 11 reads no run of its own"
    verdicts = claim_verdicts(build, "smoke", committed)
    assert sorted(set(zip(verdicts["source"], verdicts["profile"]))) == [("build", "smoke"),
                                                                        ("committed", "gpu")]
    summary = paper_summary(status_table(runs, [T36, FIG]), all_cells(runs, [T36, FIG]), verdicts)
    lines = summary.set_index(["paper", "source"])
    cpu, gpu = lines.loc[("thesis", "build")], lines.loc[("thesis", "committed")]
    assert (cpu["hold"], cpu["fail"], cpu["not testable"], cpu["weaker hold"]) == (1, 1, 1, 1)
    assert (gpu["hold"], gpu["fail"], gpu["claims"]) == (0, 1, 1)
    assert (cpu["cells compared"], cpu["within tolerance"]) == (28, 27)
    assert (gpu["cells compared"], gpu["within tolerance"], gpu["partly"]) == (4, 4, 1)


def test_no_committed_folder_means_no_committed_run(roots, tmp_path: Path):
    build, _ = roots
    runs = stored_runs(build, "smoke", tmp_path / "absent")
    assert {r.source for r in runs} == {"build"}
    assert set(claim_verdicts(build, "smoke", tmp_path / "absent")["source"]) == {"build"}


def test_nothing_stored_gives_empty_frames_with_their_columns(tmp_path: Path):
    runs = stored_runs(tmp_path, "smoke", tmp_path)
    summary = paper_summary(status_table(runs), all_cells(runs), claim_verdicts(tmp_path, "smoke", tmp_path))
    assert summary.empty and {"paper", "source", "hold", "within tolerance"} <= set(summary.columns)
    assert set(status_table(runs)["status"]) == {"paper only", "absent"}


def test_tagged_table_passes_its_check_and_a_tampered_page_fails(roots):
    build, committed = roots
    runs = stored_runs(build, "smoke", committed)
    cells = all_cells(runs, [T36])
    page = "<html><body>" + tagged_table_html(cells[cells["ours"].notna()], decimals=2) + "</body></html>"
    checked, problems = check_tagged_html(page, {"build": build, "committed": committed})
    assert checked == 2 * (28 + 4) and problems == []
    lstm = f"{_paper_36()['LSTM']['NLI dev'] + 5.0:.2f}"
    assert page.count(f">{lstm}<") == 1
    tampered = page.replace(f">{lstm}<", f">{float(lstm) + 0.01:.2f}<")
    _, problems = check_tagged_html(tampered, {"build": build, "committed": committed})
    assert len(problems) == 1 and "LSTM" in problems[0] and "NLI dev" in problems[0]
    paper_lstm = f"{paper_table('thesis', 'table_3_6').at['LSTM', 'NLI dev']:.2f}"
    tampered = page.replace(f">{paper_lstm}<", ">99.99<", 1)
    _, problems = check_tagged_html(tampered, {"build": build, "committed": committed})
    assert len(problems) == 1 and problems[0].startswith("paper thesis table_3_6")


def test_check_fails_when_the_stored_run_changed_or_is_missing(roots):
    build, committed = roots
    runs = stored_runs(build, "smoke", committed)
    page = tagged_table_html(all_cells(runs, [T36]).dropna(subset=["ours"]))
    metrics = json.loads((build / "03_infersent" / "smoke" / "metrics.json").read_text())
    metrics["table_3_6"]["GRU"]["NLI test"] += 1.0
    (build / "03_infersent" / "smoke" / "metrics.json").write_text(json.dumps(metrics))
    _, problems = check_tagged_html(page, {"build": build, "committed": committed})
    assert len(problems) == 1 and "GRU" in problems[0]
    shutil.rmtree(committed)
    _, problems = check_tagged_html(page, {"build": build, "committed": committed})
    assert len(problems) == 5 and sum("no number there" in p for p in problems) == 4
    _, problems = check_tagged_html(page, {"build": build})
    assert sum("no folder given" in p for p in problems) == 4


def test_figure_has_a_panel_per_item_with_cells(roots):
    from xsent_lib.viz.report import ours_vs_paper

    build, committed = roots
    cells = all_cells(stored_runs(build, "smoke", committed), [T36])
    fig = ours_vs_paper(cells, columns=3)
    assert sum(ax.get_visible() for ax in fig.axes) == 1
    assert "build 27/28, committed 4/4 within" in fig.axes[0].get_title()
    with pytest.raises(ValueError, match="no cell of ours"):
        ours_vs_paper(cells.iloc[0:0])


def test_make_report_executes_chapter_11_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    if shutil.which("make"):
        proc = subprocess.run(["make", "-n", "report", "STAMP=/dev/null", "PROFILE=smoke"], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
        line = next(x for x in proc.stdout.splitlines() if "build_book.py" in x)
        assert "--chapters 11_reproducibility" in line and "--profile smoke" in line, line
    sys.path.insert(0, str(ROOT / "tools"))
    import build_book
    import nbexec

    executed: list[str] = []

    def fake_execute(src: str, dst: str, **kw: object) -> None:
        executed.append(Path(src).stem)
        Path(dst).write_text("{}")

    monkeypatch.setattr(nbexec, "execute_notebook", fake_execute)

    def build(force: bool) -> dict[str, str]:
        status, failed = build_book.execute_stale(build_book.toc_chapters(), {"11_reproducibility"},
                                                  "smoke", tmp_path, None, 60, force)
        assert not failed
        return {k: v for k, v in status.items() if v != "skipped"}

    assert build(True) == {"11_reproducibility": "executed"} and executed == ["11_reproducibility"]
    assert build(False) == {"11_reproducibility": "reused"}
    fingerprint = build_book.data_fingerprint
    monkeypatch.setattr(build_book, "data_fingerprint",  # a run committed under book/runs
                        lambda d: "new run" if d and d.endswith("runs") else fingerprint(d))
    assert build(False) == {"11_reproducibility": "executed"}, "a committed run refreshes the report"
