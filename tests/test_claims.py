"""Claims as data: one checker, paper numbers read from the stored tables, 'not testable' for missing numbers."""
from __future__ import annotations

import dataclasses
import math

import pytest

from xsent_lib.results.claims import Absent, Claim, ClaimSet, PaperCell, check_claims
from xsent_lib.results.paper import paper_table


def test_claim_holds_fails_and_reads_other_numbers():
    claims = [Claim("a beats b", "a", ">", "b"), Claim("a above 5", "a", ">=", 5.0), Claim("b below 1", "b", "<", 1)]
    rows = check_claims(claims, {"a": 4.0, "b": 3})
    assert [r["holds"] for r in rows] == [True, False, False]
    assert rows[0]["ours"] == "a = 4 > b = 3" and rows[0]["test"] == "a > b"


@pytest.mark.parametrize("bad", [None, math.nan, math.inf])
def test_a_number_the_method_did_not_produce_fails_the_claim(bad):
    row = check_claims([Claim("x beats y", "x", ">", "y")], {"x": bad, "y": 1.0})[0]
    assert row["holds"] is False and "x = no number" in row["ours"] and row["verdict"] == "fails"


def test_absent_data_is_not_testable_and_says_why():
    row = check_claims([Claim("x beats y", "x", ">", "y")], {"x": Absent("no XNLI in data_dir"), "y": 1.0})[0]
    assert row["holds"] is None and "x = n/a (no XNLI in data_dir)" in row["ours"]
    with pytest.raises(ValueError, match="say which data is missing"):
        Absent(" ")


def test_numbers_can_be_a_typed_record():
    @dataclasses.dataclass(frozen=True)
    class Numbers:
        ours_acc: float
        base_acc: float

    row = check_claims([Claim("ours beats base", "ours_acc", ">", "base_acc", id="ch02.beats_base")],
                       Numbers(80.0, 70.0))[0]
    assert row["holds"] is True and row["id"] == "ch02.beats_base"
    with pytest.raises(KeyError, match="did not compute"):
        check_claims([Claim("x", "ours_accuracy", ">", 0)], Numbers(1.0, 0.0))
    with pytest.raises(TypeError, match="dataclass instance or a mapping"):
        check_claims([Claim("x", "a", ">", 0)], [1.0])


def test_ids_are_checked_and_unique():
    with pytest.raises(ValueError, match="id must look like"):
        Claim("x", "a", ">", 0, id="Chapter 6: finetune")
    with pytest.raises(ValueError, match="an id of its own"):
        Claim("x", "a", ">", 0, id="ch06.x", weaker=Weaker("w", "a", ">", -1, id="ch06.x"))
    with pytest.raises(ValueError, match="unique"):
        check_claims([Claim("x", "a", ">", 0, id="ch06.x"), Claim("y", "a", "<", 9, id="ch06.x")], {"a": 1})


def test_a_claim_set_needs_ids_quotes_and_places_and_checks_the_paper():
    good = Claim("a beats b", "a", ">", "b", id="ch02.a_beats_b", quote="A is better than B.", where="Sec. 1",
                 weaker=Weaker("a is not far below b", "a", ">", 0, id="ch02.a_near_b"))
    cs = ClaimSet("02_senteval", (good,), lambda: {"a": 2.0, "b": 1.0})
    assert [r["holds"] for r in cs.on_paper()] == [True]
    assert cs.check({"a": 0.5, "b": 1.0})[0]["verdict"] == "fails; the weaker form holds"
    with pytest.raises(ValueError, match="needs an id"):
        ClaimSet("02_senteval", (Claim("a beats b", "a", ">", "b", id="ch02.x"),), dict)
    with pytest.raises(ValueError, match="must start with 'ch02.'"):
        ClaimSet("02_senteval", (dataclasses.replace(good, id="ch03.a_beats_b"),), dict)


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
    gone = Absent("the data set is not here")
    row = check_claims([_every_and_mean()], {"wins": gone, "tasks": 10, "mean ours": 80.0, "mean base": 78.0})[0]
    assert row["holds"] is None and row["weaker holds"] is True
    assert row["verdict"] == "not testable here; the weaker form holds"
    both_missing = check_claims([_every_and_mean()], {"wins": gone, "tasks": 10, "mean ours": gone,
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
    gone = Absent("no NLI data")
    assert check_claims([claim], {"nli gain": gone, "nmt gain": 1.0})[0]["holds"] is False  # a failure decides
    assert check_claims([claim], {"nli gain": gone, "nmt gain": -1.0})[0]["holds"] is None
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
