"""Chapter 6: word-by-word MT from bilingual dictionaries (FreeDict) and its coverage report."""
from __future__ import annotations

import shutil

import pytest

from xsent_lib.data.word_mt import (
    ApertiumTranslator,
    WordByWordTranslator,
    apertium_available,
    apertium_mode,
    apertium_pairs,
    apertium_translate,
    choose_translations,
    english_stems,
    freedict_translator,
)


def test_english_stems_undo_regular_inflection():
    assert english_stems("turtles")[0] == "turtle"
    assert "kick" in english_stems("kicked") and "like" in english_stems("liked") and "stop" in english_stems("stopped")
    assert "carry" in english_stems("carried") and "carry" in english_stems("carries")
    assert "patient" in english_stems("patiently") and "happy" in english_stems("happily")
    assert "run" in english_stems("running") and "watch" in english_stems("watches") and english_stems("is") == []
    with pytest.raises(TypeError):
        english_stems(3)


def test_choose_translations_prefers_the_candidate_the_bitext_supports():
    pairs = [("the", "au"), ("the", "le"), ("cat", "chat"), ("dog", "chien"), ("dog", "toutou")]
    table, decided = choose_translations(pairs)
    assert table == {"the": "au", "cat": "chat", "dog": "chien"} and decided == 0  # first listed without bitext
    bitext = (["The cat sleeps.", "the dog barks", "A dog."], ["Le chat dort.", "le toutou aboie", "Un toutou."])
    table, decided = choose_translations(pairs, bitext)
    assert table == {"the": "le", "cat": "chat", "dog": "toutou"} and decided == 2  # 'cat' was never ambiguous
    with pytest.raises(ValueError, match="differ in length"):
        choose_translations(pairs, (["a"], []))


def test_word_by_word_translation_and_coverage_shares():
    tr = WordByWordTranslator({("en", "fr"): {"the": "le", "cat": "chat"}}, "toy", {"en": english_stems})
    assert tr(["The cats sleep ."], "en", "fr") == ["le chat sleep ."]  # stem for 'cats', 'sleep' passes through
    cov = tr.coverage(["the cats sleep ."], "en", "fr")
    assert cov["tokens"] == 3 and cov["direct"] == pytest.approx(1 / 3) and cov["stem"] == pytest.approx(1 / 3)
    assert cov["passed"] == pytest.approx(1 / 3)
    assert tr(["x y"], "fr", "fr") == ["x y"]
    with pytest.raises(KeyError, match="no toy dictionary fr->en"):
        tr(["le chat"], "fr", "en")
    with pytest.raises(TypeError, match="list of texts"):
        tr("the cat", "en", "fr")
    with pytest.raises(ValueError, match="no word tokens"):
        tr.coverage([" . , "], "en", "fr")
    with pytest.raises(ValueError, match="at least one"):
        WordByWordTranslator({}, "empty")


def test_apertium_check_matches_path():
    assert apertium_available() == (shutil.which("apertium") is not None)
    assert apertium_available() or apertium_pairs() == []


def test_apertium_input_errors_come_before_the_system_is_needed():
    with pytest.raises(ValueError, match="line break"):
        apertium_translate(["one\ntwo"], "eng-spa")
    with pytest.raises(TypeError, match="list of texts"):
        apertium_translate("the cat", "eng-spa")


def test_apertium_missing_system_is_named(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)  # a machine without Apertium, as CI
    assert not apertium_available() and apertium_pairs() == []
    with pytest.raises(FileNotFoundError, match="apt-get install apertium"):
        apertium_mode("en", "es")
    with pytest.raises(FileNotFoundError, match="not installed"):
        ApertiumTranslator("es")
    with pytest.raises(FileNotFoundError, match="not installed"):
        apertium_translate(["the cat"], "eng-spa")


def test_apertium_missing_pair_is_named():
    if not apertium_available():
        pytest.skip("Apertium is not installed")
    with pytest.raises(FileNotFoundError, match="no en->xx direction"):
        apertium_mode("en", "xx")
    with pytest.raises(FileNotFoundError, match="no direction 'xxx-yyy'"):
        apertium_translate(["a"], "xxx-yyy")


def test_apertium_translates_english_spanish_line_by_line():
    if "eng-spa" not in apertium_pairs() or "spa-eng" not in apertium_pairs():
        pytest.skip("Apertium with the eng-spa pair is not installed (apt-get install apertium apertium-eng-spa)")
    tr = ApertiumTranslator("es")
    assert tr.name == "Apertium eng-spa / spa-eng"
    # no final punctuation: a reordering rule could carry 'red' into the next line if texts were not kept apart
    texts = ["the cat sleeps in the house .", "", "I see the red", "car", "the dog does not eat bread ."]
    out = tr(texts, "en", "es")
    assert len(out) == len(texts) and out[1] == ""
    assert "rojo" in out[2].lower() and "rojo" not in out[3].lower()
    assert "gato" in out[0].lower() and "casa" in out[0].lower() and out[3].lower() != ""
    assert "perro" in out[4].lower() and "pan" in out[4].lower() and "no" in out[4].lower().split()
    back = tr(["el perro come pan .", "una mujer canta"], "es", "en")
    assert "dog" in back[0].lower() and "bread" in back[0].lower() and "woman" in back[1].lower()
    assert tr(["x"], "es", "es") == ["x"]
    with pytest.raises(KeyError, match="direction en->fr"):
        tr(["the cat"], "en", "fr")
    many = [f"the house number {i} is red ." for i in range(300)]
    assert len(apertium_translate(many, "eng-spa")) == 300


def test_freedict_translator_on_the_cache():
    try:
        tr = freedict_translator("fr", (["the cat", "the dog sleeps"], ["le chat", "le chien dort"]))
    except FileNotFoundError:
        pytest.skip("freedict-en-fr is not cached")
    assert tr.name == "FreeDict en<->fr word by word" and set(tr.tables) == {("en", "fr"), ("fr", "en")}
    assert tr(["the cat"], "en", "fr") == ["le chat"]  # 'le' chosen by the bitext, not the alphabetical 'au'
    cov = tr.coverage(["the birds sleep near the river ."], "en", "fr")
    assert cov["direct"] + cov["stem"] + cov["passed"] == pytest.approx(1.0) and cov["stem"] > 0


def test_freedict_translator_names_the_missing_cache(tmp_path):
    with pytest.raises(FileNotFoundError, match="freedict-en-fr"):
        freedict_translator("fr", cache_dir=tmp_path)
