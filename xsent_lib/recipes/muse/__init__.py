"""Chapter 5's experiment plan (MUSE, thesis section 4.1): profiles, and the paper's claims as data.

The methods live in the library's layers (word spaces and dictionaries in :mod:`xsent_lib.data`,
settings and pipelines in :mod:`xsent_lib.align`, retrieval, hubness and the isomorphism dial in
:mod:`xsent_lib.eval`). This module holds what is the chapter's own: the sizes of each profile
(:data:`PROFILES`, in :mod:`~xsent_lib.recipes.muse.plans`), the numbers the claims read
(:class:`MuseClaimNumbers`, :func:`claim_numbers`), the claims (:data:`CLAIMS`) and the same
numbers from the thesis' tables (:func:`paper_numbers`).

Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from xsent_lib.eval.dial import DIAL_UNSUPERVISED
from xsent_lib.recipes.muse.plans import (  # noqa: F401 - the chapter reads them here
    DIALS,
    PROFILES,
    REAL_DIAL_POINTS,
    REAL_PAIRS,
    SYNTHETIC_PAIRS,
    WORK_UNIT,
    MuseProfile,
    work,
)
from xsent_lib.results.claims import Absent, Claim, ClaimSet, PaperCell, Weaker
from xsent_lib.results.paper import paper_table

# -- the numbers the claims read -------------------------------------------------------------------

SUP_PREFIX = "Methods with cross-lingual supervision and fastText embeddings / "
UNS_PREFIX = "Methods without cross-lingual supervision and fastText embeddings / "
SENT_SUP = "Methods with cross-lingual supervision / Procrustes - "
MAX_GAP = 3.0  # "on par" / "close to": a gap of at most this many points of P@1
#: "well correlated": the criterion orders the maps as P@1 does in at least this share of directions
MIN_AGREEMENT = 0.75
Number = float | Absent | None
Table = Mapping[str, Mapping[str, float]]


@dataclass(frozen=True, kw_only=True)
class MuseClaimNumbers:
    """The numbers chapter 5's claims read, from this run's tables (:func:`claim_numbers`) or the
    thesis' (:func:`paper_numbers`).

    Word translation (Table 4.1): ``directions`` ran, ``csls_wins`` (Procrustes-CSLS above
    Procrustes-NN), ``refine_wins`` (Adv-Refine-CSLS above Adv-CSLS), ``mean_gap`` (Procrustes-CSLS
    minus Adv-Refine-CSLS, mean over the directions) and ``unsupervised_succeeded`` (directions
    where Adv-Refine-CSLS reached half of Procrustes-CSLS). Hubness of the headline pair's
    supervised map: ``never_retrieved_*`` (% of target words) and ``top_hub_*`` (queries that
    retrieve the top hub). Table 4.3: ``sentences_*`` P@1; Table 4.5: ``bleu_*``.
    ``criterion_agreement``: share of directions where the criterion orders the maps as P@1 does.
    Figure 4.3: ``fig43_*_csls`` (P@1 over all test words). The synthetic dial's nearest pair at its
    largest corpus: ``dial_gap_*`` (Procrustes minus the unsupervised map). The real dial:
    ``real_*``.
    Book: chapter 5 (Word translation without parallel data).
    """

    directions: Number
    unsupervised_succeeded: Number
    csls_wins: Number
    refine_wins: Number
    mean_gap: Number
    criterion_agreement: Number
    never_retrieved_nn: Number
    never_retrieved_csls: Number
    top_hub_nn: Number
    top_hub_csls: Number
    sentences_it_en_nn: Number
    sentences_it_en_csls: Number
    sentences_en_it_nn: Number
    sentences_en_it_csls: Number
    bleu_en_eo_nn: Number
    bleu_en_eo_csls: Number
    bleu_eo_en_nn: Number
    bleu_eo_en_csls: Number
    bleu_procrustes_en_eo_nn: Number
    bleu_procrustes_en_eo_csls: Number
    bleu_procrustes_eo_en_nn: Number
    bleu_procrustes_eo_en_csls: Number
    fig43_a_csls: Number
    fig43_d_csls: Number
    dial_gap_adv_refine: Number
    dial_gap_vecmap: Number
    dial_gap_criterion: Number
    real_same_procrustes: Number
    real_other_procrustes: Number
    real_same_gap: Number
    real_other_gap: Number
    real_domain_gap_change: Number


_T41_ROWS = {"nn": SUP_PREFIX + "Procrustes - NN", "csls": SUP_PREFIX + "Procrustes - CSLS",
             "adv": UNS_PREFIX + "Adv - CSLS", "refined": UNS_PREFIX + "Adv - Refine - CSLS"}


def _word_translation(t41: Table, directions: Sequence[str], success_ratio: float
                      ) -> dict[str, Number]:
    """Table 4.1's numbers of :class:`MuseClaimNumbers` over ``directions``.

    The mean gap is ``None`` where Procrustes-CSLS averages at most ``2 MAX_GAP`` points (nothing to
    be on par with)."""
    rows = {k: t41[row] for k, row in _T41_ROWS.items()}

    def wins(better: str, worse: str) -> int:
        return int(sum(bool(rows[better][d] > rows[worse][d]) for d in directions))

    succeeded = [bool(rows["refined"][d] >= success_ratio * rows["csls"][d] > 0)
                 for d in directions]
    informative = float(np.mean([rows["csls"][d] for d in directions])) > 2 * MAX_GAP
    gap = float(np.mean([rows["csls"][d] - rows["refined"][d] for d in directions]))
    return {"directions": len(directions), "csls_wins": wins("csls", "nn"),
            "refine_wins": wins("refined", "adv"), "mean_gap": gap if informative else None,
            "unsupervised_succeeded": int(sum(succeeded))}


def _snake(direction: str) -> str:
    """``"en-eo"`` as a field-name part, ``"en_eo"``."""
    return direction.replace("-", "_")


def _sentences_bleu(t43: Table, t45: Table) -> dict[str, float]:
    """Table 4.3's sentence-retrieval P@1 and Table 4.5's BLEU (unsupervised dictionary) numbers."""
    methods = ("NN", "CSLS")
    return {**{f"sentences_{_snake(d)}_{m.lower()}": float(t43[SENT_SUP + m][f"{d} P@1"])
               for m in methods for d in ("it-en", "en-it")},
            **{f"bleu_{_snake(d)}_{m.lower()}": float(t45[f"Dictionary - {m}"][d])
               for m in methods for d in ("en-eo", "eo-en")}}


def _frequency_accuracy(series: Mapping, method: str) -> float:
    """Accuracy over all test words of a Figure 4.3 panel's first series (buckets by size)."""
    res = next(iter(series.values()))
    n = np.asarray(res["n"], dtype=float)
    return float(np.sum(n * np.asarray(res[method])) / max(n.sum(), 1.0))


