"""idf-weighted bags of (mapped) word vectors."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.data import word_spaces as ws
from xsent_lib.encoders import idf_bag as ib


def test_bag_of_words_is_the_idf_weighted_mean_of_mapped_words():
    words = ["a", "b", "c"]
    vec = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    space = ws.LanguageSpace("xx", words, vec.astype(np.float32))
    idf = ib.idf_weights(["a b", "a", "c c"], space)
    np.testing.assert_allclose(idf, np.log([3 / 2, 3 / 1, 3 / 1]), rtol=1e-6)
    W = np.array([[0.0, -1.0], [1.0, 0.0]])
    out = ib.bag_of_words(["a b b zz", "zz"], space, idf, W)
    mean = (idf[0] * vec[0] + 2 * idf[1] * vec[1]) / (idf[0] + 2 * idf[1])
    np.testing.assert_allclose(out[0], W @ mean, rtol=1e-5)
    np.testing.assert_array_equal(out[1], [0.0, 0.0])


def test_bag_of_words_rejects_a_map_of_the_wrong_shape_and_idf_of_the_wrong_length():
    space = ws.LanguageSpace("xx", ["a", "b"], np.eye(2, dtype=np.float32))
    with pytest.raises(ValueError, match="W must be"):
        ib.bag_of_words(["a"], space, None, np.eye(3))
    with pytest.raises(ValueError, match="idf"):
        ib.bag_of_words(["a"], space, np.ones(3))
    with pytest.raises(ValueError, match="at least one"):
        ib.idf_weights([], space)
