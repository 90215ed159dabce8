"""The whole book builds with -W -n --keep-going, honours XSENT_PROFILE, reads a data_dir, and the pages read
fully offline.

The build is ``make book PROFILE=smoke DATA_DIR=<fixture>`` without make: ``XSENT_PROFILE=smoke`` and
``tools/build_book.py --data-dir`` (the Makefile's line is checked separately), with a fixture ``data_dir`` in
the papers' layouts, so every chapter's real-data path runs here (``tests/chapter_data.py``).
"""
from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest
from chapter_data import CHAPTER_USES, check_real_data

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def fixture_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import make_fixture_data

    return make_fixture_data.build(tmp_path_factory.mktemp("papers") / "data")


@pytest.fixture(scope="session")
def built_book(tmp_path_factory: pytest.TempPathFactory, fixture_data: Path) -> Path:
    out = tmp_path_factory.mktemp("book")
    # the profile comes from the environment only, as with `XSENT_PROFILE=smoke make book`; two
    # chapters at a time on one thread each (the smoke runs are small)
    env = dict(os.environ, XSENT_PROFILE="smoke")
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "build_book.py"), "--out", str(out),
                           "--data-dir", str(fixture_data), "--jobs", "2"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
    log = proc.stdout[-6000:] + proc.stderr[-6000:]
    assert proc.returncode == 0, f"book build failed:\n{log}"
    html = out / "_build" / "html"
    assert (html / "index.html").exists(), log
    return html


@pytest.mark.slow
def test_book_builds_with_every_chapter_executed(built_book: Path):
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        page = built_book / "notebooks" / f"{nb.stem}.html"
        assert page.exists(), f"no page for {nb.name}"
        text = page.read_text()
        assert "profile &#39;smoke&#39;" in text or "profile 'smoke'" in text, \
            f"{nb.name}: the page lacks the executed banner (library version, commit, profile)"
        assert "Traceback (most recent call last)" not in text and "output traceback" not in text, \
            f"{nb.name}: an error was rendered"
    assert "library hash" in (built_book / "book" / "intro.html").read_text(), "footer stamp missing"


@pytest.mark.slow
def test_every_chapter_ran_in_the_overriding_profile(built_book: Path):
    out = built_book.parents[1]
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        prov = json.loads((out / "_build" / "results" / nb.stem / "smoke" / "provenance.json").read_text())
        assert prov["profile"] == "smoke" and prov["params"]["profile"] == "smoke", f"{nb.stem}: {prov['profile']}"
        executed = json.loads((out / "_build" / "exec" / "smoke" / f"{nb.stem}.ipynb").read_text())
        first = next("".join(o.get("text", "")) for c in executed["cells"] if c["cell_type"] == "code"
                     for o in c.get("outputs", []) if o.get("name") == "stdout")
        assert "profile 'smoke'" in first.splitlines()[0], f"{nb.stem}: first output line {first.splitlines()[0]!r}"


@pytest.mark.slow
def test_the_leaderboard_loads_the_encoders_the_chapters_saved(built_book: Path):
    from xsent_lib.results.encoder_store import SAVED_BY

    results = built_book.parents[1] / "_build" / "results"
    board = json.loads((results / "11_reproducibility" / "smoke" / "metrics.json").read_text())["leaderboard"]
    assert board["missing_chapters"] == [], "chapter 11 ran before these chapters saved their encoders"
    saved = [e for e in board["encoders"] if e["chapter"] != "shipped"]
    assert {e["chapter"] for e in saved} == set(SAVED_BY) and len(saved) >= 12
    assert {"USE", "mE5-small"} <= {e["name"] for e in board["encoders"] if e["chapter"] == "shipped"}
    for name, scores in board["scores"].items():
        assert all(("score" in part) != ("n/a" in part) for part in scores.values()), name
    page = (built_book / "notebooks" / "11_reproducibility.html").read_text()
    assert 'id="xsent-leaderboard"' in page and "data-sort=" in page, "the sortable table is not on the page"


