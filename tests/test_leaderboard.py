"""Chapter 11's leaderboard: saved encoders load back to the same vectors, one suite scores any
encoder
(with an explicit n/a and its reason where a task does not apply), and the table sorts without a
kernel.
"""

from __future__ import annotations

import json
import shutil
import zlib
from types import SimpleNamespace

import numpy as np
import pytest

from xsent_lib.encoders import BagOfVectorsEncoder, RecurrentEncoder
from xsent_lib.encoders.transformer import TransformerSentenceEncoder
from xsent_lib.eval.leaderboard import SIZES, TASKS, build_suite, evaluate_on_suite, not_applicable
from xsent_lib.results.encoder_store import (
    LanguageIdEncoder,
    count_parameters,
    load_encoder,
    save_encoder,
    saved_encoders,
    shipped_card,
)
from xsent_lib.results.provenance import library_hash
from xsent_lib.results.store import start_run
from xsent_lib.text import TextPipeline, WordTokenizer
from xsent_lib.train.context_runs import encoder_fn
from xsent_lib.viz.leaderboard import leaderboard_rows, sortable_table_html

EN = ["the cat sleeps", "a dog runs in the park", "the old man reads a book", "birds sing"]
XA = ["ka mo tesu", "li dar punu ka", "mo mo veri tesu ka", "dar sila"]


def _pipe(sentences):
    return TextPipeline.fit(sentences, WordTokenizer())


@pytest.fixture
def run(tmp_path):
    return start_run("99_test", "smoke", tmp_path, seed=7)


def _kinds():
    """One model of every kind the chapters save."""
    bag = BagOfVectorsEncoder.from_pipeline(_pipe(EN), dim=6)
    lstm = RecurrentEncoder.from_pipeline(_pipe(EN), word_dim=5, hidden_dim=4)
    target = RecurrentEncoder.from_pipeline(_pipe(XA), word_dim=5, hidden_dim=4)
    both = _pipe(EN + XA)
    xlm = TransformerSentenceEncoder(
        len(both.vocab), d_model=8, n_heads=2, n_layers=1, n_langs=2, dropout=0.0, pipeline=both
    ).eval()
    wang = TransformerSentenceEncoder(
        len(both.vocab), d_model=8, n_heads=2, n_layers=1, dropout=0.0
    ).eval()
    return {
        "bag": (bag, ("en",)),
        "lstm": (lstm, ("en",)),
        "per-language": ({"en": lstm, "xa": target}, ("en", "xa")),
        "language-ids": (LanguageIdEncoder(xlm, {"en": 0, "xa": 1}), ("en", "xa")),
        "frozen-encode": (encoder_fn(wang, both, 16), ("en", "xa")),
    }


@pytest.mark.parametrize("kind", list(_kinds()))
def test_save_load_round_trip_gives_the_same_vectors(run, tmp_path, kind):
    model, langs = _kinds()[kind]
    folder = save_encoder(
        run,
        kind,
        model,
        training_data="four sentences",
        supervision="none",
        languages=langs,
        world_seed=3,
    )
    assert folder == tmp_path / "99_test" / "smoke" / "encoders" / kind
    loaded = load_encoder(tmp_path, "99_test", "smoke", kind)
    assert loaded.card.languages == langs and loaded.card.seed == 7 and loaded.card.world_seed == 3
    assert loaded.card.parameters == count_parameters(model) > 0
    for lang, sents in (("en", EN), ("xa", XA)):
        if lang not in langs:
            continue
        before = _before(model, sents, lang)
        after = loaded.encode(sents, lang)
        assert after.shape == before.shape and after.dtype == np.float32
        np.testing.assert_array_equal(after, before)
    card = json.loads((folder / "card.json").read_text())
    assert card["supervision"] == "none" and card["chapter"] == "99_test" and card["commit"]
    assert card["library_hash"] == library_hash()


def _before(model, sents, lang):
    if isinstance(model, dict):
        model = model[lang]
    if isinstance(model, LanguageIdEncoder):
        return model.encode(sents, lang)
    if hasattr(model, "eval"):
        model.eval()
        return np.asarray(model.encode(sents, device="cpu"), np.float32)
    return np.asarray(model.encode(sents), np.float32)