def _dial_numbers(dial: Sequence[Mapping]) -> dict[str, Number]:
    """The synthetic dial's nearest pair, largest corpus: Procrustes minus each unsupervised map."""
    names = ("dial_gap_adv_refine", "dial_gap_vecmap", "dial_gap_criterion")
    if not dial:
        return dict.fromkeys(names, Absent("no isomorphism dial in this run"))
    largest = max(r["n_sentences"] for r in dial)
    near = min((r for r in dial if r["n_sentences"] == largest), key=lambda r: r["distance"])
    informative = any(k.startswith("within") and near[k] is not None for k in near)
    # where Procrustes itself is too low, a small gap says nothing: no number
    return {name: near[f"gap {m}"] if informative else None
            for name, m in zip(names, DIAL_UNSUPERVISED)}


def _real_dial_numbers(summary: Sequence[Mapping]) -> dict[str, Number]:
    """The real dial's numbers, at the largest size both English points (same, other domain) ran."""
    english = [r for r in summary if r["same language"]]
    by_domain = {flag: {r["n_sentences"]: r for r in english if r["same domain"] == flag}
                 for flag in (True, False)}
    common = sorted(set(by_domain[True]) & set(by_domain[False]))
    names = ("real_same_procrustes", "real_other_procrustes", "real_same_gap", "real_other_gap",
             "real_domain_gap_change")
    if not common:
        lacking = [kind for kind, flag in (("same-domain", True), ("other-domain", False))
                   if not by_domain[flag]]
        why = ("the real dial's corpora are not in the data cache" if not summary else
               f"the real dial ran no {' and no '.join(lacking)} English point (this profile's "
               "data and plan leave it out)" if lacking else
               "no size ran for both English points (a corpus holds too few lines)")
        return dict.fromkeys(names, Absent(why))
    same, other = by_domain[True][common[-1]], by_domain[False][common[-1]]
    gap = "gap unsupervised (criterion)"
    return dict(zip(names, (same["Procrustes"], other["Procrustes"], same[gap], other[gap],
                            other[gap] - same[gap])))


