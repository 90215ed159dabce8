"""The classroom exercises' single source, read: questions, kinds, solutions, tests, and answers
from a run.

Each chapter's exercises live in ``notebooks/exercises/NN_name.md`` (format: its folder's
``README.md``), an otter-grader master notebook in MyST markdown. ``tools/classroom.py`` turns them
into the student, instructor and grading editions (``otter assign``) and the book's exercise pages;
:func:`quiz_answers` evaluates the answers of the kind-(b) questions on a chapter's own metrics, for
the book's self-marking quizzes.
Book: Teaching with this book.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xsent_lib.base.selfcheck import check_choice, check_value
from xsent_lib.results.store import load_metrics

__all__ = [
    "EXERCISES_DIR",
    "Question",
    "chapter_metrics",
    "check_answer",
    "exercise_sources",
    "chapter_exercise_text",
    "parse_exercises",
    "setup_code",
    "quiz_answers",
]

EXERCISES_DIR = Path(__file__).resolve().parents[2] / "notebooks" / "exercises"
RESULTS_DIR = Path(__file__).resolve().parents[2] / "_build" / "results"
#: a question's heading: ``### Q3 (b) Which encoder wins`` (name, kind, title)
HEADING = re.compile(r"^#+\s*(?P<name>Q\d+)\s*\((?P<kind>[abc])\)\s*(?P<title>.*)$")
#: the (b) answer line: ``q3 = <expression of metrics>  # SOLUTION``
ANSWER = re.compile(r"^(?P<var>\w+)\s*=\s*(?P<expr>.+?)\s*# SOLUTION\s*$")
#: the options of a choice question, in its prompt: ``Options: `a`, `b`, `c`.``
OPTIONS = re.compile(r"^Options:\s*(?P<items>.+)$", re.MULTILINE)


@dataclass
class Question:
    """One graded question of a chapter's exercises, as written in its source.

    Book: Teaching with this book.
    """

    name: str
    kind: str
    title: str
    points: float
    prompt: str = ""
    code: list[str] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)
    worked: list[tuple[str, str]] = field(default_factory=list)

    @property
    def chapter_exercise(self) -> str | None:
        """The label of the chapter's own exercise a kind-(c) question answers (prompt ``Chapter
        exercise: LABEL``).

        Book: Teaching with this book.
        """
        found = re.fullmatch(r"Chapter exercise:\s*(ex-[\w-]+)", self.prompt.strip())
        return found.group(1) if found else None

    @property
    def options(self) -> list[str]:
        """The choices of a choice question (empty for a number).

        Book: Teaching with this book.
        """
        found = OPTIONS.search(self.prompt)
        return re.findall(r"`([^`]+)`", found.group("items")) if found else []

    @property
    def atol(self) -> float:
        """The tolerance of a kind-(b) number: the ``atol=`` of its ``check_answer`` test (0.01 if
        none).

        Book: Teaching with this book.
        """
        for test in self.tests:
            found = re.search(r"check_answer\(.*?atol=([0-9.eE-]+)", test, re.DOTALL)
            if found:
                return float(found.group(1))
        return 0.01

    def answer_expression(self) -> tuple[str, str]:
        """``(variable, expression)`` of a kind-(b) answer line ``var = expr  # SOLUTION``.

        Book: Teaching with this book.
        """
        for cell in self.code:
            for line in cell.splitlines():
                found = ANSWER.match(line.strip())
                if found:
                    return found.group("var"), found.group("expr")
        raise ValueError(f"{self.name} (b) has no answer line `name = expression  # SOLUTION`.")


def exercise_sources(directory: Path = EXERCISES_DIR) -> list[Path]:
    """The exercise sources, one per chapter, in chapter order.

    Book: Teaching with this book.
    """
    return sorted(directory.glob("[0-9][0-9]_*.md"))


def _cells(path: Path) -> list[tuple[str, str]]:
    """``(cell_type, source)`` of a MyST-markdown notebook (jupytext's format, read without
    jupytext).
    """
    text = path.read_text()
    if text.startswith("---"):
        text = text.split("\n---\n", 1)[1]
    cells: list[tuple[str, str]] = []
    fence = re.compile(
        r"^```\{(code-cell|raw-cell)\}[^\n]*\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL
    )
    pos = 0
    for found in fence.finditer(text):
        cells.extend(("markdown", md) for md in _markdown(text[pos : found.start()]))
        kind = "code" if found.group(1) == "code-cell" else "raw"
        body = found.group(2)
        if kind == "code" and body.startswith(":"):  # MyST cell options (``:tags: [parameters]``)
            body = re.sub(r"^(:[\w-]+:.*\n)+\n?", "", body)
        cells.append((kind, body.rstrip("\n")))
        pos = found.end()
    cells.extend(("markdown", md) for md in _markdown(text[pos:]))
    return cells


def _markdown(chunk: str) -> list[str]:
    parts = [p.strip("\n") for p in re.split(r"^\+\+\+.*$", chunk, flags=re.MULTILINE)]
    return [p for p in parts if p.strip()]


def setup_code(path: Path) -> list[str]:
    """The code cells before the first question (the imports and ``metrics =
    chapter_metrics(...)``).

    Book: Teaching with this book.
    """
    cells = []
    for kind, source in _cells(path):
        if kind == "raw" and source.startswith("# BEGIN QUESTION"):
            break
        if kind == "code":
            cells.append(source)
    return cells


def chapter_exercise_text(chapter: str, label: str) -> str:
    """The text of the ``{exercise}`` labelled ``label`` in ``notebooks/<chapter>.md``.

    Book: Teaching with this book.
    """
    text = (EXERCISES_DIR.parent / f"{chapter}.md").read_text()
    found = re.search(
        rf"^```{{exercise}}[^\n]*\n:label: {re.escape(label)}\n(.*?)^```", text, re.M | re.S
    )
    if not found:
        raise ValueError(f"notebooks/{chapter}.md has no exercise labelled {label!r}.")
    return found.group(1).strip()


def parse_exercises(path: Path) -> list[Question]:
    """The questions of one exercise source, with their prompts, code cells, tests and worked
    answers.

    Book: Teaching with this book.
    """
    questions: list[Question] = []
    current: Question | None = None
    in_tests = in_worked = False
    for kind, source in _cells(path):
        head = source.strip().splitlines()[0] if source.strip() else ""
        if kind == "raw" and head == "# BEGIN QUESTION":
            import yaml  # the book extra's PyYAML; only the classroom tools parse question configs

            config = yaml.safe_load(source.split("\n", 1)[1]) or {}
            current = Question(
                name=str(config["name"]), kind="", title="", points=float(config.get("points", 1))
            )
            continue
        if kind == "raw" and head == "# END QUESTION":
            if current is None or not current.kind:
                raise ValueError(
                    f"{path.name}: a question ends without a heading like '### Q1 (a) Title'."
                )
            questions.append(current)
            current = None
            continue
        if kind == "raw" and head in {"# BEGIN TESTS", "# END TESTS"}:
            in_tests = head == "# BEGIN TESTS"
            continue
        if kind == "raw" and head in {"# BEGIN SOLUTION", "# END SOLUTION"}:
            in_worked = head == "# BEGIN SOLUTION"
            continue
        if current is None:
            continue
        if in_tests and kind == "code":
            current.tests.append(source)
        elif in_worked:
            current.worked.append((kind, source))
        elif kind == "markdown" and not current.kind:
            found = HEADING.match(head)
            if not found or found.group("name").lower() != current.name:
                raise ValueError(
                    f"{path.name}: question {current.name} must open with a heading "
                    f"'### {current.name.upper()} (a|b|c) Title', got {head!r}."
                )
            current.kind, current.title = found.group("kind"), found.group("title").strip()
            current.prompt = source.split("\n", 1)[1].strip() if "\n" in source else ""
        elif kind == "markdown":
            current.prompt += "\n\n" + source
        elif kind == "code":
            current.code.append(source)
    return questions


def chapter_metrics(
    chapter: str, profile: str = "smoke", results_dir: str | Path | None = None
) -> dict[str, Any]:
    """The ``metrics.json`` of a finished run of ``chapter`` (the kind-(b) questions read it).

    ``XSENT_PROFILE`` overrides ``profile`` and ``XSENT_RESULTS_DIR`` the default
    ``_build/results``, as for the chapters. A missing run raises FileNotFoundError saying which
    chapter to run first.
    Book: Teaching with this book.
    """
    profile = os.environ.get("XSENT_PROFILE") or profile
    base = results_dir or os.environ.get("XSENT_RESULTS_DIR") or RESULTS_DIR
    try:
        return load_metrics(chapter, profile, base)[0]
    except FileNotFoundError as err:
        raise FileNotFoundError(
            f"{err} From the repository: `make chapter CH={chapter} PROFILE={profile}` "
            f"(results go to {Path(base) / chapter / profile})."
        ) from None


def quiz_answers(path: Path, metrics: dict[str, Any]) -> list[dict[str, Any]]:
    """Each kind-(b) question of ``path`` with its answer evaluated on ``metrics`` (a chapter
    run's).

    The answer line's expression may use ``metrics`` and Python's built-ins only. Returns dicts with
    ``name``, ``title``, ``prompt``, ``answer``, ``options`` (empty for a number) and ``atol``.
    Book: Teaching with this book.
    """
    found = []
    for q in parse_exercises(path):
        if q.kind != "b":
            continue
        _, expr = q.answer_expression()
        # the answer line of our own source, on the run's metrics only
        answer = eval(expr, {"__builtins__": __builtins__, "metrics": metrics})  # noqa: S307
        found.append(
            {
                "name": q.name,
                "title": q.title,
                "prompt": q.prompt,
                "answer": answer,
                "options": q.options,
                "atol": q.atol,
            }
        )
    return found


def check_answer(
    chapter: str,
    question: str,
    received: Any,
    metrics: dict[str, Any],
    *,
    atol: float = 0.01,
    hint: str = "",
) -> None:
    """Self-check of a kind-(b) answer: compare ``received`` with the answer line of
    ``notebooks/exercises/<chapter>.md`` evaluated on ``metrics`` (a number within ``atol``, or the
    choice), without showing the answer.

    Book: Teaching with this book.
    """
    found = {q["name"]: q for q in quiz_answers(EXERCISES_DIR / f"{chapter}.md", metrics)}
    if question not in found:
        raise KeyError(
            f"notebooks/exercises/{chapter}.md has no kind-(b) question {question!r}; "
            f"it has {sorted(found)}."
        )
    q = found[question]
    label = f"{question.upper()} {q['title']}"
    if q["options"]:
        check_choice(
            label, received, q["answer"], q["options"], source=f"the {chapter} run", hint=hint
        )
    else:
        check_value(label, received, q["answer"], atol=atol, source=f"the {chapter} run", hint=hint)
