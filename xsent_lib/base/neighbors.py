"""Nearest-neighbour search for embeddings: exact k-NN, CSLS, inverted softmax and margin scoring.

Every search goes through :func:`knn`, which has two backends giving the same answers: faiss
(``IndexFlatIP``, exact inner product, or ``IndexIVFFlat`` when ``use_ivf=True``) and a blocked
torch fallback that tiles both the queries and the keys, so the full similarity matrix is never
materialised. Scores that add a per-key bias to the cosine (CSLS, inverted softmax, distance
margin) are searched exactly with the same index by appending one coordinate to each vector:
``[a*q, -1] . [k, b_k] = a*q.k - b_k``.
Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

import math

import numpy as np
import torch

from xsent_lib.base import device_knn
from xsent_lib.base.runtime import compute_device

try:  # faiss is optional: the torch fallback gives the same answers.
    import faiss
except ImportError:  # pragma: no cover - exercised only where faiss is missing
    faiss = None

MARGIN_MODES = ("ratio", "distance")


def _as_matrix(name: str, x: np.ndarray, dim: int | None = None) -> np.ndarray:
    """Validate an embedding matrix and return it as C-contiguous float32."""
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().numpy()
    if not isinstance(x, np.ndarray):
        raise TypeError(f"{name} must be a numpy array of shape (n, dim), got {type(x).__name__}.")
    if x.ndim != 2 or x.shape[0] == 0 or x.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array (n, dim), got shape {x.shape}.")
    if dim is not None and x.shape[1] != dim:
        raise ValueError(f"{name} has dimension {x.shape[1]} but the other side has {dim}; embed "
                         "both the same way.")
    x = np.ascontiguousarray(x, dtype=np.float32)
    bad = np.flatnonzero(~np.isfinite(x).all(1))
    if bad.size:
        raise ValueError(f"{name} row {bad[0]} holds NaN or infinite values ({bad.size} of "
                         f"{x.shape[0]} rows); check the encoder output.")
    return x


def l2_normalize(x: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    """Return a float32 copy of ``x`` with unit-length rows (all-zero rows stay zero).

    A row whose float32 norm overflows (entries beyond about 1e19) is normalised in float64, so it
    keeps its direction instead of becoming zero. Book: chapter 5 (Word translation without parallel
    data).
    """
    x = _as_matrix("x", x)
    with np.errstate(over="ignore"):  # an overflowing row is redone in float64 below
        norms = np.linalg.norm(x, axis=1, keepdims=True)
    out = (x / np.maximum(norms, eps)).astype(np.float32, copy=False)
    over = np.flatnonzero(np.isinf(norms[:, 0]))
    if over.size:
        wide = x[over].astype(np.float64)
        out[over] = wide / np.linalg.norm(wide, axis=1, keepdims=True)
    return out


def _check_k(k: int, n_keys: int, what: str = "k") -> int:
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
        raise ValueError(f"{what} must be a positive integer, got {k!r}.")
    if k > n_keys:
        raise ValueError(f"{what}={k} is larger than the number of keys ({n_keys}); lower {what}.")
    return int(k)


def _check_block(block: int) -> int:
    if not isinstance(block, (int, np.integer)) or isinstance(block, bool) or block < 1:
        raise ValueError(f"block must be a positive integer (rows per tile), got {block!r}.")
    return int(block)


def default_nlist(n_keys: int) -> int:
    """Number of IVF cells used when ``nlist`` is not given: ``4*sqrt(n)``, at least 39 keys per
    cell.

    The faiss guidelines suggest 4..16 sqrt(n) cells and ~39 training points per cell; we take the
    low end.
    Book: chapter 5 (Word translation without parallel data).
    """
    return int(max(1, min(round(4 * math.sqrt(n_keys)), n_keys // 39)))


def _faiss_flat(queries: np.ndarray, keys: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    index = faiss.IndexFlatIP(keys.shape[1])
    index.add(keys)
    scores, idx = index.search(queries, k)
    return scores, idx.astype(np.int64, copy=False)


def _faiss_ivf(
    queries: np.ndarray, keys: np.ndarray, k: int, nlist: int, nprobe: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    dim = keys.shape[1]
    quantizer = faiss.IndexFlatIP(dim)
    index = faiss.IndexIVFFlat(quantizer, dim, nlist, faiss.METRIC_INNER_PRODUCT)
    index.cp.seed = int(seed)
    rng = np.random.default_rng(seed)
    # faiss asks for 39..256 points per cell; 64 keeps training quick
    n_train = min(keys.shape[0], 64 * nlist)
    train = (keys if n_train == keys.shape[0]
             else keys[np.sort(rng.choice(keys.shape[0], n_train, replace=False))])
    index.train(train)
    index.add(keys)
    index.nprobe = int(nprobe)
    scores, idx = index.search(queries, k)
    scores[idx < 0] = -np.inf
    return scores, idx.astype(np.int64, copy=False)


def _use_torch(use_faiss: bool, dev: torch.device) -> bool:
    """faiss (CPU) when asked for, installed and ``dev`` is the CPU; else torch on ``dev``."""
    return not (use_faiss and faiss is not None and dev.type == "cpu")


def _to_numpy(*ts: torch.Tensor) -> tuple[np.ndarray, ...]:
    return tuple(t.cpu().numpy() for t in ts)


def knn(
    queries: np.ndarray,
    keys: np.ndarray,
    k: int,
    *,
    normalize: bool = True,
    use_faiss: bool = True,
    block: int = 8192,
    use_ivf: bool = False,
    nlist: int | None = None,
    nprobe: int = 16,
    seed: int = 0,
    device: str | torch.device | None = None,
    precision: str = "auto",
) -> tuple[np.ndarray, np.ndarray]:
    """Return the ``k`` best keys for each query by inner product: ``(scores, indices)``, each
    ``(n_q, k)``.

    With ``normalize=True`` rows are L2-normalised first, so scores are cosines. Rows come sorted by
    decreasing score. ``use_faiss`` picks faiss's exact ``IndexFlatIP`` when faiss is installed and
    the device is the CPU; otherwise (a GPU, or ``use_faiss=False``) a torch loop over tiles on
    ``device`` gives the same answers without ever holding the full matrix
    (:mod:`~xsent_lib.base.device_knn`; ``precision`` picks its candidate search, ``auto``: TF32
    with exact float32 re-scoring on CUDA, float32 on the CPU). ``device=None``: the chapter's
    (:func:`~xsent_lib.base.runtime.compute_device`). ``use_ivf=True`` switches to the approximate
    ``IndexIVFFlat`` (``nlist`` cells, default :func:`default_nlist`; ``nprobe`` visited per query;
    k-means seeded by ``seed``); a query whose visited cells hold fewer than ``k`` keys gets index
    -1 and score -inf in the missing slots. Measure its recall against the exact search with
    :func:`knn_recall`.
    Book: chapter 5 (Word translation without parallel data).
    """
    queries = _as_matrix("queries", queries)
    keys = _as_matrix("keys", keys, dim=queries.shape[1])
    k = _check_k(k, keys.shape[0])
    block = _check_block(block)
    if normalize:
        queries, keys = l2_normalize(queries), l2_normalize(keys)
    if use_ivf:
        if faiss is None or not use_faiss:
            raise ValueError("use_ivf=True needs faiss (pip install faiss-cpu) and use_faiss=True; "
                             "the exact fallback has no approximate mode.")
        n_cells = default_nlist(keys.shape[0]) if nlist is None else int(nlist)
        if not 1 <= n_cells <= keys.shape[0]:
            raise ValueError(f"nlist must be between 1 and the number of keys ({keys.shape[0]}), "
                             f"got {nlist!r}.")
        if not isinstance(nprobe, (int, np.integer)) or nprobe < 1:
            raise ValueError(f"nprobe must be a positive integer, got {nprobe!r}.")
        return _faiss_ivf(queries, keys, k, n_cells, min(int(nprobe), n_cells), seed)
    dev = compute_device(device)
    if not _use_torch(use_faiss, dev):
        return _faiss_flat(queries, keys, k)
    q_t, k_t = device_knn.upload(queries, dev), device_knn.upload(keys, dev)
    return _to_numpy(*device_knn.search(q_t, k_t, k, block=block, precision=precision))


def knn_recall(approx_idx: np.ndarray, exact_idx: np.ndarray, at: int = 1) -> float:
    """Fraction of queries whose exact nearest neighbour is among the first ``at`` approximate ones
    (R@at).

    Book: chapter 5 (Word translation without parallel data).
    """
    approx_idx, exact_idx = np.asarray(approx_idx), np.asarray(exact_idx)
    if approx_idx.ndim != 2 or exact_idx.ndim != 2 or approx_idx.shape[0] != exact_idx.shape[0]:
        raise ValueError("approx_idx and exact_idx must be (n, k) with the same n, got "
                         f"{approx_idx.shape} and {exact_idx.shape}.")
    at = _check_k(at, approx_idx.shape[1], "at")
    return float((approx_idx[:, :at] == exact_idx[:, :1]).any(axis=1).mean())


def mean_topk_similarity(
    queries: np.ndarray,
    keys: np.ndarray,
    k: int,
    *,
    normalize: bool = True,
    use_faiss: bool = True,
    block: int = 8192,
    device: str | torch.device | None = None,
    precision: str = "auto",
) -> np.ndarray:
    """Mean similarity of each query to its ``k`` nearest keys: the neighbourhood term ``r_T`` of
    CSLS.

    Computed through :func:`knn`, tile by tile, so the full similarity matrix is never held.
    Book: chapter 5 (Word translation without parallel data).
    """
    scores, _ = knn(queries, keys, k, normalize=normalize, use_faiss=use_faiss, block=block,
                    device=device, precision=precision)
    return scores.mean(axis=1, dtype=np.float64).astype(np.float32)


def _query_rows(n: int, queries: np.ndarray | None) -> np.ndarray:
    if queries is None:
        return np.arange(n)
    rows = np.asarray(queries)
    if rows.ndim != 1 or not np.issubdtype(rows.dtype, np.integer):
        raise TypeError(
            "queries must be a 1-D integer array of row indices into the source matrix.")
    if rows.size and (rows.min() < 0 or rows.max() >= n):
        raise ValueError(f"query indices must lie in [0, {n}), got range [{rows.min()}, "
                         f"{rows.max()}].")
    return rows


def _biased_knn(
    q: np.ndarray, keys: np.ndarray, scale: float, bias: np.ndarray, topk: int, **kw
) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-k of ``scale * q.k_j - bias_j``: faiss (one more coordinate) or torch."""
    dev = compute_device(kw.get("device"))
    if _use_torch(kw["use_faiss"], dev):
        q_t, k_t = device_knn.upload(q, dev), device_knn.upload(keys, dev)
        b_t = device_knn.upload(bias, dev)
        return _to_numpy(*device_knn.search(q_t, k_t, topk, scale=scale, bias=b_t,
                                            block=kw["block"], precision=kw["precision"]))
    q_aug = np.hstack([scale * q, -np.ones((q.shape[0], 1), np.float32)])
    k_aug = np.hstack([keys, bias.reshape(-1, 1).astype(np.float32)])
    return knn(q_aug, k_aug, topk, normalize=False, **kw)


