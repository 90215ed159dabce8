"""The classroom edition: student, instructor and grading notebooks, and the book's exercise pages.

One source per chapter, ``notebooks/exercises/NN_name.md`` (an otter-grader master notebook in
MyST markdown; the format is ``notebooks/exercises/README.md``), gives two things:

* ``build``: ``otter assign`` (otter-grader, pinned in requirements.txt) writes, per chapter,
  ``OUT/student/NN_name/`` (solutions removed, public checks kept, outputs cleared),
  ``OUT/instructor/NN_name/`` (solutions, public and hidden checks) and ``OUT/grading/NN_name/``
  (the autograder zip for ``otter run`` / ``otter grade``, with the hidden tests). ``make
  classroom`` calls it.
* ``book``: the sphinx-exercise page fragment ``book/exercises/NN_name.md`` each chapter includes
  (the prompt, the starting code, the solution in a toggle), and the timings table of the
  teaching page. Committed; ``--check`` fails when one is stale.

Usage: ``python tools/classroom.py build [--out _build/classroom] [--chapters 03_infersent]``;
``python tools/classroom.py book [--check]``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xsent_lib.results.exercises import (  # noqa: E402
    EXERCISES_DIR,
    Question,
    chapter_exercise_text,
    exercise_sources,
    parse_exercises,
)

BOOK_DIR = ROOT / "book" / "exercises"
#: otter assign's settings shared by every chapter (a source's ASSIGNMENT CONFIG gives its name)
OTTER_DEFAULTS = {
    "init_cell": True,
    "check_all_cell": False,
    "export_cell": False,
    "run_tests": False,
    "strip_solutions_from_all_cells": True,
    "tests": {"files": True},
    "generate": {"pdf": False, "zips": False},
}


def master_notebook(source: Path) -> nbformat.NotebookNode:
    """The otter master notebook of one source: its ASSIGNMENT CONFIG completed with
    :data:`OTTER_DEFAULTS`.
    """
    import jupytext

    nb = jupytext.read(source, fmt="md:myst")
    first = nb.cells[0]
    if first.cell_type != "raw" or not first.source.startswith("# ASSIGNMENT CONFIG"):
        raise ValueError(f"{source.name}: the first cell must be a raw cell '# ASSIGNMENT CONFIG'.")
    config = {**OTTER_DEFAULTS, **(yaml.safe_load(first.source.split("\n", 1)[1]) or {})}
    if config.get("name") != source.stem:
        raise ValueError(f"{source.name}: ASSIGNMENT CONFIG name must be {source.stem!r}.")
    first.source = "# ASSIGNMENT CONFIG\n" + yaml.safe_dump(config, sort_keys=False)
    for cell in nb.cells:  # a kind-(c) prompt names the chapter's exercise: give its text
        found = re.search(r"^Chapter exercise:\s*(ex-[\w-]+)\s*$", cell.source, re.MULTILINE)
        if cell.cell_type == "markdown" and found:
            text = chapter_exercise_text(source.stem, found.group(1))
            cell.source = cell.source.replace(
                found.group(0), f"(The chapter's exercise `{found.group(1)}`.)\n\n{text}"
            )
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    return nb


def assign(source: Path, out: Path) -> dict[str, Path]:
    """Run ``otter assign`` on one source; move its editions to
    ``out/{student,instructor,grading}/<stem>``.
    """
    from otter.assign import main as otter_assign

    stem = source.stem
    with tempfile.TemporaryDirectory() as tmp:
        master = Path(tmp) / f"{stem}.ipynb"
        nbformat.write(master_notebook(source), master)
        dist = Path(tmp) / "dist"
        with contextlib.redirect_stdout(io.StringIO()):
            otter_assign(str(master), str(dist), no_pdfs=True, no_run_tests=True)
        editions = {"student": dist / "student", "instructor": dist / "autograder"}
        written = {}
        for edition, folder in editions.items():
            target = out / edition / stem
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(folder, target, ignore=shutil.ignore_patterns("*.zip"))
            written[edition] = target
        grading = out / "grading" / stem
        if grading.exists():
            shutil.rmtree(grading)
        grading.mkdir(parents=True)
        zips = sorted(editions["instructor"].glob("*.zip"))
        if not zips:
            raise RuntimeError(f"otter assign wrote no autograder zip for {stem}")
        shutil.copy2(zips[-1], grading / f"{stem}-autograder.zip")
        shutil.copytree(editions["instructor"] / "tests", grading / "tests")
        written["grading"] = grading
    return written


def build(out: Path, chapters: list[str] | None = None) -> list[Path]:
    """Write every chapter's three editions under ``out``; returns the student notebooks."""
    sources = [s for s in exercise_sources() if not chapters or s.stem in chapters]
    missing = sorted(set(chapters or ()) - {s.stem for s in sources})
    if missing:
        raise SystemExit(f"classroom: no exercise source for {missing} in {EXERCISES_DIR}")
    students = []
    for source in sources:
        written = assign(source, out)
        students.append(written["student"] / f"{source.stem}.ipynb")
        print(
            f"classroom: {source.stem}: "
            + ", ".join(str(p.relative_to(out)) for p in written.values())
        )
    (out / "index.json").write_text(
        json.dumps({"chapters": [s.stem for s in sources]}, indent=1) + "\n"
    )
    return students


