"""The papers' claims, declared as data and checked by one function on a run's numbers.

A chapter computes a flat mapping of named numbers from its tables (``{"csls wins": 7, "directions": 8}``);
each :class:`Claim` names the paper's wording, where the paper's own number is stored
(:class:`PaperCell`, read from ``results/paper``; or a short text where the paper argues in prose), and
one comparison between our numbers (``lhs op rhs``), optionally joined by more comparisons that must all
hold (``also``). The test is the *strict* reading: the paper's own wording and threshold ("every" means every
column, every task, every direction). Where a run can only support a weaker form (fewer tasks, stand-in data,
a tolerance), the claim carries a :class:`Weaker` test with its threshold, and both verdicts are shown side
by side (``holds`` and ``weaker holds``, and a ``verdict`` in words), so a reader sees which one holds.
:func:`check_claims` evaluates every claim the same way and returns the rows every chapter logs under
``claims`` and chapter 11 gathers. A claim whose numbers are missing or not finite is *not testable here*
(``holds`` is ``None``), never silently true or false.
Book: chapter 11 (Reproducibility report).
"""
from __future__ import annotations

import math
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xsent_lib.results.paper import paper_table

_OPS = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le, "==": operator.eq,
        "!=": operator.ne}


@dataclass(frozen=True)
class PaperCell:
    """One published number: ``seed``'s table ``table`` (e.g. ``"thesis"``, ``"table_4_1"``), row and column.

    Book: chapter 11 (Reproducibility report).
    """

    seed: str
    table: str
    row: str
    column: str

    def value(self) -> float:
        """The stored number (raises a clear error when the cell is not in the stored table).

        Book: chapter 11 (Reproducibility report).
        """
        frame = paper_table(self.seed, self.table)
        if self.row not in frame.index or self.column not in frame.columns:
            raise KeyError(f"{self.seed} {self.table} has no cell ({self.row!r}, {self.column!r}); rows "
                           f"{list(frame.index)[:6]}..., columns {list(frame.columns)}.")
        return float(frame.loc[self.row, self.column])

    def __str__(self) -> str:
        return f"{self.value():g} ({self.table.replace('_', ' ', 1)}, {self.row} / {self.column})"


Comparison = tuple[str, str, "str | float"]


@dataclass(frozen=True)
class Weaker:
    """The weaker form of a claim that our data can support, tested beside the strict one.

    ``text`` says the weaker form with its threshold in words (e.g. "above on the mean accuracy");
    the test is ``ours[lhs] op (ours[rhs] or rhs)``, joined by every comparison in ``also``.
    Book: chapter 11 (Reproducibility report).
    """

    text: str
    lhs: str
    op: str
    rhs: str | float
    also: tuple[Comparison, ...] = ()

    def __post_init__(self) -> None:
        for _, op, _ in ((self.lhs, self.op, self.rhs), *self.also):
            if op not in _OPS:
                raise ValueError(f"weaker form {self.text!r}: op must be one of {sorted(_OPS)}, got {op!r}.")


@dataclass(frozen=True)
class Claim:
    """A claim of a paper and its strict test on our numbers: ``ours[lhs] op (ours[rhs] or rhs)``, and every
    further comparison ``(lhs, op, rhs)`` in ``also``.

    ``text`` is the claim in the paper's words (a quotation in quotes where the paper says it in prose) and
    the strict test is the paper's threshold. ``paper`` says what the paper reports: stored cells (shown with
    their values) or a short text. ``note`` says how the test reads the claim when it needs saying.
    ``weaker``: the weaker form our data supports, when the strict one may not be testable or fair here; it
    is tested too and shown beside the strict verdict, never in its place. ``timed``: the claim compares
    timings (its row is marked ``"timed": True`` and stored with the run's timings, not its results).
    Book: chapter 11 (Reproducibility report).
    """

    text: str
    lhs: str
    op: str
    rhs: str | float
    paper: PaperCell | Sequence[PaperCell] | str = ""
    note: str = ""
    also: tuple[Comparison, ...] = ()
    weaker: Weaker | None = None
    timed: bool = False

    def __post_init__(self) -> None:
        for _, op, _ in ((self.lhs, self.op, self.rhs), *self.also):
            if op not in _OPS:
                raise ValueError(f"claim {self.text!r}: op must be one of {sorted(_OPS)}, got {op!r}.")
        if self.weaker is not None and not isinstance(self.weaker, Weaker):
            raise TypeError(f"claim {self.text!r}: weaker must be a Weaker(...), got {type(self.weaker).__name__}.")


