"""The suite of SentEval tasks: SentEval's own files by SentEval's names, the offline stand-ins and their splits."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from xsent_lib.data.formats.containers import ClassificationTask, LabelledSentences
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.synthetic.forms import FormSampler
from xsent_lib.data.synthetic.sts import STS_CONFIG, sts_score
from xsent_lib.eval import Evaluation, RelatednessTask, batcher_from_function
from xsent_lib.eval.classifier import ClassifierConfig
from xsent_lib.eval.offline_suite import (
    PARAPHRASE_MIN_SCORE,
    offline_suite,
    real_single_tasks,
    sst_classes,
    synthetic_pair_tasks,
    synthetic_single_tasks,
)
from xsent_lib.eval.suite import (
    Suite,
    SuiteSizes,
    SuiteTask,
    as_cross_validation,
    senteval_suite,
    senteval_tasks,
    stratified_order,
    stratified_split,
    subsample_suite,
)

FIXTURES = Path(__file__).parent / "fixtures" / "formats"
SIZES = SuiteSizes(single=100, nli=(60, 20, 30), sts=(60, 20, 90))
FAST = ClassifierConfig.fast(seed=0, device="cpu")


@pytest.fixture(scope="module")
def world() -> SyntheticWorld:
    return SyntheticWorld(seed=3)


@pytest.fixture(scope="module")
def suite(world) -> Suite:
    return offline_suite(world, SIZES, real=False, protocol="split", seed=5)


def test_stratified_split_divides_every_class_by_the_fractions():
    labels = np.array([0] * 100 + [1] * 50)
    parts = stratified_split(labels, (0.6, 0.2, 0.2), seed=1)
    assert np.array_equal(np.sort(np.concatenate(parts)), np.arange(150))  # disjoint and complete
    assert [np.bincount(labels[p], minlength=2).tolist() for p in parts] == [[60, 30], [20, 10], [20, 10]]
    assert not np.array_equal(parts[2], stratified_split(labels, (0.6, 0.2, 0.2), seed=2)[2])
    with pytest.raises(ValueError, match="sum to 1"):
        stratified_split(labels, (0.5, 0.2), seed=0)


def test_stratified_order_prefixes_are_balanced_and_nested():
    labels = np.array([0] * 300 + [1] * 100)
    order = stratified_order(labels, seed=0)
    assert sorted(order.tolist()) == list(range(400))
    for n in (4, 40, 200):
        assert np.bincount(labels[order[:n]], minlength=2).tolist() == [3 * n // 4, n // 4]


def test_sst_classes_use_sst_cut_points_on_the_rescaled_rating():
    ratings = np.array([-4.0, -2.4, -2.39, -0.8, -0.79, 0.0, 0.8, 0.81, 2.4, 2.41, 4.0])
    assert sst_classes(ratings).tolist() == [0, 0, 1, 1, 2, 2, 2, 3, 3, 4, 4]
    with pytest.raises(ValueError, match="inside"):
        sst_classes(np.array([4.5]))


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
    again = offline_suite(SyntheticWorld(seed=3), SIZES, real=False, protocol="split", seed=5)
    assert again.sentences() == suite.sentences()


def test_senteval_protocol_keeps_one_split_for_cross_validation(world):
    pairs = synthetic_pair_tasks(world, SIZES, protocol="senteval")
    assert set(pairs["Syn-Paraphrase"].data.splits) == {"train", "test"}  # MRPC: CV on train, then test
    single = synthetic_single_tasks(world, 100, protocol="senteval", seed=5)
    assert all(list(t.data.splits) == ["all"] and len(t.data.splits["all"]) == 100 for t in single.tasks)
    merged = as_cross_validation(synthetic_single_tasks(world, 100, seed=5)["Syn-Number"])
    assert sorted(merged.data.splits["all"].sentences) == sorted(single["Syn-Number"].data.splits["all"].sentences)
    with pytest.raises(ValueError, match="protocol"):
        synthetic_single_tasks(world, 100, protocol="10-fold")


def test_synthetic_labels_are_exact(suite):
    for split in suite["Syn-Polarity"].data.splits.values():
        assert [" not " in s for s in split.sentences] == split.labels.astype(bool).tolist()


def test_a_negated_copy_is_never_a_paraphrase(world):
    forms = world.forms(400, "negated-copy-test", sampler=FormSampler(world.seed, STS_CONFIG))
    negated = forms.copy()
    negated.clauses.neg[negated.main] ^= 1
    scores = sts_score(forms, negated)
    assert scores.max() < PARAPHRASE_MIN_SCORE and scores.min() >= 4.0


def test_missing_corpora_leave_notes_and_synthetic_tasks_stand_in(world, tmp_path):
    real = real_single_tasks(100, cache_dir=tmp_path)
    assert real.tasks == [] and len(real.notes) == 5 and all("xsent-data fetch" in n for n in real.notes)
    fallback = offline_suite(world, SIZES, real=True, cache_dir=tmp_path)
    assert fallback["Syn-Polarity"] and any("synthetic single-sentence tasks stand in" in n for n in fallback.notes)


def test_subsample_suite_shrinks_every_split_by_the_same_fraction(suite):
    small = subsample_suite(suite, 50, seed=0)
    for big, cut in zip(suite.tasks, small.tasks):
        assert set(cut.data.splits) == set(big.data.splits) and cut.n_items <= 50 + 10 * len(big.data.splits)
    pol = small["Syn-Polarity"].data.splits
    assert {k: len(v) for k, v in pol.items()} == {"train": 30, "dev": 10, "test": 10}
    assert all(np.bincount(v.labels).tolist() == [len(v) // 2] * 2 for v in pol.values())
    assert set(small.sentences()) <= set(suite.sentences()) and "at most 50" in small.notes[-1]


def test_capped_sizes_keep_each_tasks_proportions():
    capped = SuiteSizes(single=3000, nli=(3000, 500, 1000), sts=(2000, 500, 1000)).capped(1000)
    assert capped == SuiteSizes(single=1000, nli=(666, 111, 222), sts=(571, 142, 285))
    assert SuiteSizes(single=None, nli=(40, 10, 10), sts=(100, 20, 20)).capped(60) == \
        SuiteSizes(single=60, nli=(40, 10, 10), sts=(42, 10, 10))


def test_senteval_suite_reads_the_fixture_files_with_senteval_task_names():
    suite = senteval_suite(FIXTURES, ["MR", "SST2", "MRPC", "SICKRelatedness", "STS12"])
    assert [(t.name, t.paper, t.kind) for t in suite.tasks] == [
        ("MR", "MR", "classification"), ("SST2", "SST-2", "classification"), ("MRPC", "MRPC", "pairs"),
        ("SICKRelatedness", "SICK-R", "relatedness"), ("STS12", "STS'12", "sts")]
    assert list(suite["MR"].data.splits) == ["all"] and suite["SICKRelatedness"].score_range == (1, 5)
    missing = senteval_suite(FIXTURES / "nowhere", ["MR"])
    assert missing.tasks == [] and "MR not found" in missing.notes[0]
    with pytest.raises(ValueError, match="unknown SentEval tasks"):
        senteval_suite(FIXTURES, ["MRR"])
    with pytest.raises(ValueError, match="unknown SentEval tasks"):
        senteval_suite(FIXTURES, ["SICK-E"])  # the paper's name; the loader speaks SentEval's


def test_senteval_tasks_are_the_suites_evaluators():
    tasks = senteval_tasks(FIXTURES, ["MRPC", "SICKEntailment", "STSBenchmark"])
    assert [t.name for t in tasks] == ["MRPC", "SICKEntailment", "STSBenchmark"]
    assert all(t.features == "senteval" for t in tasks)  # [|u-v|, u*v], as SentEval's code for MRPC and SICK
    with pytest.raises(FileNotFoundError):
        senteval_tasks(FIXTURES / "nowhere", ["MR"])


def _rating_task(rng, noise: float) -> ClassificationTask:
    splits = {}
    for k, n in (("train", 300), ("dev", 100), ("test", 200)):
        y = rng.uniform(-4, 4, n)
        splits[k] = LabelledSentences([f"{k}-{i}" for i in range(n)], y)
    return ClassificationTask("ratings", splits, ())


def test_relatedness_task_scores_a_rating_of_single_sentences():
    rng = np.random.default_rng(0)
    data = _rating_task(rng, 0.0)
    lookup = {s: y for split in data.splits.values() for s, y in zip(split.sentences, split.labels)}
    signal = batcher_from_function(lambda b: np.array([[lookup[s], 1.0] for s in b]) + rng.normal(0, 0.3, (len(b), 2)))
    noise = batcher_from_function(lambda b: rng.standard_normal((len(b), 2)))
    task = RelatednessTask(data, score_range=(-4, 4))
    good = Evaluation({"classifier": FAST}, signal).eval(task)
    bad = Evaluation({"classifier": FAST}, noise).eval(task)
    assert good["pearson"] > 0.95 and abs(bad["pearson"]) < 0.25 and good["ntest"] == 200
    assert task.features == "sentence" and len(task.sentences()) == 600
    as_suite = SuiteTask("ratings", None, "regression", "a rating", "test", data, score_range=(-4, 4))
    assert isinstance(as_suite.evaluator(), RelatednessTask)
    assert Evaluation({"classifier": FAST}, signal).eval(as_suite.evaluator())["n_classes"] == 9
    with pytest.raises(ValueError, match="train, dev and test"):
        RelatednessTask(ClassificationTask("x", {"all": data.splits["train"]}, ()))
