"""Benchmark the monolingual evaluation suite on one encoder (2 cores), and batched CV vs one fit
per model.

    python benchmarks/bench_eval.py [--quick]

The data is a synthetic stand-in with the shape of SentEval at the book's scale (every transfer
task, SICK-E/R, STS-B, STS12-16 with their subsets, the ten probing tasks), encoded by a 300-d bag
of random word vectors. Two measurements:
1. the whole suite in ``fast`` mode;
2. nested CV of the four CV tasks: our batched exact logistic regression vs the naive route, one
   scikit-learn ``LogisticRegression`` fit per (outer fold, inner fold, penalty), on the same
   features, in ``fast`` mode (5 x 5 folds x 2 penalties) and, without ``--quick``, ``full`` (10 x
   10 x 4);
3. the train/dev/test route (``split_select``: one model per penalty, SST2 and SST5) against one
   scikit-learn fit per penalty.
Both sides run on one thread (torch and BLAS): like for like, and what a loaded 2-core machine gives
anyway; compare the ratios, not the seconds, between runs. Writes ``_build/benchmarks/eval.json``
with provenance.
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from xsent_lib.data.formats.containers import (
    ClassificationTask,
    LabelledSentences,
    PairTask,
    SentencePairs,
)
from xsent_lib.eval import ClassifierConfig, Evaluation, nested_cv
from xsent_lib.eval.probing import ProbingTask
from xsent_lib.eval.protocols import one_hot, split_select, stratified_folds
from xsent_lib.eval.sts import STSTask
from xsent_lib.eval.transfer import PairClassificationTask, RelatednessTask, TransferTask
from xsent_lib.results.provenance import collect_provenance

OUT = Path("_build/benchmarks/eval.json")
VOCAB = [f"w{i}" for i in range(2000)]


def _sentences(rng, labels, n_classes, signal=2):
    """Random sentences; each carries ``signal`` of its class's 25 typical words among 4-14 random
    words."""
    per_class = 25
    out = []
    for y in labels:
        words = list(rng.choice(VOCAB, rng.integers(4, 15)))
        words += [VOCAB[y * per_class + j] for j in rng.integers(0, per_class, signal)]
        out.append(" ".join(rng.permutation(words)))
    return out


def _labelled(rng, n, n_classes):
    y = rng.integers(0, n_classes, n)
    return LabelledSentences(_sentences(rng, y, n_classes), y)


def _pairs(rng, n, scores: bool, n_classes=3):
    first = [" ".join(rng.choice(VOCAB, 10)) for _ in range(n)]
    keep = rng.random(n)
    second = [" ".join(list(np.array(s.split())[: int(k * 10)])
                       + list(rng.choice(VOCAB, 10 - int(k * 10))))
              for s, k in zip(first, keep)]
    labels = 1 + 4 * keep if scores else np.minimum((keep * n_classes).astype(np.int64),
                                                    n_classes - 1)
    return SentencePairs(first, second, labels)


def make_suite(rng, n: int) -> list:
    """The SentEval-shaped task list at ``n`` training sentences per task.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    tasks = [TransferTask(ClassificationTask(name, {"all": _labelled(rng, n, 2)}, ("neg", "pos")))
             for name in ("MR", "CR", "SUBJ", "MPQA")]
    for name, c in (("SST2", 2), ("SST5", 5)):
        tasks.append(TransferTask(ClassificationTask(name, {"train": _labelled(rng, n, c),
                                                            "dev": _labelled(rng, n // 4, c),
                                                            "test": _labelled(rng, n // 4, c)},
                                                     ())))
    tasks.append(TransferTask(ClassificationTask("TREC", {"train": _labelled(rng, n, 6),
                                                          "test": _labelled(rng, n // 4, 6)}, ())))
    tasks.append(PairClassificationTask(PairTask("MRPC", {"train": _pairs(rng, n, False, 2),
                                                          "test": _pairs(rng, n // 4, False, 2)})))
    tasks.append(PairClassificationTask(PairTask("SICKEntailment", {
        k: _pairs(rng, m, False) for k, m in (("train", n), ("dev", n // 4), ("test", n // 2))})))
    for name in ("SICKRelatedness", "STSBenchmark"):
        tasks.append(RelatednessTask(PairTask(name, {k: _pairs(rng, m, True) for k, m in
                                                     (("train", n), ("dev", n // 4),
                                                      ("test", n // 2))}), score_range=(1, 5)))
    for year in range(12, 17):
        tasks.append(STSTask(PairTask(f"STS{year}",
                                      {f"sub{i}": _pairs(rng, n // 8, True) for i in range(5)})))
    for name in ("SentLen", "WC", "TreeDepth", "TopConst", "BShift", "Tense", "SubjNum", "ObjNum",
                 "SOMO", "CoordInv"):
        c = 6 if name == "SentLen" else 2
        tasks.append(ProbingTask(ClassificationTask(name, {"train": _labelled(rng, n, c),
                                                           "dev": _labelled(rng, n // 4, c),
                                                           "test": _labelled(rng, n // 4, c)}, ())))
    return tasks


def bow_encoder(dim: int = 300, seed: int = 0):
    """A SentEval batcher averaging fixed random word vectors.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    table = np.random.default_rng(seed).standard_normal((len(VOCAB), dim)).astype(np.float32)
    index = {w: i for i, w in enumerate(VOCAB)}

    def batcher(params, batch):
        return np.vstack([table[[index[w] for w in s]].mean(0) for s in batch])

    return batcher


def naive_nested_cv(x: np.ndarray, y: np.ndarray, cfg: ClassifierConfig) -> float:
    """SentEval's route: one scikit-learn fit per (outer fold, inner fold, penalty), then one per
    outer fold.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    from sklearn.linear_model import LogisticRegression

    k, grid = cfg.kfold, cfg.l2
    outer = stratified_folds(y, k, cfg.seed)
    accs = []
    for o in range(k):
        tr = outer != o
        inner = stratified_folds(y[tr], k, cfg.seed + 1 + o)
        xo, yo = x[tr], y[tr]
        scores = []
        for l2 in grid:
            acc = []
            for i in range(k):
                m = LogisticRegression(C=2.0 / (l2 * (inner != i).sum()), max_iter=500)
                m.fit(xo[inner != i], yo[inner != i])
                acc.append(m.score(xo[inner == i], yo[inner == i]))
            scores.append(np.mean(acc))
        best = grid[int(np.argmax(scores))]
        m = LogisticRegression(C=2.0 / (best * tr.sum()), max_iter=500).fit(xo, yo)
        accs.append(m.score(x[~tr], y[~tr]))
    return 100 * float(np.mean(accs))


def naive_split_select(xs: dict, ys: dict, n_classes: int, cfg: ClassifierConfig) -> float:
    """One scikit-learn fit per penalty on train, the best on dev, its test accuracy (percent).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    from sklearn.linear_model import LogisticRegression

    scale = 2.0 if n_classes == 2 else 1.0  # our softmax penalises both columns of a binary problem
    n = len(ys["train"])
    fits = [LogisticRegression(C=scale / (l2 * n), max_iter=500).fit(xs["train"], ys["train"])
            for l2 in cfg.l2]
    best = fits[int(np.argmax([m.score(xs["dev"], ys["dev"]) for m in fits]))]
    return 100 * float(best.score(xs["test"], ys["test"]))


def _one_thread():
    """torch and BLAS on one thread, restored afterwards."""
    import contextlib

    import torch

    @contextlib.contextmanager
    def limit():
        before = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            with threadpool_limits(limits=1):
                yield
        finally:
            torch.set_num_threads(before)

    return limit()


def main() -> None:
    """Time the suite and the nested-CV comparison; print a table with ratios.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller tasks (< 1 minute)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # progress shows up when run in the background
    n = 400 if args.quick else 2000
    rng = np.random.default_rng(0)
    tasks = make_suite(rng, n)
    batcher = bow_encoder()
    t = time.perf_counter()
    results = Evaluation({"mode": "fast"}, batcher).eval(tasks)
    t_suite = time.perf_counter() - t
    print(f"whole monolingual suite, fast mode, {len(tasks)} tasks, {n} training sentences each: "
          f"{t_suite:.1f}s")
    per_task = {k: v["seconds"] for k, v in results.items()}
    slow = sorted(per_task.items(), key=lambda kv: -kv[1])[:5]
    print("  slowest: " + ", ".join(f"{k} {v:.1f}s" for k, v in slow))
    cv_tasks = tasks[:4]
    ev = Evaluation({"mode": "full"}, batcher)
    feats = [(ev.encode(list(tk.splits["all"].sentences)), np.asarray(tk.splits["all"].labels))
             for tk in cv_tasks]
    rows = []
    modes = [("fast", ClassifierConfig.fast())] + ([] if args.quick
                                                   else [("full", ClassifierConfig.full())])
    for mode, cfg in modes:
        t = time.perf_counter()
        with _one_thread():
            ours = [nested_cv(x, y, 2, cfg)["acc"] for x, y in feats]
        t_ours = time.perf_counter() - t
        t = time.perf_counter()
        with _one_thread():
            naive = [naive_nested_cv(x, y, cfg) for x, y in feats]
        t_naive = time.perf_counter() - t
        n_models = cfg.kfold * cfg.kfold * len(cfg.l2) + cfg.kfold
        rows.append({"mode": mode, "kfold": cfg.kfold, "l2_grid": list(cfg.l2),
                     "models_per_task": n_models, "batched_s": t_ours, "naive_sklearn_s": t_naive,
                     "speedup": t_naive / t_ours, "acc_batched": ours, "acc_naive": naive})
        print(f"nested CV x4 tasks ({mode}: {n_models} fits per task): batched {t_ours:.1f}s | one "
              f"sklearn fit per model {t_naive:.1f}s | speedup {t_naive / t_ours:.1f}x | acc "
              f"{np.mean(ours):.1f} vs {np.mean(naive):.1f}")
    split_rows = []
    for tk in tasks[4:6]:  # SST2, SST5: train/dev/test
        xs = {k: ev.encode(list(v.sentences)) for k, v in tk.splits.items()}
        ys = {k: np.asarray(v.labels) for k, v in tk.splits.items()}
        c = int(max(v.max() for v in ys.values()) + 1)
        for mode, cfg in modes:
            t = time.perf_counter()
            with _one_thread():
                probs = split_select(xs["train"], one_hot(ys["train"], c), xs["dev"],
                                     one_hot(ys["dev"], c), xs["test"], cfg)["test_probs"]
            t_ours = time.perf_counter() - t
            ours = 100 * float((probs.argmax(1) == ys["test"]).mean())
            t = time.perf_counter()
            with _one_thread():
                naive = naive_split_select(xs, ys, c, cfg)
            t_naive = time.perf_counter() - t
            split_rows.append({"task": tk.name, "mode": mode, "batched_s": t_ours,
                               "naive_sklearn_s": t_naive, "speedup": t_naive / t_ours,
                               "acc_batched": ours, "acc_naive": naive})
            print(f"split_select {tk.name} ({mode}, {len(cfg.l2)} fits): batched {t_ours:.2f}s | "
                  f"sklearn {t_naive:.2f}s | speedup {t_naive / t_ours:.2f}x | acc {ours:.2f} vs "
                  f"{naive:.2f}")
    record = {"suite_seconds_fast": t_suite, "n_tasks": len(tasks), "n_train": n,
              "per_task_seconds": per_task, "nested_cv": rows, "split_select": split_rows,
              "results": {k: {m: v[m] for m in ("acc", "devacc", "pearson", "all") if m in v}
                                             for k, v in results.items()},
              "provenance": collect_provenance({"quick": args.quick, "n_train": n}, device="cpu")}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2, default=float))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
