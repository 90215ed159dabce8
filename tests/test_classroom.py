"""The classroom edition: every exercise source parses, its solutions pass their self-checks and its student stubs
fail them, the book's exercise pages are in sync with the sources, and ``make classroom`` writes the three
editions (student without solutions, instructor with, grading bundle with the hidden tests).

The kind-(b) questions read a chapter's run: here they are checked on a stored smoke run when one is at hand
(``tests/test_book_build.py`` checks them all on the smoke book build, and runs a student notebook there).
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest

from xsent_lib.base.selfcheck import Case, SelfCheckError, check_choice, check_function, check_value
from xsent_lib.results.exercises import exercise_sources, parse_exercises, setup_code

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
SOURCES = exercise_sources()
#: chapters that must have graded exercises
CHAPTERS = [f"{n:02d}" for n in range(1, 11)]


def run_question(source: Path, name: str, metrics: dict[str, Any] | None, *, stub: bool) -> list[str]:
    """Run a question's code (solution, or the student stub) and each of its tests in a copy of the notebook's
    namespace, as otter's ``grader.check`` does; returns the failures' messages (empty when all pass)."""
    from otter.assign.solutions import replace_solutions

    import xsent_lib.results.exercises as ex

    env: dict[str, Any] = {}
    real = ex.chapter_metrics
    ex.chapter_metrics = lambda *a, **k: metrics if metrics is not None else {}
    try:
        for cell in setup_code(source):
            exec(cell.replace("# BEGIN SOLUTION", "").replace("# END SOLUTION", ""), env)
    finally:
        ex.chapter_metrics = real
    question = next(q for q in parse_exercises(source) if q.name == name)
    for kind, code in question.worked:  # a kind-(c) worked answer must run (its solution only)
        if kind == "code" and not stub:
            exec(code, env)
    for code in question.code:
        exec("\n".join(replace_solutions(code.splitlines(), "python")) if stub else code, env)
    failures = []
    for test in question.tests:
        try:
            exec(test, dict(env))
        except SelfCheckError as err:
            failures.append(str(err))
    return failures


def run_edition(source: Path, results: Path, out: Path) -> dict[str, dict[str, str]]:
    """Write ``source``'s editions to ``out`` and run the student and instructor notebooks top to bottom in the
    smoke profile, offline where ``unshare -n`` is allowed, on the chapter runs in ``results``; returns each
    edition's self-check cells and what they printed."""
    import os

    import classroom
    from test_chapters_execute import _offline_prefix

    editions = classroom.assign(source, out)
    env = dict(os.environ, XSENT_RESULTS_DIR=str(results), XSENT_PROFILE="smoke", PYTHONPATH=str(ROOT))
    shown: dict[str, dict[str, str]] = {}
    for edition in ("student", "instructor"):
        folder = editions[edition]
        done = folder / "executed.ipynb"
        cmd = [*(_offline_prefix() or []), sys.executable, str(ROOT / "tools" / "nbexec.py"),
               f"{source.stem}.ipynb", str(done), "-p", "PROFILE", "smoke"]
        proc = subprocess.run(cmd, cwd=folder, env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{edition} notebook failed:\n{proc.stderr[-3000:]}"
        nb = nbformat.read(done, as_version=4)
        shown[edition] = {c.source: json.dumps(c.outputs) for c in nb.cells
                          if c.cell_type == "code" and "grader.check(" in c.source}
    return shown


def test_selfcheck_names_case_input_expected_received_and_hint():
    def wrong(x):
        return x + 1

    with pytest.raises(SelfCheckError) as err:
        check_function("Qx double", wrong, lambda x: 2 * x,
                       [Case("one", (1,)), Case("three", (3,), hint="think of 2x")], hint="multiply")
    text = str(err.value)
    assert "case 'three' failed" in text and "input: 3" in text and "expected: 6" in text
    assert "received: 4" in text and "hint: think of 2x multiply" in text
    with pytest.raises(SelfCheckError, match="stub"):
        check_function("Qx", lambda x: None, lambda x: x, [Case("one", (1,))])
    with pytest.raises(SelfCheckError, match="too high") as err:
        check_value("Qy", 3.5, 3.0, atol=0.01)
    assert "3.0" not in str(err.value), "a (b) answer must not be revealed by its check"
    with pytest.raises(SelfCheckError, match="must be one of"):
        check_choice("Qz", "d", "a", ["a", "b"])
    check_value("Qy", 3.004, 3.0, atol=0.01)


def test_every_chapter_has_three_graded_questions():
    stems = {s.stem[:2]: s for s in SOURCES}
    missing = [c for c in CHAPTERS if c not in stems]
    assert not missing, f"chapters without an exercise source in notebooks/exercises/: {missing}"
    for source in SOURCES:
        questions = parse_exercises(source)
        graded = [q for q in questions if q.kind in "ab" and q.tests]
        assert len(graded) >= 3, f"{source.name}: {len(graded)} graded (a)/(b) questions, want >= 3"
        assert {q.kind for q in graded} == {"a", "b"}, f"{source.name}: needs both kinds (a) and (b)"
        for q in questions:
            if q.kind == "b":
                q.answer_expression()
            if q.kind in "ab":
                assert any("# HIDDEN" not in t for t in q.tests), f"{source.name} {q.name}: no public test"


def test_every_chapter_has_a_worked_open_experiment():
    """Kind (c): each chapter answers one of its own end-of-chapter exercises, with code and prose."""
    from xsent_lib.results.exercises import chapter_exercise_text

    for source in SOURCES:
        worked = [q for q in parse_exercises(source) if q.kind == "c"]
        assert worked, f"{source.name}: no kind-(c) worked answer to one of the chapter's exercises"
        for q in worked:
            assert q.chapter_exercise, f"{source.name} {q.name}: the prompt must name the chapter's exercise"
            assert chapter_exercise_text(source.stem, q.chapter_exercise)
            kinds = [kind for kind, text in q.worked if text.strip()]
            assert "code" in kinds and "markdown" in kinds, f"{source.name} {q.name}: code and prose"


@pytest.mark.parametrize("source", SOURCES, ids=[s.stem for s in SOURCES])
def test_code_solutions_pass_and_stubs_fail(source: Path):
    for q in parse_exercises(source):
        if q.kind != "a":
            continue
        assert run_question(source, q.name, None, stub=False) == [], f"{source.name} {q.name}: solution fails"
        failed = run_question(source, q.name, None, stub=True)
        public = [t for t in q.tests if "# HIDDEN" not in t]
        assert len(failed) >= len(public), f"{source.name} {q.name}: the student stub passes a public check"
        assert all("hint:" in f or "why:" in f for f in failed)


def test_book_pages_are_in_sync_with_the_sources():
    import classroom

    stale = classroom.write_book_pages(check=True)
    assert not stale, f"run `python tools/classroom.py book`: stale {stale}"


def test_each_chapter_includes_its_exercises_and_quiz():
    for source in SOURCES:
        chapter = (ROOT / "notebooks" / source.name).read_text()
        assert f"../book/exercises/{source.name}" in chapter, f"{source.stem}: no {{include}} of its exercises"
        if any(q.kind == "b" for q in parse_exercises(source)):
            assert "show_quiz(" in chapter, f"{source.stem}: its (b) questions have no quiz cell"


def test_the_quiz_reads_its_answers_from_a_run():
    from xsent_lib.viz.quiz import quiz_json

    src = next(s for s in SOURCES if s.stem == "03_infersent")
    table = {n: {"NLI test": v, "Transfer micro": 100 - v} for n, v in
             zip(["BiLSTM-Max", "BiLSTM-Mean", "HConvNet"], [50.0, 40.0, 45.0])}
    metrics = {"table_3_6": table, "maxpool_summary": {"trained": {"content": 40.0},
                                                       "untrained": {"content": 38.5}}}
    questions = {q["question"].split("\n")[0]: q for q in quiz_json(src, metrics)}
    by_type = sorted(q["type"] for q in questions.values())
    assert by_type == ["multiple_choice", "numeric", "numeric"]
    numeric = [q for q in questions.values() if q["type"] == "numeric"]
    assert sorted(round(sum(a["range"]) / 2, 6) for q in numeric for a in q["answers"] if a.get("correct")) == [1.5, 5.0]
    choice = next(q for q in questions.values() if q["type"] == "multiple_choice")
    assert [a["answer"] for a in choice["answers"] if a["correct"]] == ["BiLSTM-Mean"]


def test_a_choice_whose_answer_is_not_an_option_is_refused():
    """A run whose winner the question does not list (chapter 3's options are the seven encoders)."""
    from xsent_lib.viz.quiz import quiz_json

    src = next(s for s in SOURCES if s.stem == "03_infersent")
    table = {n: {"NLI test": v, "Transfer micro": 100 - v} for n, v in
             zip(["BiLSTM-Max", "Not an encoder of the chapter"], [50.0, 10.0])}
    metrics = {"table_3_6": table, "maxpool_summary": {"trained": {"content": 40.0},
                                                       "untrained": {"content": 38.5}}}
    with pytest.raises(ValueError, match="is not among its options"):
        quiz_json(src, metrics)


@pytest.mark.slow
def test_make_classroom_writes_three_editions(tmp_path: Path):
    """``tools/classroom.py build`` (what ``make classroom`` runs) from the sources alone."""
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "classroom.py"), "build", "--out", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert json.loads((tmp_path / "index.json").read_text())["chapters"] == [s.stem for s in SOURCES]
    for source in SOURCES:
        stem, questions = source.stem, parse_exercises(source)
        student = nbformat.read(tmp_path / "student" / stem / f"{stem}.ipynb", as_version=4)
        teacher = nbformat.read(tmp_path / "instructor" / stem / f"{stem}.ipynb", as_version=4)
        code = "\n".join(c.source for c in student.cells if c.cell_type == "code")
        assert "BEGIN SOLUTION" not in code and "# SOLUTION" not in code, f"{stem}: a solution is left"
        assert all(not c.get("outputs") for c in student.cells if c.cell_type == "code")
        for q in questions:
            if q.kind in "ab":
                assert f'grader.check("{q.name}")' in code, f"{stem} {q.name}: no self-check cell"
            worked = [line for kind, text in q.worked if kind == "code" for line in text.splitlines()
                      if line.strip() and "SOLUTION" not in line]
            assert not [line for line in worked if line in code], f"{stem} {q.name}: worked answer left"
        assert "BEGIN SOLUTION" in "\n".join(c.source for c in teacher.cells) or any(
            "# SOLUTION" in c.source for c in teacher.cells)
        hidden = [q.name for q in questions if any("# HIDDEN" in t for t in q.tests)]
        for name in hidden:
            assert "'hidden': True" in (tmp_path / "grading" / stem / "tests" / f"{name}.py").read_text()
            assert "'hidden': True" not in (tmp_path / "student" / stem / "tests" / f"{name}.py").read_text()
        assert (tmp_path / "grading" / stem / f"{stem}-autograder.zip").stat().st_size > 0
    shutil.rmtree(tmp_path)


