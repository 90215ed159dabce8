"""Nearest-neighbour search: faiss vs fallback parity, CSLS / inverted softmax / margin vs brute force."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.base import neighbors as nb


def _unit(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    x = rng.standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.fixture()
def spaces():
    rng = np.random.default_rng(0)
    return _unit(rng, 70, 8), _unit(rng, 90, 8)


def _brute_topk(sim: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    idx = np.argsort(-sim, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(sim, idx, 1), idx


@pytest.mark.parametrize("use_faiss", [True, False])
def test_knn_matches_brute_force_and_small_blocks(spaces, use_faiss):
    x, y = spaces
    s, i = nb.knn(3 * x, y, 5, use_faiss=use_faiss, block=16)  # scaling must not matter after normalising
    bs, bi = _brute_topk(x.astype(np.float64) @ y.T.astype(np.float64), 5)
    np.testing.assert_array_equal(i, bi)
    np.testing.assert_allclose(s, bs, atol=1e-5)
    assert s.dtype == np.float32 and i.dtype == np.int64


def test_knn_faiss_and_fallback_agree_without_normalising(spaces):
    x, y = spaces
    a = nb.knn(x * 2, y, 7, normalize=False, use_faiss=True)
    b = nb.knn(x * 2, y, 7, normalize=False, use_faiss=False, block=13)
    np.testing.assert_array_equal(a[1], b[1])
    np.testing.assert_allclose(a[0], b[0], atol=1e-5)
    np.testing.assert_allclose(a[0][:, 0], 2 * (x @ y.T).max(1), atol=1e-5)


def test_knn_hand_computed():
    q = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)
    keys = np.array([[1.0, 1.0], [0.0, 2.0], [1.0, 0.0]], np.float32)
    s, i = nb.knn(q, keys, 2)
    np.testing.assert_array_equal(i, [[2, 0], [1, 0]])
    np.testing.assert_allclose(s, [[1.0, 2**-0.5], [1.0, 2**-0.5]], atol=1e-6)


def test_mean_topk_similarity_is_r_term(spaces):
    x, y = spaces
    sim = x @ y.T
    want = np.sort(sim, axis=1)[:, ::-1][:, :4].mean(1)
    for use_faiss in (True, False):
        np.testing.assert_allclose(nb.mean_topk_similarity(x, y, 4, use_faiss=use_faiss, block=11), want, atol=1e-5)


@pytest.mark.parametrize("use_faiss", [True, False])
def test_csls_matches_brute_force(spaces, use_faiss):
    x, y = spaces
    sim = x.astype(np.float64) @ y.T
    r_src = np.sort(sim, 1)[:, ::-1][:, :3].mean(1)
    r_tgt = np.sort(sim.T, 1)[:, ::-1][:, :3].mean(1)
    csls = 2 * sim - r_src[:, None] - r_tgt[None, :]
    rows = np.array([5, 0, 17, 69])
    s, i = nb.csls_knn(x, y, k_neighbors=3, topk=4, queries=rows, use_faiss=use_faiss, block=9)
    bs, bi = _brute_topk(csls[rows], 4)
    np.testing.assert_array_equal(i, bi)
    np.testing.assert_allclose(s, bs, atol=1e-5)


def test_csls_demotes_a_hub():
    # Sources in a cone around c; targets are noisy copies plus the hub c itself, close to every source.
    rng = np.random.default_rng(0)
    c = np.eye(16, dtype=np.float32)[:1]
    src = nb.l2_normalize(c + 0.25 * rng.standard_normal((40, 16)))
    tgt = np.vstack([nb.l2_normalize(src + 0.25 * rng.standard_normal((40, 16))), c])
    _, nn = nb.knn(src, tgt, 1)
    _, cs = nb.csls_knn(src, tgt, k_neighbors=5)
    assert (nn[:, 0] == 40).sum() > 2 * (cs[:, 0] == 40).sum()
    assert (cs[:, 0] == np.arange(40)).mean() > (nn[:, 0] == np.arange(40)).mean() + 0.1


@pytest.mark.parametrize("use_faiss", [True, False])
def test_inverted_softmax_matches_brute_force(spaces, use_faiss):
    x, y = spaces
    sim = x.astype(np.float64) @ y.T
    logp = 30 * sim - np.log(np.exp(30 * sim).sum(0, keepdims=True))
    s, i = nb.inverted_softmax_knn(x, y, beta=30.0, topk=3, use_faiss=use_faiss, block=8)
    bs, bi = _brute_topk(logp, 3)
    np.testing.assert_array_equal(i, bi)
    np.testing.assert_allclose(s, bs, atol=1e-3)


def test_margin_scores_hand_computed():
    np.testing.assert_allclose(nb.margin_scores(0.8, 0.6, 0.4, "ratio"), 0.8 / 0.5)
    np.testing.assert_allclose(nb.margin_scores(0.8, 0.6, 0.4, "distance"), 0.3, atol=1e-7)
    with pytest.raises(ValueError, match="mode"):
        nb.margin_scores(0.8, 0.6, 0.4, "absolute")


@pytest.mark.parametrize("mode", ["ratio", "distance"])
@pytest.mark.parametrize("use_faiss", [True, False])
def test_margin_knn_matches_brute_force(spaces, mode, use_faiss):
    x, y = spaces
    k = 4
    sim = x.astype(np.float64) @ y.T
    r_x = np.sort(sim, 1)[:, ::-1][:, :k].mean(1)
    r_y = np.sort(sim.T, 1)[:, ::-1][:, :k].mean(1)
    full = sim / ((r_x[:, None] + r_y[None]) / 2) if mode == "ratio" else sim - (r_x[:, None] + r_y[None]) / 2
    cand = np.argsort(-sim, 1)[:, :k]  # LASER protocol: re-score the k cosine neighbours
    masked = np.full_like(full, -np.inf)
    np.put_along_axis(masked, cand, np.take_along_axis(full, cand, 1), 1)
    bs, bi = _brute_topk(masked, 2)
    s, i = nb.margin_knn(x, y, k=k, mode=mode, topk=2, use_faiss=use_faiss, block=10)
    np.testing.assert_array_equal(i, bi)
    np.testing.assert_allclose(s, bs, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["ratio", "distance"])
def test_bidirectional_margin_equals_two_one_way_searches(spaces, mode):
    x, y = spaces
    s_xy, i_xy, s_yx, i_yx = nb.bidirectional_margin_knn(x, y, k=3, mode=mode)
    fs, fi = nb.margin_knn(x, y, k=3, mode=mode)
    bs, bi = nb.margin_knn(y, x, k=3, mode=mode)
    np.testing.assert_array_equal(i_xy, fi[:, 0])
    np.testing.assert_array_equal(i_yx, bi[:, 0])
    np.testing.assert_allclose(s_xy, fs[:, 0], atol=1e-6)
    np.testing.assert_allclose(s_yx, bs[:, 0], atol=1e-6)


def test_distance_margin_is_half_csls(spaces):
    x, y = spaces
    s_m, i_m = nb.margin_knn(x, y, k=5, mode="distance", topk=1)
    s_c, i_c = nb.csls_knn(x, y, k_neighbors=5, topk=1)
    agree = i_m[:, 0] == i_c[:, 0]
    assert agree.mean() > 0.9
    np.testing.assert_allclose(s_m[agree], s_c[agree] / 2, atol=1e-5)


def test_ivf_recall_measured_and_full_probe_is_exact():
    rng = np.random.default_rng(3)
    keys = _unit(rng, 2000, 16)
    q = keys[:200] + 0.1 * rng.standard_normal((200, 16)).astype(np.float32)
    _, exact = nb.knn(q, keys, 5)
    nlist = 20
    _, approx_all = nb.knn(q, keys, 5, use_ivf=True, nlist=nlist, nprobe=nlist)
    assert nb.knn_recall(approx_all, exact, at=1) == 1.0
    _, approx_one = nb.knn(q, keys, 5, use_ivf=True, nlist=nlist, nprobe=1)
    r1 = nb.knn_recall(approx_one, exact, at=1)
    assert 0.3 < r1 <= nb.knn_recall(approx_one, exact, at=5) <= 1.0
    assert nb.default_nlist(2000) == 51 and nb.default_nlist(100) == 2


def test_knn_recall_hand_computed():
    exact = np.array([[3, 1], [0, 2], [5, 4]])
    approx = np.array([[3, 9], [2, 0], [7, 8]])
    assert nb.knn_recall(approx, exact, at=1) == pytest.approx(1 / 3)
    assert nb.knn_recall(approx, exact, at=2) == pytest.approx(2 / 3)


def test_bad_inputs_raise_clear_errors(spaces):
    x, y = spaces
    with pytest.raises(ValueError, match="dimension"):
        nb.knn(x, y[:, :4], 1)
    with pytest.raises(ValueError, match="larger than the number of keys"):
        nb.knn(x, y[:3], 5)
    with pytest.raises(ValueError, match="NaN"):
        nb.knn(np.full((2, 8), np.nan, np.float32), y, 1)
    with pytest.raises(TypeError, match="numpy array"):
        nb.knn([[1.0]], y, 1)
    with pytest.raises(ValueError, match="use_ivf"):
        nb.knn(x, y, 1, use_ivf=True, use_faiss=False)
    with pytest.raises(ValueError, match="query indices"):
        nb.csls_knn(x, y, queries=np.array([1000]))
