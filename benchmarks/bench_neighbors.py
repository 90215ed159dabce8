"""Benchmark nearest-neighbour search: CSLS word translation, margin mining, IVF recall, vs the GEMM
limit.

    python benchmarks/bench_neighbors.py [--quick]

Four measurements in one run, on random unit vectors (timings do not depend on the data for exact
search):
1. the machine's achievable float32 GEMM rate (one large square matmul, and one shaped like the
   search);
2. exact CSLS translation of *every* source word (three exact passes over the n x m similarity
   matrix, never materialised), naive full-matrix numpy and the blocked torch fallback side by side
   at a size where the full matrix fits, then the fast path alone at full size (200k x 200k x 300);
3. margin mining (both directions, ratio margin, k=4) at 100k x 100k, with the same naive baseline;
4. the approximate IVF index on clustered data: time and recall@1/@10 against the exact search.
Writes ``_build/benchmarks/neighbors.json`` with provenance.
Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

from xsent_lib.base import neighbors as nb
from xsent_lib.results.provenance import collect_provenance

OUT = Path("_build/benchmarks/neighbors.json")


def unit_vectors(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """Random float32 unit vectors, generated in chunks to keep memory flat.

    Book: chapter 5 (Word translation without parallel data).
    """
    out = np.empty((n, d), np.float32)
    for s in range(0, n, 50_000):
        chunk = rng.standard_normal((min(50_000, n - s), d), dtype=np.float32)
        out[s : s + chunk.shape[0]] = chunk / np.linalg.norm(chunk, axis=1, keepdims=True)
    return out


def timed(fn, repeat: int = 1):
    """Best wall time of ``repeat`` calls and the last result.

    Book: chapter 5 (Word translation without parallel data).
    """
    best, res = np.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        res = fn()
        best = min(best, time.perf_counter() - t)
    return best, res


def gemm_rate(n: int, d: int) -> dict:
    """Achievable float32 FLOP/s: a large square matmul and one shaped (n x d) @ (d x n).

    Book: chapter 5 (Word translation without parallel data).
    """
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


def gemm_now(n: int = 4096) -> float:
    """The square float32 GEMM rate right now (GFLOP/s): measured next to each fast path, so that a
    busy machine lowers both numbers alike.

    Book: chapter 5 (Word translation without parallel data).
    """
    rng = np.random.default_rng(1)
    a = rng.standard_normal((n, n), dtype=np.float32)
    a @ a
    t, _ = timed(lambda: a @ a, 2)
    return 2 * n**3 / t / 1e9


def naive_csls(src: np.ndarray, tgt: np.ndarray, k: int) -> np.ndarray:
    """What one writes first: materialise the full matrix, partition it twice, argmax the CSLS
    matrix.

    Book: chapter 5 (Word translation without parallel data).
    """
    sim = src @ tgt.T
    r_src = -np.partition(-sim, k - 1, axis=1)[:, :k].mean(1)
    r_tgt = -np.partition(-sim, k - 1, axis=0)[:k].mean(0)
    return np.argmax(2 * sim - r_src[:, None] - r_tgt[None, :], axis=1)


def naive_margin(x: np.ndarray, y: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Full-matrix ratio-margin mining over the k cosine candidates, both directions.

    Book: chapter 5 (Word translation without parallel data).
    """
    sim = x @ y.T
    cand_xy = np.argpartition(-sim, k - 1, axis=1)[:, :k]
    cand_yx = np.argpartition(-sim, k - 1, axis=0)[:k].T
    r_x = np.take_along_axis(sim, cand_xy, 1).mean(1)
    r_y = np.take_along_axis(sim.T, cand_yx, 1).mean(1)
    m_xy = np.take_along_axis(sim, cand_xy, 1) / ((r_x[:, None] + r_y[cand_xy]) / 2)
    m_yx = np.take_along_axis(sim.T, cand_yx, 1) / ((r_y[:, None] + r_x[cand_yx]) / 2)
    return (np.take_along_axis(cand_xy, m_xy.argmax(1)[:, None], 1)[:, 0],
            np.take_along_axis(cand_yx, m_yx.argmax(1)[:, None], 1)[:, 0])


def bench_csls_small(rng, n: int, d: int, k: int) -> dict:
    """CSLS for every source word at a size where the full matrix fits: naive vs torch fallback vs
    faiss.

    Book: chapter 5 (Word translation without parallel data).
    """
    src, tgt = unit_vectors(rng, n, d), unit_vectors(rng, n, d)
    t_naive, i_naive = timed(lambda: naive_csls(src, tgt, k))
    t_torch, (_, i_torch) = timed(lambda: nb.csls_knn(src, tgt, k, use_faiss=False))
    gemm = gemm_now()
    t_fast, (_, i_fast) = timed(lambda: nb.csls_knn(src, tgt, k))
    flops = 3 * 2 * n * n * (d + 1)
    return {"n": n, "d": d, "k": k, "naive_numpy_s": t_naive, "torch_blocked_s": t_torch,
            "faiss_s": t_fast, "speedup_vs_naive": t_naive / t_fast,
            "torch_vs_faiss": t_torch / t_fast,
            "agree_naive": float((i_naive == i_fast[:, 0]).mean()),
            "agree_torch": float((i_torch[:, 0] == i_fast[:, 0]).mean()), "gemm_gflops_now": gemm,
            "faiss_frac_gemm": flops / t_fast / 1e9 / gemm}


