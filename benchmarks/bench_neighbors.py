"""Benchmark nearest-neighbour search: CSLS word translation, margin mining, IVF recall, vs the GEMM limit.

    python benchmarks/bench_neighbors.py [--quick]

Four measurements in one run, on random unit vectors (timings do not depend on the data for exact search):
1. the machine's achievable float32 GEMM rate (one large square matmul, and one shaped like the search);
2. exact CSLS translation of *every* source word (three exact passes over the n x m similarity matrix,
   never materialised), naive full-matrix numpy and the blocked torch fallback side by side at a size
   where the full matrix fits, then the fast path alone at full size (200k x 200k x 300);
3. margin mining (both directions, ratio margin, k=4) at 100k x 100k, with the same naive baseline;
4. the approximate IVF index on clustered data: time and recall@1/@10 against the exact search.
Writes ``_build/benchmarks/neighbors.json`` with provenance.
Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

from xsent_lib.align import neighbors as nb
from xsent_lib.results.provenance import collect_provenance

OUT = Path("_build/benchmarks/neighbors.json")


def unit_vectors(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """Random float32 unit vectors, generated in chunks to keep memory flat."""
    out = np.empty((n, d), np.float32)
    for s in range(0, n, 50_000):
        chunk = rng.standard_normal((min(50_000, n - s), d), dtype=np.float32)
        out[s : s + chunk.shape[0]] = chunk / np.linalg.norm(chunk, axis=1, keepdims=True)
    return out


def timed(fn, repeat: int = 1):
    """Best wall time of ``repeat`` calls and the last result."""
    best, res = np.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        res = fn()
        best = min(best, time.perf_counter() - t)
    return best, res


def gemm_rate(n: int, d: int) -> dict:
    """Achievable float32 FLOP/s: a large square matmul and one shaped (n x d) @ (d x n)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    a @ b
    t_sq, _ = timed(lambda: a @ b, 3)
    x = rng.standard_normal((8192, d), dtype=np.float32)
    y = rng.standard_normal((8192, d), dtype=np.float32)
    x @ y.T
    t_sh, _ = timed(lambda: x @ y.T, 3)
    return {"square_n": n, "square_gflops": 2 * n**3 / t_sq / 1e9,
            "shaped": f"8192x{d} @ {d}x8192", "shaped_gflops": 2 * 8192 * 8192 * d / t_sh / 1e9}


def naive_csls(src: np.ndarray, tgt: np.ndarray, k: int) -> np.ndarray:
    """What one writes first: materialise the full matrix, partition it twice, argmax the CSLS matrix."""
    sim = src @ tgt.T
    r_src = -np.partition(-sim, k - 1, axis=1)[:, :k].mean(1)
    r_tgt = -np.partition(-sim, k - 1, axis=0)[:k].mean(0)
    return np.argmax(2 * sim - r_src[:, None] - r_tgt[None, :], axis=1)