def csls_knn(
    src: np.ndarray,
    tgt: np.ndarray,
    k_neighbors: int = 10,
    topk: int = 1,
    *,
    queries: np.ndarray | None = None,
    use_faiss: bool = True,
    block: int = 8192,
    device: str | torch.device | None = None,
    precision: str = "auto",
) -> tuple[np.ndarray, np.ndarray]:
    """Best ``topk`` targets for each source by CSLS: ``2 cos(x, y) - r_T(x) - r_S(y)``.

    ``r_T(x)`` is the mean cosine of ``x`` to its ``k_neighbors`` nearest targets and ``r_S(y)``
    that of ``y`` to its nearest sources, both over the *whole* vocabularies, so pass every word as
    ``src`` and ``tgt`` and restrict the searched rows with ``queries`` (indices into ``src``).
    Exact: the search over all targets uses the bias trick, never the full matrix. On the torch path
    (a GPU, or ``use_faiss=False``) both sides are uploaded once and stay on the device for the
    three passes. Returns ``(scores, indices)``.
    Book: chapter 5 (Word translation without parallel data).
    """
    src = _as_matrix("src", src)
    src, tgt = l2_normalize(src), l2_normalize(_as_matrix("tgt", tgt, dim=src.shape[1]))
    rows = _query_rows(src.shape[0], queries)
    k_neighbors = _check_k(k_neighbors, min(src.shape[0], tgt.shape[0]), "k_neighbors")
    topk = _check_k(topk, tgt.shape[0], "topk")
    dev = compute_device(device)
    if _use_torch(use_faiss, dev):
        s_t, t_t = device_knn.upload(src, dev), device_knn.upload(tgt, dev)
        rows_t = torch.as_tensor(rows, dtype=torch.int64, device=dev)
        return _to_numpy(*device_knn.csls(s_t, t_t, rows_t, k_neighbors, topk, block=block,
                                          precision=precision))
    kw = dict(use_faiss=use_faiss, block=block, device=dev, precision=precision)
    r_tgt = mean_topk_similarity(tgt, src, k_neighbors, normalize=False, **kw)
    q = src[rows]
    r_src = mean_topk_similarity(q, tgt, k_neighbors, normalize=False, **kw)
    scores, idx = _biased_knn(q, tgt, 2.0, r_tgt, topk, **kw)
    return scores - r_src[:, None], idx


