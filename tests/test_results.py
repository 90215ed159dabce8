"""Runtime (device, seeds), results store, provenance and the paper-vs-ours comparison."""
from __future__ import annotations

import importlib.util
import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
import torch

from xsent_lib.base.runtime import measure_gemm_flops, pick_device, seed_everything
from xsent_lib.chapter import start_chapter
from xsent_lib.results import compare, library_hash, load_metrics, paper_table, start_run

ROOT = Path(__file__).resolve().parents[1]


def test_pick_device_auto_and_errors():
    assert pick_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    assert pick_device("cpu") == torch.device("cpu")
    with pytest.raises(ValueError, match="not understood"):
        pick_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(RuntimeError, match="no CUDA GPU"):
            pick_device("cuda")


def test_seed_everything_makes_torch_and_numpy_repeatable():
    seed_everything(3)
    a, na = torch.randn(5), np.random.rand(3)
    rng_a = seed_everything(3).random(4)
    seed_everything(3)
    b, nb = torch.randn(5), np.random.rand(3)
    rng_b = seed_everything(3).random(4)
    assert torch.equal(a, b) and np.array_equal(na, nb) and np.array_equal(rng_a, rng_b)
    with pytest.raises(ValueError, match="non-negative integer"):
        seed_everything(-1)


def test_gemm_rate_is_positive_and_validated():
    assert measure_gemm_flops(64, repeats=1) > 1e6
    with pytest.raises(ValueError):
        measure_gemm_flops(8)


def test_run_writes_metrics_and_provenance(tmp_path: Path):
    run = start_run("99_demo", "smoke", tmp_path, params={"lr": 0.1}, seed=5, device="cpu")
    run.log("table_x", {"row": {"acc": np.float32(0.5), "n": np.int64(3), "v": torch.tensor([1.0, 2.0])}})
    prov = run.finish(note="hello")
    metrics, prov2 = load_metrics("99_demo", "smoke", tmp_path)
    assert metrics == {"table_x": {"row": {"acc": 0.5, "n": 3, "v": [1.0, 2.0]}}}
    assert prov2 == json.loads(json.dumps(prov))
    assert prov["params"] == {"lr": 0.1} and prov["seed"] == 5 and prov["note"] == "hello"
    assert prov["wall_time_s"] >= 0 and prov["cpu_time_s"] >= 0 and len(prov["load_average"]) == 3
    assert prov["profile"] == "smoke" and len(prov["xsent_lib_hash"]) == 16


def test_run_rejects_bad_profile_and_values(tmp_path: Path):
    with pytest.raises(ValueError, match="profile"):
        start_run("demo", "huge", tmp_path)
    run = start_run("demo", "smoke", tmp_path)
    with pytest.raises(TypeError, match="cannot store"):
        run.log("bad", object())
    with pytest.raises(FileNotFoundError, match="run the chapter"):
        load_metrics("nothing", "smoke", tmp_path)


