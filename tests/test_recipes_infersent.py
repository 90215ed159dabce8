"""Chapter 3's recipe: the profiles, the size sweep, the claims as data, and the chapter's figures."""
from __future__ import annotations


import numpy as np
import pytest
import torch

from xsent_lib.data.formats import NLIData
from xsent_lib.data.nli_corpus import NLICorpus
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.word_setup import WordSetup, build_word_setup
from xsent_lib.eval.suite import SuiteSizes
from xsent_lib.eval.transfer_suite import transfer_suite
from xsent_lib.recipes import infersent as rec
from xsent_lib.results.claims import check_claims
from xsent_lib.train.nli import SEVEN, InferSentConfig


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """These models are tiny: one thread avoids synchronising two for microsecond kernels."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def world() -> SyntheticWorld:
    return SyntheticWorld(7)


@pytest.fixture(scope="module")
def easy_corpus(world: SyntheticWorld) -> NLICorpus:
    """Entailment = the premise itself, contradiction = its negation, neutral = an unrelated sentence."""

    def split(n: int, name: str) -> NLIData:
        pairs = world.nli(12 * n, name)
        neg = [(p, h) for p, h, s in zip(pairs.premise, pairs.hypothesis, pairs.strategy) if s == "negation"][:n]
        premises = [p for p, _ in neg]
        unrelated = list(pairs.premise[len(neg) : 2 * len(neg)])
        labels = np.repeat([0, 2, 1], len(neg))
        return NLIData(premises * 3, premises + [h for _, h in neg] + unrelated, labels)

    return NLICorpus(split(100, "train"), split(20, "dev"), split(20, "test"), "easy")


@pytest.fixture(scope="module")
def words(easy_corpus: NLICorpus) -> WordSetup:
    return build_word_setup(easy_corpus.sentences() + ["an unseen zebra ."], None, dim=12, seed=0)


def test_size_sweep_gives_one_point_per_width(words: WordSetup, easy_corpus: NLICorpus):
    suite = transfer_suite(seed=11, sizes=SuiteSizes(single=60, nli=(30, 10, 10), sts=(30, 10, 20)), real=False)
    reused = {"name": "bilstm-max", "width": 8, "dim": 16, "nli_dev": 50.0, "nli_test": 50.0, "micro": 1.0,
              "macro": 1.0, "seconds": 0.0, "reused": False}
    config = InferSentConfig(epochs=1)
    points = rec.size_sweep("bilstm-max", (8, 4), easy_corpus, words, suite, config, device="cpu", seed=0,
                            done={8: reused})
    assert [p["dim"] for p in points] == [8, 16] and [p["reused"] for p in points] == [False, True]
    assert points[1]["micro"] == 1.0 and 0.0 <= points[0]["micro"] <= 100.0
    with pytest.raises(ValueError, match="distinct"):
        rec.size_sweep("bilstm-max", (4, 4), easy_corpus, words, suite, config)


def test_claims_follow_the_numbers():
    t36 = {rec.PAPER_ROWS[n]: {"NLI test": 50.0 + i, "Transfer micro": 60.0 + i} for i, n in enumerate(SEVEN)}
    row = {"MR": 70.0, "SICK-E": 60.0, "STS14 Pearson": 0.5}
    t37 = {"trained": row, "untrained": {k: v / 2 for k, v in row.items()}, "bow": {k: v - 1 for k, v in row.items()}}
    sweep = [{"dim": 8, "micro": 50.0}, {"dim": 16, "micro": 55.0}]
    mp = {"untrained": {"boundary": 30.0, "content": 40.0, "content_tokens": 50.0},
          "trained": {"boundary": 20.0, "content": 60.0, "content_tokens": 50.0}}
    ours = rec.infersent_numbers(t36, t37, sweep, mp, {"trained": {"Image R@1": 5.0}, "bow": {"Image R@1": 4.0}})
    assert ours["best other NLI test"] == 55.0 and ours["lowest other NLI test"] == 50.0  # HConvNet; LSTM
    assert ours["trained mean accuracy"] == 65.0 and ours["untrained mean accuracy"] == 32.5  # MR, SICK-E
    claims = check_claims(rec.INFERSENT_CLAIMS, ours)
    verdicts = {c["claim"]: c["holds"] for c in claims}
    assert verdicts["BiLSTM-Max has the best NLI test accuracy of the seven"] is True
    assert verdicts["BiLSTM-Mean has the lowest NLI test accuracy of the seven"] is False  # LSTM is lowest here
    assert all(verdicts.values()) is False and sum(verdicts.values()) == len(claims) - 1
    assert claims[0]["paper"].startswith("84.5 (table 3_6, BiLSTM-Max / NLI test)")  # read from the stored table
    short = rec.infersent_numbers(t36, t37, sweep[:1], mp, {})
    untested = {c["claim"] for c in check_claims(rec.INFERSENT_CLAIMS, short) if c["holds"] is None}
    assert untested == {"Transfer (micro) grows with the embedding size (BiLSTM-Max)",
                        "NLI-trained sentence vectors beat a weaker pretrained baseline on retrieval"}


def test_profiles_are_typed_and_grow_from_smoke_to_full():
    assert list(rec.PROFILES) == ["smoke", "book", "full"]
    smoke, book, full = rec.PROFILES.values()
    assert smoke.width < book.width < full.width == 2048 and full.epochs == 20  # the thesis's size and budget
    assert max(full.sweep) == full.width and isinstance(full.suite, SuiteSizes)
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
