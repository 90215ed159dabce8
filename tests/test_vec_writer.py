"""The fastText ``.vec`` writer round-trips float32 bit for bit through the reader."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.data.formats import load_vec, save_vec


def hard_floats(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    """Random float32 bit patterns (finite ones) plus the awkward values: zeros, extremes, subnormals."""
    bits = rng.integers(0, 2**32, size=n * dim, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x = np.where(np.isfinite(bits), bits, np.float32(1.5)).reshape(n, dim)
    specials = np.array([0.0, -0.0, 1e-45, -1e-45, 1.1754942e-38, 3.4028235e38, -3.4028235e38,
                         np.nextafter(np.float32(1), np.float32(2)), 0.1, 1 / 3], dtype=np.float32)
    x[0, : len(specials)] = specials[:dim] if dim < len(specials) else specials
    return x.astype(np.float32)


@pytest.mark.parametrize("suffix", [".vec", ".vec.gz"])
def test_round_trip_is_bit_exact(tmp_path, suffix):
    rng = np.random.default_rng(0)
    x = np.vstack([hard_floats(rng, 50, 12), rng.normal(size=(20000, 12)).astype(np.float32)])
    words = ["the", "Ünïcode", "mot-composé", "日本", "a\tb"] + [f"w{i}" for i in range(len(x) - 5)]
    path = save_vec(tmp_path / f"out{suffix}", words, x)
    back = load_vec(path)
    assert back.words == words
    assert back.vectors.dtype == np.float32
    assert np.array_equal(back.vectors.view(np.uint32), x.view(np.uint32))


def test_writer_refuses_what_the_format_cannot_hold(tmp_path):
    x = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match="spaces"):
        save_vec(tmp_path / "a.vec", ["a b", "c"], x)
    with pytest.raises(ValueError, match="more than once"):
        save_vec(tmp_path / "a.vec", ["a", "a"], x)
    with pytest.raises(ValueError, match="NaN"):
        save_vec(tmp_path / "a.vec", ["a", "b"], np.array([[1, np.nan, 0], [0, 0, 0]], np.float32))
    with pytest.raises(ValueError, match="one row per word"):
        save_vec(tmp_path / "a.vec", ["a"], x)