def _stub(code: str) -> str:
    from otter.assign.solutions import replace_solutions

    return "\n".join(replace_solutions(code.splitlines(), "python"))


def _clean(code: str) -> str:
    """A solution as a reader should see it: without otter's markers."""
    lines = [
        line
        for line in code.splitlines()
        if line.strip() not in {"# BEGIN SOLUTION", "# END SOLUTION"}
    ]
    return "\n".join(line.replace("  # SOLUTION", "") for line in lines)


def _fence(code: str, lang: str = "python") -> str:
    return f"```{lang}\n{code.rstrip()}\n```"


def _question_block(stem: str, q: Question) -> str:
    """One question as sphinx-exercise directives: the exercise (prompt, starting code) and its
    solution toggle.

    A kind-(c) question that answers the chapter's own exercise adds only the solution, under that
    exercise.
    """
    solution = [_fence(_clean(c)) for c in q.code] if q.kind in "ab" else []
    solution += [
        _fence(_clean(text)) if kind == "code" else text.strip() for kind, text in q.worked
    ]
    checks = [t for t in q.tests if not t.lstrip().startswith("# HIDDEN")]
    if checks:
        solution.append("The self-check run on it (the graded edition adds hidden cases):")
        solution += [_fence(t) for t in checks]
    label = q.chapter_exercise or f"ex-{stem}-{q.name}"
    toggle = f"````{{solution}} {label}\n:class: dropdown\n\n" + "\n\n".join(solution) + "\n````"
    if q.chapter_exercise:
        return (
            f"**{q.name.upper()} (c) {q.title}**: a worked answer to the chapter's exercise "
            f"{{ref}}`{label}` (open the solution).\n\n{toggle}"
        )
    kinds = {"a": "code to complete", "b": "from the chapter's run", "c": "an open experiment"}
    points = f"{q.points:g} point" + ("s" if q.points != 1 else "")
    body = [q.prompt.strip()]
    if q.kind == "a":
        body += [_fence(_stub(c)) for c in q.code]
    if q.kind == "b":
        body.append("Answer it in the quiz below (computed from this page's run).")
    title = f"{q.name.upper()} ({q.kind}, {kinds[q.kind]}, {points}): {q.title}"
    head = f"````{{exercise}} {title}\n:label: {label}\n\n"
    return head + "\n\n".join(body) + "\n````\n\n" + toggle


def book_page(source: Path) -> str:
    """The MyST fragment of one source's exercises, with sphinx-exercise solutions as toggles."""
    questions = parse_exercises(source)
    header = (
        f"<!-- Generated by tools/classroom.py from notebooks/exercises/{source.name}: edit that "
        "file, then run `python tools/classroom.py book`. -->\n"
    )
    intro = (
        "The graded exercises below come from the same source as the classroom notebooks "
        f"(`notebooks/exercises/{source.name}`, see *Teaching with this book*): (a) code to "
        "complete against the library, checked against its own implementation; (b) numbers or "
        "choices from this page's run, answered in the quiz that follows them; (c) open "
        "experiments with a worked answer."
    )
    return (
        header
        + "\n"
        + intro
        + "\n\n"
        + "\n\n".join(_question_block(source.stem, q) for q in questions)
        + "\n"
    )


def write_book_pages(check: bool = False) -> list[str]:
    """Write (or, with ``check``, compare) ``book/exercises/<stem>.md`` for every source; returns
    the stale.
    """
    stale = []
    expected = {BOOK_DIR / f"{s.stem}.md": book_page(s) for s in exercise_sources()}
    if TIMINGS.exists():
        expected[BOOK_DIR / "timings.md"] = timings_page()
    for path, text in expected.items():
        if not path.exists() or path.read_text() != text:
            stale.append(path.name)
            if not check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
    for path in BOOK_DIR.glob("*.md"):
        if path not in expected:
            stale.append(path.name)
            if not check:
                path.unlink()
    return stale


