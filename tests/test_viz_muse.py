"""Figures of chapter 5 return matplotlib Figures with the expected panels and lines."""
from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from xsent_lib.align.adversarial import AdversarialConfig
from xsent_lib.align.toy_run import toy_run
from xsent_lib.viz import muse


def test_toy_steps_has_four_panels_and_stars_the_discriminator_batch():
    cfg = AdversarialConfig(dis_hidden=8, batch_size=8, dis_steps=1, epoch_size=80, n_epochs=1,
                            most_frequent=60, criterion_words=60)
    run = toy_run(n_points=60, n_restarts=1, config=cfg, seed=0)
    fig = muse.toy_steps(run)
    assert isinstance(fig, Figure) and len(fig.axes) == 4
    assert len(fig.axes[2].lines) == len(run.anchors)
    wrong = int((run.top1["csls"] != np.arange(60)).sum())
    assert len(fig.axes[3].lines) == wrong
    assert len(fig.axes[1].collections) == 3  # Y, W X and the starred batch


def test_criterion_vs_accuracy_with_and_without_restarts():
    history = [{"epoch": e, "criterion": 0.5 + 0.01 * e, "p@1 csls": 10.0 + e} for e in range(5)]
    fig = muse.criterion_vs_accuracy(history)
    assert len(fig.axes) == 2  # the criterion axis and its twin for P@1
    assert "r = 1.00" in fig.axes[0].get_title() and not fig.axes[0].patches
    history[-1]["stage"] = "refinement"
    assert len(muse.criterion_vs_accuracy(history).axes[0].patches) == 1  # the refinement steps are shaded
    restarts = [{"refined_criterion": 0.6, "refined p@1 csls": 30.0, "chosen": True},
                {"refined_criterion": 0.5, "refined p@1 csls": 1.0, "chosen": False}]
    fig = muse.criterion_vs_accuracy(history, restarts)
    assert len(fig.axes) == 3
    with pytest.raises(ValueError, match="epoch"):
        muse.criterion_vs_accuracy([{"epoch": 0}])


def test_hubness_draws_one_line_per_method_in_each_panel():
    counts = {"nn": np.array([5, 0, 0, 1, 0]), "csls": np.array([2, 1, 1, 1, 1])}
    fig = muse.hubness(counts)
    assert len(fig.axes) == 2 and all(len(ax.lines) == 2 for ax in fig.axes)
    ranked = fig.axes[0].lines[0].get_ydata()
    assert list(ranked) == [5, 1]  # NN: sorted non-zero counts


def test_frequency_alignment_and_precision_bars():
    res = {"buckets": ["0-1k", "1k-2k"], "nn": [90.0, 50.0], "csls": [95.0, 60.0], "n": [10, 10]}
    fig = muse.frequency_alignment({"(a) seeds": {"A vs A'": res}, "(b) models": {"x": res, "y": res}})
    assert len(fig.axes) == 2
    assert len(fig.axes[0].lines) == 2 and len(fig.axes[1].lines) == 4
    fig = muse.precision_bars({"Procrustes - NN": {"en-de": 10.0, "en-fr": 20.0},
                               "Procrustes - CSLS": {"en-de": 12.0, "en-fr": 25.0}})
    assert len(fig.axes[0].patches) == 4