def _paper_text(paper: PaperCell | Sequence[PaperCell] | str) -> str:
    if isinstance(paper, str):
        return paper
    if isinstance(paper, PaperCell):
        return str(paper)
    return "; ".join(str(cell) for cell in paper)


def _number(ours: Mapping[str, Any], key: str, claim: Claim) -> float | None:
    if key not in ours:
        raise KeyError(f"claim {claim.text!r} reads {key!r}, which the run did not compute; it has {sorted(ours)}.")
    value = ours[key]
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _compare(comparisons: Sequence[Comparison], ours: Mapping[str, Any], claim: Claim) -> tuple[bool | None, str, str]:
    """All ``comparisons`` on ``ours``: (verdict or None when a number is missing, shown numbers, test)."""
    verdicts, shown, tests = [], [], []
    for lhs, op, rhs in comparisons:
        left = _number(ours, lhs, claim)
        right = _number(ours, rhs, claim) if isinstance(rhs, str) else float(rhs)
        shown_right = f"{rhs} = {right:g}" if isinstance(rhs, str) and right is not None else (
            f"{right:g}" if right is not None else f"{rhs} = n/a")
        shown_left = f"{lhs} = {left:g}" if left is not None else f"{lhs} = n/a"
        verdicts.append(None if left is None or right is None else bool(_OPS[op](left, right)))
        shown.append(f"{shown_left} {op} {shown_right}")
        tests.append(f"{lhs} {op} {rhs}")
    if any(v is False for v in verdicts):
        holds: bool | None = False  # one failed comparison decides, even when another is not testable
    elif any(v is None for v in verdicts):
        holds = None
    else:
        holds = True
    return holds, "; ".join(shown), " and ".join(tests)


def verdict(strict: bool | None, weaker: bool | None = None, has_weaker: bool = False) -> str:
    """The claims table's verdict in words: ``holds`` (the strict test), ``fails``, ``not testable here``, and,
    for a claim with a weaker form, which of the two holds (``fails; the weaker form holds``, ``not testable
    here; the weaker form holds``).

    Book: chapter 11 (Reproducibility report).
    """
    if strict is True:
        return "holds"
    head = "fails" if strict is False else "not testable here"
    if has_weaker and weaker is True:
        return f"{head}; the weaker form holds"
    if has_weaker and weaker is False:
        return f"{head}; the weaker form fails too"
    return head


def check_claims(claims: Sequence[Claim], ours: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Test every claim on ``ours`` and return ``{claim, paper, ours, test, holds, weaker, weaker test,
    weaker holds, verdict}`` rows.

    ``holds`` is the strict verdict, ``True``/``False``, or ``None`` (*not testable here*) when a number it
    needs is ``None`` or not finite (a comparison that fails decides ``False`` even if another is not
    testable). ``weaker`` / ``weaker test`` / ``weaker holds`` are the weaker form's text, test and verdict
    (empty strings and ``None`` for a claim without one); ``verdict`` says in words which one holds. A claim
    naming a number the run did not compute is an error (a typo must not pass).
    Book: chapter 11 (Reproducibility report).
    """
    rows = []
    for claim in claims:
        holds, shown, test = _compare(((claim.lhs, claim.op, claim.rhs), *claim.also), ours, claim)
        row = {"claim": claim.text, "paper": _paper_text(claim.paper),
               "ours": shown + (f" ({claim.note})" if claim.note else ""),
               "test": test, "holds": holds, "weaker": "", "weaker test": "", "weaker holds": None}
        weak = claim.weaker
        if weak is not None:
            w_holds, w_shown, w_test = _compare(((weak.lhs, weak.op, weak.rhs), *weak.also), ours, claim)
            row.update({"weaker": f"{weak.text}: {w_shown}", "weaker test": w_test, "weaker holds": w_holds})
        row["verdict"] = verdict(holds, row["weaker holds"], weak is not None)
        if claim.timed:
            row["timed"] = True
        rows.append(row)
    return rows
