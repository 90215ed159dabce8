"""Seeds are checked where they enter: a seed torch cannot take fails with the valid range, not inside torch."""
from __future__ import annotations

import os

import numpy as np
import pytest

from xsent_lib.base.runtime import LIBRARY_MAX_SEED, check_seed, seed_everything


def test_seed_too_large_for_torch_is_refused_with_the_valid_range():
    with pytest.raises(ValueError, match=r"seed must be a non-negative integer in \[0, 2\*\*32 - 1\]"):
        seed_everything(2**64)
    with pytest.raises(ValueError, match=r"\[0, 2\*\*32 - 1\]"):
        seed_everything(2**32)
    with pytest.raises(ValueError, match=r"\[0, 2\*\*32 - 1\]"):
        seed_everything(-1)


def test_seed_of_the_wrong_type_is_refused():
    for bad in (1.5, "7", True, None):
        with pytest.raises(ValueError, match="seed must be a non-negative integer"):
            check_seed(bad)


def test_largest_seed_is_accepted_and_pythonhashseed_stays_valid(monkeypatch):
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    rng = seed_everything(LIBRARY_MAX_SEED)
    assert isinstance(rng, np.random.Generator)
    assert 0 <= int(os.environ["PYTHONHASHSEED"]) <= 2**32 - 1  # Python refuses to start a child otherwise
    assert check_seed(np.int64(3), "params['seed']") == 3
