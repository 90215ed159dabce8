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
