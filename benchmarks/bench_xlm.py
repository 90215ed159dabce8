"""Benchmark XLM pretraining throughput (input tokens per second) for CLM, MLM and MLM+TLM.

    python benchmarks/bench_xlm.py [--quick] [--size book|medium|large] [--device auto|cpu|cuda]
        [--threads N] [--compile] [--objectives clm,mlm,mlm+tlm] [--peak-tflops X] [--out FILE]

The text is the synthetic world's (English and two invented languages, monolingual streams and
bitext), so the benchmark needs no data cache. For each objective a model is pretrained with
:func:`xsent_lib.train.xlm.pretrain_xlm` (the book's loop: batches and masks drawn on the fly, Adam,
warm-up schedule, clipping; bf16 autocast on a GPU) and its throughput is the real (non-padding)
input tokens of the training batches divided by the training seconds (held-out evaluations excluded,
batch drawing and masking included). Each setting runs ``--repeat`` times after a short warm-up; the
best is kept (background load on a shared machine only ever slows a run). Torch runs on
``--threads`` threads (default 1). Sizes (``--size``): ``book`` the book profile's model width and
depth (d_model 64, 2 layers), streams of 64, batch 32 (the committed records' setting; the book plan
now reads 64 streams of 32; the default with ``--quick``); ``medium`` d_model 256, 4 layers, 8
heads, streams of 128, batch 32 (the default on a CPU); ``large`` d_model 512, 6 layers, streams of
256, batch 64 (the default on a GPU). The same size on two devices gives their ratio. Each row also
reports the utilisation: the estimated training rate ``6 x parameters x tokens/s`` (FLOP/s; forward
and backward, embeddings included, so an overestimate where the vocabulary dominates the parameters)
and its fraction of a peak (``--peak-tflops``, else the dense matrix-multiply rate measured here:
bfloat16 on CUDA, float32 on a CPU). ``--compile`` runs :func:`~xsent_lib.train.xlm.pretrain_xlm`
with ``compile=True``. Writes ``_build/benchmarks/xlm.json`` (or ``--out``) with provenance.
Book: chapter 10 (Cross-lingual language models, XLM).
"""
from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import replace
from pathlib import Path

import torch

from xsent_lib.base.runtime import measure_gemm_flops, pick_device
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.results.provenance import collect_provenance
from xsent_lib.train.xlm import XLMConfig, pretrain_xlm
from xsent_lib.train.xlm_corpus import build_lm_corpus, shared_vocabulary

OUT = Path("_build/benchmarks/xlm.json")
#: model and batch per ``--size``; ``steps`` timed steps per run
SIZES = {"book": {"d_model": 64, "n_heads": 4, "n_layers": 2, "stream_len": 64, "batch_size": 32,
                  "steps": 60},
         "medium": {"d_model": 256, "n_heads": 8, "n_layers": 4, "stream_len": 128,
                    "batch_size": 32, "steps": 40},
         "large": {"d_model": 512, "n_heads": 8, "n_layers": 6, "stream_len": 256, "batch_size": 64,
                   "steps": 200}}


