"""Chapter 2 recipes: the offline suite's tasks and splits, the baselines' vectors, the tables and the claims."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from xsent_lib.text.tokenizers import LetterTokenizer, PTBWordTokenizer, word_tokens  # noqa: E402
from xsent_lib.data.formats.containers import ClassificationTask, LabelledSentences  # noqa: E402
from xsent_lib.data.formats.vectors import WordVectors  # noqa: E402
from xsent_lib.data.synthetic import SyntheticWorld  # noqa: E402
from xsent_lib.data.synthetic.forms import FormSampler  # noqa: E402
from xsent_lib.data.synthetic.sts import STS_CONFIG, sts_score  # noqa: E402
from xsent_lib.eval import Evaluation, batcher_from_function  # noqa: E402
from xsent_lib.eval.classifier import ClassifierConfig  # noqa: E402
from xsent_lib.recipes import senteval as se
from xsent_lib.results.paper import side_by_side  # noqa: E402
from xsent_lib.viz import senteval as viz  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures" / "formats"
SIZES = se.SuiteSizes(single=100, nli=(60, 20, 30), sts=(60, 20, 90))
FAST = ClassifierConfig.fast(seed=0, device="cpu")
G = se.PAPER_GROUP + " / "


@pytest.fixture(scope="module")
def world() -> SyntheticWorld:
    return SyntheticWorld(seed=3)


@pytest.fixture(scope="module")
def suite(world) -> se.Suite:
    return se.offline_suite(world, SIZES, real=False, protocol="split", seed=5)


# --------------------------------------------------------------------------------------------- tokenisers
def test_ptb_tokenizer_splits_clitics_like_glove():
    tok = PTBWordTokenizer()
    assert tok.tokenize("Don't panic, it’s well-known!") == ["do", "n't", "panic", ",", "it", "'s", "well-known", "!"]
    assert tok.tokenize("I can't; they'll go.") == ["i", "ca", "n't", ";", "they", "'ll", "go", "."]
    assert tok.tokenize("'solid' 1990") == ["'", "solid", "'", "1990"]  # a quote is not a clitic
    with pytest.raises(TypeError):
        tok.tokenize(["not", "a", "string"])


def test_letter_tokenizer_is_the_word_vectors_tokenisation():
    text = "L'homme don't 3 cats-and-dogs."
    assert LetterTokenizer().tokenize(text) == word_tokens(text) == ["l", "homme", "don", "t", "cats", "and", "dogs"]


# --------------------------------------------------------------------------------------------- splits and bins
def test_stratified_split_divides_every_class_by_the_fractions():
    labels = np.array([0] * 100 + [1] * 50)
    parts = se.stratified_split(labels, (0.6, 0.2, 0.2), seed=1)
    assert np.array_equal(np.sort(np.concatenate(parts)), np.arange(150))  # disjoint and complete
    assert [np.bincount(labels[p], minlength=2).tolist() for p in parts] == [[60, 30], [20, 10], [20, 10]]
    assert not np.array_equal(parts[2], se.stratified_split(labels, (0.6, 0.2, 0.2), seed=2)[2])
    with pytest.raises(ValueError, match="sum to 1"):
        se.stratified_split(labels, (0.5, 0.2), seed=0)


def test_stratified_order_prefixes_are_balanced_and_nested():
    labels = np.array([0] * 300 + [1] * 100)
    order = se.stratified_order(labels, seed=0)
    assert sorted(order.tolist()) == list(range(400))
    for n in (4, 40, 200):
        assert np.bincount(labels[order[:n]], minlength=2).tolist() == [3 * n // 4, n // 4]


def test_sst_classes_use_sst_cut_points_on_the_rescaled_rating():
    ratings = np.array([-4.0, -2.4, -2.39, -0.8, -0.79, 0.0, 0.8, 0.81, 2.4, 2.41, 4.0])
    assert se.sst_classes(ratings).tolist() == [0, 0, 1, 1, 2, 2, 2, 3, 3, 4, 4]
    with pytest.raises(ValueError, match="inside"):
        se.sst_classes(np.array([4.5]))


# --------------------------------------------------------------------------------------------- the suite
def test_offline_suite_has_the_expected_tasks_and_consistent_splits(suite):
    assert [t.name for t in suite.tasks] == ["Syn-Polarity", "Syn-Number", "Syn-NLI", "Syn-Paraphrase",
                                             "Syn-Relatedness", "Syn-STS"]
    assert [t.paper for t in suite.tasks] == ["MR", "SUBJ", "SICK-E", "MRPC", "SICK-R", "STS'14"]
    for name in ("Syn-Polarity", "Syn-Number"):
        splits = suite[name].data.splits
        assert {k: len(v) for k, v in splits.items()} == {"train": 60, "dev": 20, "test": 20}
        for split in splits.values():
            assert len(split.sentences) == len(split.labels) and np.bincount(split.labels).tolist() == [len(split) // 2] * 2
    nli = suite["Syn-NLI"].data.splits
    assert {k: len(v) for k, v in nli.items()} == {"train": 60, "dev": 20, "test": 30}
    assert all(len(v.first) == len(v.second) == len(v.labels) for v in nli.values())
    assert set(np.concatenate([v.labels for v in nli.values()]).tolist()) == {0, 1, 2}
    rel, para, sts = (suite[n].data.splits for n in ("Syn-Relatedness", "Syn-Paraphrase", "Syn-STS"))
    assert np.array_equal(para["test"].labels, (rel["test"].labels >= 4.5).astype(int)) and set(para) == set(rel)
    assert sum(len(v) for v in sts.values()) == len(rel["test"]) == 90
    assert all(0 <= v.labels.min() and v.labels.max() <= 5 for v in rel.values())
    again = se.offline_suite(SyntheticWorld(seed=3), SIZES, real=False, protocol="split", seed=5)
    assert again.sentences() == suite.sentences()


def test_senteval_protocol_keeps_one_split_for_cross_validation(world):
    pairs = se.synthetic_pair_tasks(world, SIZES, protocol="senteval")
    assert set(pairs["Syn-Paraphrase"].data.splits) == {"train", "test"}  # MRPC: CV on train, then test
    single = se.synthetic_single_tasks(world, 100, protocol="senteval", seed=5)
    assert all(list(t.data.splits) == ["all"] and len(t.data.splits["all"]) == 100 for t in single.tasks)
    merged = se.as_cross_validation(se.synthetic_single_tasks(world, 100, seed=5)["Syn-Number"])
    assert sorted(merged.data.splits["all"].sentences) == sorted(single["Syn-Number"].data.splits["all"].sentences)
    with pytest.raises(ValueError, match="protocol"):
        se.synthetic_single_tasks(world, 100, protocol="10-fold")


def test_synthetic_labels_are_exact(suite):
    for split in suite["Syn-Polarity"].data.splits.values():
        assert [" not " in s for s in split.sentences] == split.labels.astype(bool).tolist()


def test_a_negated_copy_is_never_a_paraphrase(world):
    forms = world.forms(400, "negated-copy-test", sampler=FormSampler(world.seed, STS_CONFIG))
    negated = forms.copy()
    negated.clauses.neg[negated.main] ^= 1
    scores = sts_score(forms, negated)
    assert scores.max() < se.PARAPHRASE_MIN_SCORE and scores.min() >= 4.0


def test_missing_corpora_leave_notes_and_synthetic_tasks_stand_in(world, tmp_path):
    real = se.real_single_tasks(100, cache_dir=tmp_path)
    assert real.tasks == [] and len(real.notes) == 5 and all("xsent-data fetch" in n for n in real.notes)
    fallback = se.offline_suite(world, SIZES, real=True, cache_dir=tmp_path)
    assert fallback["Syn-Polarity"] and any("synthetic single-sentence tasks stand in" in n for n in fallback.notes)


def test_senteval_suite_reads_the_fixture_files_with_the_papers_names():
    suite = se.senteval_suite(FIXTURES, ["MR", "SST2", "MRPC", "SICK-R", "STS12"])
    assert [(t.name, t.kind) for t in suite.tasks] == [("MR", "classification"), ("SST-2", "classification"),
                                                     ("MRPC", "pairs"), ("SICK-R", "relatedness"), ("STS'12", "sts")]
    assert list(suite["MR"].data.splits) == ["all"] and suite["SICK-R"].score_range == (1, 5)
    missing = se.senteval_suite(FIXTURES / "nowhere", ["MR"])
    assert missing.tasks == [] and "MR not found" in missing.notes[0]
    with pytest.raises(ValueError, match="unknown SentEval tasks"):
        se.senteval_suite(FIXTURES, ["MRR"])


def test_senteval_tasks_run_under_their_own_protocols():
    suite = se.senteval_suite(FIXTURES, ["MR", "TREC", "SICK-R", "STSBenchmark"])
    floor = se.Baseline("floor", "random", 16, se.RandomSentenceEncoder(16, seed=0))
    res = se.evaluate_baseline(floor, suite.tasks, ClassifierConfig.fast(kfold=2, device="cpu"))
    assert res["MR"]["protocol"] == "nested 2-fold CV" and res["TREC"]["protocol"].startswith("2-fold CV on train")
    assert res["SICK-R"]["n_classes"] == 5 and res["STS-B"]["n_classes"] == 6  # scores 1..5 and 0..5
    assert all(-1 <= res[k]["pearson"] <= 1 for k in ("SICK-R", "STS-B"))


def test_subsample_suite_shrinks_every_split_by_the_same_fraction(suite):
    small = se.subsample_suite(suite, 50, seed=0)
    for big, cut in zip(suite.tasks, small.tasks):
        assert set(cut.data.splits) == set(big.data.splits) and cut.n_items <= 50 + 10 * len(big.data.splits)
    pol = small["Syn-Polarity"].data.splits
    assert {k: len(v) for k, v in pol.items()} == {"train": 30, "dev": 10, "test": 10}
    assert all(np.bincount(v.labels).tolist() == [len(v) // 2] * 2 for v in pol.values())
    assert set(small.sentences()) <= set(suite.sentences()) and "at most 50" in small.notes[-1]


def test_capped_sizes_keep_each_tasks_proportions():
    capped = se.SuiteSizes(single=3000, nli=(3000, 500, 1000), sts=(2000, 500, 1000)).capped(1000)
    assert capped == se.SuiteSizes(single=1000, nli=(666, 111, 222), sts=(571, 142, 285))
    assert se.SuiteSizes(single=None, nli=(40, 10, 10), sts=(100, 20, 20)).capped(60) == \
        se.SuiteSizes(single=60, nli=(40, 10, 10), sts=(42, 10, 10))


def test_suite_tables_put_the_papers_sizes_beside_ours(suite):
    t31 = se.suite_table(suite, single=True)
    assert list(t31.index) == ["Syn-Polarity", "Syn-Number"] and t31.loc["Syn-Polarity", "N"] == 100
    assert t31.loc["Syn-Polarity", "paper N"] == 11000 and t31.loc["Syn-Number", "stands in for"] == "SUBJ"
    t32 = se.suite_table(suite, single=False)
    assert t32.loc["Syn-STS", "paper N"] == 4500 and t32.loc["Syn-Relatedness", "C / output"] == "[0, 5]"
    assert t32.loc["Syn-NLI", "C / output"] == 3 and " || " in t32.loc["Syn-NLI", "example"]


# --------------------------------------------------------------------------------------------- baselines
def test_random_sentence_vectors_depend_only_on_the_sentence():
    enc = se.RandomSentenceEncoder(dim=51, seed=7)
    sents = [f"sentence number {i}" for i in range(2000)]
    x = enc.encode(sents)
    assert x.shape == (2000, 51) and x.dtype == np.float32
    assert np.array_equal(enc.encode(sents[5:7] + ["other"])[:2], x[5:7])  # batch-independent
    assert abs(x.mean()) < 0.02 and abs(x.std() - 1) < 0.02 and abs(np.corrcoef(x[:, 0], x[:, 1])[0, 1]) < 0.08
    assert not np.allclose(se.RandomSentenceEncoder(dim=51, seed=8).encode(sents[:1]), x[:1])


def test_bag_encoder_averages_known_vectors_and_sif_weighs_them():
    words = ["good", "movie", "bad"]
    vecs = np.array([[1.0, 0.0], [0.0, 2.0], [-1.0, 0.0]], np.float32)
    wv = WordVectors(words, vecs, 3, 0, {w: i for i, w in enumerate(words)})
    bag = se.bag_encoder(wv, PTBWordTokenizer())
    assert bag.output_dim == 2
    np.testing.assert_allclose(bag.encode(["Good movie", "good xyz"]), [[0.5, 1.0], [0.5, 0.0]], atol=1e-6)
    counts = {"good": 3, "movie": 1}  # p(good) = 0.75, p(movie) = 0.25, p(bad) = 0
    sif = se.bag_encoder(wv, PTBWordTokenizer(), "sif", counts=counts, sif_a=0.25)
    expected = (0.25 / 1.0 * vecs[0] + 0.25 / 0.5 * vecs[1]) / 2
    np.testing.assert_allclose(sif.encode(["good movie"])[0], expected, atol=1e-6)
    with pytest.raises(ValueError, match="counts"):
        se.bag_encoder(wv, PTBWordTokenizer(), "sif")


def test_sif_prepare_removes_the_common_direction_of_the_task(suite):
    own = WordVectors(["the", "a", "not"], np.random.default_rng(0).standard_normal((3, 8)).astype(np.float32) + 3, 3, 0,
                      {"the": 0, "a": 1, "not": 2})
    sif = se.bag_encoder(own, LetterTokenizer(), "sif", counts={"the": 5, "a": 2})
    sents = suite["Syn-Polarity"].sentences()
    se.sif_prepare(sif)(None, [s.split() for s in sents])
    pc = sif.principal_component.numpy()
    assert np.isclose(np.linalg.norm(pc), 1, atol=1e-5)
    assert np.abs(sif.encode(sents) @ pc).max() < 1e-4


def test_baselines_have_the_right_dimensions(suite, world):
    own = WordVectors(["the", "not"], np.ones((2, 6), np.float32), 2, 0, {"the": 0, "not": 1})
    glove = WordVectors(["the", "not", "cat"], np.ones((3, 4), np.float32), 3, 0, {"the": 0, "not": 1, "cat": 2})
    sents = suite.sentences()
    with_glove = se.bag_baselines(sents, own, sents[:50], glove, dim=12, seed=0)
    assert [(b.name, b.dim) for b in with_glove] == [("Random sentence vectors", 12), ("Random word vectors BoW", 12),
                                                     ("Own skip-gram BoW", 6), ("GloVe BoW", 4), ("SIF (GloVe)", 4)]
    assert all(b.encoder.encode(sents[:3]).shape == (3, b.dim) for b in with_glove)
    without = se.bag_baselines(sents, own, sents[:50], None, dim=12, seed=0)
    assert without[-1].name == "SIF (own vectors)" and without[-1].prepare is not None
    assert [b.key for b in with_glove[2:4]] == ["fastText", "GloVe"]


def test_random_vectors_score_chance_while_a_bag_of_vectors_solves_a_lexical_task(world):
    task = se.synthetic_single_tasks(world, 300, seed=1)["Syn-Polarity"]
    floor = se.Baseline("floor", "random", 50, se.RandomSentenceEncoder(50, seed=0))
    bag = se.Baseline("bag", "random", 50, se.random_bag_encoder(task.sentences(), PTBWordTokenizer(), 50, seed=0))
    chance = se.evaluate_baseline(floor, [task], FAST)[task.name]["acc"]
    lexical = se.evaluate_baseline(bag, [task], FAST)[task.name]["acc"]
    assert 35 <= chance <= 65 and lexical >= 90


def test_cached_encoder_embeds_each_distinct_sentence_once():
    calls = []

    def encode(batch):
        calls.append(list(batch))
        return np.array([[len(s), s.count("a")] for s in batch], float)

    enc = se.CachedEncoder(encode, chunk=2)
    out = enc.encode(["aa", "b", "aa", "abc"])
    assert out.tolist() == [[2, 2], [1, 0], [2, 2], [3, 1]] and enc.n_encoded == 3
    assert calls == [["aa", "b"], ["abc"]]
    assert enc.encode(["abc", "b"]).tolist() == [[3, 1], [1, 0]] and len(calls) == 2 and enc.speed > 0
    with pytest.raises(TypeError):
        enc.encode("aa")


# --------------------------------------------------------------------------------------------- the regression task
def _rating_task(rng, noise: float) -> ClassificationTask:
    splits = {}
    for k, n in (("train", 300), ("dev", 100), ("test", 200)):
        y = rng.uniform(-4, 4, n)
        splits[k] = LabelledSentences([f"{k}-{i}" for i in range(n)], y)
    return ClassificationTask("ratings", splits, ())


def test_sentence_regression_task_recovers_a_linear_rating():
    rng = np.random.default_rng(0)
    data = _rating_task(rng, 0.0)
    lookup = {s: y for split in data.splits.values() for s, y in zip(split.sentences, split.labels)}
    signal = batcher_from_function(lambda b: np.array([[lookup[s], 1.0] for s in b]) + rng.normal(0, 0.3, (len(b), 2)))
    noise = batcher_from_function(lambda b: rng.standard_normal((len(b), 2)))
    task = se.SentenceRegressionTask(data, score_range=(-4, 4))
    good = Evaluation({"classifier": FAST}, signal).eval(task)
    bad = Evaluation({"classifier": FAST}, noise).eval(task)
    assert good["pearson"] > 0.95 and abs(bad["pearson"]) < 0.25 and good["ntest"] == 200
    with pytest.raises(ValueError, match="train, dev and test"):
        se.SentenceRegressionTask(ClassificationTask("x", {"all": data.splits["train"]}, ()))
    with pytest.raises(ValueError, match="inside"):
        se.SentenceRegressionTask(data, score_range=(0, 4))


# --------------------------------------------------------------------------------------------- tables and claims
def _fake_results(suite):
    res = {}
    for name, base in (("Random sentence vectors", 50.0), ("GloVe BoW", 80.0)):
        rows = {}
        for t in suite.tasks:
            if t.kind in ("classification", "pairs"):
                rows[t.name] = {"acc": base, **({"f1": base - 5} if t.paper == "MRPC" else {})}
            elif t.kind == "sts":
                agg = {"pearson": base / 100, "spearman": 0.0}
                rows[t.name] = {"mean": agg, "wmean": agg, "all": agg, "subsets": {"short": agg}}
            else:
                rows[t.name] = {"pearson": base / 100 + 0.1}
        res[name] = {"LogReg": rows, "MLP": {k: {**v, "acc": v["acc"] + 1} for k, v in rows.items() if "acc" in v}}
    return res


def test_tables_use_the_papers_row_and_column_labels(suite):
    bl = [se.Baseline("Random sentence vectors", "random", 50, None), se.Baseline("GloVe BoW", "bag", 50, None, "GloVe")]
    res = _fake_results(suite)
    t33 = se.table_3_3_ours(bl, suite, res)
    assert t33[G + "GloVe LogReg"] == {"MR": 80.0, "SUBJ": 80.0, "SICK-E": 80.0, "MRPC acc": 80.0, "MRPC F1": 75.0}
    assert t33["Random sentence vectors MLP"]["MR"] == 51.0
    t34 = se.table_3_4_ours(bl, suite, res)
    assert t34[G + "GloVe BoW"]["STS'14"] == 0.8 and t34[G + "GloVe BoW"]["SICK-R"] == pytest.approx(0.9)
    assert t34[G + "GloVe BoW"]["Syn-STS / short"] == 0.8
    wide = side_by_side("thesis", "table_3_3", t33, paper_only_rows=True)
    assert wide.loc["GloVe LogReg", ("MR", "paper")] == 77.4 and wide.loc["GloVe LogReg", ("MR", "ours")] == 80.0
    assert np.isnan(wide.loc["Random sentence vectors LogReg", ("MR", "paper")])
    assert wide.loc["SkipThought", ("MR", "paper")] == 79.4 and np.isnan(wide.loc["SkipThought", ("MR", "ours")])


def test_claims_are_computed_from_the_rows():
    t33 = {G + "GloVe LogReg": {"MR": 70.0, "SUBJ": 80.0}, G + "GloVe MLP": {"MR": 71.0, "SUBJ": 81.0},
           "Random sentence vectors LogReg": {"MR": 50.0, "SUBJ": 50.0}}
    ref = {G + "GloVe LogReg": {"MR": 70.0, "SUBJ": 80.0}, G + "GloVe MLP": {"MR": 73.0, "SUBJ": 83.0},
           "USE LogReg": {"MR": 78.0, "SUBJ": 84.0}, "USE MLP": {"MR": 78.0, "SUBJ": 85.0}}
    t34 = {G + "GloVe BoW": {"STS'14": 0.5, "SICK-R": 0.7}, G + "fastText BoW": {"STS'14": 0.6, "SICK-R": 0.6}}
    by_text = {c["claim"]: c for c in se.senteval_claims(t33, t34, {"GloVe": 50, "USE": 512}, ref)}
    bag = by_text["A bag of word vectors is within 5 points of the best sentence encoder (mean accuracy)"]
    assert bag["ours"].startswith("USE - GloVe BoW = +6.0") and bag["holds"] is False  # (78 + 84 - 70 - 80) / 2
    mlp = by_text["An MLP adds at most 2 points over logistic regression (mean over tasks)"]
    assert mlp["ours"] == "GloVe +3.0, USE +0.5" and mlp["holds"] is False  # the sub-suite's rows come first
    size = by_text["For the largest embedding an MLP gains nothing over LogReg (at most +0.5 point)"]
    assert size["holds"] is True and size["ours"] == "USE (512-d) +0.5; GloVe (50-d) +3.0"
    assert se.senteval_claims(t33, t34, {"GloVe": 50})[1]["ours"] == "GloVe +1.0"
    assert by_text["Word vectors trained like fastText beat GloVe on unsupervised STS"]["holds"] is True
    assert by_text["Cosine STS scores below a trained relatedness head on the same kind of pairs"]["holds"] is True
    assert by_text["Every baseline beats content-free random vectors by a wide margin (>= 5 points)"]["holds"] is True
    alone = se.senteval_claims(t33, t34, {"GloVe": 50})
    assert alone[0]["holds"] is None


# --------------------------------------------------------------------------------------------- figures
def test_figures_draw_what_they_are_given():
    fig = viz.score_heatmap({"a": {"MR": 70.0, "CR": 60.0}, "b": {"MR": 80.0}}, "t")
    assert isinstance(fig, Figure) and len(fig.axes[0].texts) == 3  # the missing cell stays blank
    gain = viz.mlp_gain({"a": {"MR": 70.0, "CR": 60.0}}, {"a": {"MR": 72.0, "CR": 61.0}}, {"a": 50})
    assert gain.axes[0].patches[0].get_height() == pytest.approx(1.5)
    rng = np.random.default_rng(0)
    pts = {"short": {"cosine": rng.random(20), "gold": rng.random(20) * 5}, "long": {"cosine": rng.random(9), "gold": rng.random(9)}}
    scat = viz.sts_scatter(pts)
    assert len(scat.axes[0].get_legend().get_texts()) == 2 and "n = 20" in scat.axes[0].get_legend().get_texts()[0].get_text()
    speed = viz.speed_vs_score({"a": 10.0, "b": 1e5}, {"a": 80.0, "b": 70.0})
    assert speed.axes[0].get_xscale() == "log" and len(speed.axes[0].texts) == 2
    for bad in (lambda: viz.score_heatmap({}), lambda: viz.mlp_gain({"a": {}}, {"b": {"x": 1.0}}, {}),
                lambda: viz.sts_scatter({"x": {"cosine": np.ones(1), "gold": np.ones(1)}})):
        with pytest.raises(ValueError):
            bad()
    matplotlib.pyplot.close("all")
