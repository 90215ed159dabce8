"""Tokenisation and text-to-vector speed on this machine's CPU, with and without the chunk cache.

    python benchmarks/bench_tokenise.py [--quick] [--sentences N] [--out PATH]

Wieting et al.'s Table 4 protocol (the first 128,000 distinct English sentences of the offline
bitext, 300-d averaging, batches of 128) for the three units of chapter 8: sentencepiece (20k
pieces trained on those sentences), words and character trigrams. Each row times, interleaved
and best of 3, the paths a unit has, on 1 and 2 threads: whole sentences (one regex call per
sentence; sentencepiece's batched call) and, for words and trigrams, the cache of distinct
whitespace chunks (``xsent_lib.text.chunk_cache``; ``Tokenizer.cache_chunks`` turns it on where
this benchmark finds it faster). All paths must give identical ids. Then raw text to 300-d
vectors. Writes one JSON with provenance and the machine's load.
Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
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

from xsent_lib.encoders.bag import BagOfVectorsEncoder
from xsent_lib.results.provenance import collect_provenance
from xsent_lib.text.pipeline import TextPipeline
from xsent_lib.text.tokenizers import (
    CharTrigramTokenizer,
    SentencePieceTokenizer,
    WordTokenizer,
    train_sentencepiece,
)

sys.path.insert(0, str(Path(__file__).parent))
from prepare_gpu_carry import table4_sentences  # noqa: E402

OUT = Path("benchmarks/results/tokenise_cpu_26.json")
WORK = Path("_build/benchmarks/tokenise")


def best_of(fns: dict, repeat: int = 3) -> dict[str, float]:
    """Best wall time of each function, timed in turns so a busy machine hurts all alike."""
    best = dict.fromkeys(fns, np.inf)
    for _ in range(repeat):
        for key, fn in fns.items():
            t = time.perf_counter()
            fn()
            best[key] = min(best[key], time.perf_counter() - t)
    return best


def pipelines(sents: list[str]) -> dict[str, TextPipeline]:
    """The three units of Table 4: SP 20k (trained once and kept under ``_build``), words,
    trigrams."""
    WORK.mkdir(parents=True, exist_ok=True)
    model = WORK / f"sp20k_{len(sents)}.model"
    if model.is_file():
        sp = SentencePieceTokenizer(model_file=model)
    else:
        sp = train_sentencepiece(sents, 20_000, WORK / f"sp20k_{len(sents)}", seed=0)
    return {
        "sentencepiece 20k": TextPipeline(sp, sp.vocab()),
        "word": TextPipeline.fit(sents, WordTokenizer()),
        "trigram": TextPipeline.fit(sents, CharTrigramTokenizer()),
    }


def measure(unit: str, pipe: TextPipeline, sents: list[str]) -> list[dict]:
    """Rows for one unit: tokenisation on 1 and 2 threads, text to vector on 2 threads, by each
    path the unit has (sentencepiece has one: whole sentences in one batched call)."""
    n, tok = len(sents), pipe.tokenizer
    cached = tok.cache_chunks

    def switched(fn, on: bool):
        def run():
            tok.cache_chunks = on
            try:
                return fn()
            finally:
                tok.cache_chunks = cached
        return run

    def without_cache(fn):
        return switched(fn, False)

    def with_cache(fn):
        return switched(fn, True)

    paths = {"whole sentences": without_cache(lambda: pipe.encode_flat(sents))}
    if unit != "sentencepiece 20k":  # the regex tokenisers, also through the chunk cache
        paths["chunk cache"] = with_cache(lambda: pipe.encode_flat(sents))
    ids = {name: fn() for name, fn in paths.items()}
    first = next(iter(ids.values()))
    same = all(np.array_equal(a, b) for got in ids.values() for a, b in zip(first, got,
                                                                           strict=True))
    if not same:
        raise AssertionError(f"{unit}: the paths gave different ids")
    rows = []
    for threads in (1, 2):
        torch.set_num_threads(threads)
        best = best_of(paths)
        rows.append({"unit": unit, "what": "tokenise", "threads": threads,
                     "tokens": int(len(first[0])), "identical_ids": same,
                     "sent_per_s": {name: n / t for name, t in best.items()}})
    torch.manual_seed(0)
    enc = BagOfVectorsEncoder(len(pipe.vocab), 300, pipeline=pipe).eval()
    encode = {name: switched(lambda: enc.encode(sents, batch_size=128, device="cpu"), on)
              for name, on in (("whole sentences", False), ("chunk cache", True))
              if on is False or len(paths) > 1}
    with torch.inference_mode():
        best = best_of(encode)
    rows.append({"unit": unit, "what": "text to vector, 300-d, batch 128", "threads": 2,
                 "sent_per_s": {name: n / t for name, t in best.items()}})
    return rows


def main() -> None:
    """Measure and write the record. Book: chapter 8 (Paraphrastic embeddings: encoding speed)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="8,000 sentences: a dry run")
    ap.add_argument("--sentences", type=int, default=128_000)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    n = 8000 if args.quick else args.sentences
    t0 = time.perf_counter()
    sents = table4_sentences(n)
    load_before = os.getloadavg()[0]
    rows = []
    for unit, pipe in pipelines(sents).items():
        for row in measure(unit, pipe, sents):
            print(json.dumps(row), flush=True)
            rows.append(row)
    record = {
        "what": "tokenisation and text to 300-d vectors on this machine's CPU (Table 4 protocol), "
                "sentences/s by path (whole sentences; words and trigrams also through the chunk "
                "cache), identical ids, interleaved best of 3",
        "sentences": n, "load_before": load_before, "load_after": os.getloadavg()[0],
        "cpu_count": os.cpu_count(), "rows": rows,
        "seconds": time.perf_counter() - t0,
        "provenance": collect_provenance(params=vars(args) | {"out": str(args.out)},
                                         device="cpu"),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
