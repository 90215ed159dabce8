"""Chapter 3's recipe: the profiles, the size sweep, the claims as data, and the chapter's figures."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.data.nli_corpus import NLICorpus
from xsent_lib.data.word_setup import WordSetup
from xsent_lib.eval.suite import SuiteSizes
from xsent_lib.eval.transfer_suite import transfer_suite
from xsent_lib.recipes import infersent as rec
from xsent_lib.train.nli import SEVEN, InferSentConfig

# These models are tiny: one thread avoids synchronising two for microsecond kernels.
pytestmark = pytest.mark.usefixtures("one_thread")


def test_size_sweep_gives_one_point_per_width(easy_words: WordSetup, easy_corpus: NLICorpus):
    suite = transfer_suite(seed=11, sizes=SuiteSizes(single=60, nli=(30, 10, 10), sts=(30, 10, 20)), real=False)
    reused = {"name": "bilstm-max", "width": 8, "dim": 16, "nli_dev": 50.0, "nli_test": 50.0, "micro": 1.0,
              "macro": 1.0, "seconds": 0.0, "reused": False}
    config = InferSentConfig(epochs=1)
    points = rec.size_sweep("bilstm-max", (8, 4), easy_corpus, easy_words, suite, config, device="cpu", seed=0,
                            done={8: reused})
    assert [p["dim"] for p in points] == [8, 16] and [p["reused"] for p in points] == [False, True]
    assert points[1]["micro"] == 1.0 and 0.0 <= points[0]["micro"] <= 100.0
    with pytest.raises(ValueError, match="distinct"):
        rec.size_sweep("bilstm-max", (4, 4), easy_corpus, easy_words, suite, config)


def _claim_inputs():
    t36 = {rec.PAPER_ROWS[n]: {"NLI test": 50.0 + i, "Transfer micro": 60.0 + i, "Transfer macro": 59.0 + i}
           for i, n in enumerate(SEVEN)}
    cols = dict.fromkeys(rec.TABLE_3_7_MAIN, 70.0)
    cols.update({"SICK-R": 0.8, "STS14 Pearson": 0.5})
    untrained = {k: v / 2 for k, v in cols.items()}
    untrained["SUBJ"] = 71.0  # the untrained encoder above the trained one on one column
    t37 = {"trained": cols, "untrained": untrained, "bow": {k: v - 0.01 for k, v in cols.items()}}
    # seven curves: all rise but LSTM; the three the thesis names rise most
    sweeps = {rec.PAPER_ROWS[n]: [{"dim": 8, "micro": 50.0}, {"dim": 16, "micro": 50.0 + rise}]
              for n, rise in zip(SEVEN, (-1.0, 1.0, 1.0, 1.0, 5.0, 5.0, 5.0))}
    mp = {"untrained": {"boundary": 30.0, "content": 40.0, "content_tokens": 50.0},
          "trained": {"boundary": 20.0, "content": 60.0, "content_tokens": 50.0}}
    ranking = {"trained": {"Caption R@1": 6.0, "Image R@1": 5.0}, "bow": {"Caption R@1": 7.0, "Image R@1": 4.0}}
    return t36, t37, sweeps, mp, ranking


def test_claims_follow_the_numbers_strictly_with_the_weaker_form_beside():
    t36, t37, sweeps, mp, ranking = _claim_inputs()
    ours = rec.infersent_numbers(t36, t37, sweeps, mp, ranking)
    assert ours.best_other_nli_test == 55.0 and ours.lowest_other_nli_test == 50.0  # HConvNet; LSTM
    assert ours.table_3_7_columns_compared == 10 and ours.columns_trained_above_untrained == 9
    assert ours.columns_trained_above_bow == 10
    assert ours.models_rising_with_size == 6 and ours.models_swept_but_one == 6
    rows = {c["claim"]: c for c in rec.CLAIM_SET.check(ours)}
    every_untrained = next(c for k, c in rows.items() if "untrained on every column" in k)
    assert every_untrained["holds"] is False and every_untrained["weaker holds"] is True  # 9/10; mean above
    assert every_untrained["verdict"] == "fails; the weaker form holds"
    assert "above on 10/10 columns of Table 3.7 (SUBJ included)" in every_untrained["paper"]  # stored Table 3.7
    assert next(c for k, c in rows.items() if "GloVe bag of words on every column" in k)["holds"] is True
    best = next(c for k, c in rows.items() if "performs best on both SNLI and transfer" in k)
    assert best["holds"] is True and best["paper"].startswith("84.5 (table 3_6, BiLSTM-Max / NLI test)")
    assert next(c for k, c in rows.items() if "BiLSTM-Mean has the lowest" in k)["holds"] is False
    assert next(c for k, c in rows.items() if "almost all models" in k)["holds"] is True  # 6 of 7 rise
    assert next(c for k, c in rows.items() if "particularly true" in k)["holds"] is True
    assert next(c for k, c in rows.items() if "caption retrieval" in k)["holds"] is False  # caption R@1 below
    assert not any("every task but SUBJ" in c["claim"] + c["paper"] + c["ours"] for c in rows.values())


def test_claims_about_curves_need_all_seven_and_untested_stays_none():
    t36, t37, sweeps, mp, _ = _claim_inputs()
    only_max = rec.infersent_numbers(t36, t37, sweeps["BiLSTM-Max"], mp, {})  # the old single curve
    rows = {c["claim"]: c for c in rec.CLAIM_SET.check(only_max)}
    size = next(c for k, c in rows.items() if "almost all models" in k)
    assert size["holds"] is None and size["weaker holds"] is True  # BiLSTM-Max's own curve rises
    assert size["verdict"] == "not testable here; the weaker form holds"
    untested = {k for k, c in rows.items() if c["holds"] is None}
    assert len(untested) == 3 and any("caption retrieval" in k for k in untested)
    assert all(c["holds"] is not True for c in rows.values() if c["claim"] in untested)


def test_the_thesis_passes_its_tables_claims_and_its_figures_are_absent():
    rows = {r["id"]: r for r in rec.CLAIM_SET.on_paper()}
    assert rows["ch03.bilstm_max_best"]["holds"] is True and rows["ch03.beats_untrained"]["holds"] is True
    assert rows["ch03.size_helps_almost_all"]["holds"] is None  # Figure 3.5 is a plot
    assert "Figure 3.5" in rows["ch03.size_helps_almost_all"]["ours"]


def test_a_method_that_gives_no_number_fails_the_claim():
    t36, t37, sweeps, mp, ranking = _claim_inputs()
    ranking["trained"]["Caption R@1"] = float("nan")
    rows = {r["id"]: r for r in rec.CLAIM_SET.check(rec.infersent_numbers(t36, t37, sweeps, mp, ranking))}
    assert rows["ch03.retrieval_beats_pretrained"]["holds"] is False


def test_figure_3_5_sweeps_reuses_the_main_runs_and_refuses_unknown_names(easy_words: WordSetup,
                                                                          easy_corpus: NLICorpus):
    suite = transfer_suite(seed=11, sizes=SuiteSizes(single=60, nli=(30, 10, 10), sts=(30, 10, 20)), real=False)
    config = InferSentConfig(epochs=1)
    from xsent_lib.train.nli import train_nli_encoder
    runs = {n: train_nli_encoder(n, easy_corpus, easy_words, config, width=8, device="cpu", seed=0)
            for n in ("lstm", "bilstm-max")}
    transfers = {n: {"micro": 1.0, "macro": 2.0} for n in runs}
    curves = rec.figure_3_5_sweeps(runs, transfers, {"lstm": (4,)}, easy_corpus, easy_words, suite, config,
                                   device="cpu", seed=0)
    assert [p["dim"] for p in curves["LSTM"]] == [4, 8] and [p["reused"] for p in curves["LSTM"]] == [False, True]
    assert [p["dim"] for p in curves["BiLSTM-Max"]] == [16] and curves["BiLSTM-Max"][0]["micro"] == 1.0
    with pytest.raises(ValueError, match="without a main run"):
        rec.figure_3_5_sweeps(runs, transfers, {"gru": (4,)}, easy_corpus, easy_words, suite, config)


def test_profiles_are_typed_and_grow_from_smoke_to_full():
    assert list(rec.PROFILES) == ["smoke", "book", "gpu", "full"]
    smoke, book, gpu, full = rec.PROFILES.values()
    assert book.width < gpu.width < full.width and book.n_train < gpu.n_train < full.n_train
    assert smoke.width < book.width < full.width == 2048 and full.epochs == 20  # the thesis's size and budget
    assert max(full.sweep) == full.width and isinstance(full.suite, SuiteSizes)
    for plan in rec.PROFILES.values():  # the six other curves are retrained below the main width only
        assert plan.sweep_others and max(plan.sweep_others) < plan.width
    assert set(rec.PAPER_ROWS) == set(SEVEN)


def test_maxpool_gallery_draws_the_percentages():
    from xsent_lib.viz.infersent import maxpool_bars, maxpool_gallery

    tokens = ["<s>", "a", "dog", "</s>"]
    percents = {"untrained": np.array([40.0, 10.0, 20.0, 30.0]), "trained": np.array([5.0, 5.0, 80.0, 10.0])}
    fig = maxpool_bars(tokens, percents, "s")
    axes = fig.get_axes()
    assert len(axes) == 2
    for ax, model in zip(axes, percents):
        np.testing.assert_allclose([b.get_height() for b in ax.patches], percents[model])
        assert [t.get_text() for t in ax.get_xticklabels()] == tokens
        assert ax.get_ylim()[1] == pytest.approx(88.0)  # shared scale: 1.1 x the largest bar
    with pytest.raises(ValueError, match="one per token"):
        maxpool_bars(tokens[:3], percents)
    with pytest.raises(ValueError, match="every item must give the models"):
        maxpool_gallery([{"title": "a", "tokens": tokens, "percents": percents},
                         {"title": "b", "tokens": tokens, "percents": {"trained": percents["trained"]}}])


def test_transfer_vs_size_plots_points_in_size_order():
    from xsent_lib.viz.infersent import transfer_vs_size

    points = {"BiLSTM-Max": [{"dim": 64, "micro": 70.0, "nli_dev": 60.0}, {"dim": 16, "micro": 65.0, "nli_dev": 61.0}]}
    fig = transfer_vs_size(points)
    left, right = fig.get_axes()
    x, y = left.get_lines()[0].get_data()
    assert list(x) == [16, 64] and list(y) == [65.0, 70.0]
    assert list(right.get_lines()[0].get_data()[1]) == [61.0, 60.0]
    with pytest.raises(ValueError, match="lacks"):
        transfer_vs_size({"x": [{"dim": 8}]})
