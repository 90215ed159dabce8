"""Table 3.7's transfer suite and aggregates, max-pool attribution and the scene stand-in for images."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.word_setup import WordSetup, build_word_setup
from xsent_lib.eval.maxpool import MaxPoolAttribution, maxpool_attribution, maxpool_summary
from xsent_lib.eval.scenes import scene_features
from xsent_lib.eval.suite import SuiteSizes
from xsent_lib.eval.transfer_suite import (
    TABLE_3_7_COLUMNS,
    aggregate_transfer,
    senteval_transfer_suite,
    transfer_row,
    transfer_suite,
)
from xsent_lib.results.paper import paper_table
from xsent_lib.train.nli import build_nli_model

# These models are tiny: one thread avoids synchronising two for microsecond kernels.
pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def words(world7: SyntheticWorld) -> WordSetup:
    nli = world7.nli(200, "train")
    return build_word_setup(list(nli.premise) + list(nli.hypothesis) + ["an unseen zebra ."], None, dim=12, seed=0)


def test_aggregates_by_hand():
    results = {"A": {"devacc": 80.0, "ndev": 100}, "B": {"devacc": 60.0, "ndev": 300}, "C": {"pearson": 0.5}}
    agg = aggregate_transfer(results)
    assert agg == {"micro": pytest.approx(65.0), "macro": pytest.approx(70.0), "n_tasks": 2}
    with pytest.raises(ValueError, match="dev accuracy"):
        aggregate_transfer({"C": {"pearson": 0.5}})


def test_transfer_row_maps_tasks_to_table_3_7_columns():
    results = {"RT-MR": {"acc": 71.0}, "Syn-Paraphrase": {"acc": 70.0, "f1": 80.0}, "Syn-Relatedness": {"pearson": 0.8},
               "Syn-STS": {"mean": {"pearson": 0.6, "spearman": 0.55}, "all": {"pearson": 0.1, "spearman": 0.1}},
               "VADER-SST2": {"acc": 60.0}, "VADER-SST5": {"acc": 1.0}}
    papers = {"RT-MR": "MR", "Syn-Paraphrase": "MRPC", "Syn-Relatedness": "SICK-R", "Syn-STS": "STS'14",
              "VADER-SST2": "SST-2", "VADER-SST5": "SST-5"}
    row = transfer_row(results, papers)
    assert row == {"MR": 71.0, "MRPC acc": 70.0, "MRPC F1": 80.0, "SICK-R": 0.8, "STS14 Pearson": 0.6,
                   "STS14 Spearman": 0.55, "SST": 60.0}
    columns = {c for cols in TABLE_3_7_COLUMNS.values() for c in cols}
    assert columns == set(paper_table("thesis", "table_3_7").columns)  # every column of Table 3.7 can be filled
    results["Syn-STSB"], papers["Syn-STSB"] = {"pearson": 0.3}, "STS-B"
    assert transfer_row(results, papers) == row  # Table 3.13's columns only when asked for
    assert transfer_row(results, papers, ("SST-5", "STS-B")) == {**row, "SST-5": 1.0, "STS-B": 0.3}


def test_extra_keeps_table_3_13_columns_and_refuses_others():
    sizes = SuiteSizes(single=60, nli=(30, 10, 10), sts=(30, 10, 20))
    fixtures = Path(__file__).parent / "fixtures" / "formats"
    real = senteval_transfer_suite(fixtures, ["MR", "SST5"], extra=("SST-5",))
    assert real.papers == {"MR": "MR", "SST5": "SST-5"} and real.extra == ("SST-5",)
    with pytest.raises(ValueError, match="not Table 3.13's"):
        transfer_suite(seed=11, sizes=sizes, real=False, extra=("TREC",))


def test_suites_keep_only_table_3_7_tasks(tmp_path):
    suite = transfer_suite(seed=11, sizes=SuiteSizes(single=60, nli=(30, 10, 10), sts=(30, 10, 20)), real=False)
    assert suite.papers == {"Syn-Polarity": "MR", "Syn-Number": "SUBJ", "Syn-NLI": "SICK-E",
                            "Syn-Paraphrase": "MRPC", "Syn-Relatedness": "SICK-R", "Syn-STS": "STS'14"}
    assert [t.name for t in suite.tasks] == list(suite.papers)
    sick_e = next(t for t in suite.tasks if t.name == "Syn-NLI").data.splits["train"]
    assert list(sick_e.first) == list(SyntheticWorld(12).nli(30, "train").premise)  # the world of seed + 1 ...
    assert list(sick_e.first) != list(SyntheticWorld(11).nli(30, "train").premise)  # ... not the training world
    fixtures = Path(__file__).parent / "fixtures" / "formats"
    real = senteval_transfer_suite(fixtures, ["MR", "MRPC", "SICKEntailment", "SST5", "STS14"])
    assert real.papers == {"MR": "MR", "MRPC": "MRPC", "SICKEntailment": "SICK-E"}  # SST-5: no column; no STS14
    assert any("STS14" in note for note in real.notes)
    with pytest.raises(FileNotFoundError, match="none of the SentEval tasks"):
        senteval_transfer_suite(tmp_path)


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


def test_maxpool_attribution_equals_brute_force_argmax(words: WordSetup):
    encoder = build_nli_model("bilstm-max", words, 8, seed=3).encoder
    sentences = ["the dog runs .", "a zebra", "the cat did not chase any dog in the garden .", ""]
    found = maxpool_attribution(encoder, sentences, batch_size=3)
    for sentence, att in zip(sentences, found):
        assert att.tokens[0] == "<s>" and att.tokens[-1] == "</s>" and len(att.tokens) == len(att.counts)
        assert att.counts.sum() == encoder.output_dim == 16
        np.testing.assert_array_equal(att.counts, _brute_force_counts(encoder, sentence))
        assert att.percent.sum() == pytest.approx(100.0)
    assert found[3].tokens == ["<s>", "<unk>", "</s>"]
    with pytest.raises(TypeError, match="max-pooling"):
        maxpool_attribution(build_nli_model("bilstm-mean", words, 8).encoder, sentences)


def test_maxpool_summary_by_hand():
    att = MaxPoolAttribution("the dog runs", ["<s>", "the", "dog", "runs", "</s>"], np.array([2, 0, 3, 1, 2]))
    out = maxpool_summary([att])
    assert out["boundary"] == pytest.approx(50.0) and out["content"] == pytest.approx(50.0)
    assert out["content_tokens"] == pytest.approx(40.0) and out["top_word"] == pytest.approx(37.5)


def test_scene_features_bind_concepts_to_roles(world7: SyntheticWorld):
    forms = world7.forms(200, "scene-test")
    feats = scene_features(forms, dim=32, seed=1)
    assert feats.shape == (200, 32) and (feats >= 0).all()
    np.testing.assert_array_equal(feats, scene_features(forms, dim=32, seed=1))
    swapped = forms.copy()
    c = swapped.clauses
    c.subj, c.obj = forms.clauses.obj.copy(), forms.clauses.subj.copy()
    main = forms.main
    changed = (forms.clauses.obj[main] >= 0) & (forms.clauses.obj[main] != forms.clauses.subj[main])
    assert changed.any()
    moved = np.abs(scene_features(swapped, dim=32, seed=1) - feats).max(1)
    assert (moved[changed] > 1e-6).all()
