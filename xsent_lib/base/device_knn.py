"""Exact top-k search on a torch device, keys resident there (for :mod:`~xsent_lib.base.neighbors`).

:func:`search` returns the ``k`` best keys of ``scale * q.k_j - bias_j`` for each query, tile by
tile with a running merge, so the full similarity matrix is never held. Two modes, same answers:

- ``float32``: every tile in float32 (the CPU's mode);
- ``tf32`` / ``bfloat16`` (CUDA's fast mode, ``auto``): a candidate search in reduced precision
  keeps the ``k + margin`` best keys per query, re-scored exactly in float32. Each query carries a
  certificate: with ``err`` a bound on the reduced-precision error of one score, every key left
  out scores at most ``lowest candidate + err``; when the k-th exact score is above that, the
  exact top-k is among the candidates. The few queries without the certificate are searched
  again in float32.

Ties below float32's resolution may order differently from another float32 kernel
(summation order).
Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

import contextlib

import torch

PRECISIONS = ("auto", "float32", "tf32", "bfloat16")
# Bound on |reduced - float32| of one dot product per unit of |q| * |k|, with slack: tf32 keeps 10
# mantissa bits of each input (error <= 2^-10 each, truncated), bfloat16 keeps 7 and its output is
# rounded to bfloat16 too (2 * 2^-8 + 2^-8 < 2^-6); float32 accumulation adds ~d * 2^-24.
_ERROR_PER_UNIT = {"tf32": 2.0**-8, "bfloat16": 2.0**-5}
_TILE_ELEMENTS = 2**27  # similarity entries per tile on an accelerator (512 MiB in float32)


def resolve_precision(precision: str, device: torch.device) -> str:
    """``auto`` -> ``tf32`` on CUDA, ``float32`` elsewhere; ``tf32`` exists on CUDA only.

    Book: chapter 5 (Word translation without parallel data).
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}.")
    if precision == "auto":
        return "tf32" if device.type == "cuda" else "float32"
    if precision == "tf32" and device.type != "cuda":
        raise ValueError("precision='tf32' needs a CUDA device; on the CPU use 'float32' or "
                         "'bfloat16'.")
    return precision


@contextlib.contextmanager
def _matmul_precision(level: str):
    """Set ``torch.set_float32_matmul_precision`` for the block, restoring the caller's setting."""
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision(level)
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(before)


def upload(x, device: torch.device) -> torch.Tensor:
    """A float32 numpy matrix (or tensor) on ``device``; one copy, no copy at all on the CPU.

    Book: chapter 5 (Word translation without parallel data).
    """
    t = torch.as_tensor(x, dtype=torch.float32)
    return t.to(device, non_blocking=device.type == "cuda")


