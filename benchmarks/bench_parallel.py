"""Benchmark independent trainings in worker processes against a serial loop: chapter 3's seven NLI
encoders.

    python benchmarks/bench_parallel.py [--quick] [--processes N] [--out FILE]

The seven InferSent encoders are trained on the synthetic world's NLI pairs, once with
``parallel_map(..., processes=1)`` (every job in this process, one after another, on one thread:
what a plain loop on one thread gives) and once with ``processes=N`` (default: the usable cores).
Both runs start cold: the worker pool is started inside the timed region, its start-up included. The
record holds both wall times, their ratio, the machine's load average, and whether every trained
weight is bit-identical between the two runs (it must be). Writes
``_build/benchmarks/parallel.json`` (or ``--out``) with provenance.
Book: chapter 0 (How to run this book: cores and processes).
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import torch

from xsent_lib.base.parallel import parallel_map, usable_processes
from xsent_lib.data.nli_corpus import synthetic_nli
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.word_setup import build_word_setup
from xsent_lib.results.provenance import collect_provenance
from xsent_lib.train.nli import SEVEN, InferSentConfig, train_nli_encoder

OUT = Path("_build/benchmarks/parallel.json")


def main() -> None:
    """Time the serial and the parallel run, compare their weights, write the record."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="small corpus, finishes in well under a minute")
    parser.add_argument("--processes", type=int, default=None,
                        help="worker processes (default: usable cores)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"the JSON record (default {OUT})")
    args = parser.parse_args()
    n_train, width, epochs = (1500, 16, 1) if args.quick else (8000, 64, 2)
    processes = args.processes or usable_processes("cpu")
    world = SyntheticWorld(0)
    corpus = synthetic_nli(world, n_train, 300, 300)
    words = build_word_setup(corpus.sentences(), None, dim=32, seed=0)
    config = InferSentConfig(width=width, epochs=epochs)
    jobs = [{"name": name, "corpus": corpus, "words": words, "config": config, "device": "cpu",
             "seed": 0}
            for name in SEVEN]
    load_before = os.getloadavg()
    timings, runs = {}, {}
    for label, n in (("serial (1 process)", 1), (f"parallel ({processes} processes)", processes)):
        start = time.perf_counter()
        runs[label] = parallel_map(train_nli_encoder, jobs, processes=n)
        timings[label] = time.perf_counter() - start
    serial, parallel = runs.values()
    identical = all(torch.equal(a.model.state_dict()[k], b.model.state_dict()[k])
                    for a, b in zip(serial, parallel) for k in a.model.state_dict())
    (t_serial, t_parallel) = timings.values()
    record = {"task": "chapter 3's seven NLI encoders, synthetic-world NLI", "n_train": n_train,
              "width": width, "epochs": epochs, "jobs": len(jobs), "wall_s": timings,
              "speedup": t_serial / t_parallel, "weights_identical": identical,
              "test_acc": {r.name: r.test_acc for r in serial},
              "load_average": {"before": load_before, "after": os.getloadavg()},
              "cpu_count": os.cpu_count()}
    params = {"quick": args.quick, "processes": processes}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"rows": [record],
                                    "provenance": collect_provenance(params, device="cpu", seed=0)},
                                   indent=2))
    for label, t in timings.items():
        print(f"{label:28s} {t:7.1f} s")
    print(f"speed-up {record['speedup']:.2f}x; weights bit-identical: {identical}; written to "
          f"{args.out}")
    if not identical:
        raise SystemExit("the parallel run's weights differ from the serial run's: parallel_map is "
                         "not deterministic")


if __name__ == "__main__":
    main()
