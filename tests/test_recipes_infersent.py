"""The InferSent recipe: sizes, vocabulary, batching, training, aggregates, size sweep, scenes, max-pool attribution."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from xsent_lib.data.formats import NLIData
from xsent_lib.data.formats.vectors import WordVectors
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.encoders import build_encoder
from xsent_lib.recipes import infersent as rec
from xsent_lib.recipes.senteval import SuiteSizes
from xsent_lib.results.paper import paper_table


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
def easy_corpus(world: SyntheticWorld) -> rec.NLICorpus:
    """Entailment = the premise itself, contradiction = its negation, neutral = an unrelated sentence."""

    def split(n: int, name: str) -> NLIData:
        pairs = world.nli(12 * n, name)
        neg = [(p, h) for p, h, s in zip(pairs.premise, pairs.hypothesis, pairs.strategy) if s == "negation"][:n]
        premises = [p for p, _ in neg]
        unrelated = list(pairs.premise[len(neg) : 2 * len(neg)])
        labels = np.repeat([0, 2, 1], len(neg))
        return NLIData(premises * 3, premises + [h for _, h in neg] + unrelated, labels)

    return rec.NLICorpus(split(100, "train"), split(20, "dev"), split(20, "test"), "easy")


@pytest.fixture(scope="module")
def words(easy_corpus: rec.NLICorpus) -> rec.WordSetup:
    return rec.build_word_setup(easy_corpus.sentences() + ["an unseen zebra ."], None, dim=12, seed=0)


def test_encoder_sizes_scale_the_papers_dimensions(words: rec.WordSetup):
    paper_dims = paper_table("thesis", "table_3_6")["dim"]
    for name in rec.SEVEN:
        enc = build_encoder(name, len(words.pipeline.vocab), word_dim=words.dim, **rec.encoder_size_kwargs(name, 16))
        assert enc.output_dim == paper_dims[rec.PAPER_ROWS[name]] * 16 / 2048, name
    with pytest.raises(ValueError, match="multiple of 4"):
        rec.encoder_size_kwargs("bilstm-max", 6)
    with pytest.raises(ValueError, match="unknown encoder"):
        rec.encoder_size_kwargs("transformer", 16)


def test_word_setup_with_pretrained_vectors_by_hand():
    vecs = np.arange(12, dtype=np.float32).reshape(4, 3) + 1
    glove = WordVectors(["the", "dog", "runs", "cat"], vecs, 4, 0, {"the": 0, "dog": 1, "runs": 2, "cat": 3})
    setup = rec.build_word_setup(["The dog runs .", "the zebra runs"], glove, extra_words=4, seed=3, source="toy")
    itos = setup.pipeline.vocab.itos
    assert itos[:4] == ["<pad>", "<unk>", "<s>", "</s>"]
    assert itos[4:] == ["runs", "the", "dog", "cat"]  # corpus words by count, then the extra words
    np.testing.assert_array_equal(setup.weights[4:], vecs[[2, 0, 1, 3]])
    assert not setup.weights[0].any() and setup.frozen and setup.source == "toy 3-d vectors, fixed"
    assert setup.coverage == pytest.approx(5 / 7)  # "." and "zebra" have no vector
    ids = setup.pipeline.encode(["the zebra"])[0]
    assert ids.tolist() == [2, 5, 1, 3]  # <s> the <unk> </s>
    assert setup.bow_pipeline.encode(["the zebra"])[0].tolist() == [5, 1]


def test_word_setup_without_vectors_is_trainable(words: rec.WordSetup):
    assert not words.frozen and words.coverage == 1.0 and words.weights.shape == (len(words.pipeline.vocab), 12)
    assert "zebra" in words.pipeline.vocab


def test_nli_batches_cover_every_pair_once_and_reshuffle(words: rec.WordSetup, easy_corpus: rec.NLICorpus):
    make = rec.nli_batches(words.pipeline, easy_corpus.train, batch_size=16, seed=5)
    first, again, second = make(1), make(1), make(2)
    labels = np.concatenate([b[4].numpy() for b in first])
    assert sorted(labels.tolist()) == sorted(easy_corpus.train.labels.tolist())
    lengths = np.sort(np.concatenate([b[1].numpy() for b in first]))
    expected = np.sort([len(x) for x in words.pipeline.encode(list(easy_corpus.train.premises))])
    np.testing.assert_array_equal(lengths, expected)
    assert all(torch.equal(a[0], b[0]) for a, b in zip(first, again))
    assert not all(a[0].shape == b[0].shape and torch.equal(a[0], b[0]) for a, b in zip(first, second))


def test_training_lifts_nli_accuracy_far_above_chance(words: rec.WordSetup, easy_corpus: rec.NLICorpus):
    config = rec.InferSentConfig(width=16, epochs=4)
    before = rec.nli_accuracy(rec.build_nli_model("bilstm-max", words, 16, config, seed=0), easy_corpus.test,
                              device="cpu")
    run = rec.train_nli_encoder("bilstm-max", easy_corpus, words, config, device="cpu", seed=0)
    assert run.test_acc >= 60.0 and run.test_acc >= before + 20.0, (before, run.test_acc, run.history.dev)
    assert run.dev_acc == max(d for d in run.history.dev if d is not None)
    assert run.history.lr[0] == pytest.approx(0.1)
    summary = run.summary()
    assert summary["dim"] == 32 and summary["epochs"] == len(run.history.epoch)


def test_small_encoders_run_on_one_cpu_thread():
    torch.set_num_threads(2)
    with rec.cpu_threads_for(rec.SMALL_WIDTH, "cpu"):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == 2
    with rec.cpu_threads_for(rec.SMALL_WIDTH + 1, "cpu"):
        assert torch.get_num_threads() == 2
    torch.set_num_threads(1)


def test_aggregates_by_hand():
    results = {"A": {"devacc": 80.0, "ndev": 100}, "B": {"devacc": 60.0, "ndev": 300}, "C": {"pearson": 0.5}}
    agg = rec.aggregate_transfer(results)
    assert agg == {"micro": pytest.approx(65.0), "macro": pytest.approx(70.0), "n_tasks": 2}
    with pytest.raises(ValueError, match="dev accuracy"):
        rec.aggregate_transfer({"C": {"pearson": 0.5}})


def test_transfer_row_maps_tasks_to_table_3_7_columns():
    results = {"RT-MR": {"acc": 71.0}, "Syn-Paraphrase": {"acc": 70.0, "f1": 80.0}, "Syn-Relatedness": {"pearson": 0.8},
               "Syn-STS": {"mean": {"pearson": 0.6, "spearman": 0.55}, "all": {"pearson": 0.1, "spearman": 0.1}},
               "VADER-SST2": {"acc": 60.0}, "VADER-SST5": {"acc": 1.0}}
    papers = {"RT-MR": "MR", "Syn-Paraphrase": "MRPC", "Syn-Relatedness": "SICK-R", "Syn-STS": "STS'14",
              "VADER-SST2": "SST-2", "VADER-SST5": "SST-5"}
    row = rec.transfer_row(results, papers)
    assert row == {"MR": 71.0, "MRPC acc": 70.0, "MRPC F1": 80.0, "SICK-R": 0.8, "STS14 Pearson": 0.6,
                   "STS14 Spearman": 0.55, "SST": 60.0}
    columns = {c for cols in rec.TABLE_3_7_COLUMNS.values() for c in cols}
    assert columns == set(paper_table("thesis", "table_3_7").columns)  # every column of Table 3.7 can be filled


def test_suites_keep_only_table_3_7_tasks(tmp_path):
    suite = rec.transfer_suite(seed=11, sizes=SuiteSizes(single=60, nli=(30, 10, 10), sts=(30, 10, 20)), real=False)
    assert suite.papers == {"Syn-Polarity": "MR", "Syn-Number": "SUBJ", "Syn-NLI": "SICK-E",
                            "Syn-Paraphrase": "MRPC", "Syn-Relatedness": "SICK-R", "Syn-STS": "STS'14"}
    assert [t.name for t in suite.tasks] == list(suite.papers)
    sick_e = next(t for t in suite.tasks if t.name == "Syn-NLI").data.splits["train"]
    assert list(sick_e.first) == list(SyntheticWorld(12).nli(30, "train").premise)  # the world of seed + 1 ...
    assert list(sick_e.first) != list(SyntheticWorld(11).nli(30, "train").premise)  # ... not the training world
    fixtures = Path(__file__).parent / "fixtures" / "formats"
    real = rec.senteval_transfer_suite(fixtures, ["MR", "MRPC", "SICK-E", "SST5", "STS14"])
    assert real.papers == {"MR": "MR", "MRPC": "MRPC", "SICK-E": "SICK-E"}  # SST-5 has no column, STS14 is missing
    assert any("STS14" in note for note in real.notes)
    with pytest.raises(FileNotFoundError, match="none of the SentEval tasks"):
        rec.senteval_transfer_suite(tmp_path)


def test_size_sweep_gives_one_point_per_width(words: rec.WordSetup, easy_corpus: rec.NLICorpus):
    suite = rec.transfer_suite(seed=11, sizes=SuiteSizes(single=60, nli=(30, 10, 10), sts=(30, 10, 20)), real=False)
    reused = {"name": "bilstm-max", "width": 8, "dim": 16, "nli_dev": 50.0, "nli_test": 50.0, "micro": 1.0,
              "macro": 1.0, "seconds": 0.0, "reused": False}
    config = rec.InferSentConfig(epochs=1)
    points = rec.size_sweep("bilstm-max", (8, 4), easy_corpus, words, suite, config, device="cpu", seed=0,
                            done={8: reused})
    assert [p["dim"] for p in points] == [8, 16] and [p["reused"] for p in points] == [False, True]
    assert points[1]["micro"] == 1.0 and 0.0 <= points[0]["micro"] <= 100.0
    with pytest.raises(ValueError, match="distinct"):
        rec.size_sweep("bilstm-max", (4, 4), easy_corpus, words, suite, config)


def _brute_force_counts(encoder, sentence: str) -> np.ndarray:
    ids = torch.as_tensor(encoder.pipeline.encode([sentence])[0])[None]
    with torch.no_grad():
        states, _ = encoder.states(ids, torch.tensor([ids.shape[1]]))
    states = states[0].numpy()
    counts = np.zeros(states.shape[0], np.int64)
    for d in range(states.shape[1]):
        column = states[:, d].tolist()
        counts[column.index(max(column))] += 1
    return counts


def test_maxpool_attribution_equals_brute_force_argmax(words: rec.WordSetup):
    encoder = rec.build_nli_model("bilstm-max", words, 8, seed=3).encoder
    sentences = ["the dog runs .", "a zebra", "the cat did not chase any dog in the garden .", ""]
    found = rec.maxpool_attribution(encoder, sentences, batch_size=3)
    for sentence, att in zip(sentences, found):
        assert att.tokens[0] == "<s>" and att.tokens[-1] == "</s>" and len(att.tokens) == len(att.counts)
        assert att.counts.sum() == encoder.output_dim == 16
        np.testing.assert_array_equal(att.counts, _brute_force_counts(encoder, sentence))
        assert att.percent.sum() == pytest.approx(100.0)
    assert found[3].tokens == ["<s>", "<unk>", "</s>"]
    with pytest.raises(TypeError, match="max-pooling"):
        rec.maxpool_attribution(rec.build_nli_model("bilstm-mean", words, 8).encoder, sentences)


def test_maxpool_summary_by_hand():
    att = rec.MaxPoolAttribution("the dog runs", ["<s>", "the", "dog", "runs", "</s>"], np.array([2, 0, 3, 1, 2]))
    out = rec.maxpool_summary([att])
    assert out["boundary"] == pytest.approx(50.0) and out["content"] == pytest.approx(50.0)
    assert out["content_tokens"] == pytest.approx(40.0) and out["top_word"] == pytest.approx(37.5)


def test_scene_features_bind_concepts_to_roles(world: SyntheticWorld):
    forms = world.forms(200, "scene-test")
    feats = rec.scene_features(forms, dim=32, seed=1)
    assert feats.shape == (200, 32) and (feats >= 0).all()
    np.testing.assert_array_equal(feats, rec.scene_features(forms, dim=32, seed=1))
    swapped = forms.copy()
    c = swapped.clauses
    c.subj, c.obj = forms.clauses.obj.copy(), forms.clauses.subj.copy()
    main = forms.main
    changed = (forms.clauses.obj[main] >= 0) & (forms.clauses.obj[main] != forms.clauses.subj[main])
    assert changed.any()
    moved = np.abs(rec.scene_features(swapped, dim=32, seed=1) - feats).max(1)
    assert (moved[changed] > 1e-6).all()


def test_claims_follow_the_numbers():
    t36 = {rec.PAPER_ROWS[n]: {"NLI test": 50.0 + i, "Transfer micro": 60.0 + i} for i, n in enumerate(rec.SEVEN)}
    row = {"MR": 70.0, "SICK-E": 60.0, "STS14 Pearson": 0.5}
    t37 = {"trained": row, "untrained": {k: v / 2 for k, v in row.items()}, "bow": {k: v - 1 for k, v in row.items()}}
    sweep = [{"dim": 8, "micro": 50.0}, {"dim": 16, "micro": 55.0}]
    mp = {"untrained": {"boundary": 30.0, "content": 40.0, "content_tokens": 50.0},
          "trained": {"boundary": 20.0, "content": 60.0, "content_tokens": 50.0}}
    claims = rec.infersent_claims(t36, t37, sweep, mp, {"trained": {"Image R@1": 5.0}, "bow": {"Image R@1": 4.0}})
    verdicts = {c["claim"]: c["holds"] for c in claims}
    assert verdicts["BiLSTM-Max has the best NLI test accuracy of the seven"] is True
    assert verdicts["BiLSTM-Mean has the lowest NLI test accuracy of the seven"] is False  # LSTM is lowest here
    assert all(verdicts.values()) is False and sum(verdicts.values()) == len(claims) - 1


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
