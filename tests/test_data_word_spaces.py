"""Word spaces (preprocessing, seeds) and the sources of chapter 5's bilingual data."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.data import word_dictionaries as wd
from xsent_lib.data import word_spaces as ws


def test_center_and_normalize_is_rotation_equivariant_and_unit_length():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(50, 6)) + 3.0
    q, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    out = ws.center_and_normalize(x)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(ws.center_and_normalize(x @ q.T), out @ q.T, atol=1e-5)
    assert np.linalg.norm(out.mean(0)) < np.linalg.norm(ws.center_and_normalize(x, center=False).mean(0))
    with pytest.raises(ValueError, match="float"):
        ws.center_and_normalize(np.arange(6).reshape(3, 2))


def test_language_seeds_differ_between_languages_and_follow_the_base_seed():
    assert ws.language_seed("en") != ws.language_seed("fr")
    assert ws.language_seed("en", 5) == ws.language_seed("en") + 5


def test_missing_real_data_names_what_an_empty_cache_lacks(tmp_path):
    missing = wd.missing_real_data(["en", "xx"], [("en", "de")], cache_dir=tmp_path)
    assert "freedict-en-de" in missing and "nlp-en-fr" in missing and "monolingual text for 'xx'" in missing
    with pytest.raises(FileNotFoundError, match="freedict-en-de"):
        wd.freedict_pairs("en", "de", cache_dir=tmp_path)
