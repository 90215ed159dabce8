"""Chapter 6: the XNLI-shaped benchmark builders (synthetic world and XNLI's real layout)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.xnli import (
    DictTranslator,
    real_xnli,
    synthetic_xnli,
    typological_distance,
    word_by_word_translator,
)

FULL = Path(__file__).parent / "fixtures" / "xnli_full"


@pytest.fixture(scope="module")
def bench():
    return synthetic_xnli(SyntheticWorld(7), ["xa", "xd"], n_train=60, n_dev=30, n_test=45, n_parallel=50,
                          n_parallel_dev=20)


def test_synthetic_xnli_languages_sizes_and_exact_labels(bench):
    assert bench.languages == ["en", "xa", "xd"]
    assert set(bench.dev) == set(bench.test) == {"en", "xa", "xd"} and set(bench.parallel) == {"xa", "xd"}
    assert len(bench.train) == 60 and all(len(bench.test[lang]) == 45 for lang in bench.languages)
    world = SyntheticWorld(7)
    for lang in ("xa", "xd"):
        # same pairs in every language: the labels are the English labels, and those are the world's own
        np.testing.assert_array_equal(bench.test[lang].labels, bench.test["en"].labels)
        ref = world.nli(45, "test", lang)
        np.testing.assert_array_equal(bench.test[lang].labels, ref.label)
        assert bench.test[lang].premises == ref.premise and bench.test[lang].languages == [lang] * 45
        assert bench.test[lang].premises != bench.test["en"].premises
        en, other = bench.parallel[lang]
        assert len(en) == len(other) == 50 and len(bench.parallel_dev[lang][0]) == 20
        assert not set(en) & set(bench.test["en"].premises)  # bitext is not the test set
    assert {row["language"]: row["test"] for row in bench.sizes()} == {"en": 45, "xa": 45, "xd": 45}
    assert "machine translated" in bench.sizes()[0]


def test_exact_translator_round_trips(bench):
    moved = bench.translate(bench.test["xd"].hypotheses[:5], "xd", "en")
    assert moved == bench.test["en"].hypotheses[:5]
    assert bench.translate(bench.train.premises[:3], "en", "xa") == SyntheticWorld(7).nli(60, "train", "xa").premise[:3]
    with pytest.raises(KeyError, match="no stored"):
        bench.translate(["not a sentence of the world"], "xa", "en")
    with pytest.raises(KeyError, match="no translations"):
        DictTranslator()(["x"], "xa", "en")


def test_word_by_word_translator_keeps_length_and_changes_words(bench):
    wbw = word_by_word_translator(SyntheticWorld(7), ["xa"])
    src = bench.test["xa"].premises[:10]
    out = wbw(src, "xa", "en")
    assert [len(s.split()) for s in out] == [len(s.split()) for s in src] and out != src


def test_builder_rejects_bad_input():
    with pytest.raises(ValueError, match="other than English"):
        synthetic_xnli(SyntheticWorld(0), ["en"], 10, 10, 10, 10)
    with pytest.raises(ValueError, match="not in this world"):
        synthetic_xnli(SyntheticWorld(0), ["zz"], 10, 10, 10, 10)
    with pytest.raises(ValueError, match="n_test"):
        synthetic_xnli(SyntheticWorld(0), ["xa"], 10, 10, 0, 10)


def test_typological_distance():
    assert typological_distance("en", "en") == 0
    assert typological_distance("en", "xd") == typological_distance("xd", "en")
    assert typological_distance("en", "xe") < typological_distance("en", "xd")


def test_real_xnli_layout(tmp_path):
    bench = real_xnli(FULL, ["fr"], n_parallel_dev=1)
    assert bench.languages == ["en", "fr"] and len(bench.train) == 12
    assert len(bench.test["fr"]) == len(bench.test["en"]) == 6 and bench.test["en"].n_skipped == 1
    en, fr = bench.parallel["fr"]
    assert len(en) == len(fr) == 3 and en[0] == "The cat sleeps on the sofa ." and fr[0].startswith("Le chat")
    assert bench.machine_translated == {"en": False, "fr": True}
    assert bench.translate(["Two boys play football ."], "en", "fr") == ["Deux garçons jouent au football ."]
    with pytest.raises(ValueError, match="no rows for language 'de'"):
        real_xnli(FULL, ["de"])
    with pytest.raises(FileNotFoundError, match="XNLI-MT"):
        real_xnli(tmp_path, ["fr"])


def test_add_real_text_language_builds_a_machine_translated_test_set(bench):
    from xsent_lib.data.word_mt import WordByWordTranslator
    from xsent_lib.data.xnli import add_real_text_language

    vocab = {w for s in bench.sentences("en") for w in s.split() if w.isalpha()}
    toy = WordByWordTranslator({("en", "zz"): {w: w + "q" for w in vocab},
                                ("zz", "en"): {w + "q": w for w in vocab}}, "toy MT")
    en = [f"english sentence number {i} here" for i in range(40)] + ["too short", "x " * 40]
    other = [f"phrase {i} ici" for i in range(42)]
    real = add_real_text_language(bench, "zz", (en, other), toy, system="toy MT", n_parallel=30, n_parallel_dev=5,
                                  seed=1)
    assert "zz-mt" not in bench.test and real.languages == ["en", "xa", "xd", "zz-mt"]
    np.testing.assert_array_equal(real.test["zz-mt"].labels, bench.test["en"].labels)
    assert real.test["zz-mt"].premises[0] == toy(bench.test["en"].premises[:1], "en", "zz")[0]
    assert len(real.parallel["zz-mt"][0]) == 30 and len(real.parallel_dev["zz-mt"][0]) == 5
    used = real.parallel["zz-mt"][0] + real.parallel_dev["zz-mt"][0]
    assert "too short" not in used and len(set(used)) == 35  # length filter, no pair twice
    assert real.machine_translated["zz-mt"] and real.translated_by["zz-mt"] == "toy MT"
    assert real.mt_coverage["zz-mt"]["direct"] == pytest.approx(1.0) and dict(real.init_lexicon["zz-mt"])["theq"] == "the"
    assert any("machine-translated by toy MT" in n for n in real.notes)
    # routing: the real language goes to its system, the invented ones stay exact
    assert real.translate(real.test["zz-mt"].premises[:2], "zz-mt", "en") == list(bench.test["en"].premises[:2])
    assert real.translate(bench.test["xa"].premises[:2], "xa", "en") == list(bench.test["en"].premises[:2])
    with pytest.raises(ValueError, match="only 40 bitext pairs"):
        add_real_text_language(bench, "zz", (en, other), toy, system="toy", n_parallel=40, n_parallel_dev=5)
    fewer = add_real_text_language(bench, "zz", (en, other), toy, system="toy", n_parallel=40, n_parallel_dev=5,
                                   allow_fewer=True)
    assert len(fewer.parallel["zz-mt"][0]) == 35 and any("(35 + 5 pairs)" in n for n in fewer.notes)
    with pytest.raises(ValueError, match="already has"):
        add_real_text_language(real, "zz", (en, other), toy, system="toy", n_parallel=3, n_parallel_dev=3)
    with pytest.raises(ValueError, match="differ in length"):
        add_real_text_language(bench, "zz", (en, other[:3]), toy, system="toy", n_parallel=3, n_parallel_dev=3)


def test_add_real_text_language_takes_the_initial_lexicon_from_a_system_without_tables(bench):
    from xsent_lib.data.xnli import add_real_text_language

    def upper(texts, src, tgt):  # an MT system with no dictionary table (as Apertium)
        return [t.upper() if tgt == "zz" else t.lower() for t in texts]

    en = [f"english sentence number {i} here" for i in range(40)]
    plain = add_real_text_language(bench, "zz", (en, en), upper, system="upper", n_parallel=30, n_parallel_dev=5)
    assert "zz-mt" not in plain.init_lexicon and "zz-mt" not in plain.mt_coverage  # nothing to report: no table
    given = add_real_text_language(bench, "zz", (en, en), upper, system="upper", n_parallel=30, n_parallel_dev=5,
                                   lexicon=[("THE", "the"), ("CAT", "cat")])
    assert given.init_lexicon["zz-mt"] == [("CAT", "cat"), ("THE", "the")]
    assert given.test["zz-mt"].premises[0] == bench.test["en"].premises[0].upper()
