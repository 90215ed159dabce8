"""The numbers chapter 6's claims compare, as one typed record computed from the run's tables.

Book: chapter 6 (XNLI and aligned encoders).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from xsent_lib.data.xnli import typological_distance
from xsent_lib.data.xnli_languages import MT_SYSTEMS, is_synthetic
from xsent_lib.eval.xnli import rank_correlation
from xsent_lib.results.claims import Absent

Number = float | Absent | None


@dataclass(frozen=True)
class XnliClaimNumbers:
    """The numbers the claims compare. Averages (``*_avg``) run over the main table's target
    languages (English out, real-text languages out); ``*_min`` / ``*_max`` fields are the smallest
    / largest per-language difference (percentage points), so "every language" is one comparison.
    ``tt_*``: over the languages TRANSLATE TRAIN ran on; ablation fields over the ablation
    languages; ``real_*`` over the real-text languages; ``invented_*`` over the synthetic world's
    invented languages.
    Book: chapter 6 (XNLI and aligned encoders).
    """

    ttest_avg: Number
    x_max_avg: Number
    x_last_avg: Number
    x_cbow_avg: Number
    ttest_wbw_avg: Number
    ttest_lead_min: Number  # TRANSLATE TEST minus the best other paper row, smallest over languages
    max_minus_last_min: Number
    max_minus_cbow_min: Number
    tt_avg: Number
    ttest_avg_tt: Number
    ttest_minus_tt_min: Number
    tt_gap_abs: Number  # |TRANSLATE TRAIN - X-BiLSTM-max|, means over the TRANSLATE TRAIN languages
    lam_default: Number
    lam_zero: Number
    lam_half: Number
    ft_zero: Number
    ranking: Number
    negatives_gain_min: Number
    negatives_gain_max: Number
    half_drop_min: Number
    ft_gap_max: Number  # largest |ft = 1 - ft = 0| over the ablation languages
    ft_gap_mean: Number  # |mean ft = 1 - mean ft = 0|
    ranking_drop_min: Number
    curve_r_mean: Number
    curve_r_max: Number
    distance_spearman: Number
    parallel_step_min: Number  # smallest rise of mean accuracy from one bitext size to the next
    parallel_gain: Number  # most bitext minus fewest
    real_ttest_lead_min: Number
    real_ttest: Number
    real_x_max: Number
    real_x_cbow: Number
    real_max_minus_cbow_min: Number
    real_tt_gap_abs: Number
    real_best_reference: Number
    real_best_other: Number
    invented_x_max: Number
    invented_best_reference: Number


def _mean(values: Sequence[float | None]) -> float | None:
    return None if not values or any(v is None for v in values) else float(np.mean(values))


def _diffs(
    a: Mapping[str, float | None], b: Mapping[str, float | None], langs: Sequence[str]
) -> list:
    return [None if a.get(x) is None or b.get(x) is None else a[x] - b[x] for x in langs]


def _lo(values: list, why: str) -> Number:
    return (
        Absent(why)
        if not values
        else None
        if any(v is None for v in values)
        else float(min(values))
    )


def _hi(values: list, why: str) -> Number:
    return (
        Absent(why)
        if not values
        else None
        if any(v is None for v in values)
        else float(max(values))
    )


def claim_numbers(
    rows: Mapping[str, Mapping[str, float | None]],
    ablation: Mapping[str, Mapping[str, float]],
    correlations: Mapping[str, float | None],
    parallel_curve: Sequence[Mapping[str, float]],
    real_text: Sequence[str] = (),
) -> XnliClaimNumbers:
    """The claims' numbers from the run's tables. A row, ablation setting, curve or language group
    the run does not have is :class:`Absent` (with why); a cell missing from a row it has is
    ``None`` (fails).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    real = list(dict.fromkeys(real_text))
    main = sorted({x for acc in rows.values() for x in acc if x != "en" and x not in real})
    invented = [x for x in rows.get("x-max", {}) if x != "en" and is_synthetic(x)]

    def row(key: str) -> dict[str, float | None]:
        if key in (
            "tt-mt",
            "ttest-mt",
        ):  # one MT row over the real-text languages, whatever system made it
            return {
                x: v
                for k, acc in rows.items()
                if k.startswith(key[:-2]) and k.rsplit("-", 1)[-1] in MT_SYSTEMS
                for x, v in acc.items()
            }
        return dict(rows.get(key, {}))

    def avg(key: str, langs: Sequence[str], why: str = "") -> Number:
        acc = row(key)
        if not langs or not acc:
            return Absent(why or f"this run has no {key} row on these languages")
        return _mean([acc.get(x) for x in langs])

    def lead(key: str, others: Sequence[str], langs: Sequence[str]) -> Number:
        acc, rest = row(key), [r for r in (row(k) for k in others) if r]
        best = {x: max((r[x] for r in rest if r.get(x) is not None), default=None) for x in langs}
        missing = [k for k in (key, *others) if not row(k)] if not acc or not rest else []
        return _lo(
            _diffs(acc, best, langs) if acc and rest and langs else [],
            f"this run has no {' / '.join(missing) or key} row on these languages",
        )

    tt_langs = [x for x in rows.get("tt", {}) if x != "en" and x not in real]
    abl = {k: _mean(list(v.values())) for k, v in ablation.items() if v}
    a_langs = list(ablation.get("ft = 1, λ = 0.25", {}))
    setting = {
        lab: ablation.get(lab, {})
        for lab in ("ft = 1, λ = 0.25", "ft = 1, λ = 0", "ft = 1, λ = 0.5", "ft = 0, λ = 0.25")
    }
    rank = next((v for k, v in ablation.items() if k.startswith("ranking")), {})
    no_abl = "this run has no ablation"
    default, zero, half, ft0 = setting.values()
    gains = _diffs(default, zero, a_langs)
    ft = [None if d is None else abs(d) for d in _diffs(default, ft0, a_langs)]
    r = list(correlations.values())
    sizes = sorted({p["n"] for p in parallel_curve})
    at = [float(np.mean([p["acc"] for p in parallel_curve if p["n"] == n])) for n in sizes]
    dist = [(typological_distance("en", x), rows["x-max"][x]) for x in invented]
    refs = [k for k in rows if k.startswith("ref-")]
    others = ["x-max", "x-last", "x-cbow", "tt-mt"]
    real_full = [v for v in (avg(k, real) for k in [*others, "ttest-mt"]) if isinstance(v, float)]
    no_real = "no real-text language in this run"
    ref_real = [_mean([rows[k].get(x) for x in real]) for k in refs] if real else []
    ref_invented = [
        v for v in (_mean([rows[k].get(x) for x in invented]) for k in refs) if v is not None
    ]

    def gap(a: Number, b: Number) -> Number:
        return a if not isinstance(a, float) else b if not isinstance(b, float) else abs(a - b)

    return XnliClaimNumbers(
        ttest_avg=avg("ttest", main),
        x_max_avg=avg("x-max", main),
        x_last_avg=avg("x-last", main),
        x_cbow_avg=avg("x-cbow", main),
        ttest_wbw_avg=avg("ttest-wbw", main),
        ttest_lead_min=lead("ttest", ["tt", "x-max", "x-last", "x-cbow"], main),
        max_minus_last_min=lead("x-max", ["x-last"], main),
        max_minus_cbow_min=lead("x-max", ["x-cbow"], main),
        tt_avg=avg("tt", tt_langs),
        ttest_avg_tt=avg("ttest", tt_langs),
        ttest_minus_tt_min=lead("ttest", ["tt"], tt_langs),
        tt_gap_abs=gap(avg("tt", tt_langs), avg("x-max", tt_langs)),
        lam_default=abl.get("ft = 1, λ = 0.25", Absent(no_abl)),
        lam_zero=abl.get("ft = 1, λ = 0", Absent(no_abl)),
        lam_half=abl.get("ft = 1, λ = 0.5", Absent(no_abl)),
        ft_zero=abl.get("ft = 0, λ = 0.25", Absent(no_abl)),
        ranking=_mean(list(rank.values()))
        if rank
        else Absent("this run has no ranking-loss setting"),
        negatives_gain_min=_lo(gains, no_abl),
        negatives_gain_max=_hi(gains, no_abl),
        half_drop_min=_lo(_diffs(default, half, a_langs), no_abl),
        ft_gap_max=_hi(ft, no_abl),
        ft_gap_mean=gap(
            abl.get("ft = 1, λ = 0.25", Absent(no_abl)), abl.get("ft = 0, λ = 0.25", Absent(no_abl))
        ),
        ranking_drop_min=_lo(
            _diffs(default, rank, a_langs), "this run has no ranking-loss setting"
        ),
        curve_r_mean=_mean([v for v in r if v is not None])
        if r
        else Absent("no alignment curve in this run"),
        curve_r_max=None
        if None in r
        else float(max(r))
        if r
        else Absent("no alignment curve in this run"),
        distance_spearman=rank_correlation(*zip(*dist))
        if len(dist) >= 3
        else Absent("fewer than three invented languages in this run"),
        parallel_step_min=float(min(np.diff(at)))
        if len(at) > 1
        else Absent("one bitext size only"),
        parallel_gain=at[-1] - at[0] if len(at) > 1 else Absent("one bitext size only"),
        real_ttest_lead_min=lead("ttest-mt", others, real) if real else Absent(no_real),
        real_ttest=avg("ttest-mt", real, no_real),
        real_x_max=avg("x-max", real, no_real),
        real_x_cbow=avg("x-cbow", real, no_real),
        real_max_minus_cbow_min=lead("x-max", ["x-cbow"], real) if real else Absent(no_real),
        real_tt_gap_abs=gap(avg("tt-mt", real, no_real), avg("x-max", real, no_real)),
        real_best_reference=max((v for v in ref_real if v is not None), default=None)
        if refs and real
        else Absent("no reference encoder row on a real-text language in this run"),
        real_best_other=max(real_full) if real_full else Absent(no_real),
        invented_x_max=avg("x-max", invented, "no invented language in this run (the real XNLI)"),
        invented_best_reference=max(ref_invented)
        if ref_invented
        else Absent(
            "no reference cell on an invented language: the shipped encoders never saw them "
            "(not testable by "
            "design)"
            if invented
            else "no invented language in this run"
        ),
    )
