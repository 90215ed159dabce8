"""A SentEval script runs unchanged on our engine: task names, SentEval's params, SentEval's result dicts.

The script part below is written as SentEval's README and ``examples/bow.py`` write it; only the import differs.
The fixture data is in SentEval's folder layout (``tests/fixtures/formats``: ``downstream/`` and ``probing/``).
"""
from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr
from sklearn.linear_model import LogisticRegression

from xsent_lib import eval as senteval  # the one line a SentEval script changes
from xsent_lib.data.formats.containers import ClassificationTask, LabelledSentences
from xsent_lib.eval.engine import Evaluation
from xsent_lib.eval.transfer import TransferTask

PATH_TO_DATA = str(Path(__file__).parent / "fixtures" / "formats")
DIM = 16


# ------------------------------------------------------------------ SentEval-style script (unchanged)
def create_dictionary(sentences):
    words = {}
    for s in sentences:
        for word in s:
            words[word] = words.get(word, 0) + 1
    id2word = sorted(words, key=lambda w: -words[w])
    return id2word, {w: i for i, w in enumerate(id2word)}


def word_vector(word):
    return np.random.default_rng(sum(map(ord, word)) * 7919 + len(word)).standard_normal(DIM)


def prepare(params, samples):
    _, params.word2id = create_dictionary(samples)
    params.word_vec = {w: word_vector(w) for w in params.word2id}
    params.wvec_dim = DIM


def batcher(params, batch):
    batch = [sent if sent != [] else ["."] for sent in batch]
    embeddings = []
    for sent in batch:
        sentvec = [params.word_vec[w] for w in sent if w in params.word_vec] or [np.zeros(params.wvec_dim)]
        embeddings.append(np.mean(sentvec, 0))
    return np.vstack(embeddings)


TRANSFER = ["MR", "CR", "MPQA", "SST2", "SST5", "TREC", "MRPC", "SICKEntailment", "SICKRelatedness", "STSBenchmark",
            "SNLI", "STS13"]
PROBING = ["Length", "WordContent", "Depth", "TopConstituents", "BigramShift", "Tense", "SubjNumber", "ObjNumber",
           "OddManOut", "CoordinationInversion"]


@pytest.fixture(scope="module")
def script_run():
    params_senteval = {"task_path": PATH_TO_DATA, "usepytorch": True, "kfold": 2}
    params_senteval["classifier"] = {"nhid": 0, "optim": "rmsprop", "batch_size": 128, "tenacity": 3, "epoch_size": 2}
    se = senteval.engine.SE(params_senteval, batcher, prepare)
    results = se.eval(TRANSFER + PROBING)
    return se, results


# ------------------------------------------------------------------ checks
def _lines(*parts):
    return len([ln for ln in Path(PATH_TO_DATA, *parts).read_text(encoding="latin-1").splitlines() if ln.strip()])


def test_the_script_returns_senteval_keys_and_layout(script_run):
    se, results = script_run
    assert list(results) == TRANSFER + PROBING and se.results is results
    for name in ("MR", "CR", "MPQA", "SST2", "SST5", "TREC", "SICKEntailment", "SNLI", *PROBING):
        assert set(results[name]) == {"devacc", "acc", "ndev", "ntest"}, name
    assert set(results["MRPC"]) == {"devacc", "acc", "f1", "ndev", "ntest"}
    for name in ("SICKRelatedness", "STSBenchmark"):
        assert set(results[name]) == {"devpearson", "pearson", "spearman", "mse", "yhat", "ndev", "ntest"}
        assert len(results[name]["yhat"]) == results[name]["ntest"]
    sts = results["STS13"]
    assert set(sts) == {"FNWN", "headlines", "OnWN", "all"}
    assert set(sts["all"]) == {"pearson", "spearman"} and set(sts["all"]["pearson"]) == {"mean", "wmean"}
    for name in results:
        for key in ("devacc", "acc", "f1"):
            if key in results[name]:
                value = results[name][key]
                assert 0 <= value <= 100 and value == round(value, 2), (name, key, value)


