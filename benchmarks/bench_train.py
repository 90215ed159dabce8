"""Benchmark training throughput on the CPU: NLI BiLSTM-max and a small Transformer MLM, via
``fit``.

    python benchmarks/bench_train.py [--quick]

Each model is trained for one epoch over the same synthetic sentences (random ids, sentence
lengths drawn like SNLI's: premises ~14 tokens, hypotheses ~8, long tail) twice:
1. naive: batches of random sentences, each padded to its longest member;
2. fast: length-bucketed batches (``xsent_lib.text.length_buckets``, batch order shuffled), so a
   batch holds sentences of similar length and padding almost vanishes.
It reports sentences per second, real tokens per second and the padded fraction of each batching;
each timing is the best of ``--repeat`` epochs (naive and fast alternate, so background load hits
both alike). Torch runs on ``--threads`` threads (default 1: on a shared 2-core machine two
threads contending with other work can run several times slower than one).
Writes ``_build/benchmarks/train.json`` with provenance.
Book: chapter 3 (InferSent: the training loop).
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from xsent_lib.encoders import NLIModel, RecurrentEncoder
from xsent_lib.encoders.transformer import TransformerSentenceEncoder
from xsent_lib.losses.lm import mlm_loss, mlm_mask
from xsent_lib.results.provenance import collect_provenance
from xsent_lib.text import length_buckets, pad_batch
from xsent_lib.train import fit

OUT = Path("_build/benchmarks/train.json")
VOCAB, MASK_ID, SPECIALS = 5000, 4, (0, 1, 2, 3, 4)


def sentence_lengths(rng: np.random.Generator, n: int, mean: float) -> np.ndarray:
    """Lengths with SNLI's shape: a log-normal around ``mean`` tokens, clipped to [2, 80]."""
    return np.clip(rng.lognormal(np.log(mean), 0.45, n).round().astype(np.int64), 2, 80)


def random_sentences(rng: np.random.Generator, lengths: np.ndarray) -> list[np.ndarray]:
    """Random ordinary-token ids (no specials) for each length."""
    flat = rng.integers(len(SPECIALS), VOCAB, int(lengths.sum()))
    return np.split(flat, np.cumsum(lengths)[:-1])


def batch_indices(lengths: np.ndarray, batch_size: int, bucketed: bool,
                  seed: int) -> list[np.ndarray]:
    """Random batches (naive) or length buckets in a shuffled order (fast)."""
    rng = np.random.default_rng(seed)
    if not bucketed:
        order = rng.permutation(len(lengths))
        return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
    buckets = length_buckets(lengths, batch_size)
    return [buckets[i] for i in rng.permutation(len(buckets))]


def padded_fraction(lengths_per_batch: list[np.ndarray]) -> float:
    """Share of the padded tensor cells that are padding."""
    cells = sum(len(x) * int(x.max()) for x in lengths_per_batch)
    return 1.0 - sum(int(x.sum()) for x in lengths_per_batch) / cells


def timed_fits(runs: list[tuple[nn.Module, object, list, float]], repeat: int) -> list[float]:
    """Best seconds of ``repeat`` one-epoch ``fit`` calls per run, runs interleaved, after a
    warm-up."""
    for model, loss_fn, batches, lr in runs:
        fit(model, loss_fn, batches[:2], epochs=1, lr=lr, device="cpu", progress=False)
    best = [float("inf")] * len(runs)
    for _ in range(repeat):
        for i, (model, loss_fn, batches, lr) in enumerate(runs):
            start = time.perf_counter()
            fit(model, loss_fn, batches, epochs=1, lr=lr, device="cpu", progress=False)
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def bench_nli(n_pairs: int, batch_size: int, word_dim: int, hidden: int, seed: int,
              repeat: int) -> list[dict]:
    """BiLSTM-max + [u, v, |u-v|, u*v] MLP on random premise/hypothesis pairs, naive vs bucketed."""
    rng = np.random.default_rng(seed)
    prem_len, hyp_len = sentence_lengths(rng, n_pairs, 14.0), sentence_lengths(rng, n_pairs, 8.0)
    prem, hyp = random_sentences(rng, prem_len), random_sentences(rng, hyp_len)
    labels = torch.from_numpy(rng.integers(0, 3, n_pairs))
    runs, meta = [], []
    for bucketed in (False, True):
        # bucket on premise length, ties broken by hypothesis length
        idx_batches = batch_indices(prem_len * 1000 + hyp_len, batch_size, bucketed, seed)
        batches = [(*pad_batch([prem[i] for i in b]), *pad_batch([hyp[i] for i in b]), labels[b])
                   for b in idx_batches]
        torch.manual_seed(seed)
        model = NLIModel(RecurrentEncoder(VOCAB, word_dim=word_dim, hidden_dim=hidden))
        runs.append((model, lambda m, b: nn.functional.cross_entropy(m(*b[:4]), b[4]), batches,
                     0.1))
        fracs = [padded_fraction([prem_len[b] for b in idx_batches]),
                 padded_fraction([hyp_len[b] for b in idx_batches])]
        meta.append((bucketed, float(np.mean(fracs))))
    rows = []
    for (bucketed, frac), seconds in zip(meta, timed_fits(runs, repeat)):
        rows.append({
            "model": f"NLI BiLSTM-max ({word_dim}-d words, 2x{hidden})",
            "batching": "length-bucketed" if bucketed else "random (naive)",
            "sentences_per_s": 2 * n_pairs / seconds,
            "real_tokens_per_s": int(prem_len.sum() + hyp_len.sum()) / seconds,
            "padded_fraction": frac,
            "seconds": seconds,
        })
    return rows