def test_language_ids_change_the_vectors_and_unknown_languages_are_refused(run, tmp_path):
    model, _ = _kinds()["language-ids"]
    assert not np.allclose(model.encode(EN, "en"), model.encode(EN, "xa"))
    save_encoder(run, "xlm", model, training_data="t", supervision="bitext")
    loaded = load_encoder(tmp_path, "99_test", "smoke", "xlm")
    with pytest.raises(ValueError, match="reads"):
        loaded.encode(EN, "de")


def test_shared_parameters_count_once():
    lstm = RecurrentEncoder.from_pipeline(_pipe(EN), word_dim=5, hidden_dim=4)
    assert count_parameters({"en": lstm, "fr": lstm}) == count_parameters(lstm)


def test_bad_saves_and_missing_encoders_say_what_to_do(run, tmp_path):
    bag = BagOfVectorsEncoder.from_pipeline(_pipe(EN), dim=6)
    with pytest.raises(ValueError, match="supervision"):
        save_encoder(run, "x", bag, training_data="t", supervision="labels")
    with pytest.raises(TypeError, match="encode"):
        save_encoder(run, "x", object(), training_data="t", supervision="none")
    with pytest.raises(ValueError, match="plain folder name"):
        save_encoder(run, "../x", bag, training_data="t", supervision="none")
    with pytest.raises(FileNotFoundError, match="run chapter 03_infersent"):
        load_encoder(tmp_path, "03_infersent", "smoke", "infersent-lstm")
    save_encoder(run, "b", bag, training_data="t", supervision="NLI+bitext")
    assert [c.supervision for c in saved_encoders(tmp_path, "smoke")] == ["NLI + bitext"]
    assert saved_encoders(tmp_path, "book") == []


class HashEncoder:
    """A tiny encoder with no training: a sentence is the sum of a fixed random vector per word."""

    def __init__(self, languages, world_seed):
        self.card = SimpleNamespace(name="hash", languages=languages, world_seed=world_seed)

    def encode(self, sentences, lang="en"):
        out = np.zeros((len(sentences), 16), np.float32)
        for i, s in enumerate(sentences):
            for w in s.lower().split():
                out[i] += np.random.default_rng(zlib.crc32(w.encode())).standard_normal(16)
        return out


@pytest.fixture(scope="module")
def suite():
    return build_suite(SIZES["smoke"], 1234)


def test_the_suite_scores_a_cross_lingual_encoder_on_every_task(suite):
    res = evaluate_on_suite(HashEncoder(("en", "xa"), 1234), suite, seed=1)
    assert set(TASKS) <= set(res) and res["speed"]["sentences_per_s"] > 0
    for task in TASKS:
        assert "score" in res[task], (task, res[task])
    assert -1 <= res["sts"]["score"] <= 1
    for task in ("transfer", "probing", "retrieval", "mining", "xnli"):
        assert 0 <= res[task]["score"] <= 100
    assert set(res["retrieval"]["languages"]) == {"xa"}
    again = evaluate_on_suite(HashEncoder(("en", "xa"), 1234), suite, seed=1)
    again.pop("speed"), res.pop("speed")
    assert again == res  # the same seed gives the same scores


def test_tasks_that_do_not_apply_say_why(suite):
    english = evaluate_on_suite(HashEncoder(("en",), None), suite, seed=1)
    assert "score" in english["transfer"] and "score" in english["probing"]
    for task in ("retrieval", "mining", "xnli"):
        assert english[task]["n/a"] == "English only"
    foreign = evaluate_on_suite(HashEncoder(("xa",), 1234), suite, seed=1)
    assert all(foreign[t] == {"n/a": "does not read English"} for t in TASKS)
    assert foreign["speed"]["sentences_per_s"] is None


def test_not_applicable_reasons(suite):
    card = SimpleNamespace(name="c", languages=("en", "fr"), world_seed=None)
    assert not_applicable(card, suite, "transfer") is None
    assert not_applicable(card, suite, "retrieval") == "no invented language (reads fr)"
    card = SimpleNamespace(name="c", languages=("en", "xa"), world_seed=None)
    assert "no world seed" in not_applicable(card, suite, "mining")
    with pytest.raises(ValueError, match="unknown task"):
        not_applicable(card, suite, "bleu")


