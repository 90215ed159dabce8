"""The papers' claims, declared as data and checked by one function on a run's numbers.

A chapter computes a flat mapping of named numbers from its tables (``{"csls wins": 7, "directions": 8}``);
each :class:`Claim` names the paper's wording, where the paper's own number is stored
(:class:`PaperCell`, read from ``results/paper``; or a short text where the paper argues in prose), and
one comparison between our numbers (``lhs op rhs``). :func:`check_claims` evaluates every claim the same
way and returns the rows every chapter logs under ``claims`` and chapter 11 gathers. A claim whose numbers
are missing or not finite is *not testable here* (``holds`` is ``None``), never silently true or false.
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


@dataclass(frozen=True)
class Claim:
    """A claim of a paper and its test on our numbers: ``ours[lhs] op (ours[rhs] or rhs)``.

    ``paper`` says what the paper reports: stored cells (shown with their values) or a short text.
    ``note`` says how the test reads the claim when it needs saying (e.g. a threshold the paper leaves
    implicit).
    Book: chapter 11 (Reproducibility report).
    """

    text: str
    lhs: str
    op: str
    rhs: str | float
    paper: PaperCell | Sequence[PaperCell] | str = ""
    note: str = ""

    def __post_init__(self) -> None:
        if self.op not in _OPS:
            raise ValueError(f"claim {self.text!r}: op must be one of {sorted(_OPS)}, got {self.op!r}.")


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


def check_claims(claims: Sequence[Claim], ours: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Test every claim on ``ours`` and return ``{claim, paper, ours, test, holds}`` rows.

    ``holds`` is ``True``/``False``, or ``None`` (*not testable here*) when a number it needs is ``None`` or
    not finite. A claim naming a number the run did not compute is an error (a typo must not pass).
    Book: chapter 11 (Reproducibility report).
    """
    rows = []
    for claim in claims:
        left = _number(ours, claim.lhs, claim)
        right = _number(ours, claim.rhs, claim) if isinstance(claim.rhs, str) else float(claim.rhs)
        shown_right = f"{claim.rhs} = {right:g}" if isinstance(claim.rhs, str) and right is not None else (
            f"{right:g}" if right is not None else f"{claim.rhs} = n/a")
        shown_left = f"{claim.lhs} = {left:g}" if left is not None else f"{claim.lhs} = n/a"
        holds = None if left is None or right is None else bool(_OPS[claim.op](left, right))
        rows.append({"claim": claim.text, "paper": _paper_text(claim.paper),
                     "ours": f"{shown_left} {claim.op} {shown_right}" + (f" ({claim.note})" if claim.note else ""),
                     "test": f"{claim.lhs} {claim.op} {claim.rhs}",
                     "holds": holds})
    return rows
