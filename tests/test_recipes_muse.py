"""Chapter 5's experiment plan: profiles, and the paper's claims as data checked on a run's numbers."""
from __future__ import annotations

import math

import pytest

from xsent_lib.align.adversarial import AdversarialConfig
from xsent_lib.recipes import muse
from xsent_lib.results.claims import check_claims


def test_profiles_are_typed_and_grow_from_smoke_to_full():
    assert set(muse.PROFILES) == {"smoke", "book", "full"}
    sizes = [muse.PROFILES[p] for p in ("smoke", "book", "full")]
    assert all(isinstance(p.adv, AdversarialConfig) for p in sizes)
    assert sizes[0].pairs == muse.SYNTHETIC_PAIRS[:2] and sizes[1].pairs == muse.REAL_PAIRS
    assert sizes[2].adv == AdversarialConfig()  # the thesis values
    assert [p.dim for p in sizes] == sorted(p.dim for p in sizes)


def test_build_settings_rejects_unknown_sources():
    with pytest.raises(ValueError, match="source must be"):
        muse.build_settings("wiki", [("en", "fr")])
    with pytest.raises(ValueError, match="world"):
        muse.build_settings("synthetic", [("en", "xa")])


def claims_inputs(unsup_refined: float = 50.0) -> dict:
    """Hand-made chapter tables for two directions; ``unsup_refined`` sets Adv-Refine-CSLS in both."""
    sup, uns = muse.SUP_PREFIX, muse.UNS_PREFIX
    dirs = ["en-fr", "fr-en"]
    t41 = {sup + "Procrustes - NN": {"en-fr": 40.0, "fr-en": 45.0},
           sup + "Procrustes - CSLS": {"en-fr": 50.0, "fr-en": 44.0},  # CSLS loses in fr-en
           uns + "Adv - CSLS": {"en-fr": 10.0, "fr-en": 12.0},
           uns + "Adv - Refine - CSLS": {d: unsup_refined for d in dirs}}
    hub = {"NN": {"never retrieved (%)": 60.0, "max count": 90},
           "CSLS": {"never retrieved (%)": 30.0, "max count": 20}}
    t43 = {"Methods with cross-lingual supervision / Procrustes - NN": {"en-it P@1": 20.0, "it-en P@1": 25.0},
           "Methods with cross-lingual supervision / Procrustes - CSLS": {"en-it P@1": 30.0, "it-en P@1": 35.0}}
    t45 = {"Dictionary - NN": {"en-eo": 1.0, "eo-en": 2.0}, "Dictionary - CSLS": {"en-eo": 1.5, "eo-en": 2.5},
           "ours: Procrustes dictionary - NN": {"en-eo": 5.0, "eo-en": 6.0},
           "ours: Procrustes dictionary - CSLS": {"en-eo": 7.0, "eo-en": 5.5}}  # CSLS loses in eo-en
    agree = {"en-fr": True, "fr-en": True, "en-de": True, "de-en": False}
    fig43 = {"(a) same corpus, other seed": {"x": {"n": [10, 0], "csls": [80.0, 0.0], "nn": [70.0, 0.0]}},
             "(d) other corpus and model": {"x": {"n": [10, 30], "csls": [90.0, 50.0], "nn": [0.0, 0.0]}}}
    return dict(table_4_1=t41, hubness=hub, table_4_3=t43, table_4_5=t45, agree=agree, fig43=fig43,
                directions=dirs)


def test_muse_claims_verdicts_follow_the_numbers():
    numbers = muse.claim_numbers(**claims_inputs(unsup_refined=46.0))
    rows = check_claims(muse.muse_claims(), numbers)
    # CSLS>NN fails (fr-en), gap 47-46=1 <= 3 holds, refinement holds, both hubness claims hold, sentences hold
    # both ways, BLEU (unsupervised dictionary) holds both ways, criterion 3/4 >= 0.75 holds, (a) 80% vs (d)
    # 60% holds; the two dial claims and the three real-dial claims are not testable without a dial.
    assert [r["holds"] for r in rows] == [False, True, True, None, None, True, True, True, True, True, True,
                                          True, True, None, None, None]
    # the weaker form (the supervised dictionary) is shown beside: CSLS wins en-eo, loses eo-en
    assert [r["weaker holds"] for r in rows[9:11]] == [True, False]
    assert rows[10]["verdict"] == "holds" and "unsupervised dictionary" in rows[9]["ours"]
    assert numbers["Procrustes: CSLS > NN (directions)"] == 1 and numbers["directions"] == 2
    assert numbers["mean gap Procrustes-CSLS minus Adv-Refine-CSLS"] == pytest.approx(1.0)
    assert numbers["Figure 4.3 (a) CSLS P@1"] == 80.0 and numbers["Figure 4.3 (d) CSLS P@1"] == 60.0
    assert rows[0]["paper"].endswith("/12 directions (Table 4.1)")  # read from the stored thesis table
    assert "53.5" in rows[7]["paper"] and "69.5" in rows[7]["paper"]  # Table 4.3's it-en cells
    assert "6.1" in rows[9]["paper"] and "11.1" in rows[9]["paper"]  # Table 4.5's en-eo cells
    wide = check_claims(muse.muse_claims(), muse.claim_numbers(**claims_inputs(unsup_refined=22.0)))
    assert wide[1]["holds"] is False and wide[2]["holds"] is True  # gap 25 points; refinement helped
    failed = muse.claim_numbers(**claims_inputs(unsup_refined=5.0))  # below half of Procrustes everywhere
    assert failed["unsupervised succeeded (directions)"] == 0
    failed_rows = check_claims(muse.muse_claims(), failed)
    assert [r["holds"] for r in failed_rows[1:3]] == [None, None]
    # the BLEU claim is the unsupervised dictionary's: not testable when that map failed, never decided on
    # the supervised one (shown as the weaker form)
    assert [r["holds"] for r in failed_rows[9:11]] == [None, None]
    assert [r["verdict"] for r in failed_rows[9:11]] == ["not testable here; the weaker form holds",
                                                         "not testable here; the weaker form fails too"]


