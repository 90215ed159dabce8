"""Chapter 6: alignment of a target encoder to a frozen source encoder, and the finiteness guard of L_align."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from xsent_lib.encoders import BagOfVectorsEncoder, RecurrentEncoder
from xsent_lib.losses.alignment import alignment_loss, l2_distance
from xsent_lib.losses.bounded import alignment_lower_bound, bounded_l2
from xsent_lib.text import BOS_TOKEN, EOS_TOKEN, TextPipeline, WordTokenizer
from xsent_lib.train.alignment import (
    AlignConfig,
    align_encoder,
    curve_correlation,
    target_encoder,
    translated_embeddings,
)

V = 30


def _toy(n: int, seed: int) -> tuple[list[str], list[str]]:
    """Two toy languages: the target renames every word by a planted permutation and reverses word order."""
    rng = np.random.default_rng(seed)
    perm = np.random.default_rng(99).permutation(V)
    ids = [rng.integers(0, V, rng.integers(4, 9)) for _ in range(n)]
    return ([" ".join(f"s{i}" for i in s) for s in ids], [" ".join(f"t{perm[i]}" for i in s[::-1]) for s in ids])


def _setup():
    tr, dv = _toy(400, 0), _toy(64, 1)
    sp = TextPipeline.fit(tr[0] + dv[0], WordTokenizer())
    tp = TextPipeline.fit(tr[1] + dv[1], WordTokenizer())
    torch.manual_seed(0)
    src = BagOfVectorsEncoder(len(sp.vocab), 12, freeze=True, pipeline=sp)
    return tr, dv, sp, tp, src


def test_alignment_recovers_planted_translation():
    tr, dv, sp, tp, src = _setup()
    init = np.random.default_rng(1).normal(0, 1, (len(tp.vocab), 12)).astype(np.float32)
    tgt = target_encoder(src, tp, init, fine_tune=True)
    run = align_encoder(src, tgt, tr, dv, AlignConfig(epochs=5, lr=0.05, batch_size=32), seed=0)
    assert run.curve[-1]["dev_align"] < run.curve[0]["dev_align"]
    S = src.embedding.weight.detach().numpy()
    T = run.encoder.embedding.weight.detach().numpy()
    perm = np.random.default_rng(99).permutation(V)
    hits = 0
    for i in range(V):
        d = ((T - S[sp.vocab.stoi[f"s{i}"]]) ** 2).sum(1)
        d[:2] = np.inf  # padding and <unk>
        hits += tp.vocab.itos[int(d.argmin())] == f"t{perm[i]}"
    assert hits >= 0.9 * V
    # the source encoder is untouched
    assert torch.equal(src.embedding.weight, _setup()[4].embedding.weight)


def test_frozen_target_lookup_table_is_not_trained():
    tr, dv, sp, tp, src = _setup()
    init = np.random.default_rng(1).normal(0, 1, (len(tp.vocab), 12)).astype(np.float32)
    tgt = target_encoder(src, tp, init, fine_tune=False)
    with pytest.raises(ValueError, match="no trainable parameter"):
        align_encoder(src, tgt, tr, dv, AlignConfig(epochs=1))


def test_recurrent_target_copy_and_translated_init():
    tr, dv = _toy(200, 0), _toy(40, 1)
    sp = TextPipeline.fit(tr[0] + dv[0], WordTokenizer(), bos=BOS_TOKEN, eos=EOS_TOKEN)
    tp = TextPipeline.fit(tr[1] + dv[1], WordTokenizer(), bos=BOS_TOKEN, eos=EOS_TOKEN)
    torch.manual_seed(0)
    src = RecurrentEncoder.from_architecture("bilstm-max", len(sp.vocab), word_dim=8, hidden_dim=8, pipeline=sp,
                                             freeze_embeddings=True)
    perm = np.random.default_rng(99).permutation(V)
    weights, coverage = translated_embeddings(src, sp, tp, [(f"t{perm[i]}", f"s{i}") for i in range(V)])
    assert coverage > 0.85
    np.testing.assert_array_equal(weights[tp.vocab.stoi[f"t{perm[3]}"]],
                                  src.embedding.weight.detach().numpy()[sp.vocab.stoi["s3"]])
    tgt = target_encoder(src, tp, weights, fine_tune=True)
    assert tgt.rnn is not src.rnn and torch.equal(tgt.rnn.weight_hh_l0, src.rnn.weight_hh_l0)
    calls = []
    run = align_encoder(src, tgt, tr, dv, AlignConfig(epochs=2, batch_size=32, eval_every=3),
                        evaluate=lambda enc: calls.append(1) or float(len(calls)), seed=0)
    assert len(run.curve) == len(calls) >= 3 and "evaluate" in run.curve[0]
    assert curve_correlation(run.curve) is not None
    with pytest.raises(ValueError, match="differ in length"):
        align_encoder(src, tgt, (tr[0], tr[1][:-1]), dv)


def test_alignment_loss_is_unbounded_without_guard_and_finite_with_it():
    torch.manual_seed(0)
    x = torch.randn(16, 4)

    def minimise(distance) -> float:
        # in-batch negatives: every free target vector y_i is pulled to x_i once and pushed from English
        # vectors twice (as y for x_c, as y_c for another pair), so for lam > 0.5 the loss has no minimum
        y = torch.nn.Parameter(x.clone() + 0.1 * torch.randn_like(x))
        opt = torch.optim.SGD([y], lr=50.0)
        for _ in range(300):
            loss = alignment_loss(x, y, x_c=x.roll(1, 0), y_c=y.roll(1, 0), lam=0.75, distance=distance)
            opt.zero_grad()
            loss.backward()
            opt.step()
        return float(loss.detach())

    assert minimise(l2_distance) < -100.0
    cap = 2.0
    low = minimise(bounded_l2(cap))
    assert np.isfinite(low) and low >= alignment_lower_bound(0.75, cap) - 1e-6
    d = bounded_l2(cap)(torch.zeros(3, 2), torch.tensor([[1e-3, 0.0], [1.0, 0.0], [1e6, 0.0]]))
    assert d[0] == pytest.approx(1e-3, rel=1e-3) and float(d.max()) <= cap
    with pytest.raises(ValueError, match="cap"):
        bounded_l2(0.0)


def test_align_encoder_with_negatives_stays_finite_only_with_the_bounded_distance():
    """End to end, lam = 0.75 (> 0.5: the push of two negatives outweighs the pull of one translation). With the
    bounded distance the training loss settles above -2 lam cap; with plain L2 the target vectors drift apart and
    the loss falls ever faster, below anything the bounded loss can reach."""
    runs = {}
    for bound in (2.0, None):
        tr, dv, sp, tp, src = _setup()
        init = np.random.default_rng(1).normal(0, 1, (len(tp.vocab), 12)).astype(np.float32)
        tgt = target_encoder(src, tp, init, fine_tune=True)
        runs[bound] = align_encoder(src, tgt, tr, dv, AlignConfig(lam=0.75, bound=bound, lr=0.1, batch_size=32,
                                                                   epochs=8), seed=0)
    bounded, plain = runs[2.0], runs[None]
    floor = alignment_lower_bound(0.75, bounded.cap)
    losses = np.asarray(bounded.history.train_loss)
    dev = np.asarray([p["dev_align"] for p in bounded.curve])
    assert np.isfinite(losses).all() and (losses >= floor).all() and (dev >= floor).all()
    steps = -np.diff(losses)
    assert steps[-1] < 0.25 * steps[0]  # settling: each epoch gains less
    assert plain.cap is None
    plain_losses = np.asarray(plain.history.train_loss)
    plain_steps = -np.diff(plain_losses)
    assert (plain_steps > 0).all() and plain_steps[-1] > plain_steps[0]  # falling, and faster: no minimum ahead
    assert plain_losses[-1] < floor  # below every value the bounded loss can take


def test_align_config_checks():
    with pytest.raises(ValueError, match="loss"):
        AlignConfig(loss="hinge")
    with pytest.raises(ValueError, match="batch_size"):
        AlignConfig(batch_size=1)
    assert AlignConfig(lam=0.0).label() == "ft = 1, λ = 0"
    assert AlignConfig(loss="rank").label().startswith("ranking")