def bench_csls_full(rng, n: int, d: int, k: int, naive_small: dict, all_words: bool = True) -> dict:
    """CSLS at full size (faiss only; the full matrix would not fit): MUSE's protocol (1,500 queries
    against the whole target vocabulary, whose neighbourhood means r_S still need one pass over all
    n x n similarities) and, with ``all_words``, every source word (three passes).

    Book: chapter 5 (Word translation without parallel data).
    """
    src, tgt = unit_vectors(rng, n, d), unit_vectors(rng, n, d)
    gemm = gemm_now()
    q = rng.choice(n, 1500, replace=False)
    t_muse, _ = timed(lambda: nb.csls_knn(src, tgt, k, queries=q))
    muse_flops = 2 * n * n * (d + 1) + 2 * 2 * len(q) * n * (d + 1)
    out = {"n": n, "d": d, "k": k, "gemm_gflops_now": gemm, "full_matrix_gib": n * n * 4 / 2**30,
           "muse_protocol_1500_queries_s": t_muse,
           "muse_protocol_gflops": muse_flops / t_muse / 1e9,
           "muse_protocol_frac_gemm": muse_flops / t_muse / 1e9 / gemm,
           "naive_estimate_s": naive_small["naive_numpy_s"] * (n / naive_small["n"]) ** 2
           if naive_small else None}
    if all_words:
        t_full, _ = timed(lambda: nb.csls_knn(src, tgt, k))
        flops = 3 * 2 * n * n * (d + 1)
        out.update({"faiss_s": t_full, "gflops": flops / t_full / 1e9,
                    "frac_gemm": flops / t_full / 1e9 / gemm})
    return out


def bench_margin(rng, n: int, d: int, k: int, naive_small: dict | None = None) -> dict:
    """Both-direction ratio-margin mining: naive full matrix (when ``naive_small`` is None) vs two
    exact passes.

    Book: chapter 5 (Word translation without parallel data).
    """
    x, y = unit_vectors(rng, n, d), unit_vectors(rng, n, d)
    out = {"n": n, "d": d, "k": k}
    if naive_small is None:
        t_naive, (a_xy, a_yx) = timed(lambda: naive_margin(x, y, k))
        out["naive_numpy_s"] = t_naive
    gemm = gemm_now()
    t_fast, res = timed(lambda: nb.bidirectional_margin_knn(x, y, k))
    flops = 2 * 2 * n * n * d
    out.update({"faiss_s": t_fast, "gflops": flops / t_fast / 1e9, "gemm_gflops_now": gemm,
                "frac_gemm": flops / t_fast / 1e9 / gemm})
    if naive_small is None:
        out["speedup_vs_naive"] = t_naive / t_fast
        out["agree_naive"] = float(((a_xy == res[1]).mean() + (a_yx == res[3]).mean()) / 2)
    else:
        out["naive_estimate_s"] = naive_small["naive_numpy_s"] * (n / naive_small["n"]) ** 2
    return out