def test_bleu_is_judged_per_direction_of_the_unsupervised_map():
    inputs = claims_inputs(unsup_refined=46.0)
    inputs["table_4_1"][muse.UNS_PREFIX + "Adv - Refine - CSLS"]["fr-en"] = 1.0  # failed back-direction
    numbers = muse.claim_numbers(**inputs, bleu_directions={"en-eo": "en-fr", "eo-en": "fr-en"})
    assert numbers["BLEU unsupervised en-eo CSLS"] == 1.5 and math.isnan(numbers["BLEU unsupervised eo-en CSLS"])
    rows = check_claims(muse.muse_claims(), numbers)
    assert [r["holds"] for r in rows[9:11]] == [True, None]
    missing = muse.claim_numbers(**inputs, bleu_directions={"en-eo": "en-de", "eo-en": "fr-en"})  # not run
    assert math.isnan(missing["BLEU unsupervised en-eo NN"])
    with pytest.raises(TypeError, match="direction names"):
        muse.claim_numbers(**inputs, bleu_directions={"en-eo": object(), "eo-en": "fr-en"})


def test_dial_claims_read_the_nearest_pair_at_the_largest_corpus():
    rows = [{"pair": p, "distance": d, "n_sentences": n, "seed": s, "Procrustes": 20.0, "Adv - Refine": a,
             "VecMap": v, "unsupervised (criterion)": v}
            for p, d, n, a, v in [("en-en", 0, 100, 0.0, 5.0), ("en-en", 0, 400, 1.0, 19.0),
                                  ("en-xa", 4, 400, 0.0, 2.0)] for s in (0, 1)]
    summary = muse.dial_summary(rows)
    assert [(r["pair"], r["n_sentences"], r["seeds"]) for r in summary] == [("en-en", 100, 2), ("en-en", 400, 2),
                                                                            ("en-xa", 400, 2)]
    assert summary[1]["within 3 VecMap"] and not summary[2]["within 3 VecMap"]
    numbers = muse.claim_numbers(**claims_inputs(unsup_refined=5.0), dial=summary)
    assert numbers["dial nearest pair: gap Procrustes minus Adv - Refine"] == pytest.approx(19.0)
    holds = [r["holds"] for r in check_claims(muse.muse_claims(), numbers)[3:5]]
    assert holds == [False, True]
    assert muse.dial_points(muse.DIALS["book"])[0] == ("en", "en", max(muse.DIALS["book"].sentences))


def test_real_dial_claims_read_the_largest_size_both_english_points_share():
    def row(point, same_domain, n, procrustes, unsup):
        return {"point": point, "same language": True, "same domain": same_domain, "n_sentences": n, "seed": 0,
                "Procrustes": procrustes, "VecMap": unsup, "unsupervised (criterion)": unsup}

    raw = [row("a / a'", True, 1000, 5.0, 0.0), row("a / a'", True, 4000, 20.0, 18.0),
           row("a / b", False, 1000, 4.0, 0.0), row("a / b", False, 4000, 12.0, 2.0),
           {**row("en / fr", False, 4000, 30.0, 1.0), "same language": False}]
    summary = muse.dial_summary(raw, keys=("point", "same language", "same domain", "n_sentences"))
    numbers = muse.claim_numbers(**claims_inputs(), real_dial=summary)
    assert numbers["real dial same domain: Procrustes"] == 20.0 and numbers["real dial other domain: Procrustes"] == 12.0
    assert numbers["real dial: unsupervised gap, other minus same domain"] == pytest.approx(10.0 - 2.0)
    assert [r["holds"] for r in check_claims(muse.muse_claims(), numbers)[-3:]] == [True, True, True]
    # the unsupervised map failed on the same-domain corpora: the domain effect on its gap is not testable
    failed = [dict(r, **{"unsupervised (criterion)": 1.0, "VecMap": 1.0}) for r in raw]
    numbers = muse.claim_numbers(**claims_inputs(), real_dial=muse.dial_summary(
        failed, keys=("point", "same language", "same domain", "n_sentences")))
    assert [r["holds"] for r in check_claims(muse.muse_claims(), numbers)[-3:]] == [False, True, None]


def test_claim_numbers_fail_loudly_on_missing_tables():
    bad = claims_inputs()
    del bad["hubness"]["CSLS"]
    with pytest.raises(KeyError, match="CSLS"):
        muse.claim_numbers(**bad)
    bad = claims_inputs()
    bad["directions"] = ["en-fr", "en-de"]
    with pytest.raises(KeyError, match="en-de"):
        muse.claim_numbers(**bad)
    bad = claims_inputs()
    bad["agree"] = {}
    with pytest.raises(ValueError, match="empty"):
        muse.claim_numbers(**bad)


def test_every_claim_reads_a_number_the_recipe_computes():
    numbers = muse.claim_numbers(**claims_inputs())
    for claim in muse.muse_claims():
        assert claim.lhs in numbers and (not isinstance(claim.rhs, str) or claim.rhs in numbers)