def naive_margin(x: np.ndarray, y: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Full-matrix ratio-margin mining over the k cosine candidates, both directions."""
    sim = x @ y.T
    cand_xy = np.argpartition(-sim, k - 1, axis=1)[:, :k]
    cand_yx = np.argpartition(-sim, k - 1, axis=0)[:k].T
    r_x = np.take_along_axis(sim, cand_xy, 1).mean(1)
    r_y = np.take_along_axis(sim.T, cand_yx, 1).mean(1)
    m_xy = np.take_along_axis(sim, cand_xy, 1) / ((r_x[:, None] + r_y[cand_xy]) / 2)
    m_yx = np.take_along_axis(sim.T, cand_yx, 1) / ((r_y[:, None] + r_x[cand_yx]) / 2)
    return (np.take_along_axis(cand_xy, m_xy.argmax(1)[:, None], 1)[:, 0],
            np.take_along_axis(cand_yx, m_yx.argmax(1)[:, None], 1)[:, 0])


def bench_csls(rng, n_small: int, n_full: int, d: int, k: int, gemm: float) -> dict:
    """CSLS for every source word: naive vs fallback vs faiss at n_small, faiss alone at n_full."""
    src, tgt = unit_vectors(rng, n_small, d), unit_vectors(rng, n_small, d)
    t_naive, i_naive = timed(lambda: naive_csls(src, tgt, k))
    t_torch, (_, i_torch) = timed(lambda: nb.csls_knn(src, tgt, k, use_faiss=False))
    t_fast, (_, i_fast) = timed(lambda: nb.csls_knn(src, tgt, k))
    flops_small = 3 * 2 * n_small * n_small * (d + 1)
    out = {"k": k, "d": d, "small_n": n_small,
           "small": {"naive_numpy_s": t_naive, "torch_blocked_s": t_torch, "faiss_s": t_fast,
                     "speedup_vs_naive": t_naive / t_fast, "torch_vs_faiss": t_torch / t_fast,
                     "agree_naive": float((i_naive == i_fast[:, 0]).mean()),
                     "agree_torch": float((i_torch[:, 0] == i_fast[:, 0]).mean()),
                     "faiss_frac_gemm": flops_small / t_fast / 1e9 / gemm}}
    del src, tgt
    if n_full > n_small:
        src, tgt = unit_vectors(rng, n_full, d), unit_vectors(rng, n_full, d)
        t_full, _ = timed(lambda: nb.csls_knn(src, tgt, k))
        q = rng.choice(n_full, 1500, replace=False)
        t_muse, _ = timed(lambda: nb.csls_knn(src, tgt, k, queries=q))
        flops = 3 * 2 * n_full * n_full * (d + 1)
        out["full_n"] = n_full
        out["full"] = {"faiss_s": t_full, "gflops": flops / t_full / 1e9, "frac_gemm": flops / t_full / 1e9 / gemm,
                       "naive_estimate_s": t_naive * (n_full / n_small) ** 2,
                       "muse_protocol_1500_queries_s": t_muse}
    return out


def bench_margin(rng, n_small: int, n_full: int, d: int, k: int, gemm: float) -> dict:
    """Both-direction ratio-margin mining: naive full matrix vs our two exact passes."""
    x, y = unit_vectors(rng, n_small, d), unit_vectors(rng, n_small, d)
    t_naive, (a_xy, a_yx) = timed(lambda: naive_margin(x, y, k))
    t_fast, res = timed(lambda: nb.bidirectional_margin_knn(x, y, k))
    out = {"k": k, "d": d, "small_n": n_small,
           "small": {"naive_numpy_s": t_naive, "faiss_s": t_fast, "speedup_vs_naive": t_naive / t_fast,
                     "agree_naive": float(((a_xy == res[1]).mean() + (a_yx == res[3]).mean()) / 2),
                     "faiss_frac_gemm": 2 * 2 * n_small * n_small * d / t_fast / 1e9 / gemm}}
    if n_full > n_small:
        x, y = unit_vectors(rng, n_full, d), unit_vectors(rng, n_full, d)
        t_full, _ = timed(lambda: nb.bidirectional_margin_knn(x, y, k))
        flops = 2 * 2 * n_full * n_full * d
        out["full_n"] = n_full
        out["full"] = {"faiss_s": t_full, "gflops": flops / t_full / 1e9, "frac_gemm": flops / t_full / 1e9 / gemm,
                       "naive_estimate_s": t_naive * (n_full / n_small) ** 2}
    return out


def bench_ivf(rng, n: int, n_q: int, d: int, nprobes: list[int]) -> dict:
    """IVF vs exact flat search on clustered keys; queries are perturbed keys."""
    centers = unit_vectors(rng, max(n // 100, 10), d)
    keys = nb.l2_normalize(centers[rng.integers(0, centers.shape[0], n)] + 1.0 * unit_vectors(rng, n, d))
    q = nb.l2_normalize(keys[rng.choice(n, n_q, replace=False)] + 0.7 * unit_vectors(rng, n_q, d))
    t_exact, (_, exact) = timed(lambda: nb.knn(q, keys, 10))
    rows = []
    for nprobe in nprobes:
        t, (_, approx) = timed(lambda: nb.knn(q, keys, 10, use_ivf=True, nprobe=nprobe))
        rows.append({"nprobe": nprobe, "ivf_s_incl_training": t, "speedup_vs_exact": t_exact / t,
                     "recall_at_1": nb.knn_recall(approx, exact, 1), "recall_at_10": nb.knn_recall(approx, exact, 10)})
    return {"n_keys": n, "n_queries": n_q, "d": d, "nlist": nb.default_nlist(n), "exact_s": t_exact, "ivf": rows}


def main() -> None:
    """Run the four measurements and print a table with ratios.

    Book: chapter 5 (Word translation without parallel data).
    """
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (< 1 minute)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # progress shows up when run in the background
    rng = np.random.default_rng(0)
    if args.quick:
        sizes = dict(gemm_n=2048, csls_small=4000, csls_full=12000, margin_small=4000, margin_full=12000,
                     ivf_n=20000, ivf_q=2000, nprobes=[1, 8])
    else:
        sizes = dict(gemm_n=4096, csls_small=20000, csls_full=200000, margin_small=20000, margin_full=100000,
                     ivf_n=200000, ivf_q=20000, nprobes=[4, 32])
    d = 300
    gemm = gemm_rate(sizes["gemm_n"], d)
    peak = gemm["square_gflops"]
    print(f"GEMM float32: {peak:.1f} GFLOP/s square {sizes['gemm_n']}^3; {gemm['shaped_gflops']:.1f} GFLOP/s "
          f"{gemm['shaped']} (torch threads {torch.get_num_threads()})")
    csls = bench_csls(rng, sizes["csls_small"], sizes["csls_full"], d, 10, peak)
    s = csls["small"]
    print(f"CSLS all-words n={csls['small_n']}: naive {s['naive_numpy_s']:.2f}s | torch blocked "
          f"{s['torch_blocked_s']:.2f}s | faiss {s['faiss_s']:.2f}s | naive/faiss {s['speedup_vs_naive']:.1f}x | "
          f"agree {s['agree_naive']:.4f}/{s['agree_torch']:.4f} | {100 * s['faiss_frac_gemm']:.0f}% of GEMM")
    if "full" in csls:
        f = csls["full"]
        print(f"CSLS all-words n={csls['full_n']}: faiss {f['faiss_s']:.1f}s = {f['gflops']:.1f} GFLOP/s = "
              f"{100 * f['frac_gemm']:.0f}% of GEMM (naive would be ~{f['naive_estimate_s']:.0f}s and "
              f"{csls['full_n'] ** 2 * 4 / 2**30:.0f} GiB); MUSE protocol 1500 queries {f['muse_protocol_1500_queries_s']:.1f}s")
    margin = bench_margin(rng, sizes["margin_small"], sizes["margin_full"], d, 4, peak)
    s = margin["small"]
    print(f"margin mining n={margin['small_n']}: naive {s['naive_numpy_s']:.2f}s | faiss {s['faiss_s']:.2f}s | "
          f"naive/faiss {s['speedup_vs_naive']:.1f}x | agree {s['agree_naive']:.4f} | "
          f"{100 * s['faiss_frac_gemm']:.0f}% of GEMM")
    if "full" in margin:
        f = margin["full"]
        print(f"margin mining n={margin['full_n']}: faiss {f['faiss_s']:.1f}s = {f['gflops']:.1f} GFLOP/s = "
              f"{100 * f['frac_gemm']:.0f}% of GEMM (naive would be ~{f['naive_estimate_s']:.0f}s)")
    ivf = bench_ivf(rng, sizes["ivf_n"], sizes["ivf_q"], d, sizes["nprobes"])
    for row in ivf["ivf"]:
        print(f"IVF n={ivf['n_keys']} q={ivf['n_queries']} nlist={ivf['nlist']} nprobe={row['nprobe']}: "
              f"{row['ivf_s_incl_training']:.2f}s vs exact {ivf['exact_s']:.2f}s ({row['speedup_vs_exact']:.1f}x) "
              f"R@1 {row['recall_at_1']:.3f} R@10 {row['recall_at_10']:.3f}")
    params = {"quick": args.quick, **sizes, "d": d}
    record = {"gemm": gemm, "csls": csls, "margin": margin, "ivf": ivf,
              "provenance": collect_provenance(params, device="cpu")}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
