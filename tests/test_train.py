"""The training loop: schedules, early stopping, best-weight restore, checkpoints, reproducibility, learning."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch import nn

from xsent_lib.encoders.decoder import LSTMDecoder, Seq2Seq
from xsent_lib.encoders.transformer import TransformerSentenceEncoder
from xsent_lib.losses.lm import mlm_loss, mlm_mask
from xsent_lib.losses.seq2seq import seq2seq_loss
from xsent_lib.train import (
    History,
    InferSentSchedule,
    LinearDecay,
    WarmupInverseSqrt,
    fit,
    load_checkpoint,
    save_checkpoint,
)


def linear_task(n_batches: int = 4, seed: int = 0) -> tuple[nn.Module, list[tuple[torch.Tensor, torch.Tensor]]]:
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(5, 3, generator=g)
    batches = []
    for _ in range(n_batches):
        x = torch.randn(32, 5, generator=g)
        batches.append((x, (x @ w).argmax(1)))
    torch.manual_seed(seed)
    return nn.Linear(5, 3), batches


def ce_loss(model: nn.Module, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
    return nn.functional.cross_entropy(model(batch[0]), batch[1])


def scripted_dev(scores: list[float]):
    it = iter(scores)
    return lambda model: next(it)


def test_infersent_schedule_decays_and_divides_by_five_on_a_dev_drop() -> None:
    model, batches = linear_task()
    hist = fit(model, ce_loss, batches, optimizer="sgd", lr=0.1, epochs=4, device="cpu", progress=False,
               schedule="infersent", dev_fn=scripted_dev([0.5, 0.6, 0.55, 0.7]))
    expected = [0.1, 0.1 * 0.99, 0.1 * 0.99**2, 0.1 * 0.99**2 / 5 * 0.99]
    assert hist.lr == pytest.approx(expected, rel=1e-12)
    assert hist.best_epoch == 4 and hist.stop_reason == "max_epochs"


def test_infersent_schedule_stops_below_min_lr() -> None:
    model, batches = linear_task(n_batches=1)
    hist = fit(model, ce_loss, batches, optimizer="sgd", lr=0.1, epochs=50, device="cpu", progress=False,
               schedule=InferSentSchedule(), dev_fn=scripted_dev([1.0 - 0.01 * i for i in range(50)]))
    # epoch 1 sets the best; every later epoch divides by 5: 0.1 * 0.99 / 5**6 < 1e-5 <= 0.1 * 0.99 / 5**5
    assert hist.stop_reason == "min_lr" and hist.epoch[-1] == 7


def test_infersent_schedule_needs_a_dev_function() -> None:
    model, batches = linear_task()
    with pytest.raises(ValueError, match="dev_fn"):
        fit(model, ce_loss, batches, schedule="infersent", progress=False)


def test_early_stopping_and_best_weights_restored() -> None:
    model, batches = linear_task()
    seen: list[torch.Tensor] = []

    def dev(m: nn.Module) -> float:
        seen.append(m.weight.detach().clone())
        return [0.3, 0.9, 0.8, 0.85, 0.1][len(seen) - 1]

    hist = fit(model, ce_loss, batches, epochs=10, lr=0.05, device="cpu", progress=False, dev_fn=dev, patience=2)
    assert hist.stop_reason == "early_stopping" and hist.epoch == [1, 2, 3, 4]
    assert hist.best_epoch == 2 and hist.best_dev == 0.9
    assert torch.equal(model.weight, seen[1]), "the weights of the best dev epoch are restored"
    assert not torch.equal(seen[1], seen[3])


def test_min_mode_for_perplexity() -> None:
    model, batches = linear_task()
    hist = fit(model, ce_loss, batches, epochs=3, device="cpu", progress=False,
               dev_fn=scripted_dev([5.0, 4.0, 6.0]), dev_mode="min", restore_best=False)
    assert hist.best_epoch == 2 and hist.best_dev == 4.0


def test_step_schedules_follow_their_formulas() -> None:
    model, batches = linear_task(n_batches=10)
    hist = fit(model, ce_loss, batches, lr=1e-2, epochs=2, device="cpu", progress=False, schedule=LinearDecay())
    assert hist.lr == pytest.approx([1e-2, 1e-2 * (1 - 10 / 20)])
    model, batches = linear_task(n_batches=4)
    hist = fit(model, ce_loss, batches, lr=1e-2, epochs=3, device="cpu", progress=False,
               schedule=WarmupInverseSqrt(warmup_steps=4))
    assert hist.lr == pytest.approx([1e-2 / 4, 1e-2 * (4 / 5) ** 0.5, 1e-2 * (4 / 9) ** 0.5])  # steps 1, 5, 9


def test_checkpoint_round_trip(tmp_path: Path) -> None:
    model, batches = linear_task()
    hist = fit(model, ce_loss, batches, epochs=2, device="cpu", progress=False, checkpoint_path=tmp_path / "last.pt")
    fresh = nn.Linear(5, 3)
    opt = torch.optim.Adam(fresh.parameters())
    extra = load_checkpoint(tmp_path / "last.pt", fresh, opt)
    assert extra == {"epoch": 2}
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), fresh.state_dict().values()))
    assert opt.state_dict()["state"][0]["step"].item() == hist.steps[-1]
    path = save_checkpoint(tmp_path / "sub" / "h.pt", fresh, history=hist.to_dict())
    back = History.from_dict(load_checkpoint(path, nn.Linear(5, 3))["history"])
    assert back == hist
    with pytest.raises(ValueError, match="does not fit"):
        load_checkpoint(path, nn.Linear(4, 3))
    with pytest.raises(FileNotFoundError):
        load_checkpoint(tmp_path / "missing.pt", fresh)


def mlm_setup(seed: int = 0) -> tuple[TransformerSentenceEncoder, list[tuple[torch.Tensor, torch.Tensor]]]:
    g = torch.Generator().manual_seed(seed)
    # each sentence repeats one token, so a masked token is predictable from its context
    batches = [(torch.randint(5, 30, (8, 1), generator=g).expand(8, 10).clone(), torch.randint(4, 11, (8,), generator=g))
               for _ in range(3)]
    torch.manual_seed(seed)
    return TransformerSentenceEncoder(30, d_model=16, n_heads=2, n_layers=1, max_len=16, dropout=0.1), batches


def mlm_step(model: TransformerSentenceEncoder, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
    ids, lens = batch
    masked = mlm_mask(ids, lens, vocab_size=30, mask_id=4, special_ids=(0, 1, 2, 3))  # global RNG, seeded by fit
    return mlm_loss(model, masked, lens)


def test_cpu_reruns_are_bit_identical_and_callbacks_do_not_perturb_them() -> None:
    def run(callbacks: dict | None) -> tuple[dict[str, torch.Tensor], History]:
        model, batches = mlm_setup()
        hist = fit(model, mlm_step, batches, epochs=2, lr=1e-3, seed=3, device="cpu", progress=False,
                   callbacks=callbacks, eval_every=2)
        return model.state_dict(), hist

    a, ha = run(None)
    b, hb = run(None)
    c, hc = run({"noise": lambda m: torch.rand(()).item()})
    for key in a:
        assert torch.equal(a[key], b[key]) and torch.equal(a[key], c[key]), key
    assert ha.train_loss == hb.train_loss == hc.train_loss
    assert [r["step"] for r in hc.evals["noise"]] == [0, 2, 4, 6]
    model, batches = mlm_setup()
    fit(model, mlm_step, batches, epochs=2, lr=1e-3, seed=4, device="cpu", progress=False)
    assert not torch.equal(model.token_embedding.weight, a["token_embedding.weight"]), "another seed differs"


def test_training_a_tiny_mlm_reduces_the_loss() -> None:
    model, batches = mlm_setup()
    hist = fit(model, mlm_step, batches * 4, epochs=6, lr=3e-3, device="cpu", progress=False)
    assert hist.train_loss[-1] < 0.5 * hist.train_loss[0]
    assert hist.examples == [96] * 6 and hist.steps[-1] == 72


def test_decoder_learns_a_tiny_copy_task() -> None:
    g = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(6):
        ids = torch.randint(4, 12, (16, 4), generator=g)
        lens = torch.full((16,), 4)
        batches.append((ids, lens))
    torch.manual_seed(0)
    enc = TransformerSentenceEncoder(12, d_model=16, n_heads=2, n_layers=1, max_len=8, dropout=0.0)
    dec = LSTMDecoder(12, enc.output_dim, bos_id=2, eos_id=3, embed_dim=16, hidden_dim=32, n_layers=1)
    model = Seq2Seq(enc, dec)
    hist = fit(model, lambda m, b: seq2seq_loss(m, b[0], b[1], b[0], b[1]), batches, epochs=25, lr=1e-2, device="cpu",
               progress=False)
    assert hist.train_loss[-1] < 0.35 * hist.train_loss[0]
    model.eval()
    out, out_len = model.greedy_decode(*batches[0], max_len=6)
    assert (out[:, :4] == batches[0][0]).float().mean() > 0.7


def test_bad_arguments_raise_clearly() -> None:
    model, batches = linear_task()
    with pytest.raises(ValueError, match="only on CUDA"):
        fit(model, ce_loss, batches, device="cpu", amp="bf16", progress=False)
    with pytest.raises(TypeError, match="one-shot iterator"):
        fit(model, ce_loss, iter(batches), epochs=2, progress=False)
    with pytest.raises(ValueError, match="dev_fn"):
        fit(model, ce_loss, batches, patience=2, progress=False)
    with pytest.raises(ValueError, match="optimizer"):
        fit(model, ce_loss, batches, optimizer="rmsprop", progress=False)
    with pytest.raises(TypeError, match="scalar"):
        fit(model, lambda m, b: m(b[0]), batches, device="cpu", progress=False)
    hist = fit(model, ce_loss, lambda epoch: batches[:epoch], epochs=2, device="cpu", amp="auto", progress=False)
    assert hist.steps == [1, 3], "a callable gets the epoch number"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_cuda_mixed_precision_trains() -> None:
    model, batches = mlm_setup()
    hist = fit(model, mlm_step, batches * 4, epochs=4, lr=3e-3, device="cuda", amp="bf16", progress=False)
    assert hist.device.startswith("cuda") and hist.train_loss[-1] < hist.train_loss[0]
    model, batches = mlm_setup()
    hist16 = fit(model, mlm_step, batches * 4, epochs=4, lr=3e-3, device="cuda", amp="fp16", progress=False)
    assert hist16.train_loss[-1] < hist16.train_loss[0]