def _key_block(device: torch.device, block: int, n_rows: int, n_keys: int) -> int:
    if device.type == "cpu":
        return block
    return max(block, min(n_keys, _TILE_ELEMENTS // max(n_rows, 1)))


def _merge(best, s: torch.Tensor, i: torch.Tensor, k: int):
    if best is None:
        return s, i
    s_all, i_all = torch.cat([best[0], s], 1), torch.cat([best[1], i], 1)
    s_top, pos = s_all.topk(min(k, s_all.shape[1]), dim=1)
    return s_top, i_all.gather(1, pos)


def _tile_scores(q, kt, scale: float, bias) -> torch.Tensor:
    sim = q @ kt.T
    if sim.dtype != torch.float32:
        sim = sim.float()
    if scale != 1.0:
        sim.mul_(scale)
    if bias is not None:
        sim.sub_(bias)
    return sim


def _tiled_topk(q, keys, k: int, scale: float, bias, block: int):
    """Top-k of ``scale * q @ keys.T - bias`` over (query x key) tiles, in the inputs' dtype."""
    n_keys = keys.shape[0]
    kb = _key_block(keys.device, block, min(block, q.shape[0]), n_keys)
    out_s, out_i = [], []
    for q0 in range(0, q.shape[0], block):
        qt, best = q[q0 : q0 + block], None
        for k0 in range(0, n_keys, kb):
            b = None if bias is None else bias[k0 : k0 + kb]
            sim = _tile_scores(qt, keys[k0 : k0 + kb], scale, b)
            s, i = sim.topk(min(k, sim.shape[1]), dim=1)
            best = _merge(best, s, i + k0, k)
        out_s.append(best[0])
        out_i.append(best[1])
    return torch.cat(out_s), torch.cat(out_i)


def _rescore(q, keys, cand, scale: float, bias) -> torch.Tensor:
    """Exact float32 scores of each query against its candidate keys (batched dot products)."""
    exact = torch.bmm(keys[cand], q.unsqueeze(2)).squeeze(2)
    if scale != 1.0:
        exact.mul_(scale)
    if bias is not None:
        exact.sub_(bias[cand])
    return exact


def _sort_candidates(exact: torch.Tensor, cand: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Candidates by decreasing exact score; equal scores by increasing key index."""
    cand, pos = cand.sort(dim=1)
    exact = exact.gather(1, pos)
    exact, pos = exact.sort(dim=1, descending=True, stable=True)
    return exact, cand.gather(1, pos)


def _certified_topk(q, keys, k: int, scale: float, bias, block: int, precision: str):
    """Reduced-precision candidates, exact float32 re-scores, float32 search where not certified."""
    n_keys = keys.shape[0]
    n_cand = min(n_keys, k + max(16, k))
    low = keys.to(torch.bfloat16) if precision == "bfloat16" else keys
    q_low = q.to(torch.bfloat16) if precision == "bfloat16" else q
    level = "high" if precision == "tf32" else "highest"
    with _matmul_precision(level):
        approx, cand = _tiled_topk(q_low, low, n_cand, scale, bias, block)
    with _matmul_precision("highest"):
        exact = torch.cat([_rescore(q[s : s + block], keys, cand[s : s + block], scale, bias)
                           for s in range(0, q.shape[0], block)])
        exact, cand = _sort_candidates(exact, cand)
        scores, idx = exact[:, :k].contiguous(), cand[:, :k].contiguous()
        if n_cand == n_keys:
            return scores, idx
        unit = abs(scale) * q.norm(dim=1) * keys.norm(dim=1).max()
        err = unit * _ERROR_PER_UNIT[precision] + 1e-5
        redo = torch.nonzero(scores[:, -1] <= approx[:, -1] + err).flatten()
        if redo.numel():  # the only data-dependent branch: one small device-to-host read
            s_r, i_r = _tiled_topk(q[redo], keys, k, scale, bias, block)
            scores[redo], idx[redo] = s_r, i_r
    return scores, idx


def search(q: torch.Tensor, keys: torch.Tensor, k: int, *, scale: float = 1.0,
           bias: torch.Tensor | None = None, block: int = 8192,
           precision: str = "auto") -> tuple[torch.Tensor, torch.Tensor]:
    """The ``k`` best keys of ``scale * q . key_j - bias_j`` per query, sorted: ``(scores, idx)``.

    ``q`` (n, d), ``keys`` (m, d), ``bias`` (m,) are float32 tensors on one device and stay there;
    the result is too. ``precision`` picks the candidate search (module docstring); the answers are
    the float32 ones in every mode.
    Book: chapter 5 (Word translation without parallel data).
    """
    precision = resolve_precision(precision, keys.device)
    with torch.inference_mode():
        if precision == "float32":
            with _matmul_precision("highest"):
                return _tiled_topk(q, keys, k, scale, bias, block)
        return _certified_topk(q, keys, k, scale, bias, block, precision)


def mean_topk(q: torch.Tensor, keys: torch.Tensor, k: int, *, block: int = 8192,
              precision: str = "auto") -> torch.Tensor:
    """Mean of each query's ``k`` best cosines (float64 sum, float32 result): CSLS's ``r`` terms.

    Book: chapter 5 (Word translation without parallel data).
    """
    scores, _ = search(q, keys, k, block=block, precision=precision)
    return scores.double().mean(1).float()


def csls(src: torch.Tensor, tgt: torch.Tensor, rows: torch.Tensor, k_neighbors: int, topk: int, *,
         block: int = 8192, precision: str = "auto") -> tuple[torch.Tensor, torch.Tensor]:
    """CSLS ``2 cos - r_T(x) - r_S(y)`` of the source ``rows`` against all targets: three passes
    on the device with ``src`` and ``tgt`` (unit rows) uploaded once. ``(scores, indices)``.

    Book: chapter 5 (Word translation without parallel data).
    """
    kw = dict(block=block, precision=precision)
    r_tgt = mean_topk(tgt, src, k_neighbors, **kw)
    q = src[rows]
    r_src = mean_topk(q, tgt, k_neighbors, **kw)
    scores, idx = search(q, tgt, topk, scale=2.0, bias=r_tgt, **kw)
    return scores - r_src[:, None], idx
