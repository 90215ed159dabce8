"""Chapter 9's numbers from its rounds: the paper's "overall" (mean of the non-English columns), the
means over Table 2's directions, the round the "+iteration" rows read, and the typed record of the
numbers the claims compare, :class:`~xsent_lib.results.claims.Absent` where a part of the run was
not made.
Book: chapter 9 (Multilingual embeddings from monolingual text).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xsent_lib.results.claims import Absent

#: the round the paper's "+iteration" rows report (Sec. 4.1: 3 rounds of retrieve-then-regress)
PLUS_ROUND = 3
Number = float | Absent


def non_english_mean(acc: Mapping[str, float | None]) -> float | None:
    """The paper's "overall": mean of the non-English columns.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    vals = [v for k, v in acc.items() if k != "en" and v is not None]
    return float(np.mean(vals)) if vals else None


def direction_mean(acc: Mapping[str, float], cross: bool = True) -> float | None:
    """Mean accuracy over cross-lingual directions (``a != b``) of a classification result.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    vals = [v for k, v in acc.items() if (k.split("-")[0] != k.split("-")[1]) == cross]
    return float(np.mean(vals)) if vals else None


def _mean_precision(result: Mapping[str, Any]) -> float | None:
    vals = list(result.get("precision", {}).values())
    return float(np.mean(vals)) if vals else None


def plus_round(per_round: Sequence[Any]) -> int:
    """The round that the "+iteration" rows report: :data:`PLUS_ROUND` (the paper's 3 rounds), or
    the last round when the run has fewer. Tables 1-2 and the claims that compare with them all read
    this round, so a claim always compares the numbers its table shows. ``per_round`` holds one
    entry per round, round 0 first.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    if len(per_round) < 2:
        raise ValueError("need round 0 and at least one regression round, got "
                         f"{len(per_round)} entries.")
    return min(PLUS_ROUND, len(per_round) - 1)


def table_2_directions(acc: Mapping[str, float]) -> dict[str, float]:
    """The directions of ``acc`` (``"train-test"``) that the paper's Table 2 has: cross-lingual,
    English on one side.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    return {k: v for k, v in acc.items()
            if k.split("-")[0] != k.split("-")[1] and "en" in k.split("-")}


def _absent_if_none(value: float | None, why: str) -> Number:
    return Absent(why) if value is None else value


@dataclass(frozen=True)
class WangClaimNumbers:
    """The numbers chapter 9's claims compare. XNLI: ``overall`` (non-English mean) at round 0, at
    "+iteration" (:func:`plus_round`) and at the last round, the smallest per-language gain of
    "+iteration" over round 0, the gain over rounds 1-2, the largest absolute change after round 3,
    the gap English minus overall at round 0 and at "+iteration" and how much it narrows; help
    pages: the mean over Table 2's directions at round 0 and "+iteration" and the smallest
    per-direction gain; the baselines' ``overall``; mined-pair precision on held-out gold at round 0
    and the last round; the domain study.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """

    plus_round: int
    xnli_overall_round0: Number
    xnli_overall_plus: Number
    xnli_overall_last: Number
    xnli_min_gain: Number
    xnli_gain_rounds_1_2: Number
    xnli_change_after_3: Number
    gap_round0: Number
    gap_plus: Number
    gap_narrowing: Number
    help_cross_round0: Number
    help_cross_plus: Number
    help_min_gain: Number
    mean_muse_overall: Number
    mean_procrustes_overall: Number
    mlm_overall: Number
    precision_round0: Number
    precision_last: Number
    help_precision_round0: Number
    help_precision_last: Number
    help_same_domain: Number
    help_bible_english: Number
    domain_drop: Number


def claim_numbers(per_round_xnli: Sequence[Mapping[str, Any]],
                  help_rounds: Sequence[Mapping[str, Any]], *,
                  domain: Mapping[str, Any] | None = None,
                  mean_row: Mapping[str, float] | None = None,
                  muse_row: Mapping[str, float] | None = None,
                  mlm_row: Mapping[str, float] | None = None) -> WangClaimNumbers:
    """The numbers the claims compare, from the run. "+iteration" is round :func:`plus_round` (as in
    the tables); mined-pair precision compares round 0 with the last round (no table of the paper
    reports it). The plateau number is the largest *absolute* change of XNLI overall between round
    :data:`PLUS_ROUND` and any later round: a fall counts against "flat" as much as a rise. A number
    whose part of the run was not made (no round after 3, no help rounds, no baseline row, no domain
    run) is :class:`Absent`.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    xo = [non_english_mean(r["xnli"]) for r in per_round_xnli]
    n3 = plus_round(xo)
    first, plus = per_round_xnli[0]["xnli"], per_round_xnli[n3]["xnli"]
    later = [abs(v - xo[PLUS_ROUND]) for v in xo[PLUS_ROUND + 1:]]
    no_later = "the run stops at round 3 or before: no later round"
    no_help = "no help-page run with a regression round"
    gap0, gap3 = first["en"] - xo[0], plus["en"] - xo[n3]
    if len(help_rounds) > 1:
        h0 = table_2_directions(help_rounds[0]["cls"])
        h3 = table_2_directions(help_rounds[plus_round(help_rounds)]["cls"])
        help_numbers: tuple[Number | None, ...] = (direction_mean(h0), direction_mean(h3),
                                                   min(h3[k] - h0[k] for k in h0))
    else:
        help_numbers = (Absent(no_help),) * 3
    no_gold = "no held-out gold alignment"
    help_prec = ((_absent_if_none(_mean_precision(help_rounds[0]), no_gold),
                  _absent_if_none(_mean_precision(help_rounds[-1]), no_gold)) if help_rounds
                 else (Absent(no_help),) * 2)
    no_domain = "this profile makes no domain run"
    same = Absent(no_domain) if domain is None else domain["same"]
    bible = Absent(no_domain) if domain is None else domain["mismatch"]

    def row(acc: Mapping[str, float] | None, what: str) -> Number | None:
        return Absent(f"the run made no {what} row") if acc is None else non_english_mean(acc)

    return WangClaimNumbers(
        plus_round=n3, xnli_overall_round0=xo[0], xnli_overall_plus=xo[n3],
        xnli_overall_last=xo[-1],
        xnli_min_gain=min(plus[k] - first[k] for k in first if k != "en"),
        xnli_gain_rounds_1_2=xo[min(2, len(xo) - 1)] - xo[0],
        xnli_change_after_3=max(later) if later else Absent(no_later),
        gap_round0=gap0, gap_plus=gap3, gap_narrowing=gap0 - gap3,
        help_cross_round0=help_numbers[0], help_cross_plus=help_numbers[1],
        help_min_gain=help_numbers[2], mean_muse_overall=row(muse_row, "MUSE 'mean'"),
        mean_procrustes_overall=row(mean_row, "Procrustes 'mean'"),
        mlm_overall=row(mlm_row, "MLM"),
        precision_round0=_absent_if_none(_mean_precision(per_round_xnli[0]), no_gold),
        precision_last=_absent_if_none(_mean_precision(per_round_xnli[-1]), no_gold),
        help_precision_round0=help_prec[0], help_precision_last=help_prec[1],
        help_same_domain=same, help_bible_english=bible,
        domain_drop=Absent(no_domain) if domain is None else same - bible)
