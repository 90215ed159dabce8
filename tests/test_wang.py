"""Chapter 9 (Wang et al.): the two training stages on a planted toy, the leakage check, the MLP protocol, the
claims logic and the recipe's smoke path."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from xsent_lib.align.averaged import averaged_vectors
from xsent_lib.data.monodocs import (
    MonoDocs,
    drop_leaks,
    leakage_table,
    parallel_leakage,
    planted_toy,
    shared_words,
)
from xsent_lib.data.real_monodocs import real_documents, real_xnli_bench
from xsent_lib.eval.context_eval import gold_precisions, xnli_accuracy
from xsent_lib.eval.frozen_mlp import frozen_mlp_transfer, wang_pair_features
from xsent_lib.recipes import wang as rec
from xsent_lib.results.claims import Absent
from xsent_lib.results.context_numbers import WangClaimNumbers, claim_numbers
from xsent_lib.train.context import (
    ContextConfig,
    build_wang_model,
    doc_corpus,
    embed_corpus,
    gold_pair_precision,
    token_matrix,
    train_stage1,
    train_wang,
)
from xsent_lib.train.context_runs import (
    CorpusRun,
    encoder_fn,
    mlm_baseline,
    shared_pipeline,
    train_corpus,
)

pytestmark = pytest.mark.usefixtures("one_thread")


def _toy(seed: int = 0, **kw):
    docs = planted_toy(seed=seed, **kw)
    pipe = shared_pipeline(docs.sentences)
    return docs, pipe, doc_corpus(pipe, docs.sentences, docs.doc_ids, docs.lang_ids, max_tokens=10)


def test_stage1_loss_falls_on_toy():
    docs, pipe, corpus = _toy()
    model = build_wang_model(len(pipe.vocab), d_model=32, n_layers=1, n_heads=2, max_len=32, dropout=0.0, seed=0)
    losses = train_stage1(model, corpus, ContextConfig(k=1, maxlen=32, stage1_epochs=6, batch_size=32, lr=3e-3))
    first, last = np.mean(losses[:50]), np.mean(losses[-50:])
    assert first > 0.65  # starts at chance (ln 2)
    assert last < first - 0.1


def test_mined_pair_precision_rises_across_rounds_on_planted_toy():
    """Planted structure: two relabelings of one topic model sharing anchor words; precision on held-out gold
    should be higher after the regression rounds than after stage 1 alone."""
    docs, pipe, corpus = _toy(n_anchors=24, n_gold=200)
    ga, gb = docs.gold[("a", "b")]
    ta, tb = token_matrix(pipe, ga, 10), token_matrix(pipe, gb, 10)
    cfg = ContextConfig(k=1, maxlen=32, stage1_epochs=6, rounds=4, m=300, pairs_per_draw=100, pairs_per_round=600,
                        batch_size=32, lr=3e-3)
    model = build_wang_model(len(pipe.vocab), d_model=32, n_layers=1, n_heads=2, max_len=32, dropout=0.0, seed=0)
    prec = lambda m: gold_pair_precision(embed_corpus(m.encoder, *ta), embed_corpus(m.encoder, *tb), n_keep=100)  # noqa: E731
    run = train_wang(model, corpus, cfg, on_round=lambda r, m, p: {"precision": prec(m)})
    curve = [r["precision"] for r in run.per_round]
    assert len(curve) == 5
    assert curve[0] > 2.0  # the anchors give stage 1 a start well above chance (0.5% for 200 candidates)
    assert np.mean(curve[1:]) > curve[0], curve
    assert max(curve[1:]) >= curve[0] + 3.0, curve


def test_leakage_check_counts_planted_translations():
    docs = planted_toy(seed=1)
    pairs = docs.gold_pairs[("a", "b")]
    assert parallel_leakage(docs, pairs, "a", "b") == 0
    leaky = MonoDocs("leaky", docs.langs, docs.sentences + [pairs[0][0], pairs[0][1]],
                     np.concatenate([docs.doc_ids, [10_000, 10_001]]), np.concatenate([docs.lang_ids, [0, 1]]))
    assert parallel_leakage(leaky, pairs, "a", "b") == 1
    assert drop_leaks(leaky, pairs, "a", "b") == 1
    assert parallel_leakage(leaky, pairs, "a", "b") == 0
    with pytest.raises(ValueError, match="languages of the corpus"):
        parallel_leakage(docs, pairs, "a", "zz")


def test_world_documents_do_not_leak():
    from xsent_lib.data.monodocs import world_documents
    from xsent_lib.data.synthetic import SyntheticWorld

    world = SyntheticWorld(3)
    docs = world_documents(world, ("en", "xa"), n_docs=30, n_sents=5, n_gold_docs=5)
    pairs = docs.gold_pairs[("en", "xa")]
    assert len(pairs) == 150
    # the English documents rendered in xa are the translations; chance repeats were dropped before training
    assert parallel_leakage(docs, pairs, "en", "xa") == 0
    planted = MonoDocs("x", docs.langs, docs.sentences + [pairs[0][1]], np.concatenate([docs.doc_ids, [999]]),
                       np.concatenate([docs.lang_ids, [1]]))
    assert parallel_leakage(planted, pairs, "en", "xa") >= 1


def test_gold_precision_is_100_for_identical_and_low_for_random():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(60, 16)).astype(np.float32)
    assert gold_pair_precision(a, a + 0.01 * rng.normal(size=a.shape).astype(np.float32), n_keep=30) == 100.0
    assert gold_pair_precision(a, rng.normal(size=a.shape).astype(np.float32), n_keep=30) < 30.0


def test_frozen_mlp_transfers_a_shared_space_and_not_a_rotated_one():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 600)
    centers = rng.normal(size=(3, 8)) * 3
    x = (centers[y] + rng.normal(size=(600, 8))).astype(np.float32)
    rot = np.linalg.qr(rng.normal(size=(8, 8)))[0].astype(np.float32)
    acc = frozen_mlp_transfer(x[:400], y[:400], x[400:500], y[400:500],
                              {"same": (x[500:], y[500:]), "rotated": (x[500:] @ rot, y[500:])}, hidden=(32, 16))
    assert acc["same"] > 90.0
    assert acc["rotated"] < acc["same"] - 20.0
    assert wang_pair_features(x[:2], x[2:4]).shape == (2, 32)


def _rounds(xa: list[float]) -> list[dict]:
    return [{"xnli": {"en": 60.0, "xa": v}, "precision": {"en-xa": 5.0 + i}} for i, v in enumerate(xa)]


def _holds(numbers: WangClaimNumbers) -> dict[str, bool | None]:
    """Every verdict by id, strict and weaker forms alike."""
    rows = rec.CLAIM_SET.check(numbers)
    return {r["id"]: r["holds"] for r in rows} | {r["weaker id"]: r["weaker holds"] for r in rows if r["weaker id"]}


def test_claims_logic():
    per_round = _rounds([40.0, 44.0, 46.0, 47.0, 47.2])
    help_rounds = [{"cls": {"en-en": 90.0, "en-es": 40.0, "es-en": 42.0}},
                   {"cls": {"en-en": 90.0, "en-es": 38.0, "es-en": 40.0}}]
    numbers = claim_numbers(per_round, help_rounds, mean_row={"en": 50.0, "xa": 41.0})
    assert numbers.plus_round == 3 and numbers.xnli_overall_plus == 47.0
    assert numbers.xnli_change_after_3 == pytest.approx(0.2)
    assert numbers.xnli_gain_rounds_1_2 == pytest.approx(6.0)
    assert numbers.gap_narrowing == pytest.approx(7.0)  # 60 - 40 at round 0, 60 - 47 at round 3
    holds = _holds(numbers)
    assert holds["ch09.iteration_xnli_every_language"] is True and holds["ch09.iteration_xnli_overall"] is True
    assert holds["ch09.iteration_classification_every_direction"] is False
    assert holds["ch09.iteration_classification_mean"] is False
    assert holds["ch09.mining_precision_world"] is True
    assert holds["ch09.mining_precision_help"] is None  # no help precision
    assert holds["ch09.rounds_plateau"] is True
    assert holds["ch09.domain_drop_about_6"] is None and holds["ch09.domain_drop_any"] is None  # no domain run
    assert holds["ch09.beats_procrustes_mean"] is True
    assert holds["ch09.beats_unsupervised"] is None  # no MUSE row, no MLM row
    assert holds["ch09.gap_narrows"] is True
    assert isinstance(numbers.mean_muse_overall, Absent) and isinstance(numbers.help_precision_last, Absent)


def test_strict_forms_need_every_language_and_the_paper_s_size_of_drop():
    per_round = [{"xnli": {"en": 60.0, "xa": a, "xe": e}, "precision": {"en-xa": 5.0}}
                 for a, e in ((40.0, 40.0), (41.0, 39.0), (42.0, 38.5), (43.0, 38.0))]
    help_rounds = [{"cls": {"en-es": 40.0, "es-en": 42.0}}, {"cls": {"en-es": 38.0, "es-en": 50.0}}]
    numbers = claim_numbers(per_round, help_rounds, domain={"same": 50.0, "mismatch": 49.0},
                                muse_row={"xa": 38.0, "xe": 38.0}, mlm_row={"xa": 41.0, "xe": 41.0})
    holds = _holds(numbers)
    # xe falls while the mean rises: the strict (every language) form fails, the weaker (mean) one holds
    assert holds["ch09.iteration_xnli_every_language"] is False and holds["ch09.iteration_xnli_overall"] is True
    assert holds["ch09.iteration_classification_every_direction"] is False
    assert holds["ch09.iteration_classification_mean"] is True
    # a 1-point drop is a drop, but not "about 6%"
    assert holds["ch09.domain_drop_about_6"] is False and holds["ch09.domain_drop_any"] is True
    # overall 40.5 at round 3: above the MUSE row (38) but below the MLM (41)
    assert holds["ch09.beats_unsupervised"] is False and holds["ch09.beats_mean_muse"] is True


def test_plateau_claim_counts_a_decline_as_a_change():
    """A fall of 3 points after round 3 is no plateau: the signed gain (-3 < 1) would have called it one."""
    numbers = claim_numbers(_rounds([40.0, 44.0, 46.0, 47.0, 45.5, 44.0]), [])
    assert numbers.xnli_change_after_3 == pytest.approx(3.0)
    assert _holds(numbers)["ch09.rounds_plateau"] is False
    # a run that stops at round 3 cannot test the plateau
    short = claim_numbers(_rounds([40.0, 44.0, 46.0, 47.0]), [])
    assert isinstance(short.xnli_change_after_3, Absent)
    assert _holds(short)["ch09.rounds_plateau"] is None


def test_claims_read_the_round_the_tables_show():
    """Round 5 beats the word vectors but round 3 (the tables' '+iteration') does not: the claims follow round 3."""
    per_round = _rounds([40.0, 41.0, 41.5, 42.0, 46.0, 48.0])
    help_rounds = [{"cls": {"en-es": v, "es-en": v}} for v in (40.0, 41.0, 41.0, 39.0, 45.0, 47.0)]
    numbers = claim_numbers(per_round, help_rounds, mean_row={"xa": 44.0}, muse_row={"xa": 41.0},
                                mlm_row={"xa": 30.0})
    assert rec.plus_round(per_round) == 3 and numbers.xnli_overall_plus == 42.0
    assert numbers.help_cross_plus == 39.0
    holds = _holds(numbers)
    assert holds["ch09.beats_procrustes_mean"] is False  # 42 < 44 at round 3
    assert holds["ch09.beats_unsupervised"] is True  # 42 > 41 and 42 > 30
    assert holds["ch09.iteration_classification_mean"] is False  # 39 < 40 at round 3, 47 at round 5
    # a plan with fewer rounds reports its last round
    assert rec.plus_round(per_round[:3]) == 2
    with pytest.raises(ValueError, match="at least one regression round"):
        rec.plus_round(per_round[:1])
    lines = rec.run_summary(numbers, per_round, n_test=400)
    assert any("round 3 as '+iteration'" in line for line in lines)
    assert any("standard error of about 2.5 points" in line for line in lines)  # sqrt(.42 * .58 / 400) = 2.47 %


def test_table_2_directions_and_the_domain_study():
    acc = {"en-en": 90.0, "en-zh": 50.0, "zh-en": 52.0, "zh-fr": 30.0, "fr-fr": 80.0}
    assert rec.table_2_directions(acc) == {"en-zh": 50.0, "zh-en": 52.0}
    study = rec.domain_study(acc, {k: v - 6.0 for k, v in acc.items()})
    assert study["same"] == 51.0 and study["mismatch"] == 45.0
    assert set(study["bars"]["bible-help (b-w analogue)"]) == {"en-zh", "zh-en"}
    assert set(rec.BOOK.help_langs) == {"en", "zh", "fr", "es", "de"}  # every column of the paper's Table 2


def test_figures_name_their_data():
    from xsent_lib.viz import wang as viz

    fig = viz.rounds_curves({"acc": [40.0, 42.0]}, {"en-xa": [5.0, 6.0]}, mark_round=1, title="T",
                            note="ours: a stand-in")
    assert "ours: a stand-in" in [t.get_text() for t in fig.texts] and fig.get_suptitle() == "T"
    bars = viz.domain_bars({"same": {"en-es": 50.0}, "mismatch": {"en-es": 45.0}}, note="bible vs help")
    assert "bible vs help" in [t.get_text() for t in bars.texts]


def test_shared_words_lists_identical_strings():
    docs = MonoDocs("t", ("en", "xx"), ["the cat , 2 .", "a dog", "le chat , 2 .", "2 2 un"],
                    np.array([0, 0, 1, 1]), np.array([0, 0, 1, 1]))
    assert shared_words(docs) == {"xx": ["2", ",", "."]}


def test_recipe_smoke_path_on_world():
    plan = rec.SMOKE
    world, docs, bench = rec.world_setup(plan, 0)
    assert sum(r["leaked"] for r in leakage_table(docs)) == 0
    run = train_corpus(docs, plan, lambda enc: {"xnli": xnli_accuracy(enc, bench, (16, 8), 0),
                                                     "precision": gold_precisions(enc, docs, 20)}, seed=0)
    assert [r["round"] for r in run.run.per_round] == list(range(plan.config.rounds + 1))
    assert set(run.run.per_round[0]["xnli"]) == set(plan.world_langs)
    assert all(0.0 <= v <= 100.0 for r in run.run.per_round for v in r["precision"].values())


# ----------------------------------------------------------------------------------- real data from data_dir
def _write(path, lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(x + "\n" for x in lines), encoding="utf-8")


def test_read_documents_splits_at_blank_lines_or_in_runs(tmp_path):
    from xsent_lib.data.monodocs import read_documents

    _write(tmp_path / "a.txt", ["s1 .", "s2 .", "", "", "s3 .", "s4 .", "s5 .", ""])
    docs, blank = read_documents(tmp_path / "a.txt")
    assert blank and docs == [["s1 .", "s2 ."], ["s3 .", "s4 .", "s5 ."]]
    assert read_documents(tmp_path / "a.txt", max_sentences=3)[0] == [["s1 .", "s2 ."], ["s3 ."]]
    _write(tmp_path / "b.txt", [f"t{i} ." for i in range(7)])
    docs, blank = read_documents(tmp_path / "b.txt", doc_len=3)
    assert not blank and [len(d) for d in docs] == [3, 3, 1] and docs[1][0] == "t3 ."
    _write(tmp_path / "empty.txt", ["", ""])
    with pytest.raises(ValueError, match="no sentence"):
        read_documents(tmp_path / "empty.txt")
    with pytest.raises(FileNotFoundError):
        read_documents(tmp_path / "missing.txt")


def test_text_documents_drops_leaks_and_holds_out_gold(tmp_path):
    from xsent_lib.data.monodocs import text_documents

    _write(tmp_path / "monolingual" / "en.txt", ["the cat sat .", "a dog ran .", "", "it rained ."])
    _write(tmp_path / "monolingual" / "fr.txt", ["le chat .", "un chien .", "", "il pleut .", "bonjour ."])
    # bitext: (the cat sat . / le chat .) would leak; (hello . / bonjour .) only one side in training; rest held out
    en = ["the cat sat .", "hello .", "good night .", "see you ."]
    fr = ["le chat .", "bonjour .", "bonne nuit .", "a bientot ."]
    docs = text_documents(tmp_path, ["en", "fr"], bitext={"fr": (en, fr)})
    assert docs.langs == ("en", "fr") and docs.dropped == {"en-fr": 1}
    assert "le chat ." not in docs.of("fr") and "bonjour ." in docs.of("fr")
    assert parallel_leakage(docs, docs.gold_pairs[("en", "fr")], "en", "fr") == 0
    assert docs.gold[("en", "fr")] == (["good night .", "see you ."], ["bonne nuit .", "a bientot ."])
    assert [s["documents"] for s in docs.sizes()] == [2, 2]
    with pytest.raises(ValueError, match="start with 'en'"):
        text_documents(tmp_path, ["fr", "en"])
    with pytest.raises(ValueError, match="line-aligned"):
        text_documents(tmp_path, ["en", "fr"], bitext={"fr": (en, fr[:2])})


def test_recipe_reads_the_fixture_data_dir(tmp_path):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import make_fixture_data

    root = make_fixture_data.build(tmp_path / "data")
    docs, read = real_documents(root, n_langs=2, max_sentences=120, max_bitext=200)
    assert docs.langs == ("en", "fr") and read == ["europarl-v7.fr-en"]
    assert all(s["sentences"] <= 120 for s in docs.sizes()) and docs.gold[("en", "fr")][0]
    assert all(r["leaked"] == 0 for r in leakage_table(docs))
    bench = real_xnli_bench(root, docs.langs, max_train=100, max_eval=50)
    assert bench.languages == ["en", "fr"] and len(bench.train) == 100 and len(bench.test["fr"]) == 50
    with pytest.raises(ValueError, match="none of the languages"):
        real_xnli_bench(root, ["en", "ru"], max_train=10, max_eval=10)
    (root / "monolingual" / "fr.txt").unlink()
    with pytest.raises(FileNotFoundError, match="one other"):
        real_documents(root, n_langs=2, max_sentences=10)


# ----------------------------------------------------------------------------------- the cached corpora
def _cached_bitext(name: str):
    from xsent_lib.data.corpora.bitext import load_bitext, load_bitext_refs

    try:
        return load_bitext(name), load_bitext_refs(name)
    except FileNotFoundError as err:
        pytest.skip(f"dataset {name} is not in the data cache, so its loader cannot be checked here: {err}")


def _documents(docs: MonoDocs) -> dict[str, dict[str, list[str]]]:
    """``{language: {document name: its training sentences in order}}``."""
    out: dict[str, dict[str, list[str]]] = {lang: {} for lang in docs.langs}
    for s, d, g in zip(docs.sentences, docs.doc_ids, docs.lang_ids):
        out[docs.langs[g]].setdefault(docs.doc_names[d], []).append(s)
    return out


def _in_order(part: list[str], whole: list[str]) -> bool:
    it = iter(whole)
    return all(any(x == y for y in it) for x in part)


def test_help_documents_are_whole_pages_and_no_page_is_in_two_languages():
    from xsent_lib.data.monodocs import lohelp_documents

    tables = {lang: _cached_bitext(f"lohelp-en-{lang}") for lang in ("es", "fr")}
    pages: dict[str, dict[str, list[str]]] = {"en": {}, "es": {}, "fr": {}}
    for lang, ((en, tr), refs) in tables.items():
        for e, t, ref in zip(en, tr, refs):
            page = ref.split("#")[0]
            pages[lang].setdefault(page, []).append(t)
            if lang == "es":  # the English side the corpus reads (its first other language's table)
                pages["en"].setdefault(page, []).append(e)
    docs = lohelp_documents(("en", "es", "fr"), max_sentences=400, n_gold=50, n_labelled=50, seed=3)
    per_lang = _documents(docs)
    assert len(docs.doc_names) == len(set(docs.doc_names))  # one document per page, never a page cut in two
    for lang, named in per_lang.items():
        assert len(named) >= 3, f"{lang}: {len(named)} pages"
        for page, sents in named.items():
            assert page in pages[lang], f"{lang} document {page!r} is not a help page"
            assert _in_order(sents, pages[lang][page]), f"{lang} {page}: not that page's paragraphs in order"
        # English keeps whole pages (only the last may be cut at max_sentences); the others lose leaked paragraphs
    assert sum(named == pages["en"][p][:len(named)] for p, named in per_lang["en"].items()) == len(per_lang["en"])
    langs = list(per_lang)
    for i, a in enumerate(langs):
        for b in langs[i + 1:]:
            assert not set(per_lang[a]) & set(per_lang[b]), f"a help page is in both {a}'s and {b}'s training text"
    for lang in ("es", "fr"):
        assert parallel_leakage(docs, docs.gold_pairs[("en", lang)], "en", lang) == 0
        gold_en, gold_tr = docs.gold[("en", lang)]
        assert len(gold_en) == len(gold_tr) == 50


def test_bible_documents_are_chapters_split_between_languages():
    from xsent_lib.data.monodocs import bible_documents, lohelp_documents

    (en, es), refs = _cached_bitext("bible-en-es")
    chapters: dict[str, dict[str, list[str]]] = {"en": {}, "es": {}}
    where: dict[tuple[str, str], set[str]] = {}
    for e, s, ref in zip(en, es, refs):
        c = ref.rsplit(".", 1)[0]
        chapters["en"].setdefault(c, []).append(e)
        chapters["es"].setdefault(c, []).append(s)
        where.setdefault((e, s), set()).add(c)
    docs = bible_documents(max_sentences=300, n_gold=40, seed=1)
    per_lang = _documents(docs)
    for lang, named in per_lang.items():
        assert len(named) >= 3
        for c, verses in named.items():
            assert _in_order(verses, chapters[lang][c]), f"{lang} {c}: not that chapter's verses in order"
    assert not set(per_lang["en"]) & set(per_lang["es"]), "a chapter is in both languages' training text"
    training = set(per_lang["en"]) | set(per_lang["es"])
    gold = list(zip(*docs.gold[("en", "es")]))
    assert len(gold) == 40 and all(where[p] - training for p in gold), "a gold verse comes from a training chapter"
    assert parallel_leakage(docs, docs.gold_pairs[("en", "es")], "en", "es") == 0
    # the domain run: English from whole KJV chapters, Spanish still from help pages
    _cached_bitext("lohelp-en-es")
    mixed = _documents(lohelp_documents(("en", "es"), max_sentences=200, n_gold=20, n_labelled=20,
                                        english_from="bible", seed=0))
    assert all(verses == chapters["en"][c][:len(verses)] for c, verses in mixed["en"].items())
    assert all("/" in page for page in mixed["es"]) and not set(mixed["en"]) & set(mixed["es"])


# ----------------------------------------------------------------------------------- the baselines
def _chain_docs(seed: int, n_words: int = 40, n_docs: int = 150, n_sents: int = 6, sent_len: int = 8,
                n_gold: int = 100):
    """Two languages with a planted word-level structure: sentences are walks on one random successor graph of
    ``n_words`` concepts, spelt ``a..`` in ``a`` and ``b..`` (permuted) in ``b``; each language draws its own walks.
    Returns the corpus (gold: the same held-out walks in both) and the full bilingual dictionary."""
    rng = np.random.default_rng(seed)
    succ = np.array([rng.choice(n_words, 3, replace=False) for _ in range(n_words)])
    perm = rng.permutation(n_words)
    spell = lambda p, c: p + chr(97 + c // 26) + chr(97 + c % 26)  # noqa: E731
    word = {"a": lambda c: spell("a", c), "b": lambda c: spell("b", int(perm[c]))}

    def walk(r: np.random.Generator) -> list[int]:
        out = [int(r.integers(n_words))]
        for _ in range(sent_len - 1):
            out.append(int(succ[out[-1]][r.choice(3, p=[0.6, 0.3, 0.1])]))
        return out

    text = lambda lang, w: " ".join(word[lang](c) for c in w)  # noqa: E731
    docs_of = {}
    for lang in ("a", "b"):
        r = np.random.default_rng([seed, ord(lang)])
        docs_of[lang] = [[text(lang, walk(r)) for _ in range(n_sents)] for _ in range(n_docs)]
    flat = [(lang, d) for lang in ("a", "b") for d in docs_of[lang]]
    sents = [s for _, d in flat for s in d]
    doc_ids = np.repeat(np.arange(len(flat)), n_sents)
    lang_ids = np.repeat([0 if lang == "a" else 1 for lang, _ in flat], n_sents)
    docs = MonoDocs("chain", ("a", "b"), sents, doc_ids, lang_ids)
    r = np.random.default_rng([seed, 9])
    held = [walk(r) for _ in range(n_gold)]
    docs.gold[("a", "b")] = ([text("a", w) for w in held], [text("b", w) for w in held])
    return docs, [(word["a"](c), word["b"](c)) for c in range(n_words)]


def test_averaged_vectors_aligned_by_a_dictionary_retrieve_translations():
    from xsent_lib.eval.alignment_curves import mean_over, retrieval_directions

    docs, lexicon = _chain_docs(0)
    ga, gb = docs.gold[("a", "b")]
    encode, used = averaged_vectors(docs, {"b": lexicon}, dim=16, seed=0)
    va, vb = encode(ga), encode(gb)
    assert va.shape == vb.shape == (100, 16) and used == {"b": 40}
    assert encode(["zz unknown words"]).tolist() == [[0.0] * 16]  # no known word: the zero vector
    right = mean_over(retrieval_directions({"a": va, "b": vb}))
    shuffled = list(zip([a for a, _ in lexicon], np.random.default_rng(5).permutation([b for _, b in lexicon])))
    wrong_encode, _ = averaged_vectors(docs, {"b": shuffled}, dim=16, seed=0)
    wrong = mean_over(retrieval_directions({"a": wrong_encode(ga), "b": wrong_encode(gb)}))
    assert right > 30.0 > 10.0 > wrong, (right, wrong)  # chance is 1 in 100
    with pytest.raises(ValueError, match="how must be"):
        averaged_vectors(docs, {"b": lexicon}, how="vecmap")
    with pytest.raises(ValueError, match="dictionary pairs"):
        averaged_vectors(docs, {"b": [("aaa", "zzz")]}, dim=16)


def test_mlm_baseline_encodes_with_the_trained_shared_vocabulary_model():
    from xsent_lib.train.context import WangRun

    docs, pipe, corpus = _toy(n_docs=40)
    plan = replace(rec.SMOKE, d_model=16, n_heads=2, mlm_epochs=1, max_tokens=10)
    untrained = build_wang_model(len(pipe.vocab), d_model=16, n_layers=1, n_heads=2, max_len=plan.config.maxlen, seed=0)
    base = CorpusRun(docs, pipe, corpus, WangRun(untrained, plan.config), untrained)
    encode = mlm_baseline(base, plan, seed=0)
    texts = docs.sentences[:7]
    v = encode(texts)
    assert v.shape == (7, 32) and np.isfinite(v).all()  # mean-max: twice d_model
    assert np.allclose(encode(texts[:1]), v[:1], atol=1e-5)  # padding is masked: batch-independent
    before = encoder_fn(untrained.encoder, pipe, plan.max_tokens)(texts)
    assert not np.allclose(before, v)  # the MLM was trained (the untrained copy starts from the same seed)