def claim_numbers(*, table_4_1: Table, hubness: Mapping[str, Mapping], table_4_3: Table,
                  table_4_5: Table, agree: Mapping[str, bool], fig43: Mapping[str, Mapping],
                  directions: Sequence[str],
                  dial: Sequence[Mapping] = (), real_dial: Sequence[Mapping] = (),
                  success_ratio: float = 0.5) -> MuseClaimNumbers:
    """This run's :class:`MuseClaimNumbers`, from the chapter's tables as it logs them.

    ``table_4_1`` rows (``SUP_PREFIX``/``UNS_PREFIX`` + method) map to ``{direction: P@1}``;
    ``hubness`` is ``{"NN"|"CSLS": hubness_summary(...)}``; ``table_4_5`` holds the unsupervised
    (``Dictionary - NN``) and supervised (``ours: Procrustes dictionary - NN``) rows under Table
    4.5's columns; ``agree`` ``{direction: whether the criterion orders the maps as P@1 does}``;
    ``fig43`` ``{panel: {series: accuracy_by_frequency(...)}}``; ``dial`` and ``real_dial`` the rows
    of :func:`~xsent_lib.eval.dial.dial_summary` (the real one keyed ``("point", "same language",
    "same domain", "n_sentences")``). Every number of a method that ran is reported, whether the
    unsupervised map succeeded or not (a failed reproduction fails its claims); a dial point where
    Procrustes itself is too low to compare with gives no number (``None``); a dial without rows is
    :class:`Absent`.
    Book: chapter 5 (Word translation without parallel data).
    """
    directions = list(directions)
    if not directions or not agree:
        raise ValueError("directions and agree must not be empty; pass the chapter's setting names "
                         "and table.")
    out: dict[str, Number] = _word_translation(table_4_1, directions, success_ratio)
    out["criterion_agreement"] = sum(bool(v) for v in agree.values()) / len(agree)
    out |= _sentences_bleu(table_4_3, table_4_5)
    for m in ("NN", "CSLS"):
        out[f"never_retrieved_{m.lower()}"] = hubness[m]["never retrieved (%)"]
        out[f"top_hub_{m.lower()}"] = hubness[m]["max count"]
        for d in ("en-eo", "eo-en"):
            out[f"bleu_procrustes_{_snake(d)}_{m.lower()}"] = \
                table_4_5[f"ours: Procrustes dictionary - {m}"][d]
    out["fig43_a_csls"] = _frequency_accuracy(fig43["(a) same corpus, other seed"], "csls")
    out["fig43_d_csls"] = _frequency_accuracy(fig43["(d) other corpus and model"], "csls")
    return MuseClaimNumbers(**out, **_dial_numbers(dial), **_real_dial_numbers(real_dial))


