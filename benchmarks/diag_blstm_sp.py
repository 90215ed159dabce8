"""Diagnose what keeps BLSTM-SP from learning in chapter 8's short budget: small runs that change
one thing each.

    PYTHONPATH=. python benchmarks/diag_blstm_sp.py [--steps 40] [--every 10]
        [--variants base,init1,...]

Every variant trains BLSTM-SP (300-d sentencepiece embeddings, 2 x 150 BiLSTM, mean pooling) on the
same nlp-corpus en-fr pairs as the chapter's book profile with the margin loss (delta 0.4) and
hardest negatives from a fixed mega-batch (no annealing), and reports, every ``--every`` steps, the
training loss, the mean cosine between the vectors of *unrelated* held-out sentences (near 1 = every
sentence points the same way, the collapse that pins the loss at delta) and en->fr retrieval P@1 on
500 held-out pairs. ``base`` trains BLSTM-SP like the averages: piece vectors of the plan's
``init_std`` (0.1) and ``plan.megabatch`` (16) mini-batches per mega-batch from the first step. The
other variants change one setting against it: the embedding scale (the paper's N(0, 1)), the
learning rate, the mega-batch size (1 = in-batch negatives), word shuffling and pooling. Writes
``_build/benchmarks/diag_blstm_sp.json``.
Book: chapter 8 (Paraphrastic embeddings from bitext: why BLSTM-SP needs the paper's settings).
"""
from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

from xsent_lib.base.threads import single_thread
from xsent_lib.data.bitext_split import load_pair
from xsent_lib.eval.paraphrase_study import encode_fn
from xsent_lib.recipes import wieting as rec
from xsent_lib.text.noise import word_start_table
from xsent_lib.train.paraphrase import (
    ParaphraseConfig,
    encode_bitext,
    paraphrase_batches,
    paraphrase_loss,
)
from xsent_lib.train.paraphrase_models import build_paraphrase_encoder

OUT = Path("_build/benchmarks/diag_blstm_sp.json")

VARIANTS = {
    "base": {},
    "init1": {"init_std": 1.0},
    "lr1e-2": {"lr": 1e-2},
    "init1-inbatch": {"init_std": 1.0, "megabatch": 1},
    "init1-noshuffle": {"init_std": 1.0, "shuffle": 0.0},
    "init1-max": {"init_std": 1.0, "pooling": "max"},
    "init1-lr3e-3": {"init_std": 1.0, "lr": 3e-3},
    "sp-average": {"kind": "sp"},
}


def probe(enc, src: list[str], tgt: list[str]) -> dict[str, float]:
    """Mean cosine of unrelated pairs and en->fr P@1 on held-out pairs."""
    s, t = encode_fn(enc)(src), encode_fn(enc)(tgt)
    s /= np.linalg.norm(s, axis=1, keepdims=True) + 1e-12
    t /= np.linalg.norm(t, axis=1, keepdims=True) + 1e-12
    sim = s @ t.T
    off = sim[~np.eye(len(s), dtype=bool)]
    return {"cos_unrelated": float(off.mean()), "cos_translation": float(np.diag(sim).mean()),
            "p_at_1": float((sim.argmax(1) == np.arange(len(s))).mean())}


def run(variant: dict, pair, plan, steps: int, every: int, seed: int) -> list[dict]:
    scale = variant.get("init_std", plan.init_std)  # "base": the averages' 0.1, for the LSTM too
    enc = build_paraphrase_encoder(variant.get("kind", "blstm-sp"), pair.train_src + pair.train_tgt,
                                   replace(plan, init_std=scale, blstm_init_std=scale).shape,
                                   vocab=plan.sp_vocabs[0], seed=seed)
    if "pooling" in variant:
        enc.pooling = variant["pooling"]
    default_shuffle = 0.3 if variant.get("kind", "blstm-sp") == "blstm-sp" else 0.0
    config = ParaphraseConfig(batch_size=plan.batch_size,
                              megabatch=variant.get("megabatch", plan.megabatch), anneal_rate=None,
                              epochs=100, max_len=plan.max_len, seed=seed,
                              shuffle_rate=variant.get("shuffle", default_shuffle),
                              lr=variant.get("lr", 1e-3))
    data = encode_bitext(enc, pair.train_src, pair.train_tgt, config.max_len)
    starts = word_start_table(enc.pipeline.vocab.itos)
    opt = torch.optim.Adam(enc.parameters(), lr=config.lr)
    held_src, held_tgt = pair.held_src[:500], pair.held_tgt[:500]
    log, losses, seen, step, epoch = [], [], [0], 0, 0
    log.append({"step": 0, "loss": None, **probe(enc, held_src, held_tgt)})
    t0 = time.process_time()
    while step < steps:
        epoch += 1
        for batch in paraphrase_batches(enc, data, config, epoch, seen):
            enc.train()
            loss = paraphrase_loss(enc, batch, delta=config.delta, shuffle_rate=config.shuffle_rate,
                                   word_starts=starts)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
            step += 1
            if step % every == 0 or step == steps:
                log.append({"step": step, "loss": float(np.mean(losses[-every:])),
                            "cpu_s": time.process_time() - t0,
                            **probe(enc.eval(), held_src, held_tgt)})
                print(f"  step {step:4d} loss {log[-1]['loss']:.3f} cos(unrelated) "
                      f"{log[-1]['cos_unrelated']:.3f} cos(translation) "
                      f"{log[-1]['cos_translation']:.3f} P@1 {log[-1]['p_at_1']:.3f}", flush=True)
            if step >= steps:
                break
    return log


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--n-train", type=int, default=6144)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()
    plan = rec.PLANS["book"]
    pair = load_pair("nlp-en-fr", args.n_train, args.seed)
    out = {}
    with single_thread():
        for name in args.variants.split(","):
            print(f"{name}: {VARIANTS[name]}", flush=True)
            out[name] = run(VARIANTS[name], pair, plan, args.steps, args.every, args.seed)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    if OUT.exists():  # runs of other variants from earlier calls are kept
        out = {**json.loads(OUT.read_text())["runs"], **out}
    OUT.write_text(json.dumps({"variants": VARIANTS, "runs": out, "load_average": os.getloadavg(),
                               "args": vars(args)}, indent=1))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