def corpus_for(n_sentences: int, vocab_size: int, stream_len: int, max_pair_len: int, seed: int):
    """Shared vocabulary and LM corpus over en, xa, xd (monolingual) and en-xa, en-xd (bitext)."""
    world = SyntheticWorld(seed)
    mono = {lang: world.sentences(n_sentences, lang) for lang in ("en", "xa", "xd")}
    bitext = {("en", lang): (list(p.src), list(p.tgt))
              for lang, p in ((x, world.parallel(n_sentences // 2, "en", x)) for x in ("xa", "xd"))}
    with tempfile.TemporaryDirectory() as tmp:
        pipe = shared_vocabulary(mono, vocab_size, tmp, alpha=0.5, seed=seed)
    return build_lm_corpus(pipe, mono, bitext, stream_len=stream_len, heldout_rows=4,
                           max_pair_len=max_pair_len)


def main() -> None:
    """Time pretraining per objective, print a table, write the JSON record."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="the book's model size; well under a minute on a CPU")
    parser.add_argument("--device", default="auto",
                        help="auto (a GPU when torch sees one), cpu or cuda")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    parser.add_argument("--repeat", type=int, default=2, help="timed runs per objective, best kept")
    parser.add_argument("--size", choices=sorted(SIZES), default=None,
                        help="model size (default: book with --quick, large on a GPU, "
                             "medium on a CPU)")
    parser.add_argument("--compile", action="store_true", help="compile the Transformer layers")
    parser.add_argument("--objectives", default="clm,mlm,mlm+tlm",
                        help="comma-separated objectives to time (default: clm,mlm,mlm+tlm)")
    parser.add_argument("--peak-tflops", type=float, default=None,
                        help="the card's dense rate for the utilisation (default: measured)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"the JSON record (default {OUT})")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    device = pick_device(args.device)
    name = args.size or ("book" if args.quick else "large" if device.type == "cuda" else "medium")
    size = dict(SIZES[name])
    stream_len = size.pop("stream_len")
    steps = size.pop("steps")
    params = {"quick": args.quick, "size": name, "device": str(device),
              "torch_threads": torch.get_num_threads(), "repeat": args.repeat,
              "stream_len": stream_len, "steps": steps, **size, "n_sentences": 3000,
              "vocab_size": 3000, "dropout": 0.0, "amp": "auto (bf16 on CUDA only)",
              "compile": args.compile}
    if args.peak_tflops is not None:
        peak, peak_what = args.peak_tflops * 1e12, "given (--peak-tflops)"
    else:
        dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
        n = 8192 if device.type == "cuda" else 1024
        peak = measure_gemm_flops(n, device=device, dtype=dtype)
        peak_what = f"measured {str(dtype).split('.')[-1]} GEMM on this device"
    params["peak_flops"], params["peak_source"] = peak, peak_what
    corpus = corpus_for(3000, 3000, stream_len, stream_len // 2, seed=0)
    base = XLMConfig(dropout=0.0, max_len=max(128, stream_len), pair_batch=size["batch_size"],
                     steps=steps, eval_every=steps, warmup=10, **size)
    rows = []
    for objective in args.objectives.split(","):
        config = replace(base, objective=objective)
        warm = replace(config, steps=5, eval_every=5)
        pretrain_xlm(corpus, warm, device=device, seed=0, compile=args.compile)  # warm-up
        best = None
        for r in range(args.repeat):
            run = pretrain_xlm(corpus, config, device=device, seed=r, compile=args.compile)
            if best is None or run.tokens_per_second > best.tokens_per_second:
                best = run
        n_params = sum(p.numel() for p in best.model.parameters())
        flops = 6 * n_params * best.tokens_per_second
        rows.append({"objective": objective, "tokens_per_s": best.tokens_per_second,
                     "tokens": best.tokens, "seconds": best.seconds, "steps": steps,
                     "parameters": n_params, "device": best.device,
                     "est_train_flops_per_s": flops, "fraction_of_peak": flops / peak})
    print(f"{'objective':10s} {'tokens/s':>10s} {'tokens':>9s} {'seconds':>8s} {'TFLOP/s':>8s} "
          f"{'of peak':>7s}  model")
    for r in rows:
        print(f"{r['objective']:10s} {r['tokens_per_s']:10.0f} {r['tokens']:9d} "
              f"{r['seconds']:8.1f} "
              f"{r['est_train_flops_per_s'] / 1e12:8.3f} {100 * r['fraction_of_peak']:6.1f}%  "
              f"d={size['d_model']}, {size['n_layers']} layers, {r['parameters']:,} parameters "
              f"on {r['device']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    provenance = collect_provenance(params, device=str(device), seed=0)
    args.out.write_text(json.dumps({"rows": rows, "provenance": provenance}, indent=2))
    print(f"peak {peak / 1e12:.3g} TFLOP/s ({peak_what}); estimate 6 x parameters x tokens/s")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