def test_the_script_counts_items_as_senteval_does(script_run):
    _, results = script_run
    n_mr = _lines("downstream", "MR", "rt-polarity.pos") + _lines("downstream", "MR", "rt-polarity.neg")
    assert results["MR"]["ndev"] == results["MR"]["ntest"] == n_mr  # nested CV: every sentence is tested once
    assert results["TREC"]["ndev"] == _lines("downstream", "TREC", "train_5500.label")
    assert results["TREC"]["ntest"] == _lines("downstream", "TREC", "TREC_10.label")
    assert results["SICKEntailment"]["ndev"] == _lines("downstream", "SICK", "SICK_trial.txt") - 1  # header
    assert results["SNLI"]["ndev"] == _lines("downstream", "SNLI", "s1.dev")
    assert results["SNLI"]["ntest"] == _lines("downstream", "SNLI", "labels.test")
    assert results["Tense"]["ntest"] == sum(ln.startswith("te\t") for ln in
                                            Path(PATH_TO_DATA, "probing", "past_present.txt").read_text().splitlines())


def test_sts_values_are_the_cosine_correlations_senteval_computes(script_run):
    se, results = script_run
    from xsent_lib.data.formats.sts import load_sts

    data = load_sts(PATH_TO_DATA, "STS13")
    corpus = [s.split() for p in data.splits.values() for s in (*p.first, *p.second)]
    params = senteval.engine.Params()
    prepare(params, corpus)
    rs, ns = [], []
    for key, pairs in data.splits.items():
        u = batcher(params, [s.split() for s in pairs.first])
        v = batcher(params, [s.split() for s in pairs.second])
        cos = (u * v).sum(1) / np.linalg.norm(u, axis=1) / np.linalg.norm(v, axis=1)
        want_p, want_s = pearsonr(cos, pairs.labels), spearmanr(cos, pairs.labels)
        got = results["STS13"][key]
        assert got["pearson"][0] == pytest.approx(want_p[0], abs=1e-6)
        assert got["pearson"][1] == pytest.approx(want_p[1], abs=1e-6)
        assert got["spearman"][0] == pytest.approx(want_s[0], abs=1e-6)
        assert got["nsamples"] == len(pairs.labels)
        rs.append(want_p[0])
        ns.append(len(pairs.labels))
    assert results["STS13"]["all"]["pearson"]["mean"] == pytest.approx(np.mean(rs), abs=1e-6)
    assert results["STS13"]["all"]["pearson"]["wmean"] == pytest.approx(np.average(rs, weights=ns), abs=1e-6)


def test_the_script_settings_are_honoured(script_run):
    se, _ = script_run
    assert se.details["MR"]["protocol"] == "nested 2-fold CV"  # kfold as given, not replaced
    assert se.details["TREC"]["protocol"].startswith("2-fold CV on train")
    assert se.details["SICKEntailment"]["features"] == "senteval"  # SentEval's [|u-v|, u*v]
    assert se.details["MRPC"]["features"] == "senteval" and se.details["SNLI"]["features"] == "full"
    assert se.details["SICKRelatedness"]["features"] == "senteval"
    assert se.params.current_task == "CoordinationInversion"
    assert any("relatedness regressor" in n for n in se.notes)