def test_leaderboard_rows_and_sortable_html():
    card = shipped_card("USE")
    other = SimpleNamespace(
        name="<b>x</b>",
        chapter="03",
        training_data="SNLI",
        supervision="NLI",
        parameters=1234,
        languages=("en",),
    )
    results = {
        "USE": {t: {"n/a": "not in the data cache"} for t in TASKS},
        "<b>x</b>": {t: {"score": 50.0 + i} for i, t in enumerate(TASKS)},
    }
    rows = leaderboard_rows([card, other], results, {"USE": None, "<b>x</b>": 123.4})
    assert (
        rows[0]["XNLI zero-shot"] == "n/a: not in the data cache" and rows[1]["parameters"] == 1234
    )
    page = sortable_table_html(rows, "board")
    assert '<table id="board"' in page and "<script>" in page and "http" not in page  # no CDN
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page  # escaped
    assert (
        'data-sort="1234.0">1,234<' in page and 'data-sort="">n/a: not in the data cache<' in page
    )
    assert page.count("<tr>") == 3 and page.count("<th>") == len(rows[0])
    with pytest.raises(ValueError, match="no rows"):
        sortable_table_html([])
    with pytest.raises(ValueError, match="table_id"):
        sortable_table_html(rows, "a b")
    with pytest.raises(KeyError, match="evaluate it first"):
        leaderboard_rows([card], {}, {})


class Foreign:
    """Not a class of the library: its file must not load (a pickle could run its code)."""

    def encode(self, sentences):
        return np.zeros((len(sentences), 2), np.float32)


def test_loading_admits_only_the_librarys_classes(run, tmp_path):
    save_encoder(run, "foreign", Foreign(), training_data="t", supervision="none")
    with pytest.raises(ValueError, match="refusing to load"):
        load_encoder(tmp_path, "99_test", "smoke", "foreign")


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_the_table_sorts_in_a_browser_without_a_kernel(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    rows = [
        {"encoder": "a", "score": 2.0},
        {"encoder": "b", "score": "n/a: no English"},
        {"encoder": "c", "score": 10.0},
        {"encoder": "d", "score": 5.5},
    ]
    page_path = tmp_path / "board.html"
    page_path.write_text(f"<html><body>{sortable_table_html(rows, 'board')}</body></html>")
    order = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=shutil.which("chromium"),
            args=["--headless", "--no-sandbox", "--disable-gpu"],
        )
        page = browser.new_context(offline=True).new_page()
        page.goto(page_path.as_uri(), wait_until="load")
        first = (
            "Array.from(document.querySelectorAll('#board tbody tr td:first-child'))"
            ".map(td => td.textContent)"
        )
        order.append(page.evaluate(first))
        for _ in range(2):
            page.click("#board th:nth-child(2)")
            order.append(page.evaluate(first))
        browser.close()
    assert order == [["a", "b", "c", "d"], ["c", "d", "a", "b"], ["a", "d", "c", "b"]]


def test_every_number_of_the_table_is_tagged_and_read_back_from_metrics(tmp_path):
    from xsent_lib.results.tagged import check_tagged_html
    from xsent_lib.viz.leaderboard import leaderboard_sources

    card = SimpleNamespace(name="enc", chapter="03", training_data="t", supervision="NLI",
                           parameters=10, languages=("en",))
    scores = {t: {"score": 0.5 if t == "sts" else 61.25} for t in TASKS}
    scores["mining"] = {"n/a": "English only"}
    run = start_run("11_reproducibility", "smoke", tmp_path)
    run.log("leaderboard", {"scores": {"enc": scores}})
    run.log_timing("leaderboard_speed", {"enc": 1234.56})
    here = {"source": "build", "chapter": "11_reproducibility", "profile": "smoke"}
    rows = leaderboard_rows([card], {"enc": scores}, {"enc": 1234.56})
    page = sortable_table_html(rows, sources=leaderboard_sources([card], {"enc": scores}, here))
    checked, problems = check_tagged_html(page, {"build": tmp_path})
    assert checked == len(TASKS) and problems == []  # five scores and the speed; n/a is not a number
    tampered = page.replace(">61.2<", ">62.0<", 1)
    assert tampered != page and check_tagged_html(tampered, {"build": tmp_path})[1]
