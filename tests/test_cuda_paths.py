"""The chapters' training code on a GPU: every recipe that takes a ``device`` trains and evaluates on CUDA.

Skipped without CUDA (CI and most machines); run on a lent GPU by ``benchmarks/run_on_gpu.sh``. Each test is a
chapter's smoke path at toy sizes with ``device=DEVICE``: it must run without a stray CPU tensor, put the model
on the GPU, and give numbers in range. ``XSENT_TEST_DEVICE=cpu`` runs the same paths on the CPU (to check the
tests themselves on a machine without a GPU).
"""
from __future__ import annotations

import os
from dataclasses import replace

import numpy as np
import pytest
import torch

DEVICE = os.environ.get("XSENT_TEST_DEVICE", "cuda")
pytestmark = pytest.mark.skipif(DEVICE == "cuda" and not torch.cuda.is_available(), reason="needs a CUDA GPU")


def test_xlm_pretraining_and_finetuning_on_cuda(tmp_path):
    from xsent_lib.data import xlm_text
    from xsent_lib.recipes import xlm as rec
    from xsent_lib.train import xlm_runs

    plan = replace(rec.SMOKE, n_mono=300, n_parallel=200, n_train=150, n_dev=40, n_test=40, vocab_size=300,
                   bilstm_width=8)
    bench, world, mono, bitext = xlm_text.synthetic_data(plan, 0)
    corpus = xlm_runs.lm_corpus(mono, bitext, plan.vocab_size, plan, tmp_path, 0)
    run = xlm_runs.pretrain(corpus, replace(plan.pretrain, steps=20, eval_every=10), "mlm+tlm", device=DEVICE, seed=0)
    assert str(run.device).startswith(DEVICE) and np.isfinite(run.summary()["parameters"])
    accs = xlm_runs.zero_shot(run, bench, plan, device=DEVICE, seed=0)[1]
    bilstm = rec.aligned_bilstm(bench, world, plan, device=DEVICE, seed=0)
    assert all(0.0 <= v <= 100.0 for v in [*accs.values(), *bilstm.values()])


def test_xlm_training_steps_never_wait_for_the_device(tmp_path):
    """Each MLM, TLM and CLM step's forward and backward on lm_batches' batches queue work without one
    host synchronisation (torch's sync debug mode raises on the first)."""
    from xsent_lib.data.synthetic import SyntheticWorld
    from xsent_lib.train.xlm import XLMConfig, build_xlm, lm_batches, lm_step_loss
    from xsent_lib.train.xlm_corpus import build_lm_corpus, shared_vocabulary

    world = SyntheticWorld(5)
    mono = {lang: world.sentences(300, lang) for lang in ("en", "xa")}
    pairs = world.parallel(100, "en", "xa")
    pipe = shared_vocabulary(mono, 300, tmp_path, alpha=0.5, seed=0)
    corpus = build_lm_corpus(pipe, mono, {("en", "xa"): (list(pairs.src), list(pairs.tgt))},
                             stream_len=32, heldout_rows=4, max_pair_len=30)
    config = XLMConfig(objective="mlm+tlm", n_layers=1, d_model=32, n_heads=2, batch_size=8, pair_batch=8)
    model = build_xlm(corpus, config, seed=0).to(DEVICE)
    batches = lm_batches(corpus, config, 2, seed=0) + lm_batches(corpus, replace(config, objective="clm"), 1,
                                                                 seed=0)
    batches = [{k: v.to(DEVICE) if isinstance(v, torch.Tensor) else v for k, v in b.items()} for b in batches]
    lm_step_loss(model, batches[0]).backward()  # first calls may set things up
    if DEVICE == "cuda":
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
    try:
        for b in batches:
            lm_step_loss(model, b).backward()
    finally:
        if DEVICE == "cuda":
            torch.cuda.set_sync_debug_mode("default")


def test_xnli_english_training_alignment_and_translate_train_on_cuda():
    from xsent_lib.eval import xbilstm
    from xsent_lib.recipes import xnli as rec
    from xsent_lib.train.alignment import AlignConfig

    bench, plan, world = rec.benchmark(rec.SMOKE, 0)
    plan = replace(plan, width=8, nli_epochs=1, align=AlignConfig(epochs=1, batch_size=16))
    words = xbilstm.english_words(bench, None, 0)
    lang = plan.languages[0]
    english = rec.train_english("bilstm-max", bench, words, plan, device=DEVICE, seed=0)
    run = xbilstm.align_language(english, lang, words, bench, world, plan.align, device=DEVICE, seed=0)
    acc = xbilstm.zero_shot_accuracy(english, run, bench.test[lang], DEVICE)
    tt = rec.translate_train(lang, english, words, bench, world, plan, device=DEVICE, seed=0)
    assert 0.0 <= acc <= 100.0 and 0.0 <= tt.test_acc <= 100.0


def test_paraphrase_training_with_megabatch_mining_on_cuda():
    from xsent_lib.data.bitext_split import Bitext
    from xsent_lib.recipes import wieting as rec
    from xsent_lib.train.paraphrase_models import build_paraphrase_encoder, train_bitext_encoder

    rng = np.random.default_rng(0)
    words = [rng.choice(60, size=4, replace=False) for _ in range(256)]
    src = [" ".join(f"s{w}" for w in ws) for ws in words]
    tgt = [" ".join(f"t{w}" for w in rng.permutation(ws)) for ws in words]
    data = Bitext("toy", src[:200], tgt[:200], src[200:], tgt[200:])
    plan = replace(rec.PLANS["smoke"], epochs=2, megabatch=2)
    enc = build_paraphrase_encoder("word", src + tgt, plan.shape)
    out = train_bitext_encoder(enc, data, plan.schedule, megabatch=2, seed=0, device=DEVICE)
    assert out["loss"][-1] < out["loss"][0] and np.isfinite(out["loss"]).all()