def test_unknown_names_and_unsupported_params_are_refused():
    se = senteval.engine.SE({"task_path": PATH_TO_DATA}, batcher, prepare)
    with pytest.raises(ValueError, match="unknown SentEval task 'MRR'"):
        se.eval("MRR")
    with pytest.raises(ValueError, match="ImageCaptionRetrieval.*not supported"):
        se.eval(["ImageCaptionRetrieval"])
    with pytest.raises(FileNotFoundError, match="task_path"):
        senteval.engine.SE({}, batcher, prepare).eval("MR")
    with pytest.raises(ValueError, match="Drop 'mode'"):
        senteval.engine.SE({"task_path": PATH_TO_DATA, "mode": "fast"}, batcher)
    with pytest.raises(ValueError, match="needs 'nhid'"):
        senteval.engine.SE({"classifier": {"optim": "adam"}}, batcher)
    with pytest.raises(TypeError, match="usepytorch"):
        senteval.engine.SE({"usepytorch": "yes"}, batcher)
    with pytest.raises(TypeError, match="similarity"):
        senteval.engine.SE({"similarity": 3}, batcher)
    with pytest.raises(ValueError, match="kfold"):
        Evaluation({"kfold": 1}, batcher)


def _vector_task(rng, n_classes, sizes=(240, 80, 80), dim=8, name="vec"):
    """A split task whose sentence 'sK' is row K of a fixed matrix (so the batcher is a lookup)."""
    centers = rng.standard_normal((n_classes, dim))
    total = sum(sizes)
    labels = rng.integers(0, n_classes, total)
    x = centers[labels] * 0.6 + rng.standard_normal((total, dim))
    cut = np.cumsum((0, *sizes))
    splits = {k: LabelledSentences([f"s{i}" for i in range(a, b)], labels[a:b])
              for k, a, b in zip(("train", "dev", "test"), cut[:-1], cut[1:])}
    return ClassificationTask(name, splits, tuple(str(c) for c in range(n_classes))), x, labels, cut


@pytest.mark.parametrize("n_classes", [2, 3])
def test_usepytorch_false_is_sentevals_sklearn_logistic_regression(n_classes):
    rng = np.random.default_rng(n_classes)
    data, x, y, cut = _vector_task(rng, n_classes)
    lookup = lambda params, batch: np.vstack([x[int(s[0][1:])] for s in batch])  # noqa: E731
    ours = Evaluation({"usepytorch": False, "classifier": {"nhid": 0}}, lookup).eval(TransferTask(data))
    # SentEval's SplitClassifier with usepytorch=False, written out
    tr, dv, te = (slice(a, b) for a, b in zip(cut[:-1], cut[1:]))
    scores, models = [], []
    for c in [2.0 ** t for t in range(-2, 4)]:
        clf = LogisticRegression(C=c, random_state=1111, max_iter=1000).fit(x[tr], y[tr])
        scores.append(round(100 * clf.score(x[dv], y[dv]), 2))
        models.append(clf)
    best = int(np.argmax(scores))
    assert ours["devacc"] == pytest.approx(scores[best], abs=0.6)
    assert ours["acc"] == pytest.approx(100 * models[best].score(x[te], y[te]), abs=1.3)


def test_kfold_is_never_replaced_silently(caplog):
    rng = np.random.default_rng(5)
    data, x, _, _ = _vector_task(rng, 2, sizes=(200, 40, 40))
    merged = ClassificationTask("cv", {"all": LabelledSentences(
        [s for p in data.splits.values() for s in p.sentences], np.concatenate([p.labels for p in data.splits.values()]))},
        data.label_names)
    lookup = lambda params, batch: np.vstack([x[int(s[0][1:])] for s in batch])  # noqa: E731
    with caplog.at_level(logging.INFO, logger="xsent_lib.eval"):
        ev = Evaluation({"kfold": 10, "mode": "fast"}, lookup)
        res = ev.eval(TransferTask(merged))
    assert res["protocol"] == "nested 10-fold CV" and len(res["fold_acc"]) == 10
    assert any("kfold=10" in n for n in ev.notes) and any("kfold=10" in r.message for r in caplog.records)
    default = Evaluation({"mode": "fast"}, lookup)
    assert default.classifier_config().kfold == 5 and any("5 folds" in n for n in default.notes)
    se = senteval.engine.SE({"kfold": 10}, lookup)
    assert se.eval(TransferTask(merged))["protocol"] == "nested 10-fold CV"
