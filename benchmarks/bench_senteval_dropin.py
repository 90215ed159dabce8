"""SentEval drop-in: our ``SE`` against SentEval itself, same folder, same encoder, one BLAS thread.

    python benchmarks/bench_senteval_dropin.py [--senteval DIR] [--max-items N] [--configs ...]

The encoder is SentEval's ``examples/bow.py`` batcher (mean of the sentence's known word vectors, a
zero vector if none) on GloVe 6B 50d (``load_glove50``), written here once and handed to both
engines. The task folder is written in SentEval's layout under ``--data`` (default
``_build/senteval_dropin``): MR, SUBJ from the cached Rotten Tomatoes corpora (``rt-mr``,
``rt-subj``), CR (``uci-*``), MPQA (``vader-nyt``), SST2 / SST5 (``vader-movies``), and TREC, MRPC,
SICK-E, SICK-R, STS-B from the synthetic world (``tools/make_fixture_data.py``); each task capped at
``--max-items`` examples per split (SentEval's sizes would take hours on a loaded 2-core machine).
Both configurations of the issue: ``sklearn`` (``usepytorch=False, kfold=10``) and ``pytorch``
(``usepytorch=True, kfold=10``, bow.py's classifier dict). SentEval runs only when ``--senteval``
names a checkout, from a copy of its package (the checkout is not touched): ``getargspec`` made
``getfullargspec`` for Python 3.11, and without CUDA its ``.cuda()`` calls made CPU ones. The two
engines run each task back to back, in alternating order (a shared machine's load drifts). Per task:
seconds and scores side by side, and the time ratio. Writes
``benchmarks/results/senteval_dropin.json`` with provenance.
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xsent_lib.data.corpora import load_glove50, load_labelled, load_ratings  # noqa: E402
from xsent_lib.eval.engine import SE  # noqa: E402
from xsent_lib.eval.offline_suite import sst_classes  # noqa: E402
from xsent_lib.results.provenance import collect_provenance  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "senteval_dropin.json"
TASKS = [
    "MR",
    "CR",
    "MPQA",
    "SUBJ",
    "SST2",
    "SST5",
    "TREC",
    "MRPC",
    "SICKEntailment",
    "SICKRelatedness",
    "STSBenchmark",
]
CONFIGS = {
    "sklearn": {"usepytorch": False, "kfold": 10},
    "pytorch": {
        "usepytorch": True,
        "kfold": 10,
        "classifier": {
            "nhid": 0,
            "optim": "rmsprop",
            "batch_size": 128,
            "tenacity": 3,
            "epoch_size": 2,
        },
    },
}
SCORES = ("devacc", "acc", "devpearson", "pearson", "spearman")


def _write(path: Path, lines: list[str], encoding: str = "utf-8") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{s}\n" for s in lines), encoding=encoding, errors="replace")


def _clean(s: str) -> str:
    return " ".join(s.replace("\t", " ").split())


def write_folder(out: Path, max_items: int) -> Path:
    """SentEval's ``downstream/`` layout under ``out``, every task capped at ``max_items`` per
    split."""
    tools = importlib.import_module("tools.make_fixture_data")
    tools.N_SENT = max(40, max_items // 3)  # the synthetic tasks: examples per class / split
    from xsent_lib.data.synthetic import SyntheticWorld

    tools._senteval(out, SyntheticWorld(11))
    d = out / "downstream"
    rng = np.random.default_rng(0)
    binary = {
        "MR": (("rt-mr",), "rt-polarity.pos", "rt-polarity.neg"),
        "CR": (("uci-amazon", "uci-yelp", "uci-imdb"), "custrev.pos", "custrev.neg"),
        "SUBJ": (("rt-subj",), "subj.subjective", "subj.objective"),
        "MPQA": (("vader-nyt",), "mpqa.pos", "mpqa.neg"),
    }
    for task, (names, pos, neg) in binary.items():
        parts = [load_labelled(n) for n in names]
        sents = [_clean(s) for p in parts for s in p.sentences]
        labels = np.concatenate([p.labels for p in parts])
        keep = rng.permutation(len(sents))[:max_items]
        _write(d / task / pos, [sents[i] for i in keep if labels[i] == 1], "latin-1")
        _write(d / task / neg, [sents[i] for i in keep if labels[i] == 0], "latin-1")
    texts, ratings = load_ratings("vader-movies")
    five = sst_classes(ratings)
    order = rng.permutation(len(texts))[: 3 * max_items]
    cut = np.array_split(order, [int(0.7 * order.size), int(0.8 * order.size)])
    for split, idx in zip(("train", "dev", "test"), cut):
        _write(
            d / "SST" / "fine" / f"sentiment-{split}",
            [f"{five[i]} {_clean(texts[i])}" for i in idx],
        )
        _write(
            d / "SST" / "binary" / f"sentiment-{split}",
            [f"{_clean(texts[i])}\t{int(five[i] >= 3)}" for i in idx if five[i] != 2],
        )
    return out


class Bow:
    """SentEval's ``examples/bow.py`` encoder on GloVe 6B 50d: ``prepare`` keeps the task's words'
    vectors, ``batcher`` averages a sentence's known words (a zero vector if none)."""

    def __init__(self) -> None:
        self.glove = load_glove50()

    def prepare(self, params: Any, samples: list) -> None:
        words = {w for s in samples for w in s}
        index = self.glove.word2id
        params.word_vec = {
            w: self.glove.vectors[index[w]].astype(np.float64) for w in words if w in index
        }
        params.wvec_dim = self.glove.vectors.shape[1]

    def batcher(self, params: Any, batch: list) -> np.ndarray:
        rows = []
        for sent in batch:
            vecs = [params.word_vec[w] for w in (sent or ["."]) if w in params.word_vec]
            rows.append(np.mean(vecs, 0) if vecs else np.zeros(params.wvec_dim))
        return np.vstack(rows)