def inverted_softmax_knn(
    src: np.ndarray,
    tgt: np.ndarray,
    beta: float = 30.0,
    topk: int = 1,
    *,
    queries: np.ndarray | None = None,
    use_faiss: bool = True,
    block: int = 8192,
    device: str | torch.device | None = None,
    precision: str = "auto",
) -> tuple[np.ndarray, np.ndarray]:
    """Best ``topk`` targets by the inverted softmax of Smith et al. (2017): ``P(x | y)``.

    ``log P(x_i | y_j) = beta cos(x_i, y_j) - log sum_{i'} exp(beta cos(x_{i'}, y_j))``, the sum
    over all sources; ``beta=30`` as in the MUSE evaluation. The per-target normaliser is a blocked
    log-sum-exp over the source vocabulary; returned scores are these log-probabilities.
    Book: chapter 5 (Word translation without parallel data).
    """
    src = _as_matrix("src", src)
    src, tgt = l2_normalize(src), l2_normalize(_as_matrix("tgt", tgt, dim=src.shape[1]))
    rows = _query_rows(src.shape[0], queries)
    topk = _check_k(topk, tgt.shape[0], "topk")
    if not np.isfinite(beta) or beta <= 0:
        raise ValueError(f"beta must be a positive number, got {beta!r}.")
    log_z = column_logsumexp(src, tgt, beta, block=_check_block(block), device=device)
    return _biased_knn(src[rows], tgt, float(beta), log_z, topk, use_faiss=use_faiss, block=block,
                       device=device, precision=precision)


