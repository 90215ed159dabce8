"""The device-resident search (base.device_knn) and the device= paths of the neighbour API (CPU).

The reduced-precision candidate search with exact re-scoring must give the float32 answers (same
indices, same scores to float32 rounding), also when neighbours are closer than bfloat16 can tell.
"""

import numpy as np
import pytest
import torch

from xsent_lib.base import device_knn
from xsent_lib.base import neighbors as nb
from xsent_lib.base.runtime import compute_device, set_chapter_device
from xsent_lib.eval.crosslingual import sentence_retrieval, word_translation


def _unit(rng, n, d):
    x = rng.standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _brute(q, keys, k, scale=1.0, bias=None):
    sim = scale * (q.astype(np.float64) @ keys.T.astype(np.float64))
    if bias is not None:
        sim = sim - bias[None, :]
    idx = np.argsort(-sim, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(sim, idx, 1), idx


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_search_matches_brute_force_with_scale_and_bias(precision):
    rng = np.random.default_rng(0)
    q, keys = _unit(rng, 300, 32), _unit(rng, 2500, 32)
    bias = rng.uniform(0, 0.3, 2500).astype(np.float32)
    s, i = device_knn.search(
        torch.from_numpy(q),
        torch.from_numpy(keys),
        7,
        scale=2.0,
        bias=torch.from_numpy(bias),
        block=256,
        precision=precision,
    )
    s_ref, i_ref = _brute(q, keys, 7, 2.0, bias)
    np.testing.assert_array_equal(i.numpy(), i_ref)
    np.testing.assert_allclose(s.numpy(), s_ref, atol=2e-6)


def test_bfloat16_candidates_resolve_ties_closer_than_bfloat16():
    """Groups of keys whose cosines differ by ~1e-5: bfloat16 (8 bits) sees them equal, the exact
    re-scoring orders them, and crowded queries fail the certificate and are searched in float32.
    Rows whose float64 top-11 has a gap under 1e-6 (a tie float32 cannot order) are left out."""
    rng = np.random.default_rng(1)
    base = _unit(rng, 40, 24)
    keys = np.repeat(base, 30, axis=0) + 1e-3 * rng.standard_normal((1200, 24)).astype(np.float32)
    keys = nb.l2_normalize(keys)
    q = nb.l2_normalize(base[rng.integers(0, 40, 200)] + 0.3 * _unit(rng, 200, 24))
    exact = device_knn.search(torch.from_numpy(q), torch.from_numpy(keys), 10, precision="float32")
    fast = device_knn.search(torch.from_numpy(q), torch.from_numpy(keys), 10, precision="bfloat16")
    s_ref, i_ref = _brute(q, keys, 11)
    clear = (-np.diff(s_ref, axis=1) > 1e-6).all(1)
    assert clear.mean() > 0.7
    assert np.median(-np.diff(s_ref[:, :10], axis=1)) < 1e-4  # far below bfloat16 spacing (4e-3)
    np.testing.assert_array_equal(exact[1].numpy()[clear], i_ref[clear, :10])
    np.testing.assert_array_equal(fast[1].numpy()[clear], i_ref[clear, :10])
    np.testing.assert_allclose(fast[0].numpy(), exact[0].numpy(), atol=1e-6)


def test_csls_torch_path_equals_faiss_path_and_word_translation_pk():
    rng = np.random.default_rng(2)
    src = rng.standard_normal((3000, 48)).astype(np.float32)
    tgt = src + 1.6 * rng.standard_normal((3000, 48)).astype(np.float32)
    rows = rng.choice(3000, 400, replace=False)
    ref = nb.csls_knn(src, tgt, 10, 10, queries=rows)
    for precision in ("float32", "bfloat16"):
        got = nb.csls_knn(
            src, tgt, 10, 10, queries=rows, use_faiss=False, device="cpu", precision=precision
        )
        np.testing.assert_array_equal(got[1], ref[1])
        np.testing.assert_allclose(got[0], ref[0], atol=2e-6)
    pairs = np.stack([rows, rows], 1)
    p_ref = word_translation(src, tgt, pairs, methods=("nn", "csls", "isf"))
    p_cpu = word_translation(src, tgt, pairs, methods=("nn", "csls", "isf"), device="cpu")
    assert p_cpu == p_ref
    assert 0 < p_ref["csls"]["p@1"] < p_ref["csls"]["p@10"] < 100  # a test that could fail


def test_margin_paths_agree_and_sentence_retrieval_takes_a_device():
    rng = np.random.default_rng(3)
    x = _unit(rng, 1500, 32)
    y = nb.l2_normalize(x + 0.9 * _unit(rng, 1500, 32))
    ref = nb.bidirectional_margin_knn(x, y, 4)
    got = nb.bidirectional_margin_knn(x, y, 4, use_faiss=False, precision="bfloat16")
    for a, b in zip(ref, got):
        np.testing.assert_allclose(a, b, atol=2e-6)
    m_ref = nb.margin_knn(x, y, 4, topk=3)
    m_got = nb.margin_knn(x, y, 4, topk=3, use_faiss=False)
    np.testing.assert_array_equal(m_ref[1], m_got[1])
    r = sentence_retrieval(x[:300], y[:300], device="cpu")
    assert r == sentence_retrieval(x[:300], y[:300])


def test_device_none_is_the_chapter_device():
    try:
        set_chapter_device("cpu")
        assert compute_device(None) == torch.device("cpu")
        assert compute_device("cpu") == torch.device("cpu")
    finally:
        set_chapter_device(None)
    assert compute_device(None) == torch.get_default_device()


def test_precision_is_checked():
    with pytest.raises(ValueError, match="precision must be one of"):
        device_knn.resolve_precision("fp8", torch.device("cpu"))
    with pytest.raises(ValueError, match="needs a CUDA device"):
        device_knn.resolve_precision("tf32", torch.device("cpu"))
    assert device_knn.resolve_precision("auto", torch.device("cpu")) == "float32"
    assert device_knn.resolve_precision("auto", torch.device("cuda")) == "tf32"
