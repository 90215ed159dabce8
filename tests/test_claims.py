"""Claims as data: one checker, paper numbers read from the stored tables, 'not testable' for missing numbers."""
from __future__ import annotations

import math

import pytest

from xsent_lib.results.claims import Claim, PaperCell, check_claims
from xsent_lib.results.paper import paper_table


def test_claim_holds_fails_and_reads_other_numbers():
    claims = [Claim("a beats b", "a", ">", "b"), Claim("a above 5", "a", ">=", 5.0), Claim("b below 1", "b", "<", 1)]
    rows = check_claims(claims, {"a": 4.0, "b": 3})
    assert [r["holds"] for r in rows] == [True, False, False]
    assert rows[0]["ours"] == "a = 4 > b = 3" and rows[0]["test"] == "a > b"


@pytest.mark.parametrize("bad", [None, math.nan, math.inf])
def test_missing_or_non_finite_numbers_are_not_testable(bad):
    row = check_claims([Claim("x beats y", "x", ">", "y")], {"x": bad, "y": 1.0})[0]
    assert row["holds"] is None and "n/a" in row["ours"]


def test_unknown_number_is_an_error_not_a_verdict():
    with pytest.raises(KeyError, match="did not compute"):
        check_claims([Claim("x beats y", "x", ">", "typo")], {"x": 1.0, "y": 0.0})


def test_bad_operator_is_refused():
    with pytest.raises(ValueError, match="op must be one of"):
        Claim("x", "a", "=>", "b")


def test_paper_cell_reads_the_stored_table():
    table = paper_table("thesis", "table_4_1")
    row, col = table.index[0], table.columns[0]
    cell = PaperCell("thesis", "table_4_1", row, col)
    assert cell.value() == pytest.approx(float(table.loc[row, col]))
    rows = check_claims([Claim("t", "a", ">", 0, paper=cell)], {"a": 1})
    assert f"{cell.value():g}" in rows[0]["paper"]
    with pytest.raises(KeyError, match="has no cell"):
        PaperCell("thesis", "table_4_1", "no such row", col).value()


# --------------------------------------------------------------------------------------------- strict and weaker
from xsent_lib.results.claims import Weaker, verdict  # noqa: E402


def _every_and_mean() -> Claim:
    return Claim("'above on every task'", "wins", "==", "tasks",
                 weaker=Weaker("above on the mean accuracy", "mean ours", ">", "mean base"))


def test_strict_every_fails_while_the_weaker_mean_holds_and_both_are_shown():
    row = check_claims([_every_and_mean()], {"wins": 9, "tasks": 10, "mean ours": 80.0, "mean base": 78.0})[0]
    assert row["holds"] is False and row["weaker holds"] is True
    assert row["verdict"] == "fails; the weaker form holds"
    assert row["test"] == "wins == tasks" and row["weaker test"] == "mean ours > mean base"
    assert "above on the mean accuracy: mean ours = 80 > mean base = 78" == row["weaker"]


def test_strict_holds_is_the_verdict_whatever_the_weaker_form_says():
    row = check_claims([_every_and_mean()], {"wins": 10, "tasks": 10, "mean ours": 70.0, "mean base": 78.0})[0]
    assert row["holds"] is True and row["weaker holds"] is False and row["verdict"] == "holds"


def test_not_testable_strict_stays_none_even_when_the_weaker_form_holds():
    row = check_claims([_every_and_mean()], {"wins": None, "tasks": 10, "mean ours": 80.0, "mean base": 78.0})[0]
    assert row["holds"] is None and row["weaker holds"] is True
    assert row["verdict"] == "not testable here; the weaker form holds"
    both_missing = check_claims([_every_and_mean()], {"wins": math.nan, "tasks": 10, "mean ours": None,
                                                      "mean base": 1.0})[0]
    assert both_missing["holds"] is None and both_missing["weaker holds"] is None
    assert both_missing["verdict"] == "not testable here"


def test_a_claim_without_a_weaker_form_has_empty_weaker_columns():
    row = check_claims([Claim("a beats b", "a", ">", "b")], {"a": 2, "b": 1})[0]
    assert row["weaker"] == "" and row["weaker holds"] is None and row["verdict"] == "holds"


def test_joined_comparisons_all_must_hold_and_one_failure_decides():
    claim = Claim("'helps NLI but does not help NMT'", "nli gain", ">", 0.0, also=(("nmt gain", "<=", 0.0),))
    assert check_claims([claim], {"nli gain": 2.0, "nmt gain": -1.0})[0]["holds"] is True
    row = check_claims([claim], {"nli gain": 2.0, "nmt gain": 1.0})[0]
    assert row["holds"] is False and row["test"] == "nli gain > 0.0 and nmt gain <= 0.0"
    assert check_claims([claim], {"nli gain": None, "nmt gain": 1.0})[0]["holds"] is False  # a failure decides
    assert check_claims([claim], {"nli gain": None, "nmt gain": -1.0})[0]["holds"] is None
    with pytest.raises(KeyError, match="did not compute"):
        check_claims([claim], {"nli gain": 1.0})


def test_bad_weaker_forms_are_refused():
    with pytest.raises(ValueError, match="op must be one of"):
        Weaker("x", "a", "=>", 1)
    with pytest.raises(ValueError, match="op must be one of"):
        Claim("x", "a", ">", 1, also=(("b", "~", 1),))
    with pytest.raises(TypeError, match="must be a Weaker"):
        Claim("x", "a", ">", 1, weaker=("a", ">", 0))


@pytest.mark.parametrize("strict, weak, has, word", [
    (True, None, False, "holds"), (False, None, False, "fails"), (None, None, False, "not testable here"),
    (False, False, True, "fails; the weaker form fails too"), (None, False, True, "not testable here; the weaker form fails too")])
def test_verdict_words(strict, weak, has, word):
    assert verdict(strict, weak, has) == word