def paper_numbers() -> MuseClaimNumbers:
    """:class:`MuseClaimNumbers` from the thesis' own tables 4.1, 4.3 and 4.5 (all twelve directions
    of Table 4.1); :class:`Absent` where the thesis reports no table for a claim.

    Book: chapter 5 (Word translation without parallel data).
    """
    t41, t43, t45 = (paper_table("thesis", f"table_4_{i}") for i in (1, 3, 5))
    out: dict[str, Number] = _word_translation(t41.T.to_dict(), list(t41.columns), 0.5)
    out |= _sentences_bleu(t43.T.to_dict(), t45.T.to_dict())
    hubs = "the thesis argues hubness in prose (Figure 4.1 D), with no counts"
    absent = (("criterion", "Figure 4.2 plots one run; the thesis gives no table of the criterion"),
              ("never_retrieved", hubs), ("top_hub", hubs),
              ("fig43", "Figure 4.3 is a plot; its numbers are not stored"),
              ("dial", "the isomorphism dial goes beyond the thesis"),
              ("real", "the real dial goes beyond the thesis"),
              ("bleu_procrustes", "the thesis reports BLEU for the unsupervised dictionary only"))
    for name in MuseClaimNumbers.__dataclass_fields__:
        if name not in out:
            out[name] = Absent(next(why for prefix, why in absent if name.startswith(prefix)))
    return MuseClaimNumbers(**out)


# -- the paper's claims ----------------------------------------------------------------------------

def _paper_wins(better: str, worse: str) -> str:
    """In how many directions of the stored thesis Table 4.1 row ``better`` beats row ``worse``."""
    t = paper_table("thesis", "table_4_1")
    return f"{int((t.loc[better] > t.loc[worse]).sum())}/{t.shape[1]} directions (Table 4.1)"


def _paper_gap() -> str:
    """The thesis' mean gap Procrustes-CSLS minus Adv-Refine-CSLS over Table 4.1's directions."""
    t = paper_table("thesis", "table_4_1")
    gap = t.loc[_T41_ROWS["csls"]] - t.loc[_T41_ROWS["refined"]]
    return f"mean gap {gap.mean():.1f} points over {t.shape[1]} directions (Table 4.1)"


_Q_CSLS = ("Looking at the difference between Procrustes-NN and Procrustes-CSLS, one can see that "
           "CSLS provides a strong and robust gain in performance across all language pairs, with "
           "up to 7.2% in en-eo.")
_Q_PAR = ("As a result, our approach produces high-quality dictionaries between different pairs of "
          "languages, with up to 83.3% precision@1 on the Spanish-English word translation task. "
          "This performance is on par with supervised approaches.")
_Q_REFINE = ("The refinement step on the synthetic bilingual vocabulary constructed after "
             "adversarial training brings an additional and significant gain in performance, "
             "closing the gap between our approach and the supervised baseline.")
_Q_COOC = ("The better performance of the unsupervised approach can be explained by the strong "
           "similarity of co-occurrence statistics between the languages, and by the limitation in "
           "the supervised approach that uses a pre-defined fixed-size vocabulary (of 5,000 unique "
           "source words): in our case the refinement step can potentially use more anchor points.")
_Q_HUBS = ("Second we propose the similarity measure CSLS, which mitigates the hubness problem and "
           "drastically increases the word translation accuracy.")
_Q_SENT = ("In Table 4.3, we also obtain a strong gain in accuracy in the Italian-English sentence "
           "retrieval task using CSLS, from 53.5% to 69.5%, outperforming previous approaches by "
           "an absolute gain of more than 20%.")
_Q_BLEU = "The quality of the generated dictionary has a significant impact on the BLEU score."
_Q_CRIT = "Observe how our criterion is well correlated with translation accuracy."
_Q_FIG43 = ("The model can learn to perfectly align embeddings trained on the same corpus but with "
            "different seeds (a) ... Performance can be further deteriorated by using both "
            "different models and different types of corpus (d).")