def test_explorer_precomputes_every_state_and_shows_one():
    from xsent_lib.viz.explorer import MAX_STATES, states_html

    calls = []

    def show(word: str, method: str) -> None:
        calls.append((word, method))
        print(f"state {word}/{method}")

    page = states_html(show, {"word": ["cat", "dog"], "method": ["NN", "CSLS"]}, {"word": "dog", "method": "NN"})
    assert sorted(calls) == sorted([(w, m) for w in ("cat", "dog") for m in ("NN", "CSLS")])
    assert page.count('class="xsent-state"') == 4 and page.count(" hidden>") == 3
    shown = page.split('data-state="1-0">')[1].split("</div>")[0]
    assert "state dog/NN" in shown, "the starting state must be the visible one"
    assert page == states_html(show, {"word": ["cat", "dog"], "method": ["NN", "CSLS"]},
                               {"word": "dog", "method": "NN"}), "the same states must give the same page"
    assert "<script>" in page and "http" not in page
    with pytest.raises(ValueError, match="give options"):
        states_html(show, {"word": []}, {"word": "cat"})
    with pytest.raises(ValueError, match="more than"):
        states_html(show, {"a": list(range(MAX_STATES)), "b": [0, 1]}, {"a": 0, "b": 0})


def test_explore_states_is_live_with_a_front_end_and_static_without(monkeypatch: pytest.MonkeyPatch):
    import xsent_lib.chapter as chapter
    from xsent_lib.chapter import Control, explore_states

    seen = []
    monkeypatch.setattr(chapter, "live_frontend", lambda: False)
    page = explore_states(lambda n: seen.append(n), n=Control(1, options=[1, 2, 3]))
    assert sorted(seen) == [1, 2, 3] and "xsent-explorer" in page.data
    monkeypatch.setattr(chapter, "live_frontend", lambda: True)
    monkeypatch.delenv("XSENT_WIDGETS", raising=False)
    widget = explore_states(lambda n: None, n=Control("a", options=["a", "b"], free=True))
    assert type(widget).__name__ == "interactive"
    assert type(widget.children[0]).__name__ == "Combobox"
