"""Self-marking quizzes of a chapter's kind-(b) questions, answered from that chapter's own run.

The questions and their answer lines come from ``notebooks/exercises/<chapter>.md`` (the classroom
source); the answers are evaluated on the run's ``metrics`` and shown with jupyterquiz, whose
scripts are written inline into the cell's output, so the static book page marks answers offline,
without a kernel.
Book: Teaching with this book.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from xsent_lib.results.exercises import EXERCISES_DIR, quiz_answers

__all__ = ["quiz_json", "show_quiz"]


def _plain(text: str) -> str:
    """The prompt as plain text (jupyterquiz shows HTML; backticks become <code>)."""
    text = re.sub(r"^Options:.*$", "", text, flags=re.MULTILINE).strip()
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", text)


def quiz_json(source: Path, metrics: dict[str, Any]) -> list[dict[str, Any]]:
    """The jupyterquiz questions of ``source``'s kind-(b) questions, answered on ``metrics``.

    A number is right within its self-check's tolerance (``atol``) of the run's value; a choice has
    one right option.
    Book: Teaching with this book.
    """
    questions = []
    for q in quiz_answers(source, metrics):
        text = f"{q['name'].upper()} {q['title']}\n{_plain(q['prompt'])}"
        if q["options"]:
            if q["answer"] not in q["options"]:
                raise ValueError(f"{q['name']} of {source}: this run's answer {q['answer']!r} "
                                 f"is not among its options {q['options']}; list it in the "
                                 "question's Options line or narrow the answer line to them.")
            answers = [
                {
                    "answer": o,
                    "correct": o == q["answer"],
                    "feedback": "Right: this run says so."
                    if o == q["answer"]
                    else "Not in this run.",
                }
                for o in q["options"]
            ]
            questions.append({"question": text, "type": "multiple_choice", "answers": answers})
            continue
        value, atol = float(q["answer"]), q["atol"]
        questions.append(
            {
                "question": text,
                "type": "numeric",
                "precision": 0,
                "answers": [
                    {
                        "type": "range",
                        "range": [round(value - atol, 6), round(value + atol, 6)],
                        "correct": True,
                        "feedback": f"Right: this run gives {value:.4g}.",
                    },
                    {
                        "type": "default",
                        "feedback": "Not what this run gives: recompute it from the numbers above.",
                    },
                ],
            }
        )
    return questions


def show_quiz(
    chapter: str, metrics: dict[str, Any], *, source: Path | None = None
) -> list[dict[str, Any]]:
    """Display the quiz of ``chapter``'s kind-(b) questions for this run; returns its questions.

    Book: Teaching with this book.
    """
    questions = quiz_json(source or EXERCISES_DIR / f"{chapter}.md", metrics)
    if not questions:
        raise ValueError(f"notebooks/exercises/{chapter}.md has no kind-(b) question to quiz.")
    try:
        from jupyterquiz import display_quiz
    except ImportError:  # a bare GPU host (tools/run_chapter.py): the questions as text
        from IPython.display import Markdown, display

        listed = "\n".join(f"- {q['question'].splitlines()[0]}" for q in questions)
        display(Markdown("The self-marking quiz needs `jupyterquiz` (`pip install -r "
                         f"requirements.txt`); its questions:\n{listed}"))
        return questions
    display_quiz(questions, shuffle_answers=False, max_width=760)
    return questions