@pytest.mark.slow
def test_every_dataset_a_smoke_run_reads_is_fetched_by_make_test(built_book: Path):
    """``make test`` fetches the ``smoke`` profile only: a chapter reading any other cached dataset in smoke
    would fail on a fresh machine (or silently take another path there than here)."""
    from xsent_lib.data.catalogue import CATALOGUE

    smoke = {d.name for d in CATALOGUE.select(profile="smoke")}
    out = built_book.parents[1]
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        prov = json.loads((out / "_build" / "results" / nb.stem / "smoke" / "provenance.json").read_text())
        extra = set(prov["cached_datasets"]) - smoke
        assert not extra, f"{nb.stem} reads {sorted(extra)} in smoke: add them to the smoke profile (catalogue._SMOKE)"


@pytest.mark.slow
def test_every_logged_claim_has_a_stable_id(built_book: Path):
    from xsent_lib.results import collect_claims
    from xsent_lib.results.claims import CLAIM_ID

    claims = collect_claims(built_book.parents[1] / "_build" / "results", "smoke")
    claims = claims[claims["chapter"] != "11_reproducibility"]
    assert len(claims) > 50
    bad = claims.loc[~claims["id"].fillna("").map(lambda i: bool(CLAIM_ID.match(i))), ["chapter", "claim"]]
    assert bad.empty, f"claims without an id: {bad.to_dict('records')[:5]}"
    assert not claims["id"].duplicated().any(), claims.loc[claims["id"].duplicated(), "id"].tolist()
    weak = claims["weaker"].fillna("").astype(bool)
    assert claims.loc[weak, "weaker id"].map(lambda i: bool(CLAIM_ID.match(i or ""))).all()


@pytest.mark.slow
def test_every_tagged_number_in_the_built_pages_matches_its_metrics(built_book: Path):
    """Chapter 11 tags each number of ours with its run and metrics.json path, and each paper number with
    its stored cell; every page is read back against those files (tests/test_reproduction_report.py shows
    that a tampered page fails the same check)."""
    from xsent_lib.results.reproduction import COMMITTED_DIR
    from xsent_lib.results.tagged import check_tagged_html

    roots = {"build": built_book.parents[1] / "_build" / "results", "committed": COMMITTED_DIR}
    checked, problems = 0, []
    for page in sorted(built_book.rglob("*.html")):
        n, bad = check_tagged_html(page.read_text(), roots)
        checked += n
        problems += [f"{page.relative_to(built_book)}: {p}" for p in bad]
    assert checked > 100, f"only {checked} tagged numbers in the built pages: is chapter 11's table there?"
    assert not problems, f"{len(problems)} numbers differ from their stored values: {problems[:5]}"


@pytest.mark.slow
def test_every_chapter_read_the_data_dir_it_was_given(built_book: Path, fixture_data: Path):
    out = built_book.parents[1]
    for stem in CHAPTER_USES:
        check_real_data(stem, out / "_build" / "results" / stem / "smoke",
                        out / "_build" / "exec" / "smoke" / f"{stem}.ipynb", fixture_data)


def test_every_chapter_that_reads_data_dir_is_checked_with_it():
    for nb_path in sorted((ROOT / "notebooks").glob("*.md")):
        if "uses=(" in nb_path.read_text():
            assert nb_path.stem in CHAPTER_USES, f"{nb_path.stem} declares real data sets: add it to CHAPTER_USES"