def bench_mlm(n_sentences: int, batch_size: int, d_model: int, n_layers: int, seed: int,
              repeat: int) -> list[dict]:
    """Transformer MLM (15%, 80/10/10) on random sentences, naive vs bucketed."""
    rng = np.random.default_rng(seed)
    lengths = sentence_lengths(rng, n_sentences, 20.0)
    sents = random_sentences(rng, lengths)
    gen = torch.Generator().manual_seed(seed)

    def step(model: TransformerSentenceEncoder,
             batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        masked = mlm_mask(batch[0], batch[1], vocab_size=VOCAB, mask_id=MASK_ID,
                          special_ids=SPECIALS, generator=gen)
        return mlm_loss(model, masked, batch[1])

    runs, meta = [], []
    for bucketed in (False, True):
        idx_batches = batch_indices(lengths, batch_size, bucketed, seed)
        torch.manual_seed(seed)
        model = TransformerSentenceEncoder(VOCAB, d_model=d_model, n_heads=4, n_layers=n_layers,
                                           max_len=128)
        runs.append((model, step, [pad_batch([sents[i] for i in b]) for b in idx_batches], 1e-4))
        meta.append((bucketed, padded_fraction([lengths[b] for b in idx_batches])))
    rows = []
    for (bucketed, frac), seconds in zip(meta, timed_fits(runs, repeat)):
        rows.append({
            "model": f"Transformer MLM (d={d_model}, {n_layers} layers, 4 heads)",
            "batching": "length-bucketed" if bucketed else "random (naive)",
            "sentences_per_s": n_sentences / seconds,
            "real_tokens_per_s": int(lengths.sum()) / seconds,
            "padded_fraction": frac,
            "seconds": seconds,
        })
    return rows


def main() -> None:
    """Run both benchmarks, print a table with the bucketed/naive ratio, write the JSON record."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="small sizes, finishes in well under a minute")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    parser.add_argument("--repeat", type=int, default=None,
                        help="timed epochs per setting, best kept (2 quick, 3 full)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    repeat = args.repeat or (2 if args.quick else 3)
    params = {
        "quick": args.quick,
        "nli": {"n_pairs": 512 if args.quick else 8192, "batch_size": 64,
                "word_dim": 64 if args.quick else 300, "hidden": 128 if args.quick else 512,
                "seed": 0, "repeat": repeat},
        "mlm": {"n_sentences": 512 if args.quick else 8192, "batch_size": 64,
                "d_model": 64 if args.quick else 256, "n_layers": 2 if args.quick else 4, "seed": 0,
                "repeat": repeat},
        "torch_threads": torch.get_num_threads(),
    }
    rows = bench_nli(**params["nli"]) + bench_mlm(**params["mlm"])
    print(f"{'model':46s} {'batching':16s} {'sent/s':>9s} {'tok/s':>9s} {'pad %':>6s} "
          f"{'x naive':>8s}")
    for naive, fast in zip(rows[::2], rows[1::2]):
        fast["speedup_vs_naive"] = fast["sentences_per_s"] / naive["sentences_per_s"]
        for r in (naive, fast):
            ratio = f"{r.get('speedup_vs_naive', 1.0):8.2f}"
            print(f"{r['model']:46s} {r['batching']:16s} {r['sentences_per_s']:9.0f} "
                  f"{r['real_tokens_per_s']:9.0f} {100 * r['padded_fraction']:6.1f} {ratio}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"rows": rows,
                               "provenance": collect_provenance(params, device="cpu", seed=0)},
                              indent=2))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