_Q_CORPORA = ("However, the model has more trouble aligning embeddings trained on different "
              "corpora (Wikipedia and Gigaword) (c). This can be explained by the difference in "
              "co-occurrence statistics of the two corpora, particularly on the rarer words.")
_T41 = "thesis §4.1.4 (Results and discussion), Table 4.1"
_DIAL_NOTE = ("synthetic dial: nearest pair (two corpora of one language), largest corpus, mean "
              "over seeds; P@1 CSLS on the gold lexicon's test half; no number (fails) where "
              f"Procrustes itself is at most {2 * MAX_GAP:g} points")
_REAL_NOTE = ("real dial: English news (one half of nlp-corpus) against its other half (same "
              "domain) and against Brown + fortunes + KJV (other domain), largest size both ran; "
              "identity on frequent shared words")
_FAILED = "reported whether or not the unsupervised map succeeded: a failed map fails the claim"

CLAIMS = (
    Claim("'CSLS provides a strong and robust gain in performance across all language pairs' "
          "(Procrustes)", "csls_wins", "==", "directions",
          _paper_wins(_T41_ROWS["csls"], _T41_ROWS["nn"]), note="every direction",
          id="ch05.csls_gain", quote=_Q_CSLS, where=_T41),
    Claim("'This performance is on par with supervised approaches' (Adv-Refine-CSLS against "
          "Procrustes-CSLS)", "mean_gap", "<=", MAX_GAP, _paper_gap(),
          note=f"'on par' read as a mean gap of at most {MAX_GAP:g} points; {_FAILED}; no number "
               f"(fails) where Procrustes-CSLS itself averages at most {2 * MAX_GAP:g} points",
          id="ch05.unsupervised_on_par", quote=_Q_PAR,
          where="thesis §4.1.7 (Conclusion), Table 4.1"),
    Claim("'The refinement step ... brings an additional and significant gain in performance' "
          "(Adv-CSLS -> Adv-Refine-CSLS)", "refine_wins", "==", "directions",
          _paper_wins(_T41_ROWS["refined"], _T41_ROWS["adv"]), note=f"every direction; {_FAILED}",
          id="ch05.refinement_gain", quote=_Q_REFINE, where=_T41),
    Claim(f"near-isomorphic spaces: MUSE's Adv-Refine within {MAX_GAP:g} points of Procrustes "
          "(dial)",
          "dial_gap_adv_refine", "<=", MAX_GAP, _paper_gap(), note=_DIAL_NOTE,
          id="ch05.dial_adv_refine", quote=_Q_COOC,
          where="thesis §4.1.4 (Results and discussion); tested on the synthetic dial, beyond the "
                "thesis"),
    Claim(f"near-isomorphic spaces: an unsupervised map picked by the criterion within {MAX_GAP:g} "
          "points of Procrustes (dial; Adv-Refine or VecMap)", "dial_gap_criterion", "<=", MAX_GAP,
          "beyond the paper: VecMap's initialisation (Artetxe et al. 2018)", note=_DIAL_NOTE,
          id="ch05.dial_criterion", quote=_Q_COOC,
          where="thesis §4.1.4 (Results and discussion); VecMap (Artetxe et al. 2018), beyond the "
                "thesis"),
    Claim("CSLS mitigates the hubness problem: fewer never-retrieved targets",
          "never_retrieved_csls", "<", "never_retrieved_nn", "argued in the text (Figure 4.1 D)",
          id="ch05.hubness_never_retrieved",
          quote=_Q_HUBS, where="thesis §4.1.7 (Conclusion); §4.1.2 (CSLS), Figure 4.1 D"),
    Claim("CSLS mitigates the hubness problem: a smaller top hub", "top_hub_csls", "<",
          "top_hub_nn",
          "argued in the text (Figure 4.1 D)", id="ch05.hubness_top_hub", quote=_Q_HUBS,
          where="thesis §4.1.7 (Conclusion); §4.1.2 (CSLS), Figure 4.1 D"),
    *(Claim("'a strong gain in accuracy in the Italian-English sentence retrieval task using "
            f"CSLS', {d} (Table 4.3, Procrustes)", f"sentences_{_snake(d)}_csls", ">",
            f"sentences_{_snake(d)}_nn",
            [PaperCell("thesis", "table_4_3", SENT_SUP + m, f"{d} P@1") for m in ("NN", "CSLS")],
            id=f"ch05.sentences_csls_{_snake(d)}", quote=_Q_SENT,
            where=f"thesis §4.1.4 (Results and discussion), Table 4.3 ({d} columns)")
      for d in ("it-en", "en-it")),
    *(Claim("'The quality of the generated dictionary has a significant impact on the BLEU "
            f"score': the unsupervised CSLS dictionary above NN, {d} (Table 4.5)",
            f"bleu_{_snake(d)}_csls", ">", f"bleu_{_snake(d)}_nn",
            [PaperCell("thesis", "table_4_5", f"Dictionary - {m}", d) for m in ("NN", "CSLS")],
            note=f"on the unsupervised dictionary, as the paper; {_FAILED}",
            weaker=Weaker("CSLS above NN with the supervised (Procrustes) dictionary instead",
                          f"bleu_procrustes_{_snake(d)}_csls", ">",
                          f"bleu_procrustes_{_snake(d)}_nn",
                          id=f"ch05.bleu_procrustes_{_snake(d)}"),
            id=f"ch05.bleu_csls_{_snake(d)}", quote=_Q_BLEU,
            where=f"thesis §4.1.4 (Results and discussion), Table 4.5 caption ({d})")
      for d in ("en-eo", "eo-en")),
    Claim("the criterion ranks maps as accuracy does (Figure 4.2)", "criterion_agreement", ">=",
          MIN_AGREEMENT, "well correlated (one run shown)",
          note=f"'well correlated' read as the right order in at least {MIN_AGREEMENT:g} of the "
               "directions",
          id="ch05.criterion_follows_accuracy", quote=_Q_CRIT,
          where="thesis §4.1.3 (Validation criterion), Figure 4.2 caption"),
    Claim("same-corpus spaces align better than other corpora and models (Figure 4.3)",
          "fig43_a_csls", ">", "fig43_d_csls", "(a) near perfect, (d) worst",
          id="ch05.same_corpus_aligns_best",
          quote=_Q_FIG43, where="thesis §4.1.5 (Complementary analysis), Figure 4.3 caption"),
    Claim(f"real text, one language and domain: an unsupervised map picked by the criterion within "
          f"{MAX_GAP:g} points of Procrustes (real dial, largest corpus)", "real_same_gap", "<=",
          MAX_GAP,
          _paper_gap(), note=_REAL_NOTE, id="ch05.real_same_domain_unsupervised", quote=_Q_COOC,
          where="thesis §4.1.4 (Results and discussion); tested on the real dial, beyond the "
                "thesis"),
    Claim("domain mismatch lowers even supervised P@1 between two English corpora",
          "real_other_procrustes", "<", "real_same_procrustes",
          "Figure 4.3 (c); Sogaard et al. (2018)",
          note=_REAL_NOTE,
          id="ch05.real_domain_supervised", quote=_Q_CORPORA,
          where="thesis §4.1.5 (Complementary analysis), Figure 4.3 caption; Sogaard et al. 2018"),
    Claim("domain mismatch widens the gap between unsupervised and supervised maps",
          "real_domain_gap_change", ">", 0.0, "beyond the thesis: Sogaard et al. (2018)",
          note=f"{_REAL_NOTE}; {_FAILED}",
          id="ch05.real_domain_unsupervised", quote=_Q_CORPORA,
          where="thesis §4.1.5 (Complementary analysis), Figure 4.3 caption; Sogaard et al. 2018"),
)
CLAIM_SET = ClaimSet("05_muse", CLAIMS, paper_numbers)