def column_logsumexp(
    src: np.ndarray, tgt: np.ndarray, beta: float, *, block: int = 8192,
    device: str | torch.device | None = None,
) -> np.ndarray:
    """``log sum_i exp(beta * src_i . tgt_j)`` for every target ``j``, over source tiles (inverted
    softmax).

    Book: chapter 5 (Word translation without parallel data).
    """
    src, tgt = _as_matrix("src", src), _as_matrix("tgt", tgt)
    dev = compute_device(device)
    block = _check_block(block)
    src_d, tgt_d = device_knn.upload(src, dev), device_knn.upload(tgt, dev)
    out = np.full(tgt.shape[0], -np.inf, dtype=np.float64)
    with torch.inference_mode():
        for t0 in range(0, tgt.shape[0], block):
            t = tgt_d[t0 : t0 + block]
            acc = torch.full((t.shape[0],), -torch.inf, dtype=torch.float64, device=dev)
            for s0 in range(0, src.shape[0], block):
                s = src_d[s0 : s0 + block]
                part = torch.logsumexp(beta * (s @ t.T), dim=0).double()
                acc = torch.logaddexp(acc, part)
            out[t0 : t0 + block] = acc.cpu().numpy()
    return out.astype(np.float32)


def margin_scores(
    sim: np.ndarray, r_x: np.ndarray, r_y: np.ndarray, mode: str = "ratio"
) -> np.ndarray:
    """Artetxe & Schwenk (2019) margin of cosines ``sim`` given the neighbourhood means ``r_x``,
    ``r_y``.

    ``ratio``: ``sim / ((r_x + r_y) / 2)``; ``distance``: ``sim - (r_x + r_y) / 2``, where ``r_x``
    is the mean cosine of ``x`` to its k nearest ``y`` and vice versa. Inputs broadcast with numpy
    rules (e.g. ``sim`` (n, c), ``r_x`` (n, 1), ``r_y`` (n, c)).
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    if mode not in MARGIN_MODES:
        raise ValueError(f"mode must be one of {MARGIN_MODES}, got {mode!r}.")
    sim, r_x, r_y = (np.asarray(a, dtype=np.float32) for a in (sim, r_x, r_y))
    avg = (r_x + r_y) / 2.0
    if mode == "ratio":
        return sim / np.where(np.abs(avg) < 1e-12, 1e-12, avg)
    return sim - avg


def _both_ways(x: np.ndarray, y: np.ndarray, k_xy: int, k_yx: int, *, use_faiss: bool, block: int,
               device: str | torch.device | None, precision: str) -> tuple[np.ndarray, ...]:
    """The ``k_xy`` nearest ``y`` of each ``x`` and the ``k_yx`` nearest ``x`` of each ``y`` (unit
    rows): on the torch path both sides are uploaded once."""
    dev = compute_device(device)
    if not _use_torch(use_faiss, dev):
        return (*_faiss_flat(x, y, k_xy), *_faiss_flat(y, x, k_yx))
    x_t, y_t = device_knn.upload(x, dev), device_knn.upload(y, dev)
    kw = dict(block=block, precision=precision)
    xy, yx = device_knn.search(x_t, y_t, k_xy, **kw), device_knn.search(y_t, x_t, k_yx, **kw)
    return _to_numpy(*xy, *yx)


def margin_knn(
    x: np.ndarray,
    y: np.ndarray,
    k: int = 4,
    mode: str = "ratio",
    *,
    topk: int = 1,
    use_faiss: bool = True,
    block: int = 8192,
    device: str | torch.device | None = None,
    precision: str = "auto",
) -> tuple[np.ndarray, np.ndarray]:
    """Best ``topk`` ``y`` for each ``x`` by margin score, LASER-style: ``(scores, indices)``.

    The candidates are each ``x``'s ``max(k, topk)`` nearest ``y`` by cosine (the same search that
    gives ``r_x``), re-scored with :func:`margin_scores` and re-sorted, as in Artetxe & Schwenk
    (2019) and the LASER mining code (``k=4``): a pair outside the cosine candidates is never
    proposed. For an exhaustive search by the distance margin use :func:`csls_knn`, since
    ``distance = CSLS / 2``.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    if mode not in MARGIN_MODES:
        raise ValueError(f"mode must be one of {MARGIN_MODES}, got {mode!r}.")
    x = l2_normalize(x)
    y = l2_normalize(_as_matrix("y", y, dim=x.shape[1]))
    k = _check_k(k, min(x.shape[0], y.shape[0]))
    topk = _check_k(topk, y.shape[0], "topk")
    n_cand = min(max(k, topk), y.shape[0])
    cand_s, cand_i, s_yx, _ = _both_ways(x, y, n_cand, k, use_faiss=use_faiss,
                                         block=_check_block(block), device=device,
                                         precision=precision)
    r_x = cand_s[:, :k].mean(axis=1, dtype=np.float64).astype(np.float32)
    r_y = s_yx.mean(axis=1, dtype=np.float64).astype(np.float32)
    m = margin_scores(cand_s, r_x[:, None], r_y[cand_i], mode)
    order = np.argsort(-m, axis=1, kind="stable")[:, :topk]
    return np.take_along_axis(m, order, 1), np.take_along_axis(cand_i, order, 1)


