"""The papers' claims, declared as data and checked by one function on a run's numbers.

Every claim has a stable id (``ch06.finetune_lookup``: the chapter and a short name), the paper's
sentence (``quote``) with its place in the seed (``where``), and a *strict* test in the paper's own
words; a weaker or stand-in test shown beside it has an id of its own. The numbers a claim reads are
the fields of one typed record per chapter (a frozen dataclass), or of a mapping with the same
names. A number the run could not produce because its *data* is absent is :class:`Absent` (with
why): the claim is then *not testable here*. A number that is ``None`` or not finite means the
*method* produced nothing: the claim fails, with the reason shown, because a failed reproduction is
a result.

A chapter computes its named numbers from its tables (``{"csls_wins": 7, "directions": 8}``); each
:class:`Claim` names the paper's wording, where the paper's own number is stored
(:class:`PaperCell`, read from ``results/paper``; or a short text where the paper argues in prose),
and one comparison between our numbers (``lhs op rhs``), optionally joined by more comparisons that
must all hold (``also``). The test is the *strict* reading: the paper's own wording and threshold
("every" means every column, every task, every direction). Where a run can only support a weaker
form (fewer tasks, stand-in data, a tolerance), the claim carries a :class:`Weaker` test with its
threshold, and both verdicts are shown side by side (``holds`` and ``weaker holds``, and a
``verdict`` in words), so a reader sees which one holds. :func:`check_claims` evaluates every claim
the same way and returns the rows every chapter logs under ``claims`` and chapter 11 gathers. The
same claims are evaluated on the papers' own numbers where their tables hold what a claim compares
(``tests/test_claims_on_paper.py``): the paper must pass its own claims.
Book: chapter 11 (Reproducibility report).
"""
from __future__ import annotations

import dataclasses
import math
import operator
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xsent_lib.results.paper import paper_table

_OPS = {">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le, "==": operator.eq,
        "!=": operator.ne}
#: a claim id: ``ch`` + two digits (the chapter), a dot, a short snake_case name
CLAIM_ID = re.compile(r"^ch\d\d\.[a-z0-9]+(_[a-z0-9]+)*$")


@dataclass(frozen=True)
class Absent:
    """A number a claim needs whose data is not here (a data set not given, a tool not installed):
    the claim is *not testable here*, with ``why`` shown. A method that ran and produced no number
    is not Absent.

    Book: chapter 11 (Reproducibility report).
    """

    why: str

    def __post_init__(self) -> None:
        if not self.why.strip():
            raise ValueError("Absent(why): say which data is missing, e.g. Absent('Apertium is not "
                             "installed').")


def _check_id(kind: str, text: str, ident: str) -> None:
    if not CLAIM_ID.match(ident):
        raise ValueError(f"{kind} {text!r}: id must look like 'ch06.finetune_lookup' (chapter, "
                         f"dot, snake_case name), got {ident!r}.")