TIMINGS = EXERCISES_DIR / "timings.json"


def collect_timings(results_dirs: list[Path], out: Path = TIMINGS) -> dict[str, dict[str, dict]]:
    """Read the wall and CPU time of every chapter run under ``results_dirs``
    (``<dir>/<chapter>/<profile>/ provenance.json``; the latest run of a chapter and profile
    wins) and merge them into ``out``.
    """
    found = json.loads(out.read_text()) if out.exists() else {}
    for base in results_dirs:
        for prov_path in sorted(Path(base).glob("[0-9][0-9]_*/*/provenance.json")):
            prov = json.loads(prov_path.read_text())
            if "wall_time_s" not in prov or prov.get("chapter", "").startswith("11_"):
                continue
            row = {
                "wall_time_s": prov["wall_time_s"],
                "cpu_time_s": round(
                    prov.get("cpu_time_s", 0.0) + prov.get("worker_cpu_time_s", 0.0), 1
                ),
                "load_average_1min": (prov.get("load_average") or [None])[0],
                "device": prov.get("device"),
                "timestamp_utc": prov.get("timestamp_utc"),
                "commit": prov.get("commit"),
            }
            old = found.setdefault(prov["chapter"], {}).get(prov["profile"])
            if old is None or (old.get("timestamp_utc") or "") <= (row["timestamp_utc"] or ""):
                found[prov["chapter"]][prov["profile"]] = row
    out.write_text(json.dumps(dict(sorted(found.items())), indent=1) + "\n")
    return found


def timings_page(path: Path = TIMINGS) -> str:
    """The table of measured minutes per chapter and profile, from
    ``notebooks/exercises/timings.json``.
    """
    data = json.loads(path.read_text())
    profiles = [p for p in ("smoke", "book", "full") if any(p in runs for runs in data.values())]
    head = (
        "| chapter | "
        + " | ".join(f"{p}: wall min | {p}: CPU min | {p}: load" for p in profiles)
        + " |"
    )
    rows = [head, "|" + "---|" * (1 + 3 * len(profiles))]
    for chapter, runs in data.items():
        cells = []
        for p in profiles:
            r = runs.get(p)
            cells += (
                [
                    f"{r['wall_time_s'] / 60:.1f}",
                    f"{r['cpu_time_s'] / 60:.1f}",
                    f"{r['load_average_1min']:.1f}" if r["load_average_1min"] is not None else "?",
                ]
                if r
                else ["-", "-", "-"]
            )
        rows.append(f"| {chapter} | " + " | ".join(cells) + " |")
    dates = sorted(
        r["timestamp_utc"][:10]
        for runs in data.values()
        for r in runs.values()
        if r["timestamp_utc"]
    )
    devices = sorted(
        {r["device"] for runs in data.values() for r in runs.values() if r.get("device")}
    )
    return (
        "<!-- Generated by tools/classroom.py from notebooks/exercises/timings.json (`python "
        "tools/classroom.py timings "
        "RESULTS_DIR...` records the runs' provenance; `python tools/classroom.py book` writes "
        "this table). -->\n\n"
        + "\n".join(rows)
        + "\n\n"
        + f"Measured {dates[0]} to {dates[-1]} on {', '.join(devices)}: *wall* is the run's wall "
          f"time, *CPU* "
        "the CPU time of its kernel and worker processes, *load* the machine's one-minute load "
        "average when "
        "the run ended (2 cores; a load above 2 means other jobs shared them and stretched the "
        "wall time).\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="write the student, instructor and grading editions")
    b.add_argument("--out", type=Path, default=ROOT / "_build" / "classroom")
    b.add_argument(
        "--chapters", default="", help="comma-separated stems, e.g. 03_infersent (default: all)"
    )
    p = sub.add_parser("book", help="write book/exercises/*.md from the sources")
    p.add_argument("--check", action="store_true", help="only report stale pages (exit 1 if any)")
    t = sub.add_parser(
        "timings",
        help="record the wall and CPU time of chapter runs in notebooks/exercises/timings.json",
    )
    t.add_argument(
        "results_dirs",
        nargs="+",
        type=Path,
        help="folders holding <chapter>/<profile>/provenance.json",
    )
    args = parser.parse_args(argv)
    if args.command == "timings":
        collect_timings(args.results_dirs)
        return 0
    if args.command == "build":
        build(args.out.resolve(), [c for c in args.chapters.split(",") if c])
        return 0
    stale = write_book_pages(check=args.check)
    if stale:
        print(("stale: " if args.check else "wrote: ") + ", ".join(stale))
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