def bench_ivf(rng, n: int, n_q: int, d: int, nprobes: list[int]) -> dict:
    """IVF vs exact flat search on clustered keys; queries are perturbed keys.

    Book: chapter 5 (Word translation without parallel data).
    """
    centers = unit_vectors(rng, max(n // 100, 10), d)
    keys = nb.l2_normalize(centers[rng.integers(0, centers.shape[0], n)]
                           + 1.0 * unit_vectors(rng, n, d))
    q = nb.l2_normalize(keys[rng.choice(n, n_q, replace=False)] + 0.7 * unit_vectors(rng, n_q, d))
    t_exact, (_, exact) = timed(lambda: nb.knn(q, keys, 10))
    rows = []
    for nprobe in nprobes:
        t, (_, approx) = timed(lambda: nb.knn(q, keys, 10, use_ivf=True, nprobe=nprobe))
        rows.append({"nprobe": nprobe, "ivf_s_incl_training": t, "speedup_vs_exact": t_exact / t,
                     "recall_at_1": nb.knn_recall(approx, exact, 1),
                     "recall_at_10": nb.knn_recall(approx, exact, 10)})
    return {"n_keys": n, "n_queries": n_q, "d": d, "nlist": nb.default_nlist(n), "exact_s": t_exact,
            "ivf": rows}


def main() -> None:
    """Run the four measurements and print a table with ratios.

    Book: chapter 5 (Word translation without parallel data).
    """
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (< 1 minute)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--only", choices=["csls_muse"], default=None,
                    help="csls_muse: only GEMM rate + CSLS with MUSE's 1,500 queries against the "
                         "full vocabulary (one pass over the 200k x 200k similarities, ~10 minutes "
                         "on 2 cores)")
    args = ap.parse_args()
    if args.only and args.out == OUT:
        args.out = OUT.with_name(f"neighbors_{args.only}.json")
    sys.stdout.reconfigure(line_buffering=True)  # progress shows up when run in the background
    rng = np.random.default_rng(0)
    if args.quick:
        sizes = dict(gemm_n=2048, csls_small=4000, csls_full=12000, margin_small=4000,
                     margin_full=12000, ivf_n=20000, ivf_q=2000, nprobes=[1, 8])
    else:
        sizes = dict(gemm_n=4096, csls_small=10000, csls_full=200000, margin_small=10000,
                     margin_full=100000, ivf_n=200000, ivf_q=20000, nprobes=[4, 32])
    d = 300
    record = {"load_average_start": os.getloadavg(),
              "provenance": collect_provenance({"quick": args.quick, **sizes, "d": d},
                                               device="cpu")}
    args.out.parent.mkdir(parents=True, exist_ok=True)

    def save(key: str, value: dict) -> None:  # every section is written as soon as it is done
        record[key] = value
        record["load_average_now"] = os.getloadavg()
        args.out.write_text(json.dumps(record, indent=2))

    gemm = gemm_rate(sizes["gemm_n"], d)
    save("gemm", gemm)
    print(f"GEMM float32: {gemm['square_gflops']:.1f} GFLOP/s square {sizes['gemm_n']}^3; "
          f"{gemm['shaped_gflops']:.1f} GFLOP/s {gemm['shaped']} (torch threads "
          f"{torch.get_num_threads()}, load {os.getloadavg()[0]:.1f})")
    if args.only == "csls_muse":
        f = bench_csls_full(rng, sizes["csls_full"], d, 10, None, all_words=False)
        save("csls_muse", f)
        print(f"CSLS, MUSE protocol (1500 queries, {f['n']} x {f['n']} x {d}): "
              f"{f['muse_protocol_1500_queries_s']:.1f}s = {f['muse_protocol_gflops']:.1f} GFLOP/s "
              f"= {100 * f['muse_protocol_frac_gemm']:.0f}% of GEMM now "
              f"({f['gemm_gflops_now']:.0f}); the full matrix would be "
              f"{f['full_matrix_gib']:.0f} GiB")
        print(f"wrote {args.out}")
        return
    s = bench_csls_small(rng, sizes["csls_small"], d, 10)
    save("csls_small", s)
    print(f"CSLS all-words n={s['n']}: naive {s['naive_numpy_s']:.2f}s | torch blocked "
          f"{s['torch_blocked_s']:.2f}s | faiss {s['faiss_s']:.2f}s | naive/faiss "
          f"{s['speedup_vs_naive']:.1f}x | agree {s['agree_naive']:.4f}/{s['agree_torch']:.4f} | "
          f"{100 * s['faiss_frac_gemm']:.0f}% of GEMM now ({s['gemm_gflops_now']:.0f} GFLOP/s)")
    m = bench_margin(rng, sizes["margin_small"], d, 4)
    save("margin_small", m)
    print(f"margin mining n={m['n']}: naive {m['naive_numpy_s']:.2f}s | faiss {m['faiss_s']:.2f}s "
          f"| naive/faiss {m['speedup_vs_naive']:.1f}x | agree {m['agree_naive']:.4f} | "
          f"{100 * m['frac_gemm']:.0f}% of GEMM now")
    ivf = bench_ivf(rng, sizes["ivf_n"], sizes["ivf_q"], d, sizes["nprobes"])
    save("ivf", ivf)
    for row in ivf["ivf"]:
        print(f"IVF n={ivf['n_keys']} q={ivf['n_queries']} nlist={ivf['nlist']} "
              f"nprobe={row['nprobe']}: {row['ivf_s_incl_training']:.2f}s vs exact "
              f"{ivf['exact_s']:.2f}s ({row['speedup_vs_exact']:.1f}x) R@1 "
              f"{row['recall_at_1']:.3f} R@10 {row['recall_at_10']:.3f}")
    f = bench_margin(rng, sizes["margin_full"], d, 4, naive_small=m)
    save("margin_full", f)
    print(f"margin mining n={f['n']}: faiss {f['faiss_s']:.1f}s = {f['gflops']:.1f} GFLOP/s = "
          f"{100 * f['frac_gemm']:.0f}% of GEMM now ({f['gemm_gflops_now']:.0f}); naive would be "
          f"~{f['naive_estimate_s']:.0f}s")
    f = bench_csls_full(rng, sizes["csls_full"], d, 10, s)
    save("csls_full", f)
    print(f"CSLS all-words n={f['n']}: faiss {f['faiss_s']:.1f}s = {f['gflops']:.1f} GFLOP/s = "
          f"{100 * f['frac_gemm']:.0f}% of GEMM now ({f['gemm_gflops_now']:.0f}); naive would be "
          f"~{f['naive_estimate_s']:.0f}s and {f['full_matrix_gib']:.0f} GiB; MUSE protocol 1500 "
          f"queries {f['muse_protocol_1500_queries_s']:.1f}s")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