def bidirectional_margin_knn(
    x: np.ndarray,
    y: np.ndarray,
    k: int = 4,
    mode: str = "ratio",
    *,
    use_faiss: bool = True,
    block: int = 8192,
    device: str | torch.device | None = None,
    precision: str = "auto",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Best partner by margin in both directions from two k-NN passes: ``(s_xy, i_xy, s_yx, i_yx)``.

    Equivalent to ``margin_knn(x, y, k, mode)`` and ``margin_knn(y, x, k, mode)`` (top-1 each) but
    shares the two searches, which give both the neighbourhood means and the candidates. This is the
    input of BUCC-style mining (LASER's ``forward`` / ``backward`` / ``max`` / ``intersect``
    strategies).
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    if mode not in MARGIN_MODES:
        raise ValueError(f"mode must be one of {MARGIN_MODES}, got {mode!r}.")
    x = l2_normalize(x)
    y = l2_normalize(_as_matrix("y", y, dim=x.shape[1]))
    k = _check_k(k, min(x.shape[0], y.shape[0]))
    s_xy, i_xy, s_yx, i_yx = _both_ways(x, y, k, k, use_faiss=use_faiss, block=_check_block(block),
                                        device=device, precision=precision)
    r_x = s_xy.mean(axis=1, dtype=np.float64).astype(np.float32)
    r_y = s_yx.mean(axis=1, dtype=np.float64).astype(np.float32)
    m_xy = margin_scores(s_xy, r_x[:, None], r_y[i_xy], mode)
    m_yx = margin_scores(s_yx, r_y[:, None], r_x[i_yx], mode)
    best_xy = np.argmax(m_xy, axis=1)[:, None]
    best_yx = np.argmax(m_yx, axis=1)[:, None]
    return (np.take_along_axis(m_xy, best_xy, 1)[:, 0], np.take_along_axis(i_xy, best_xy, 1)[:, 0],
            np.take_along_axis(m_yx, best_yx, 1)[:, 0], np.take_along_axis(i_yx, best_yx, 1)[:, 0])