def test_make_book_passes_data_dir_and_profile(tmp_path: Path):
    """``make book DATA_DIR=x PROFILE=smoke`` calls the builder with the absolute folder and the profile."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    proc = subprocess.run(["make", "-n", "book", f"DATA_DIR={tmp_path}", "PROFILE=smoke", "STAMP=/dev/null"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    line = next(x for x in proc.stdout.splitlines() if "build_book.py" in x)
    assert "--profile smoke" in line and f"--data-dir {tmp_path.resolve()}" in line, line
    assert "--jobs" not in line, "one chapter at a time unless JOBS is given (speed tables)"
    proc = subprocess.run(["make", "-n", "book", "JOBS=2", "STAMP=/dev/null"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert "--jobs 2" in next(x for x in proc.stdout.splitlines() if "build_book.py" in x)


def test_chapters_read_the_profile_from_ch_not_the_raw_parameter():
    """After start_chapter, ``profile`` is only the requested one; XSENT_PROFILE may override it: use ch.profile."""
    import nbformat

    offenders = []
    for nb_path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        code = [c for c in nbformat.read(nb_path, as_version=4).cells if c.cell_type == "code"][1:]
        for i, cell in enumerate(code, start=2):
            try:
                tree = ast.parse("\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!"))))
            except SyntaxError:
                continue
            passed_on = {id(k.value) for n in ast.walk(tree) if isinstance(n, ast.Call) for k in n.keywords
                         if k.arg == "profile"}
            if any(isinstance(n, ast.Name) and n.id == "profile" and isinstance(n.ctx, ast.Load)
                   and id(n) not in passed_on for n in ast.walk(tree)):
                offenders.append(f"{nb_path.stem} code cell {i}")
    assert not offenders, f"cells read the raw `profile` parameter instead of ch.profile: {offenders}"


def _is_local(url: str) -> bool:
    parsed = urlparse(url)
    if parsed.scheme in {"file", "data", "blob", "about", "chrome-error"}:
        return True
    return parsed.scheme in {"http", "https", "ws"} and parsed.hostname in {"127.0.0.1", "localhost", "::1"}


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (make test installs it)")
@pytest.mark.parametrize("page", ["book/notation.html", "notebooks/00_how_to_run.html"])
def test_page_reads_offline(built_book: Path, page: str):
    sync_api = pytest.importorskip("playwright.sync_api")
    requested: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--headless", "--no-sandbox", "--disable-background-networking", "--disable-gpu",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        context = browser.new_context(offline=True)
        pg = context.new_page()
        pg.on("request", lambda req: requested.append(req.url))
        pg.goto((built_book / page).as_uri(), wait_until="load")
        pg.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=20000)
        pg.evaluate("MathJax.startup.promise")
        math_nodes = pg.locator("mjx-container").count()
        body = pg.inner_text("body")
        widget_nodes = pg.locator(".jupyter-widgets, .widget-dropdown, .widget-interact").count()
        browser.close()
    outside = [u for u in requested if not _is_local(u)]
    assert not outside, f"{page} requested resources outside file:// and loopback: {outside}"
    assert math_nodes > 0, f"{page}: MathJax rendered nothing"
    assert "$$" not in body and "\\frac" not in body and "\\cos" not in body, f"{page}: raw LaTeX is visible"
    if page.startswith("notebooks/00"):
        assert widget_nodes > 0, f"{page}: the saved widget state was not rendered"


@pytest.mark.slow
def test_classroom_answers_hold_on_the_smoke_runs(built_book: Path):
    """Every kind-(b) solution passes its check on the chapters' smoke runs, and its student stub fails it;
    every kind-(c) worked answer runs on them."""
    from test_classroom import run_question

    from xsent_lib.results.exercises import chapter_metrics, exercise_sources, parse_exercises

    results = built_book.parents[1] / "_build" / "results"
    for source in exercise_sources():
        metrics = chapter_metrics(source.stem, "smoke", results)
        for q in parse_exercises(source):
            if q.kind == "b":
                assert run_question(source, q.name, metrics, stub=False) == [], f"{source.stem} {q.name}"
                assert run_question(source, q.name, metrics, stub=True), f"{source.stem} {q.name}: stub passes"
            if q.kind == "c":
                assert run_question(source, q.name, metrics, stub=False) == [], f"{source.stem} {q.name}"


@pytest.mark.slow
def test_a_student_notebook_runs_offline_and_its_checks_fail(built_book: Path, tmp_path: Path):
    """The student edition of chapter 1 runs top to bottom on the smoke run's results with the network cut off
    (``unshare -n`` where allowed); every self-check reports a failure (the stubs) and none raises; the
    instructor edition passes every check."""
    from test_classroom import run_edition

    results = built_book.parents[1] / "_build" / "results"
    outputs = run_edition(ROOT / "notebooks" / "exercises" / "01_data.md", results, tmp_path)
    for edition, want in (("student", "failed"), ("instructor", "All test cases passed")):
        assert len(outputs[edition]) >= 3
        for source, shown in outputs[edition].items():
            assert want in shown, f"{edition}: {source} -> {shown[:500]}"


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (make test installs it)")
def test_quiz_marks_answers_offline_and_solutions_toggle(built_book: Path):
    """Chapter 3's page: each (b) question answered with this run's value is marked right, a wrong number is
    marked wrong, and a solution opens on a click; no kernel, no network."""
    sync_api = pytest.importorskip("playwright.sync_api")
    from xsent_lib.results.exercises import chapter_metrics, quiz_answers

    stem = "03_infersent"
    metrics = chapter_metrics(stem, "smoke", built_book.parents[1] / "_build" / "results")
    questions = quiz_answers(ROOT / "notebooks" / "exercises" / f"{stem}.md", metrics)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_context(offline=True).new_page()
        page.goto((built_book / "notebooks" / f"{stem}.html").as_uri(), wait_until="load")
        quiz = page.locator(".Quiz")
        assert quiz.count() == len(questions)
        for i, q in enumerate(questions):
            box = quiz.nth(i)
            if q["options"]:
                box.locator(".MCButton", has_text=q["answer"]).first.click()
            else:
                box.locator("input").first.fill(f"{q['answer']:.2f}")
                box.locator("input").first.press("Enter")
            assert "Right" in box.inner_text(), f"{q['name']}: {box.inner_text()[-200:]}"
        numeric = next(i for i, q in enumerate(questions) if not q["options"])
        box = quiz.nth(numeric)
        box.locator("input").first.fill("12345")
        box.locator("input").first.press("Enter")
        assert "Not what this run gives" in box.inner_text()
        solution = page.locator("div.solution").first
        assert not solution.locator("pre").first.is_visible()
        solution.locator(".admonition-title").first.click()
        page.wait_for_timeout(300)
        assert solution.locator("pre").first.is_visible()
        browser.close()


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (make test installs it)")
@pytest.mark.parametrize("page", ["notebooks/03_infersent.html", "notebooks/05_muse.html",
                                  "notebooks/07_aldarmaki.html"])
def test_explorers_switch_precomputed_states_offline(built_book: Path, page: str):
    """The max-pool viewer (3), the translation explorer (5) and the alignment-curve explorer (7): each select
    shows another precomputed state, exactly one at a time, with no kernel and no network."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        pg = browser.new_context(offline=True).new_page()
        pg.goto((built_book / page).as_uri(), wait_until="load")
        explorer = pg.locator(".xsent-explorer")
        assert explorer.count() == 1, f"{page}: {explorer.count()} explorers"
        visible = explorer.locator(".xsent-state:visible")
        assert visible.count() == 1
        for select in explorer.locator("select").all():
            before = visible.first.get_attribute("data-state")
            options = select.locator("option").all_inner_texts()
            assert len(options) >= 2
            current = int(select.input_value())
            select.select_option(index=0 if current == len(options) - 1 else len(options) - 1)
            assert visible.count() == 1 and visible.first.get_attribute("data-state") != before, page
            assert visible.first.inner_text().strip() or visible.first.locator("img").count(), f"{page}: empty"
        browser.close()
