"""Settings and the supervised / unsupervised pipelines of chapter 5 on planted rotations, and the 2-D toy."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.align import pipeline as pl
from xsent_lib.align import setting as st
from xsent_lib.align import toy_run as tr
from xsent_lib.align.adversarial import AdversarialConfig
from xsent_lib.align.toy import planted_rotation
from xsent_lib.data import word_spaces as ws
from xsent_lib.eval import word_maps as wt

pytestmark = pytest.mark.usefixtures("one_thread")


def planted_setting(n: int = 400, dim: int = 12, noise: float = 0.02, angle: float | None = None,
                    seed: int = 0) -> st.WordTranslationSetting:
    """Word ``s<i>`` translates to ``t<i>``; the target space is the source rotated (plus noise)."""
    p = planted_rotation(n, dim, noise=noise, max_angle_degrees=angle, seed=seed)
    src = ws.make_space("xs", [f"s{i}" for i in range(n)], p.src)
    tgt = ws.make_space("xt", [f"t{i}" for i in range(n)], p.tgt)
    pairs = [(f"s{i}", f"t{i}") for i in range(n)]
    rng = np.random.default_rng(seed)
    test = set(rng.choice(n, n // 5, replace=False).tolist())
    return st.make_setting(src, tgt, [p for i, p in enumerate(pairs) if i not in test],
                             [p for i, p in enumerate(pairs) if i in test], dictionary="planted", n_train=None)


def test_make_setting_keeps_frequent_training_words_and_disjoint_test_words():
    words = [f"w{i}" for i in range(10)]
    space = ws.make_space("a", words, np.random.default_rng(0).normal(size=(10, 4)))
    train = [("w0", "w1"), ("w0", "w2"), ("w3", "w3"), ("w5", "w5"), ("w8", "w8"), ("zz", "w1")]
    test = [("w5", "w6"), ("w9", "w9")]
    s = st.make_setting(space, space, train, test, dictionary="toy", n_train=2, n_test=None)
    assert set(s.test[:, 0]) == {5, 9}
    assert set(s.train[:, 0]) == {0, 3}  # w5 is a test word; of the rest the 2 most frequent are kept
    assert len(s.train) == 3  # both translations of w0 stay
    assert s.coverage["train_pairs_in"] == 6 and s.coverage["test_source_words"] == 2
    with pytest.raises(ValueError, match="no test pair"):
        st.make_setting(space, space, train, [("zz", "w1")], dictionary="toy")


def test_supervised_procrustes_recovers_a_planted_rotation():
    s = planted_setting()
    res = wt.evaluate_map(s, pl.supervised_map(s), ks=(1, 5))
    assert res["nn"]["p@1"] > 95 and res["csls"]["p@1"] > 95 and res["n_queries"] == 80
    assert pl.criterion_of(s, pl.supervised_map(s), n_words=100) > pl.criterion_of(s, np.eye(12), n_words=100)


def test_run_adversarial_records_every_epoch_and_keeps_the_best_criterion():
    s = planted_setting(n=300, dim=6, angle=10.0)
    cfg = AdversarialConfig(dis_hidden=32, batch_size=32, dis_steps=1, epoch_size=32 * 20, n_epochs=3,
                            most_frequent=300, criterion_words=100)
    seen = []
    run = pl.run_adversarial(s.src.vectors, s.tgt.vectors, cfg, seed=0,
                               monitor=lambda W: seen.append(W.shape) or {"probe": 1.0})
    assert [h["epoch"] for h in run.history] == [0, 1, 2] and seen == [(6, 6)] * 3
    crits = [h["criterion"] for h in run.history]
    assert run.best_epoch == int(np.argmax(crits)) and run.best_criterion == max(crits)
    assert all(h["probe"] == 1.0 for h in run.history)
    assert run.history[1]["lr"] < run.history[0]["lr"]  # decay (and halving when the criterion drops)
    with pytest.raises(ValueError, match="init"):
        pl.run_adversarial(s.src.vectors, s.tgt.vectors, cfg, seed=0, init=np.eye(3))


def test_unsupervised_align_selects_the_restart_with_the_best_refined_criterion():
    s = planted_setting(n=400, dim=6, noise=0.01, angle=20.0)
    cfg = AdversarialConfig(dis_hidden=32, batch_size=32, dis_steps=1, epoch_size=32 * 30, n_epochs=2,
                            most_frequent=400, criterion_words=200)
    res = pl.unsupervised_align(s, cfg, n_restarts=3, init="random", refine_iters=2, max_rank=400,
                                monitor=wt.p1_monitor(s))
    crits = [r["refined_criterion"] for r in res.restarts]
    assert res.chosen == int(np.argmax(crits)) and [r["chosen"] for r in res.restarts].count(True) == 1
    assert [r["start"] for r in res.restarts] == ["identity", "random", "random"]
    # started 20 degrees from the answer, adversarial + refinement lands on it
    assert wt.evaluate_map(s, res.W, methods=("csls",), ks=(1,))["csls"]["p@1"] > 90
    assert res.restarts[res.chosen]["refined p@1 csls"] > 90


def test_identity_and_identical_string_pairs():
    a = ws.LanguageSpace("a", ["the", "piano", "chat"], np.eye(3, dtype=np.float32))
    b = ws.LanguageSpace("b", ["piano", "le", "the"], np.eye(3, dtype=np.float32))
    np.testing.assert_array_equal(st.shared_identity_pairs(a, b), [[0, 2], [1, 0]])
    np.testing.assert_array_equal(st.identical_string_pairs(a, b, max_rank=2), [[1, 0]])


def test_identical_strings_map_recovers_a_rotation_from_shared_spellings_only():
    p = planted_rotation(300, 8, noise=0.02, seed=4)  # any angle: the start comes from the spellings
    words = [f"w{i}" for i in range(300)]
    same = st.make_setting(ws.make_space("xs", words, p.src), ws.make_space("xt", words, p.tgt),
                           [(w, w) for w in words[:200]], [(w, w) for w in words[200:]], dictionary="identity",
                           n_train=None)
    n, ref = pl.identical_strings_map(same, refine_iters=1, max_rank=300, criterion_words=200)
    assert n == 300 and ref is not None
    assert wt.evaluate_map(same, ref.W, methods=("csls",), ks=(1,))["csls"]["p@1"] > 95.0
    n, ref = pl.identical_strings_map(planted_setting(n=300, dim=8), max_rank=300)
    assert (n, ref) == (0, None)  # s<i> / t<i>: nothing spelled alike, no map


def test_toy_run_follows_every_step_and_selects_by_the_criterion():
    cfg = AdversarialConfig(dis_hidden=16, batch_size=16, dis_steps=1, epoch_size=16 * 20, n_epochs=2,
                            most_frequent=120, criterion_words=120)
    run = tr.toy_run(n_points=120, n_restarts=2, config=cfg, seed=0)
    assert run.W_adversarial.shape == (2, 2) and run.anchors.shape[1] == 2 and len(run.discriminator_batch) == 16
    assert run.chosen == int(np.argmax([r["refined_criterion"] for r in run.restarts]))
    assert set(run.top1) == {"nn", "csls"} and run.top1["csls"].shape == (120,)
    assert tr.rotation_angle(np.array([[0.0, -1.0], [1.0, 0.0]])) == pytest.approx(90.0)


def test_unsupervised_align_without_a_monitor_never_scores_the_test_pairs():
    s = planted_setting(n=200, dim=4, angle=10.0)
    cfg = AdversarialConfig(dis_hidden=8, batch_size=16, dis_steps=1, epoch_size=16 * 5, n_epochs=1,
                            most_frequent=200, criterion_words=100)
    res = pl.unsupervised_align(s, cfg, n_restarts=1, refine_iters=1, max_rank=200)
    assert not any(k.startswith(("adv p@1", "refined p@1")) for k in res.restarts[0])
    with pytest.raises(ValueError, match="n_restarts"):
        pl.unsupervised_align(s, cfg, n_restarts=0)


def test_refinement_basin_recovers_a_small_turn_and_records_the_monitor():
    s = planted_setting(n=300, dim=6, noise=0.01)
    W = pl.supervised_map(s)
    calls = []

    def monitor(M: np.ndarray) -> dict:
        calls.append(M.shape)
        return {"p@1 csls": wt.evaluate_map(s, M, methods=("csls",), ks=(1,))["csls"]["p@1"]}

    out = pl.refinement_basin(s, W, [10.0], monitor, refine_iters=2, max_rank=300, align_vocab=None,
                              criterion_words=100)
    assert len(calls) == 2 and list(out[0]) == ["angle", "start p@1 csls", "refined p@1 csls", "start criterion",
                                                "refined criterion"]
    assert out[0]["refined p@1 csls"] > 90
    R = pl.rotate_every_plane(np.eye(6), 30.0, seed=0)
    np.testing.assert_allclose(R @ R.T, np.eye(6), atol=1e-5)
    cos = np.diag(R)  # every basis vector turned by 30 degrees
    np.testing.assert_allclose(cos, np.cos(np.radians(30.0)), atol=1e-5)


def test_reverse_direction_starts_from_the_transposed_forward_map():
    s = planted_setting(n=300, dim=6, noise=0.01, angle=15.0)
    cfg = AdversarialConfig(dis_hidden=8, batch_size=16, dis_steps=1, epoch_size=16 * 5, n_epochs=1,
                            most_frequent=300, criterion_words=100)
    fwd = pl.unsupervised_align(s, cfg, n_restarts=1, refine_iters=1, max_rank=300)
    back = st.WordTranslationSetting(s.tgt, s.src, s.train[:, ::-1].copy(), s.test[:, ::-1].copy(), "back")
    rev = pl.reverse_direction(back, fwd, refine_iters=1, max_rank=300, criterion_words=100)
    np.testing.assert_allclose(rev.W_adversarial, fwd.W_adversarial.T)
    assert rev.restarts[0]["start"] == "transposed forward map" and rev.chosen == fwd.chosen