def test_a_results_dir_that_cannot_hold_results_is_refused_before_the_run(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch):
    a_file = tmp_path / "results.txt"
    a_file.write_text("not a folder")
    with pytest.raises(ValueError, match=rf"results_dir=.*{a_file} is a file, not a folder.*pass results_dir="):
        start_run("99_demo", "smoke", a_file)
    with pytest.raises(ValueError, match=r"results_dir='/proc/xsent-results'.*/proc/xsent-results.*pass results_dir="):
        start_run("99_demo", "smoke", "/proc/xsent-results")
    real = tempfile.TemporaryFile

    def unwritable(*args, **kwargs):  # root writes through any mode bits: refuse the write test itself
        if Path(kwargs.get("dir", "")).is_relative_to(tmp_path / "ro"):
            raise PermissionError(13, "Permission denied", str(kwargs["dir"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(tempfile, "TemporaryFile", unwritable)
    with pytest.raises(ValueError, match=rf"Permission denied.*{tmp_path / 'ro'}.*pass results_dir="):
        start_run("99_demo", "smoke", tmp_path / "ro")
    seeded = []
    monkeypatch.setattr("xsent_lib.chapter.seed_everything", lambda seed: seeded.append(seed))
    with pytest.raises(ValueError, match=rf"{a_file} is a file"):
        start_chapter("99_demo", profile="smoke", device="cpu", seed=1, results_dir=str(a_file))
    assert seeded == []  # refused before the chapter did anything


def test_start_chapter_honours_profile_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XSENT_PROFILE", "smoke")
    ch = start_chapter("99_demo", profile="book", device="auto", seed=1, results_dir=str(tmp_path))
    assert ch.profile == "smoke" and ch.pick(smoke=1, book=2, full=3) == 1
    assert ch.run.directory == (tmp_path / "99_demo" / "smoke").resolve()


def test_library_hash_changes_with_the_library(tmp_path: Path):
    pkg = tmp_path / "lib"
    pkg.mkdir()
    (pkg / "a.py").write_text("VALUE = 1\n")
    before = library_hash(pkg)
    (pkg / "a.py").write_text("VALUE = 2\n")
    assert library_hash(pkg) != before


def test_build_key_is_per_chapter_on_its_modules_and_profile(monkeypatch: pytest.MonkeyPatch):
    spec = importlib.util.spec_from_file_location("build_book", ROOT / "tools" / "build_book.py")
    build_book = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_book)
    shas = {"viz/muse.py": "aaaa", "chapter.py": "cccc"}
    monkeypatch.setattr(build_book, "file_sha", lambda rel: shas[rel])
    key = build_book.chapter_key
    a_book = key("05_muse", "book", None, ["viz/muse.py"], {})
    a_smoke = key("05_muse", "smoke", None, ["viz/muse.py"], {})
    other = key("05_muse", "book", None, ["chapter.py"], {})
    shas["viz/muse.py"] = "bbbb"
    assert len({a_book, a_smoke, other, key("05_muse", "book", None, ["viz/muse.py"], {})}) == 4
    assert other == key("05_muse", "book", None, ["chapter.py"], {}), "a module the chapter did not import changed"


def test_compare_puts_ours_next_to_the_paper():
    table = paper_table("thesis", "table_3_6")
    row = table.index[0]
    col = table.columns[0]
    ref = float(table.at[row, col])
    out = compare("thesis", "table_3_6", {row: {col: 0.5}, "our extra row": {col: 0.25}}, scale=100)
    first = out.iloc[0]
    assert first["paper"] == ref and first["ours"] == 50.0 and first["delta"] == pytest.approx(50.0 - ref)
    assert np.isnan(out.iloc[1]["paper"]) or out.iloc[1]["paper"] is None
    with pytest.raises(KeyError, match="has no table"):
        paper_table("thesis", "table_99")


def test_report_collects_runs_and_claims(tmp_path: Path):
    from xsent_lib.results import collect_claims, collect_runs

    for name, claims in [("01_a", [{"claim": "x beats y", "paper": "1", "ours": "2", "holds": True}]), ("02_b", [])]:
        run = start_run(name, "smoke", tmp_path, seed=3)
        run.log("claims", claims)
        run.log("table", {"r": {"c": 1.0}})
        run.finish()
    start_run("03_unfinished", "smoke", tmp_path).log("claims", [])  # no provenance: not a finished run
    runs = collect_runs(tmp_path, "smoke")
    assert list(runs["chapter"]) == ["01_a", "02_b"] and list(runs["metrics"]) == [2, 2]
    claims = collect_claims(tmp_path, "smoke")
    # a claim logged before the weaker form existed reads with empty weaker / verdict columns
    assert claims.to_dict("records") == [{"chapter": "01_a", "id": None, "claim": "x beats y", "paper": "1",
                                          "ours": "2", "holds": True, "weaker id": None, "weaker": None,
                                          "weaker holds": None, "verdict": None}]
    assert collect_runs(tmp_path, "book").empty
    from xsent_lib.results.claims import Claim, Weaker, check_claims

    strict = check_claims([Claim("c", "a", "==", 1.0, weaker=Weaker("w", "a", ">", 0.5))], {"a": 0.8})
    run = start_run("05_strict", "smoke", tmp_path)
    run.log("claims", strict)
    run.finish()
    got = collect_claims(tmp_path, "smoke").set_index("chapter").loc["05_strict"]
    assert not got["holds"] and got["weaker holds"] and got["verdict"] == "fails; the weaker form holds"
    bad = start_run("04_bad", "smoke", tmp_path)
    bad.log("claims", [{"paper": "1"}])
    bad.finish()
    with pytest.raises(ValueError, match="lacks"):
        collect_claims(tmp_path, "smoke")


def test_side_by_side_places_the_papers_numbers():
    from xsent_lib.results.paper import side_by_side

    wide = side_by_side("thesis", "table_3_6", {"BiLSTM-Max": {"NLI test": 50.0}, "mine": {"dim": 8}})
    assert wide.loc["BiLSTM-Max", ("NLI test", "paper")] == 84.5
    assert wide.loc["BiLSTM-Max", ("NLI test", "ours")] == 50.0
    assert np.isnan(wide.loc["mine", ("dim", "paper")]) and list(wide.index) == ["BiLSTM-Max", "mine"]
    row = "Supervised representation training / BiLSTM-Max (on SNLI)"
    t37 = side_by_side("thesis", "table_3_7", {row: {"MR": 1.0}, "x / y": {"MR": 2.0}}, rename={row: "ours"})
    assert list(t37.index) == ["ours", "y"] and t37.loc["ours", ("MR", "paper")] == 79.9
    full = side_by_side("thesis", "table_3_7", {row: {"MR": 0.5}}, scale=100, short_rows=False, paper_only_rows=True)
    assert full.index[0] == row and full.loc[row, ("MR", "ours")] == 50.0
    assert len(full) == len(paper_table("thesis", "table_3_7")) and full[("MR", "ours")].notna().sum() == 1
    with pytest.raises(ValueError, match="no number"):
        side_by_side("thesis", "table_3_7", {})


def test_git_commit_reads_the_checkout_and_xsent_commit_overrides_it(monkeypatch: pytest.MonkeyPatch,
                                                                      tmp_path: Path) -> None:
    from xsent_lib.results.provenance import git_commit

    monkeypatch.delenv("XSENT_COMMIT", raising=False)
    assert git_commit(tmp_path) == "unknown", "a folder outside git has no commit"
    sha = git_commit()
    assert sha == "unknown" or len(sha.split("+")[0]) == 12
    monkeypatch.setenv("XSENT_COMMIT", "c0d35b3ff54d")
    assert git_commit() == git_commit(tmp_path) == "c0d35b3ff54d"
