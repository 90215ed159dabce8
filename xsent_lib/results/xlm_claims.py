"""Chapter 10's claim numbers: one typed record (:class:`XLMClaimNumbers`) built from a run's tables
(:func:`claim_numbers`) or from the paper's own Tables 4.12, 4.15 and 4.16 (:func:`paper_numbers`),
with :class:`~xsent_lib.results.claims.Absent` where the data a number needs is not here.

Book: chapter 10 (Cross-lingual language models, XLM).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from xsent_lib.eval.xlm import MLMCheck
from xsent_lib.results.claims import Absent
from xsent_lib.results.paper import paper_table
from xsent_lib.results.xlm_tables import CHANCE, ENCODERS, ROWS, perplexities, target_mean

#: "well above chance" read as at least this many points above 33.3% (three balanced classes)
WELL_ABOVE = 10.0
#: "a significant boost" (TLM over MLM) read as at least this many points on the mean of the targets
BOOST = 1.0
#: "a much larger perplexity reduction" read as at least this many times the distant language's
MUCH_LARGER = 2.0
Number = float | Absent | None
_NO_LASER = Absent("the previous supervised state of the art, Artetxe and Schwenk (2018), trained "
                   "on 223M parallel sentences, is not available offline")
_NO_SEMEVAL = Absent("no SemEval'17 cross-lingual word similarity set is available offline")


@dataclass(frozen=True, kw_only=True)
class XLMClaimNumbers:
    """The numbers chapter 10's claims compare, ours (:func:`claim_numbers`) or the paper's
    (:func:`paper_numbers`). Accuracies in %; means over the target languages (English left out).

    ``mlm_min_gain_over_scratch``: MLM's smallest per-language gain over the same Transformer
    without pretraining; ``*_on_tt``: means over the translate-train languages only; ``synthetic_*``
    / ``real_*``: Table 4.15 (the paper's Nepali table for both), ``*_drop_*`` reductions from the
    small language alone; ``*_cosine`` / ``*_l2`` / ``*_semeval``: Table 4.16 (``muse_*``: our
    Procrustes stand-in); ``heldout_mlm_loss`` against ``unigram_entropy``: pretraining left the
    context-free level.
    Book: chapter 10 (Cross-lingual language models, XLM).
    """

    chance_plus_margin: float
    mlm_en: Number
    mlm_tlm_en: Number
    mlm_mean: Number
    mlm_min: Number
    scratch_mean: Number
    mlm_min_gain_over_scratch: Number
    mlm_tlm_mean: Number
    tlm_gain_mean: Number
    bilstm_mean: Number
    supervised_sota_mean: Number
    tt_mean: Number
    mlm_tlm_mean_on_tt: Number
    translate_test_mean: Number
    translate_test_mean_on_tt: Number
    synthetic_ppl_alone: Number
    synthetic_ppl_distant: Number
    synthetic_ppl_related: Number
    synthetic_ppl_both: Number
    synthetic_drop_related: Number
    synthetic_drop_distant_times_much_larger: Number
    real_ppl_alone: Number
    real_ppl_distant: Number
    real_ppl_related: Number
    real_ppl_both: Number
    real_drop_related: Number
    real_drop_distant_times_much_larger: Number
    xlm_cosine: Number
    muse_cosine: Number
    concat_cosine: Number
    xlm_l2: Number
    muse_l2: Number
    concat_l2: Number
    xlm_semeval: Number
    muse_semeval: Number
    concat_semeval: Number
    heldout_mlm_loss: Number
    unigram_entropy: Number

    def as_metrics(self) -> dict[str, Any]:
        """Plain values for metrics.json: a number, null, or ``{"absent": why}``.

        Book: chapter 10 (Cross-lingual language models, XLM).
        """
        return {f.name: {"absent": v.why} if isinstance(v, Absent) else v
                for f in fields(self) for v in [getattr(self, f.name)]}


def _lm(prefix: str, ppl: Mapping[str, Number] | Absent) -> dict[str, Number]:
    """Table 4.15's fields of ``prefix`` from perplexities (alone, distant, related, both)."""
    if isinstance(ppl, Absent):
        names = ("ppl_alone", "ppl_distant", "ppl_related", "ppl_both", "drop_related",
                 "drop_distant_times_much_larger")
        return {f"{prefix}_{k}": ppl for k in names}
    a, d, r = ppl["alone"], ppl["distant"], ppl["related"]
    gone = a is None or d is None or r is None
    return {**{f"{prefix}_ppl_{k}": v for k, v in ppl.items()},
            f"{prefix}_drop_related": None if gone else a - r,
            f"{prefix}_drop_distant_times_much_larger": None if gone else MUCH_LARGER * (a - d)}


def _words(words: Mapping[str, Mapping[str, Any]] | None) -> dict[str, Number]:
    """Table 4.16's cosine and L2 fields from one table of :func:`xsent_lib.eval.xlm.word_table`."""
    names = {"xlm": "XLM", "muse": "Procrustes (MUSE stand-in)", "concat": "Concat"}
    metrics = {"cosine": "cosine", "l2": "L2"}
    if words is not None and "note" not in words:
        return {f"{s}_{m}": words[row][key] for s, row in names.items()
                for m, key in metrics.items()}
    why = Absent("no Table 4.16 space was built in this run" if words is None else
                 f"fewer than 2 test pairs are covered by every space ({words['note']['n']})")
    return {f"{s}_{m}": why for s in names for m in metrics}


def claim_numbers(rows: Mapping[str, Mapping[str, float | None]],
                  lm_synthetic: Sequence[Mapping[str, Any]] | None,
                  lm_real: Sequence[Mapping[str, Any]] | None,
                  words: Mapping[str, Mapping[str, Any]] | None,
                  mlm_check: MLMCheck, *, real_xnli: bool) -> XLMClaimNumbers:
    """Our claim numbers from the run's tables: ``rows`` (Table 4.12, keys of ``ROWS``), the rows of
    each Table 4.15 (None: not run in this profile), one Table 4.16 (None: none built), the MLM
    check. A number whose data is not here is :class:`Absent`; one the method did not produce is
    None (the claim then fails).

    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    tt = [lang for lang in rows.get("tt", {}) if lang != "en"]
    no_tt = Absent("no translate-train language in this run")
    ttest = rows.get("ttest")
    no_ttest = Absent("the real XNLI layout has no translations of its test sets into English"
                      if real_xnli else "translate-test did not run")
    mlm, scratch, both = rows["mlm"], rows["scratch"], rows["mlm+tlm"]
    accs = [v for k, v in mlm.items() if k != "en"]
    gains = [None if v is None or scratch.get(k) is None else v - scratch[k]
             for k, v in mlm.items() if k != "en"]
    m_mean, t_mean = target_mean(mlm), target_mean(both)
    no_lm_real = Absent("this profile leaves the real-text Table 4.15 to full (no lm_real)")
    return XLMClaimNumbers(
        chance_plus_margin=CHANCE + WELL_ABOVE, mlm_en=mlm.get("en"), mlm_tlm_en=both.get("en"),
        mlm_mean=m_mean, mlm_min=None if None in accs else min(accs),
        scratch_mean=target_mean(scratch),
        mlm_min_gain_over_scratch=None if None in gains else min(gains), mlm_tlm_mean=t_mean,
        tlm_gain_mean=None if m_mean is None or t_mean is None else t_mean - m_mean,
        bilstm_mean=target_mean(rows.get("bilstm")), supervised_sota_mean=_NO_LASER,
        tt_mean=target_mean(rows["tt"]) if tt else no_tt,
        mlm_tlm_mean_on_tt=target_mean(both, tt) if tt else no_tt,
        translate_test_mean=target_mean(ttest) if ttest else no_ttest,
        translate_test_mean_on_tt=(target_mean(ttest, tt) if ttest else no_ttest) if tt else no_tt,
        **_lm("synthetic", perplexities(lm_synthetic) if lm_synthetic is not None
              else Absent("this profile has no synthetic Table 4.15")),
        **_lm("real", perplexities(lm_real) if lm_real is not None else no_lm_real),
        **_words(words), xlm_semeval=_NO_SEMEVAL, muse_semeval=_NO_SEMEVAL,
        concat_semeval=_NO_SEMEVAL, heldout_mlm_loss=mlm_check.heldout_mlm_loss,
        unigram_entropy=mlm_check.unigram_entropy)


def paper_numbers() -> XLMClaimNumbers:
    """The claim numbers of the paper's own Tables 4.12, 4.15 and 4.16 (Absent where they have no
    cell).

    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    t412, t415, t416 = (paper_table("thesis", f"table_4_1{n}") for n in (2, 5, 6))
    langs = t412.drop(columns="avg")
    mean = {key: target_mean(langs.loc[row].dropna().to_dict()) for key, row in ROWS.items()
            if row in langs.index}
    laser = langs.loc[f"{ENCODERS} / Artetxe and Schwenk (2018)"]
    ppl = dict(zip(("alone", "distant", "related", "both"),
                   t415["Nepali perplexity"].astype(float)))
    no_row = Absent("the paper's Table 4.12 has no row without pretraining")
    no_check = Absent("the paper's tables do not report the held-out MLM loss")
    targets = [c for c in t412.columns if c not in ("en", "avg")]
    return XLMClaimNumbers(
        chance_plus_margin=CHANCE + WELL_ABOVE, mlm_en=float(t412.loc[ROWS["mlm"], "en"]),
        mlm_tlm_en=float(t412.loc[ROWS["mlm+tlm"], "en"]), mlm_mean=mean["mlm"],
        mlm_min=float(t412.loc[ROWS["mlm"], targets].min()), scratch_mean=no_row,
        mlm_min_gain_over_scratch=no_row, mlm_tlm_mean=mean["mlm+tlm"],
        tlm_gain_mean=mean["mlm+tlm"] - mean["mlm"], bilstm_mean=mean["bilstm"],
        supervised_sota_mean=target_mean(laser.dropna().to_dict()), tt_mean=mean["tt"],
        mlm_tlm_mean_on_tt=mean["mlm+tlm"], translate_test_mean=mean["ttest"],
        translate_test_mean_on_tt=mean["ttest"], **_lm("synthetic", ppl), **_lm("real", ppl),
        **{f"{short}_{metric}": float(t416.loc[name, col]) for short, name in
           (("xlm", "XLM"), ("muse", "MUSE"), ("concat", "Concat")) for metric, col in
           (("cosine", "Cosine sim."), ("l2", "L2 dist."), ("semeval", "SemEval'17"))},
        heldout_mlm_loss=no_check, unigram_entropy=no_check)
