"""Chapter 9 (Wang et al.): the two training stages on a planted toy, the leakage check, the MLP protocol, the
claims logic and the recipe's smoke path."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.data.monodocs import MonoDocs, drop_leaks, parallel_leakage, planted_toy
from xsent_lib.eval.frozen_mlp import frozen_mlp_transfer, wang_pair_features
from xsent_lib.recipes import wang as rec
from xsent_lib.train.context import (ContextConfig, build_wang_model, doc_corpus, embed_corpus, gold_pair_precision,
                                     token_matrix, train_stage1, train_wang)


def _toy(seed: int = 0, **kw):
    docs = planted_toy(seed=seed, **kw)
    pipe = rec.shared_pipeline(docs.sentences)
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


def test_claims_logic():
    per_round = [{"xnli": {"en": 60.0, "xa": 40.0}, "precision": {"en-xa": 5.0}},
                 {"xnli": {"en": 60.0, "xa": 44.0}, "precision": {"en-xa": 9.0}},
                 {"xnli": {"en": 60.0, "xa": 46.0}, "precision": {"en-xa": 11.0}},
                 {"xnli": {"en": 60.0, "xa": 47.0}, "precision": {"en-xa": 12.0}},
                 {"xnli": {"en": 60.0, "xa": 47.2}, "precision": {"en-xa": 12.0}}]
    help_rounds = [{"cls": {"en-en": 90.0, "en-es": 40.0, "es-en": 42.0}},
                   {"cls": {"en-en": 90.0, "en-es": 38.0, "es-en": 40.0}}]
    numbers = rec.claim_numbers(per_round, help_rounds, None, {"en": 50.0, "xa": 41.0})
    assert numbers["xnli overall, round 3"] == 47.0
    assert numbers["xnli gain after round 3"] == pytest.approx(0.2)
    claims = {c["claim"]: c for c in rec.wang_claims(numbers)}
    holds = lambda text: next(v for k, v in claims.items() if k.startswith(text))["holds"]  # noqa: E731
    assert holds("iteration improves cross-lingual transfer") is True
    assert holds("iteration improves cross-lingual document") is False
    assert holds("mined pairs get better with the rounds (precision on held-out gold, synthetic") is True
    assert holds("mined pairs get better with the rounds (precision on held-out gold, help") is None  # no help precision
    assert holds("more than ~3 rounds plateau") is True
    assert holds("training corpora from mismatched") is None  # no domain run: not testable
    assert holds("the method beats averaged") is True


def test_recipe_smoke_path_on_world():
    plan = rec.SMOKE
    world, docs, bench = rec.world_setup(plan, 0)
    assert sum(r["leaked"] for r in rec.leakage_table(docs)) == 0
    run = rec.train_corpus(docs, plan, lambda enc: {"xnli": rec.xnli_accuracy(enc, bench, (16, 8), 0),
                                                     "precision": rec.gold_precisions(enc, docs, 20)}, seed=0)
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
    docs, read = rec.real_documents(root, rec.SMOKE, max_sentences=120, max_bitext=200)
    assert docs.langs == ("en", "fr") and read == ["europarl-v7.fr-en"]
    assert all(s["sentences"] <= 120 for s in docs.sizes()) and docs.gold[("en", "fr")][0]
    assert all(r["leaked"] == 0 for r in rec.leakage_table(docs))
    bench = rec.real_xnli_bench(root, docs.langs, max_train=100, max_eval=50)
    assert bench.languages == ["en", "fr"] and len(bench.train) == 100 and len(bench.test["fr"]) == 50
    with pytest.raises(ValueError, match="none of the languages"):
        rec.real_xnli_bench(root, ["en", "ru"], max_train=10, max_eval=10)
    (root / "monolingual" / "fr.txt").unlink()
    with pytest.raises(FileNotFoundError, match="one other"):
        rec.real_documents(root, rec.SMOKE, max_sentences=10)