def senteval_module(checkout: Path) -> Any:
    """Import SentEval from a temporary copy of ``checkout``'s package: ``inspect.getargspec`` (gone
    in Python 3.11) read as ``getfullargspec``, and without CUDA its CUDA calls made CPU ones."""
    src = checkout / "senteval"
    if not (src / "engine.py").is_file():
        raise FileNotFoundError(f"{checkout} is not a SentEval checkout (no senteval/engine.py).")
    root = Path(tempfile.mkdtemp(prefix="senteval_copy_"))
    shutil.copytree(src, root / "senteval")
    for py in (root / "senteval").rglob("*.py"):
        text = py.read_text().replace("inspect.getargspec(", "inspect.getfullargspec(")
        if not torch.cuda.is_available():
            text = re.sub(r"assert torch\.cuda\.is_available\(\).*\n", "\n", text)
            text = text.replace(".cuda()", "").replace(
                "torch.device('cuda')", "torch.device('cpu')"
            )
            text = text.replace("torch.cuda.FloatTensor", "torch.FloatTensor")
        py.write_text(text)
    sys.path.insert(0, str(root))
    return importlib.import_module("senteval")


def _scores(res: dict) -> dict:
    return {k: float(res[k]) for k in SCORES if k in res}


def run_task(make: Any, bow: Bow, params: dict, task: str) -> dict:
    """One task in its own ``eval`` call: {'seconds', scores...}."""
    se = make(dict(params), bow.batcher, bow.prepare)
    start = time.perf_counter()
    res = se.eval(task)
    return {"seconds": round(time.perf_counter() - start, 2), **_scores(res)}


def run_config(engines: dict[str, Any], bow: Bow, params: dict, tasks: list[str]) -> dict:
    """Every task on every engine, back to back, the engine going first alternating from task to
    task (the load of a shared machine drifts): {engine: {task: row}}, totals and the time ratio."""
    rows: dict = {name: {} for name in engines}
    for k, task in enumerate(tasks):
        names = list(engines)[:: 1 if k % 2 == 0 else -1]
        for name in names:
            rows[name][task] = run_task(engines[name], bow, params, task)
            print(name, task, rows[name][task], flush=True)
    for name in engines:
        rows[f"{name}_total_s"] = round(sum(r["seconds"] for r in rows[name].values()), 2)
    if "senteval" in engines:
        rows["time_ratio_ours_over_senteval"] = round(
            rows["ours_total_s"] / rows["senteval_total_s"], 3
        )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--senteval", type=Path, default=None, help="a SentEval checkout (run it side by side)"
    )
    parser.add_argument("--data", type=Path, default=ROOT / "_build" / "senteval_dropin")
    parser.add_argument("--max-items", type=int, default=2000)
    parser.add_argument("--configs", default="sklearn,pytorch")
    parser.add_argument("--tasks", default=",".join(TASKS))
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    configs = args.configs.split(",")
    tasks = args.tasks.split(",")
    os.environ["OMP_NUM_THREADS"] = "1"
    torch.set_num_threads(1)
    load = os.getloadavg()
    write_folder(args.data, args.max_items)
    bow = Bow()
    ref = senteval_module(args.senteval) if args.senteval else None
    record: dict = {
        "what": __doc__.splitlines()[0],
        "max_items": args.max_items,
        "tasks": tasks,
        "configs": {},
        "provenance": collect_provenance(),
        "load_average_before": [round(x, 2) for x in load],
    }
    with threadpool_limits(limits=1):
        for name in configs:
            params = {"task_path": str(args.data), **CONFIGS[name]}
            engines = {"ours": SE, **({"senteval": ref.engine.SE} if ref is not None else {})}
            rows = run_config(engines, bow, params, tasks)
            record["configs"][name] = {"params": CONFIGS[name], **rows}
            record["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(record, indent=1, default=str) + "\n")
    print(json.dumps({k: v for k, v in record.items() if k != "provenance"}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
