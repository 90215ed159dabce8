"""Results apart from timings in metrics.json, and widgets only for a live front-end (chapter.explore)."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from xsent_lib import chapter
from xsent_lib.results import claim_tally, start_run
from xsent_lib.results.store import merge_timings, split_timings


def test_timings_go_under_one_key_at_their_path_and_come_back_merged(tmp_path: Path):
    run = start_run("03_x", "smoke", tmp_path)
    records = [{"system": "a", "acc": 80.0, "seconds": 1.5}, {"claim": "fast", "holds": True, "timed": True},
               {"system": "b", "acc": 70.0}]
    returned = run.log("records", records)
    run.log("speed", {"n": 3, "sentences_per_s": 1e5, "gemm": {"gflops": 10.0, "n": 2}})
    run.log("wall_seconds", 12.0)
    run.log_timing("table_4", [{"encoder": "SP", "sentences/s": 9.0}])
    stored = json.loads(run.metrics_path.read_text())
    assert returned == records
    assert stored["records"] == [{"system": "a", "acc": 80.0}, {"system": "b", "acc": 70.0}]
    assert stored["speed"] == {"n": 3, "gemm": {"n": 2}}
    assert "wall_seconds" not in stored and "table_4" not in stored
    assert stored["timings"]["records"] == [{"seconds": 1.5}, records[1], None]
    assert stored["timings"]["speed"] == {"sentences_per_s": 1e5, "gemm": {"gflops": 10.0}}
    assert stored["timings"]["wall_seconds"] == 12.0
    for key, value in (("records", records), ("wall_seconds", 12.0), ("table_4", [{"encoder": "SP", "sentences/s": 9.0}])):
        assert run.logged(key) == value
    run.log("records", [{"system": "c", "acc": 1.0}])  # logging again replaces both parts
    stored = json.loads(run.metrics_path.read_text())
    assert stored["records"] == [{"system": "c", "acc": 1.0}] and "records" not in stored["timings"]
    with pytest.raises(ValueError, match="'timings' is where"):
        run.log("timings", {})
    with pytest.raises(KeyError, match="holds no 'nothing'"):
        run.logged("nothing")


@pytest.mark.parametrize("name, timing", [
    ("seconds", True), ("nested CV seconds", True), ("seconds_alignment", True), ("wall_time_s", True),
    ("sentences_per_second", True), ("SP sentences/s, 1 thread", True), ("SP CPU microseconds/sentence", True),
    ("speed-up SP / BLSTM-SP", True), ("claim_speed_ups", True), ("load_average", True), ("gflops", True), ("pretraining_throughput", True),
    ("second half", False), ("trained <s>+</s> share", False), ("acc", False), ("n_pairs", False),
    ("claims", False), ("a_second_language", False)])
def test_timing_field_names(name: str, timing: bool):
    from xsent_lib.results.store import TIMING_FIELD

    assert bool(TIMING_FIELD.search(name)) is timing


@pytest.mark.parametrize("value", [{"a": 1, "b": [1, 2]}, [{"x": 1, "seconds": 2}, None, 3], 5.0, "text"])
def test_split_and_merge_are_inverse(value):
    results, timings = split_timings({"k": value})
    assert merge_timings(results.get("k"), (timings or {}).get("k")) == value


def test_claim_tally_counts_every_claim_and_never_drops_the_untestable():
    claims = pd.DataFrame([
        {"chapter": "05_muse", "holds": True, "weaker": "", "weaker holds": None},
        {"chapter": "05_muse", "holds": False, "weaker": "w: ...", "weaker holds": True},
        {"chapter": "05_muse", "holds": None, "weaker": "", "weaker holds": None},
        {"chapter": "06_xnli", "holds": True, "weaker": "", "weaker holds": None}])
    tally = claim_tally(claims)
    assert tally.loc["05_muse"].tolist() == [3, 1, 1, 1, 1, 1]
    assert tally.loc["06_xnli", "claims"] == 1 and tally["claims"].sum() == len(claims)


def test_explore_calls_the_function_once_without_a_front_end(monkeypatch: pytest.MonkeyPatch, capsys):
    monkeypatch.delenv("XSENT_WIDGETS", raising=False)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    seen = []
    assert chapter.explore(lambda n, word: seen.append((n, word)), n=chapter.Control(256, options=[128, 256]),
                           word=chapter.Control("cat")) is None
    assert seen == [(256, "cat")]
    with pytest.raises(TypeError, match="must be Control"):
        chapter.explore(print, n=256)


def test_the_widgets_switch(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XSENT_WIDGETS", "0")
    monkeypatch.setenv("JPY_SESSION_NAME", "notebooks/00_how_to_run.ipynb")
    assert chapter.live_frontend() is False
    monkeypatch.setenv("XSENT_WIDGETS", "1")
    assert chapter.live_frontend() is True
    seen = []
    widget = chapter.explore(lambda n: seen.append(n), n=chapter.Control(2, options=[1, 2]))
    assert type(widget).__name__ == "interactive" and seen == [2]  # ipywidgets calls it once for the start value
    monkeypatch.delenv("XSENT_WIDGETS")
    assert chapter.live_frontend() is False  # a plain interpreter (pytest) has no kernel, whatever the env says
    with pytest.raises(TypeError, match="drop-down or a str value"):
        chapter.Control(3).widget("n")


def test_shown_source_has_no_book_stamps_and_still_compiles():
    import inspect

    import xsent_lib.results.claims as claims_module

    source = chapter.without_book_stamps(inspect.getsource(claims_module))
    assert "Book: chapter" not in source and "Book: chapter" in inspect.getsource(claims_module)
    compile(source, "claims.py", "exec")
    one_liner = chapter.without_book_stamps('def f():\n    """Do it.\n\n    Book: chapter 0 (How to run).\n    """\n')
    assert one_liner == 'def f():\n    """Do it."""\n'
    inline = chapter.without_book_stamps('def f():\n    """Do it. Book: chapter 8 (Paraphrastic\n'
                                         '    embeddings (bitext))."""\n')
    assert inline == 'def f():\n    """Do it."""\n'


def test_no_shown_library_source_keeps_a_book_stamp():
    """What ``show_source`` would show of any library module (so of any function in it)."""
    import importlib
    import inspect
    import pkgutil
    import re

    import xsent_lib

    left = []
    for info in pkgutil.walk_packages(xsent_lib.__path__, "xsent_lib."):
        module = importlib.import_module(info.name)
        source = chapter.without_book_stamps(inspect.getsource(module))
        compile(source, info.name, "exec")
        left += [f"{info.name}: {line.strip()}" for line in source.splitlines()
                 if re.search(r"Book: chapters? [0-9]", line)]
    assert not left, "stamps show_source would still show:\n" + "\n".join(left[:20])


def test_collect_claims_reads_every_claims_list_and_the_timed_ones(tmp_path: Path):
    from xsent_lib.results import collect_claims

    run = start_run("07_x", "smoke", tmp_path)
    run.log("claims", [{"id": "ch07.a", "claim": "a", "holds": True},
                       {"id": "ch07.t", "claim": "fast", "holds": False, "timed": True}])
    run.log("real_claims", [{"id": "ch07.r", "claim": "r", "holds": None}])
    run.finish()
    got = collect_claims(tmp_path, "smoke")
    assert sorted(got["id"]) == ["ch07.a", "ch07.r", "ch07.t"]
