"""The isomorphism dial's pieces: typological distance, the synthetic pair setting, the figure."""
from __future__ import annotations

import pytest
from matplotlib.figure import Figure

from xsent_lib.align.setting import synthetic_pair_setting, text_pair_setting
from xsent_lib.data.dial_corpora import real_dial_text
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.word_spaces import typological_distance
from xsent_lib.eval.dial import dial_summary
from xsent_lib.viz import muse as viz

LANGS = ("en", "xa", "xb", "xc", "xd", "xe")


def test_typological_distance_is_a_symmetric_count_zero_on_the_diagonal():
    for a in LANGS:
        assert typological_distance(a, a) == 0
        for b in LANGS:
            assert typological_distance(a, b) == typological_distance(b, a)
            assert 0 <= typological_distance(a, b) <= 10
    # Japonic- and Turkic-like differ only in verb agreement; English and Japonic-like in almost everything
    assert typological_distance("xb", "xd") == 1 < typological_distance("en", "xe") < typological_distance("en", "xb")
    with pytest.raises(ValueError, match="unknown language"):
        typological_distance("en", "zz")


def test_synthetic_pair_setting_uses_independent_corpora_even_for_one_language(tmp_path):
    s = synthetic_pair_setting(SyntheticWorld(3), "en", "en", n_sentences=600, dim=8, cache_dir=tmp_path)
    assert s.name == "en-en" and len(s.test) and len(s.train)
    assert s.src.words != s.tgt.words or not (s.src.vectors == s.tgt.vectors).all()
    assert all(s.src.words[i] == s.tgt.words[j] for i, j in s.test.tolist())  # the gold lexicon is identity
    with pytest.raises(ValueError, match="n_sentences"):
        synthetic_pair_setting(SyntheticWorld(3), "en", "xa", n_sentences=10)


def test_dial_figure_has_a_distance_and_a_size_panel():
    rows = [{"pair": p, "distance": d, "n_sentences": n, "seed": s, "Procrustes": 20.0 + d, "Adv - Refine": 0.0,
             "VecMap": 20.0 - 3 * d}
            for p, d, n in [("en-en", 0, 1000), ("en-en", 0, 4000), ("en-xa", 4, 4000)] for s in (0, 1)]
    fig = viz.isomorphism_dial(rows)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    assert len(fig.axes[0].lines) == 3  # one mean line per method at the largest size
    assert len(fig.axes[1].lines) == 3  # en-en is the only pair at several sizes
    with pytest.raises(ValueError, match="at least one"):
        viz.isomorphism_dial([])


def test_text_pair_setting_identity_on_frequent_shared_words_or_a_dictionary(tmp_path):
    world = SyntheticWorld(5)
    a, b = world.sentences(800, "en", split="train"), world.sentences(800, "en", split="dev")
    s = text_pair_setting("en", a, "en", b, dim=8, n_test=50, identity_words=120, cache_dir=tmp_path)
    pairs = s.train.tolist() + s.test.tolist()
    assert all(s.src.words[i] == s.tgt.words[j] for i, j in pairs)  # identity
    assert max(i for i, _ in pairs) < 200 and len(pairs) <= 120  # only the frequent shared words
    assert len({i for i, _ in s.test.tolist()}) == 50 and not {i for i, _ in s.train.tolist()} & {i for i, _ in s.test.tolist()}
    lex = world.lexicon("en", "xa")
    xa = world.sentences(800, "xa", split="dev")
    d = text_pair_setting("en", a, "xa", xa, train_pairs=lex.train, test_pairs=lex.test, dictionary="gold", dim=8,
                          cache_dir=tmp_path)
    assert d.dictionary == "gold" and len(d.test) and all(
        (d.src.words[i], d.tgt.words[j]) in set(lex.test) for i, j in d.test.tolist())
    with pytest.raises(ValueError, match="both train_pairs and test_pairs"):
        text_pair_setting("en", a, "xa", xa, train_pairs=lex.train)
    with pytest.raises(ValueError, match="100 sentences"):
        text_pair_setting("en", a[:50], "en", b)


def test_compare_aligners_without_the_adversarial_stage_and_the_summary_by_point(tmp_path):
    from xsent_lib.align.adversarial import AdversarialConfig
    from xsent_lib.align.vecmap import VecMapConfig
    from xsent_lib.eval.word_maps import compare_aligners

    s = synthetic_pair_setting(SyntheticWorld(3), "en", "en", n_sentences=1500, dim=16, cache_dir=tmp_path)
    res = compare_aligners(s, AdversarialConfig(criterion_words=200), VecMapConfig(init_words=300, vocab=400, max_iter=5),
                           adversarial=False)
    assert "Adv - Refine" not in res and "seconds Adv - Refine" not in res
    assert res["criterion picks"] == "VecMap" and res["unsupervised (criterion)"] == res["VecMap"]
    rows = [{"point": "a / b", "n_sentences": n, **res, "seed": k} for n in (10, 20) for k in (0, 1)]
    summary = dial_summary(rows, keys=("point", "n_sentences"))
    assert [(r["point"], r["n_sentences"], r["seeds"]) for r in summary] == [("a / b", 10, 2), ("a / b", 20, 2)]
    assert "Adv - Refine" not in summary[0] and summary[0]["gap VecMap"] == pytest.approx(res["Procrustes"] - res["VecMap"])


def test_real_dial_corpora_are_disjoint_samples_and_the_figure_has_a_panel_per_point():
    try:
        first = real_dial_text("en news", 500)
        second = real_dial_text("en news (other half)", 500)
        french = real_dial_text("fr news (other half)", 500, seed=1)
    except FileNotFoundError as err:
        pytest.skip(f"the data cache lacks nlp-en-fr: {err}")
    assert len(first) == len(second) == 500 and not set(first) & set(second)
    assert first == real_dial_text("en news", 500) and first != real_dial_text("en news", 500, seed=3)
    assert french and not set(french) & set(first)
    with pytest.raises(ValueError, match="unknown dial corpus"):
        real_dial_text("klingon", 10)
    with pytest.raises(ValueError, match="fewer than"):
        real_dial_text("en news", 10**7)
    rows = [{"point": p, "n_sentences": n, "seed": 0, "Procrustes": 10.0, "VecMap": 5.0}
            for p in ("en news / en books", "en news / fr help") for n in (1000, 4000)]
    fig = viz.real_dial(rows, title="test")
    assert isinstance(fig, Figure) and len(fig.axes) == 2 and len(fig.axes[0].lines) == 2  # no Adv line
