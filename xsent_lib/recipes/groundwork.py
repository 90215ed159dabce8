"""Chapters 0 and 1's claims: the book's own promises about its machinery and data, tested like a
paper's.

Chapter 0 promises bit-identical reruns; chapter 1 promises a fast synthetic world and stand-ins of
the papers' sizes and shapes. They are the book's claims, not a seed paper's, so ``quote`` gives the
book's promise and ``where`` the chapter that makes it; the paper cells they compare with (Tables
3.1 and 4.8) are named.
Book: chapter 1 (Data: the corpora and the synthetic world).
"""
from __future__ import annotations

from dataclasses import dataclass

from xsent_lib.results.claims import Absent, Claim, PaperCell, check_claims

SAME_SEED = Claim(
    "a CPU run repeated with the same seed gives bit-identical weights", "same_seed_max_diff", "==",
    0.0, "-", id="ch00.same_seed_same_weights", where="this book, chapter 0 (How to run)",
    quote="Every run is seeded: the same command and seed give the same numbers.")


@dataclass(frozen=True)
class GroundworkNumbers:
    """What chapter 1's claims compare (``Absent`` where the profile reads no real corpus).

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """

    seconds_per_million: float
    premise_hypothesis_ratio_gap: float
    mr_size_ratio: float | Absent
    subj_size_ratio: float | Absent


DATA_CLAIMS = (
    Claim("1M synthetic sentences are generated in well under a minute", "seconds_per_million", "<",
          60.0,
          "< 60 s (the book's budget)", timed=True, id="ch01.synthetic_million_under_a_minute",
          where="this book, chapter 1 (the synthetic world)",
          quote="The synthetic world generates a million sentences in well under a minute."),
    Claim("premises are about twice as long as hypotheses (Table 4.8, en)",
          "premise_hypothesis_ratio_gap", "<",
          0.3, (PaperCell("thesis", "table_4_8", "Premise", "en"),
                PaperCell("thesis", "table_4_8", "Hypothesis", "en")),
          note="the gap between our premise/hypothesis length ratio and the paper's, in "
               "absolute value",
          id="ch01.premise_hypothesis_ratio", where="thesis §4.3.1, Table 4.8",
          quote="Table 4.8: average number of tokens per sentence in the XNLI corpus, premise "
                "and hypothesis."),
    Claim("our MR and SUBJ stand-ins are the paper's size within 25% (Table 3.1)", "mr_size_ratio",
          ">=", 0.75, (PaperCell("thesis", "table_3_1", "MR", "N (thousands)"),
           PaperCell("thesis", "table_3_1", "SUBJ", "N (thousands)")),
          also=(("mr_size_ratio", "<=", 1.25), ("subj_size_ratio", ">=", 0.75),
                ("subj_size_ratio", "<=", 1.25)),
          note="size ratio ours / paper for each task", id="ch01.stand_in_sizes",
          where="thesis §3.2, Table 3.1",
          quote="Table 3.1: classification tasks, their number of samples N and of classes C."),
)


def groundwork_claims(numbers: GroundworkNumbers) -> list[dict[str, object]]:
    """Check chapter 1's :data:`DATA_CLAIMS` on the run's numbers.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    return check_claims(DATA_CLAIMS, numbers)


def same_seed_claim(max_diff: float) -> list[dict[str, object]]:
    """Check chapter 0's :data:`SAME_SEED` claim on the largest weight difference of two same-seed
    fits.

    Book: chapter 0 (How to run this book).
    """
    return check_claims([SAME_SEED], {"same_seed_max_diff": max_diff})