@dataclass(frozen=True)
class PaperCell:
    """One published number: ``seed``'s table ``table`` (e.g. ``"thesis"``, ``"table_4_1"``), row
    and column.

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
            raise KeyError(f"{self.seed} {self.table} has no cell ({self.row!r}, {self.column!r}); "
                           f"rows {list(frame.index)[:6]}..., columns {list(frame.columns)}.")
        return float(frame.loc[self.row, self.column])

    def __str__(self) -> str:
        return f"{self.value():g} ({self.table.replace('_', ' ', 1)}, {self.row} / {self.column})"


Comparison = tuple[str, str, "str | float"]


@dataclass(frozen=True)
class Weaker:
    """The weaker form of a claim that our data can support, tested beside the strict one.

    ``text`` says the weaker form with its threshold in words (e.g. "above on the mean accuracy");
    the test is ``ours[lhs] op (ours[rhs] or rhs)``, joined by every comparison in ``also``. ``id``
    is its own stable id (``ch03.ranking_mean``), distinct from the strict claim's.
    Book: chapter 11 (Reproducibility report).
    """

    text: str
    lhs: str
    op: str
    rhs: str | float
    also: tuple[Comparison, ...] = ()
    id: str = field(default="", kw_only=True)

    def __post_init__(self) -> None:
        for _, op, _ in ((self.lhs, self.op, self.rhs), *self.also):
            if op not in _OPS:
                raise ValueError(f"weaker form {self.text!r}: op must be one of {sorted(_OPS)}, "
                                 f"got {op!r}.")
        if self.id:
            _check_id("weaker form", self.text, self.id)


@dataclass(frozen=True)
class Claim:
    """A claim of a paper and its strict test on our numbers: ``ours[lhs] op (ours[rhs] or rhs)``,
    and every further comparison ``(lhs, op, rhs)`` in ``also``.

    ``text`` is the claim in the paper's words (a quotation in quotes where the paper says it in
    prose) and the strict test is the paper's threshold. ``paper`` says what the paper reports:
    stored cells (shown with their values) or a short text. ``note`` says how the test reads the
    claim when it needs saying. ``weaker``: the weaker form our data supports, when the strict one
    may not be testable or fair here; it is tested too and shown beside the strict verdict, never in
    its place. ``timed``: the claim compares timings (its row is marked ``"timed": True`` and stored
    with the run's timings, not its results). ``id`` (``ch06.finetune_lookup``), ``quote`` (the
    paper's sentence, verbatim) and ``where`` (its place in the seed: paper, section, table)
    identify the claim across runs and in chapter 11's report.
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
    id: str = field(default="", kw_only=True)
    quote: str = field(default="", kw_only=True)
    where: str = field(default="", kw_only=True)

    def __post_init__(self) -> None:
        for _, op, _ in ((self.lhs, self.op, self.rhs), *self.also):
            if op not in _OPS:
                raise ValueError(f"claim {self.text!r}: op must be one of {sorted(_OPS)}, got "
                                 f"{op!r}.")
        if self.id:
            _check_id("claim", self.text, self.id)
        if self.weaker is not None and not isinstance(self.weaker, Weaker):
            raise TypeError(f"claim {self.text!r}: weaker must be a Weaker(...), got "
                            f"{type(self.weaker).__name__}.")
        if self.weaker is not None and self.weaker.id and self.weaker.id == self.id:
            raise ValueError(f"claim {self.id}: its weaker form needs an id of its own.")


def _paper_text(paper: PaperCell | Sequence[PaperCell] | str) -> str:
    if isinstance(paper, str):
        return paper
    if isinstance(paper, PaperCell):
        return str(paper)
    return "; ".join(str(cell) for cell in paper)


def _number(ours: Mapping[str, Any], key: str, claim: Claim) -> float | Absent | None:
    """``ours[key]`` as a float, :class:`Absent`, or None (no finite number: the method produced
    none)."""
    if key not in ours:
        raise KeyError(f"claim {claim.id or claim.text!r} reads {key!r}, which the run did not "
                       f"compute; it has {sorted(ours)}.")
    value = ours[key]
    if value is None or isinstance(value, Absent):
        return value
    value = float(value)
    return value if math.isfinite(value) else None


def _shown(name: str, value: float | Absent | None) -> str:
    if isinstance(value, Absent):
        return f"{name} = n/a ({value.why})"
    return f"{name} = no number" if value is None else f"{name} = {value:g}"


def _compare(comparisons: Sequence[Comparison], ours: Mapping[str, Any],
             claim: Claim) -> tuple[bool | None, str, str]:
    """All ``comparisons`` on ``ours``: (verdict, shown numbers, test). A comparison with an
    :class:`Absent` number is not testable (None); one with a number the method did not produce
    (None, NaN) fails."""
    verdicts, shown, tests = [], [], []
    for lhs, op, rhs in comparisons:
        left = _number(ours, lhs, claim)
        right = _number(ours, rhs, claim) if isinstance(rhs, str) else float(rhs)
        shown_right = _shown(rhs, right) if isinstance(rhs, str) else f"{right:g}"
        if isinstance(left, Absent) or isinstance(right, Absent):
            verdicts.append(None)
        elif left is None or right is None:
            verdicts.append(False)
        else:
            verdicts.append(bool(_OPS[op](left, right)))
        shown.append(f"{_shown(lhs, left)} {op} {shown_right}")
        tests.append(f"{lhs} {op} {rhs}")
    if any(v is False for v in verdicts):
        # one failed comparison decides, even when another is not testable
        holds: bool | None = False
    elif any(v is None for v in verdicts):
        holds = None
    else:
        holds = True
    return holds, "; ".join(shown), " and ".join(tests)


def claim_numbers(numbers: Any) -> Mapping[str, Any]:
    """A chapter's claim numbers as a mapping: a dataclass instance (its fields) or a mapping as it
    is.

    Book: chapter 11 (Reproducibility report).
    """
    if dataclasses.is_dataclass(numbers) and not isinstance(numbers, type):
        return {f.name: getattr(numbers, f.name) for f in dataclasses.fields(numbers)}
    if isinstance(numbers, Mapping):
        return numbers
    raise TypeError("claim numbers must be a dataclass instance or a mapping, got "
                    f"{type(numbers).__name__}.")


def verdict(strict: bool | None, weaker: bool | None = None, has_weaker: bool = False) -> str:
    """The claims table's verdict in words: ``holds`` (the strict test), ``fails``,
    ``not testable here``, and, for a claim with a weaker form, which of the two holds
    (``fails; the weaker form holds``, ``not testable here; the weaker form holds``).

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


def check_claims(claims: Sequence[Claim], numbers: Any) -> list[dict[str, Any]]:
    """Test every claim on ``numbers`` (a dataclass instance or a mapping, see
    :func:`claim_numbers`) and return ``{id, claim, where, paper, ours, test, holds, weaker id,
    weaker, weaker test, weaker holds, verdict}`` rows.

    ``holds`` is the strict verdict: ``True``/``False``, or ``None`` (*not testable here*) when a
    number it needs is :class:`Absent`; a number that is ``None`` or not finite fails the claim (the
    method produced none), and a comparison that fails decides ``False`` even if another is not
    testable. ``weaker`` / ``weaker test`` / ``weaker holds`` are the weaker form's text, test and
    verdict (empty strings and ``None`` for a claim without one); ``verdict`` says in words which
    one holds. A claim naming a number the run did not compute is an error (a typo must not pass),
    and so are two claims with one id.
    Book: chapter 11 (Reproducibility report).
    """
    ours = claim_numbers(numbers)
    ids = [i for c in claims for i in (c.id, c.weaker.id if c.weaker else "") if i]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise ValueError(f"claim ids must be unique; repeated: {repeated}.")
    rows = []
    for claim in claims:
        holds, shown, test = _compare(((claim.lhs, claim.op, claim.rhs), *claim.also), ours, claim)
        row = {"id": claim.id, "claim": claim.text, "where": claim.where,
               "paper": _paper_text(claim.paper),
               "ours": shown + (f" ({claim.note})" if claim.note else ""), "test": test,
               "holds": holds, "weaker id": "", "weaker": "", "weaker test": "",
               "weaker holds": None}
        weak = claim.weaker
        if weak is not None:
            w_holds, w_shown, w_test = _compare(((weak.lhs, weak.op, weak.rhs), *weak.also), ours,
                                                claim)
            row.update({"weaker id": weak.id, "weaker": f"{weak.text}: {w_shown}",
                        "weaker test": w_test, "weaker holds": w_holds})
        row["verdict"] = verdict(holds, row["weaker holds"], weak is not None)
        if claim.timed:
            row["timed"] = True
        rows.append(row)
    return rows


@dataclass(frozen=True)
class ClaimSet:
    """A chapter's claims with the numbers the paper's own tables give for them.

    ``paper_numbers()`` returns the chapter's claim-number record computed from the stored paper
    tables (``results/paper``), with :class:`Absent` where the tables do not hold what a claim
    compares; ``tests/test_claims_on_paper.py`` checks that every strict claim the tables can speak
    to holds on them.
    Book: chapter 11 (Reproducibility report).
    """

    chapter: str
    claims: tuple[Claim, ...]
    paper_numbers: Any  # Callable[[], dataclass instance or mapping]

    def __post_init__(self) -> None:
        missing = [c.text for c in self.claims if not (c.id and c.quote and c.where)]
        if missing:
            raise ValueError(f"{self.chapter}: every claim needs an id, the paper's sentence "
                             f"(quote) and where it is said (where); missing for {missing[:3]}.")
        prefix = f"ch{self.chapter[:2]}."
        wrong = [i for c in self.claims for i in (c.id, c.weaker.id if c.weaker else "") if i and
                 not i.startswith(prefix)]
        if wrong:
            raise ValueError(f"{self.chapter}: claim ids must start with {prefix!r}; got {wrong}.")
        weak = [c.id for c in self.claims if c.weaker is not None and not c.weaker.id]
        if weak:
            raise ValueError(f"{self.chapter}: the weaker forms of {weak} need ids of their own.")

    def check(self, numbers: Any) -> list[dict[str, Any]]:
        """:func:`check_claims` of this set on ``numbers``.

        Book: chapter 11 (Reproducibility report).
        """
        return check_claims(self.claims, numbers)

    def on_paper(self) -> list[dict[str, Any]]:
        """The claims checked on the paper's own numbers (see the class docstring).

        Book: chapter 11 (Reproducibility report).
        """
        return check_claims(self.claims, self.paper_numbers())
