"""The isomorphism dial's pieces: typological distance, the synthetic pair setting, the figure."""
from __future__ import annotations

import pytest
from matplotlib.figure import Figure

from xsent_lib.align.setting import synthetic_pair_setting
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.word_spaces import typological_distance
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
