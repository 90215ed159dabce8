"""VecMap's similarity-distribution initialisation and self-learning recover a planted rotation."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.align.toy import planted_rotation
from xsent_lib.align.vecmap import (
    VecMapConfig,
    similarity_init_dictionary,
    similarity_signatures,
    vecmap_unsupervised,
)


@pytest.fixture(scope="module")
def permuted_toy():
    """A clustered cloud and its rotated, slightly noisy copy whose vocabulary order is shuffled."""
    data = planted_rotation(600, 10, noise=0.02, seed=1)
    perm = np.random.default_rng(0).permutation(600)  # target row j holds word perm[j]
    return data, data.tgt[perm], np.argsort(perm)      # gold[i]: target row of source word i


def test_signatures_ignore_rotation_and_vocabulary_order(permuted_toy):
    data, _, _ = permuted_toy
    perm = np.random.default_rng(1).permutation(600)
    a = similarity_signatures(data.src, 600)
    b = similarity_signatures(data.src[perm] @ data.rotation.T, 600)
    assert a.shape == (600, 600)
    assert np.allclose(a[perm], b, atol=1e-4)


def test_seed_dictionary_and_self_learning_recover_the_planted_rotation(permuted_toy):
    data, tgt, gold = permuted_toy
    seed_pairs = similarity_init_dictionary(data.src, tgt, n_words=600, csls_k=10)
    seed_acc = np.mean(gold[seed_pairs[:600, 0]] == seed_pairs[:600, 1])
    identity_acc = np.mean((data.src @ tgt.T).argmax(1) == gold)
    assert seed_acc > 0.3 > identity_acc
    res = vecmap_unsupervised(data.src, tgt, VecMapConfig(init_words=600, vocab=600, interval=3, max_iter=40))
    p1 = np.mean(((data.src @ res.W.T) @ tgt.T).argmax(1) == gold)
    assert p1 > 0.97
    assert np.linalg.norm(res.W - data.rotation) < 0.1 * np.linalg.norm(data.rotation)
    assert res.history and res.history[-1]["keep_prob"] == 1.0


def test_bad_input_is_refused():
    x = np.ones((20, 4), np.float32)
    with pytest.raises(ValueError, match="dimension"):
        vecmap_unsupervised(x, np.ones((20, 5), np.float32))
    with pytest.raises(ValueError, match="csls_k"):
        vecmap_unsupervised(x[:5], x[:5])
    with pytest.raises(ValueError, match="keep_prob"):
        VecMapConfig(keep_prob=0.0)
