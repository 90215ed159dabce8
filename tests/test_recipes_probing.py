"""The probing recipe: probing sets (synthetic and Brown-like), training data, encoders, probes, BLEU,
multiple-comparison correction, Spearman matrix, claims and figures, on tiny inputs."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
import torch
from scipy.stats import spearmanr

from xsent_lib.data.corpora.monolingual import TaggedSentences
from xsent_lib.data.formats.containers import ClassificationTask, LabelledSentences
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.encoders.decoder import linearize_tree
from xsent_lib.recipes import probing as P
from xsent_lib.recipes import infersent as IS
from xsent_lib.recipes.infersent import NLICorpus, build_word_setup
from xsent_lib.viz import probing as V


@pytest.fixture(scope="module")
def world() -> SyntheticWorld:
    return SyntheticWorld(3)


@pytest.fixture(scope="module")
def suite(world: SyntheticWorld) -> dict[str, ClassificationTask]:
    return P.synthetic_probing_sets(world, (60, 20, 30), {"Tense": (40, 10, 20)}, tasks=("SentLen", "BShift", "Tense"))


# --------------------------------------------------------------------------------------------- probing sets
def test_synthetic_sets_have_the_asked_sizes_balanced_labels_and_disjoint_splits(suite):
    assert list(suite) == ["SentLen", "BShift", "Tense"]
    for name, task in suite.items():
        sizes = (40, 10, 20) if name == "Tense" else (60, 20, 30)
        n_classes = len(task.label_names)
        for split, n in zip(P.SPLITS, sizes):
            labels = task.splits[split].labels
            assert len(task.splits[split].sentences) == len(labels) == n
            counts = np.bincount(labels, minlength=n_classes)
            assert counts.max() - counts.min() <= 1  # balanced up to the remainder
        seen = [set(task.splits[s].sentences) for s in P.SPLITS]
        assert not (seen[0] & seen[1]) and not (seen[0] & seen[2]) and not (seen[1] & seen[2])
    # SentLen labels are the 4-word bins of the word count (punctuation excluded)
    sl = suite["SentLen"].splits["train"]
    counts = np.array([sum(any(c.isalnum() for c in tok) for tok in s.split()) for s in sl.sentences])
    assert np.array_equal((counts - 5) // 4, sl.labels)


def test_synthetic_sets_reject_unknown_tasks(world):
    with pytest.raises(ValueError, match="unknown probing tasks"):
        P.synthetic_probing_sets(world, (10, 5, 5), tasks=("SentLength",))
    with pytest.raises(ValueError, match="three positive integers"):
        P.synthetic_probing_sets(world, (10, 0, 5), tasks=("SentLen",))


def _fake_brown(n: int = 1200, seed: int = 0) -> TaggedSentences:
    """Tagged sentences with a known tense, length and vocabulary: 'the NOUN VERB the NOUN ... .'"""
    rng = np.random.default_rng(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    nouns = ["n" + letters[i // 26] + letters[i % 26] for i in range(400)]
    past = [(f"v{i}ed", "vbd") for i in range(200)]
    present = [(f"v{i}s", "vbz") for i in range(200)]
    words, tags, docs = [], [], []
    for k in range(n):
        length = int(rng.integers(5, 29))
        verb = (past if k % 2 else present)[int(rng.integers(200))]
        w = ["the", nouns[int(rng.integers(400))], verb[0]]
        t = ["at", "nn", verb[1]]
        while len(w) < length:
            w.append(nouns[int(rng.integers(400))])
            t.append("nn")
        if k % 7 == 0:  # a mixed-tense sentence: never a Tense example
            w[-1], t[-1] = present[0][0] if k % 2 else past[0][0], present[0][1] if k % 2 else past[0][1]
        words.append(w + ["."])
        tags.append(t + ["."])
        docs.append("ca01")
    return TaggedSentences(words, tags, docs)


def test_brown_sets_follow_their_definitions():
    tagged = _fake_brown(2000)
    sets = P.brown_probing_sets(tagged, (100, 15, 15), seed=1, wc_classes=5, wc_first_rank=4)
    past_forms = {f"v{i}ed" for i in range(200)}
    for name, task in sets.items():
        for split in P.SPLITS:
            counts = np.bincount(task.splits[split].labels, minlength=len(task.label_names))
            assert counts.max() - counts.min() <= 1, (name, split, counts)
    sl = sets["SentLen"].splits["test"]
    n_words = np.array([sum(any(c.isalnum() for c in t) for t in s.split()) for s in sl.sentences])
    assert np.array_equal((n_words - 5) // 4, sl.labels)
    wc = sets["WC"]
    for s, y in zip(wc.splits["train"].sentences, wc.splits["train"].labels):
        present = [w for w in s.split() if w in wc.label_names]
        assert present == [wc.label_names[y]]  # exactly one target word, and it is the class
    originals = {" ".join(w) for w in tagged.words}
    for s, y in zip(sets["BShift"].splits["train"].sentences, sets["BShift"].splits["train"].labels):
        assert (s in originals) == (y == 0)
    tense = sets["Tense"]
    verbs = []
    for split in P.SPLITS:
        forms = set()
        for s, y in zip(tense.splits[split].sentences, tense.splits[split].labels):
            verb = s.split()[2]
            assert (verb in past_forms) == (tense.label_names[y] == "past")
            forms.add(verb)
        verbs.append(forms)
    assert not (verbs[0] & verbs[1]) and not (verbs[0] & verbs[2]) and not (verbs[1] & verbs[2])


def test_brown_sets_say_when_a_class_is_short():
    with pytest.raises(ValueError, match="ask for fewer"):
        P.brown_probing_sets(_fake_brown(200), (600, 30, 30), tasks=("SentLen",))


def test_subsample_keeps_the_first_rows(suite):
    small = P.subsample_suite(suite, (6, 4, 5))
    assert small["BShift"].splits["train"].sentences == suite["BShift"].splits["train"].sentences[:6]
    assert np.array_equal(small["BShift"].splits["test"].labels, suite["BShift"].splits["test"].labels[:5])


# --------------------------------------------------------------------------------------------- training data
def test_training_corpora_pair_what_the_tasks_promise(world):
    ae = P.training_corpus(world, "autoencoder", 8, 3, 3)
    assert ae.source["train"] == ae.target["train"] and len(ae.source["dev"]) == 3
    nmt = P.training_corpus(world, "nmt-fi", 8, 3, 3)
    assert nmt.target["train"] == list(world.parallel(8, "en", "xd", "train").tgt)
    tree = P.training_corpus(world, "seq2tree", 5, 2, 2)
    forms = world.forms(5, "probing-seq2tree", "train")
    assert tree.target["train"] == [" ".join(linearize_tree(t)) for t in world.render(forms, "en", tree=True)]
    assert all(t.startswith("(S") for t in tree.target["train"])
    st = P.training_corpus(world, "skipthought", 12, 3, 3)
    docs = world.documents(3, 6, "en", "train").documents
    flat = {(d[j], d[j + 1]) for d in docs for j in range(5)}
    assert len(st.source["train"]) == 12 and all(pair in flat for pair in zip(st.source["train"], st.target["train"]))
    nli = P.training_corpus(world, "nli", 9, 3, 3)
    assert isinstance(nli, NLICorpus) and len(nli.train) == 9
    with pytest.raises(ValueError, match="unknown training task"):
        P.training_corpus(world, "nmt-xx", 5, 2, 2)


def test_bleu_matches_hand_computed_values():
    assert P.corpus_bleu(["a b c d e"], ["a b c d e"]) == pytest.approx(100.0)
    # every n-gram precision is 1, only the brevity penalty exp(1 - 8/5) remains
    assert P.corpus_bleu(["a b c d e"], ["a b c d e f g h"]) == pytest.approx(100 * np.exp(1 - 8 / 5), abs=1e-6)
    with pytest.raises(ValueError):
        P.corpus_bleu(["a"], ["a", "b"])


# --------------------------------------------------------------------------------------------- encoders and training
@pytest.fixture(scope="module")
def words(world):
    texts = world.sentences(300, "en") + world.parallel(40, "en", "xa").src
    return build_word_setup(texts, None, dim=8, seed=0)


def test_make_encoder_sizes_and_seeding(words):
    a = P.make_encoder("bilstm-max", words, 16, seed=5)
    b = P.make_encoder("bilstm-max", words, 16, seed=5)
    c = P.make_encoder("gated-convnet", words, 12, conv_layers=2, seed=5)
    assert a.output_dim == 16 and c.output_dim == 12
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))
    with pytest.raises(ValueError):
        P.make_encoder("bilstm-max", words, 15)
    with pytest.raises(ValueError):
        P.make_encoder("lstm", words, 16)


def test_train_encoder_seq2seq_records_curves_and_scores(world, words, suite):
    data = P.training_corpus(world, "nmt-fr", 40, 8, 8)
    settings = P.TrainSettings(epochs=2, batch_size=16, decoder_dim=16, decoder_embed=8, curve_points=3,
                               eval_batch_size=64)
    small = P.subsample_suite({"BShift": suite["BShift"]}, (20, 10, 10))
    run = P.train_encoder("bilstm-last", "nmt-fr", data, words, 16, settings, seed=0, device="cpu", curve_suite=small)
    untrained = P.train_encoder("bilstm-last", "untrained", None, words, 16, settings, seed=0, device="cpu")
    assert run.label == "BiLSTM-last encoder / NMT En-Fr" and run.dim == 16
    assert set(run.score) == {"perplexity", "bleu"} and run.score["perplexity"] > 1
    assert len(run.curve["x"]) == 4 and run.curve["x"][0] == 0 and np.all(np.diff(run.curve["x"]) > 0)
    assert run.curve["score_name"] == "bleu" and len(run.curve["probing"]["BShift"]) == 4
    assert len(run.history.train_loss) == 2
    changed = any(not torch.equal(p, q) for p, q in zip(run.encoder.state_dict().values(),
                                                         untrained.encoder.state_dict().values()))
    assert changed and untrained.history is None
    with pytest.raises(TypeError, match="Seq2SeqCorpus"):
        P.train_encoder("bilstm-max", "autoencoder", P.training_corpus(world, "nli", 6, 3, 3), words, 8, settings)


# --------------------------------------------------------------------------------------------- probes
def _trivial_suite(n_classes: int, sizes=(200, 60, 80), seed: int = 0) -> tuple[dict, dict]:
    """A task whose label is written one-hot into the features (plus noise): a probe must read it perfectly."""
    rng = np.random.default_rng(seed)
    splits, feats = {}, {}
    for split, n in zip(P.SPLITS, sizes):
        y = np.arange(n) % n_classes
        x = rng.normal(size=(n, n_classes + 4)).astype(np.float32)
        x[np.arange(n), y] += 8.0
        x[:, -1] = 1e-3 * rng.normal(size=n)  # tiny scale: standardisation must not turn it into a problem
        splits[split] = LabelledSentences([f"s{i}" for i in range(n)], y)
        feats[split] = x
    return {"Trivial": ClassificationTask("Trivial", splits, tuple(map(str, range(n_classes))))}, {"Trivial": feats}


@pytest.mark.parametrize("probe,n_classes", [("mlp", 3), ("logreg", 3), ("logreg", P.EXACT_MAX_CLASSES + 1)])
def test_a_probe_reads_a_trivially_encoded_label(probe, n_classes):
    suite, feats = _trivial_suite(n_classes, sizes=(100 * n_classes, 30 * n_classes, 40 * n_classes))
    acc = P.probe_features(feats, suite, probe, mode="fast", seed=0, device="cpu")
    assert acc["Trivial"] >= 97.5


def test_probe_config_choices():
    assert P.probe_config("mlp", "full").nhid == (50, 100, 200)
    assert P.probe_config("logreg", "fast").solver == "exact" and P.probe_config("logreg", "full").solver == "exact"
    assert P.probe_config("logreg", "fast", n_classes=P.EXACT_MAX_CLASSES + 1).solver == "adam"
    assert P.probe_config("mlp", "smoke").max_epochs == 3 < P.probe_config("mlp", "fast").max_epochs
    with pytest.raises(ValueError):
        P.probe_config("svm")
    with pytest.raises(ValueError, match="mode"):
        P.probe_config("mlp", "quick")


def test_suite_features_keep_the_split_order(suite, words):
    enc = P.make_encoder("bilstm-max", words, 8, seed=0)
    feats = P.suite_features(enc, suite, batch_size=7, device="cpu")
    direct = enc.encode(suite["Tense"].splits["dev"].sentences, device="cpu")
    assert np.allclose(feats["Tense"]["dev"], direct, atol=1e-6)
    assert feats["SentLen"]["train"].shape == (60, 8)


def test_baselines_know_the_majority_and_the_length(suite):
    rows = P.baseline_scores({"SentLen": suite["SentLen"]})
    assert rows[P.MAJORITY_ROW]["SentLen"] == pytest.approx(100 * 5 / 30)  # 6 balanced classes, 30 test rows
    assert rows["Baseline representations / Length"]["SentLen"] > 60  # the token count nearly decides the bin


# --------------------------------------------------------------------------------------------- correlations
def test_holm_and_bonferroni_by_hand():
    p = np.array([[0.01, 0.04], [0.03, 0.005]])
    assert np.allclose(P.adjust_pvalues(p, "holm"), [[0.03, 0.06], [0.06, 0.02]])
    assert np.allclose(P.adjust_pvalues(p, "bonferroni"), [[0.04, 0.16], [0.12, 0.02]])
    with_nan = P.adjust_pvalues(np.array([0.02, np.nan, 0.5]), "holm")
    assert np.isnan(with_nan[1]) and np.allclose(with_nan[[0, 2]], [0.04, 0.5])
    with pytest.raises(ValueError):
        P.adjust_pvalues(p, "fdr")


def test_spearman_matrix_is_symmetric_and_greys_by_the_corrected_p_values():
    n = 6
    probe = np.array([1, 2, 3, 4, 5, 6.0])
    scores = pd.DataFrame({"A": probe, "B": probe[::-1] * 2.0, "Flat": np.full(n, 50.0),
                           "X": probe * 10, "Y": np.array([2, 1, 4, 3, 6, 5.0])})
    res = P.spearman_matrix(scores, rows=["A", "B", "Flat"], cols=["X", "Y"], correction="holm", alpha=0.05)
    assert np.allclose(res.rho.to_numpy(), res.rho.to_numpy().T, equal_nan=True)
    assert res.rho.loc["A", "B"] == pytest.approx(-1.0) and res.rho.loc["A", "X"] == pytest.approx(1.0)
    r, p = spearmanr(scores["A"], scores["Y"])
    assert res.rho.loc["A", "Y"] == pytest.approx(r) and res.pvalue.loc["A", "Y"] == pytest.approx(p)
    # rho(A, Y) = 0.829, p = 0.042: significant alone, not after Holm over the 4 testable cells (Flat has none)
    assert p < 0.05
    assert res.p_adjusted.loc["A", "Y"] == pytest.approx(min(1.0, 2 * p))
    assert not res.significant.loc["A", "Y"] and res.significant.loc["A", "X"] and res.significant.loc["B", "X"]
    assert res.significant.loc["Flat"].sum() == 0 and res.p_adjusted.loc["Flat"].isna().all()
    bonf = P.spearman_matrix(scores, ["A", "B", "Flat"], ["X", "Y"], correction="bonferroni")
    assert bonf.p_adjusted.loc["A", "Y"] == pytest.approx(min(1.0, 4 * p))
    with pytest.raises(ValueError, match="not columns"):
        P.spearman_matrix(scores, ["A"], ["Z"])


# --------------------------------------------------------------------------------------------- downstream and claims
def test_downstream_columns_and_chance():
    row = {"SST": 70.0, "SICK-R": 0.5, "STS14 Pearson": 0.25, "STS14 Spearman": 0.3, "MRPC acc": 66.0, "MRPC F1": 80.0}
    assert P.downstream_scores(row) == {"SST-2": 70.0, "SICK-R": 50.0, "STS14": 25.0, "MRPC": 66.0}
    with pytest.raises(ValueError, match="TREC6"):
        P.downstream_scores({"TREC6": 1.0})

    task = type("T", (), {"name": "Syn-Polarity",
                          "splits": {"train": LabelledSentences(["a"] * 4, np.array([1, 1, 1, 0])),
                                     "test": LabelledSentences(["a"] * 5, np.array([1, 0, 0, 1, 1]))}})()
    sts = type("T", (), {"name": "Syn-STS", "splits": {}})()
    suite = IS.TransferSuite([task, sts], {"Syn-Polarity": "MR", "Syn-STS": "STS'14"}, {})
    assert P.chance_scores(suite) == {"MR": 60.0, "STS14": 0.0}


def test_claims_read_the_tables():
    tasks = {t: 50.0 for t in P.PROBING_TASKS}
    mlp = {P.MAJORITY_ROW: {**tasks, "WC": 1.0, "SentLen": 16.7},
           P.BOV_ROWS["table_3_10"]: {**tasks, "WC": 80.0, "SentLen": 60.0, "BShift": 51.0},
           "BiLSTM-max encoder / Untrained": {**tasks, "WC": 70.0, "SOMO": 60.0},
           "BiLSTM-last encoder / Untrained": {**tasks, "WC": 30.0}}
    claims = {c["claim"]: c["holds"] for c in P.probing_claims(mlp, mlp, {}, {}, None)}
    assert claims["Untrained BiLSTM-max is already strong on WC"] is True
    assert claims["Bag of vectors is near chance on BShift (word order)"] is True
    assert claims["Bag of vectors is good on SentLen and WC"] is True
    assert claims["BiLSTM-max beats BiLSTM-last (all tasks but SentLen)"] is False  # ties everywhere but WC and SOMO


def test_row_labels():
    assert P.row_label("gated-convnet", "nmt-de") == "GatedConvNet encoder / NMT En-De"
    with pytest.raises(ValueError):
        P.row_label("bilstm-max", "mlm")


# --------------------------------------------------------------------------------------------- figures
def test_correlation_figure_greys_exactly_the_non_significant_cells():
    rho = pd.DataFrame([[0.9, -0.2], [np.nan, 0.7]], index=["WC", "SentLen"], columns=["MR", "SICK-E"])
    sig = pd.DataFrame([[True, False], [False, True]], index=rho.index, columns=rho.columns)
    fig = V.correlation_matrix(rho, sig)
    colour, grey = fig.axes[0].collections  # two seaborn heatmap layers (QuadMesh)
    assert np.array_equal(np.ma.getmaskarray(colour.get_array()), ~sig.to_numpy() | rho.isna().to_numpy())
    assert np.array_equal(~np.ma.getmaskarray(grey.get_array()), ~sig.to_numpy() | rho.isna().to_numpy())
    with pytest.raises(ValueError):
        V.correlation_matrix(rho, sig.iloc[:1])


def test_curve_and_size_figures():
    curve = {"x": [0, 0.5, 1.0], "probing": {"SentLen": [50, 60, 55], "WC": [20, 30, 40]}, "score": [0, 5, 9],
             "score_name": "bleu"}
    fig = V.epoch_curves({"NMT En-Fr": curve, "SkipThought": {**curve, "score_name": "perplexity"}})
    assert len([a for a in fig.axes if a.get_title()]) == 2
    with pytest.raises(ValueError, match="one value per x"):
        V.epoch_curves({"bad": {**curve, "score": [1]}})
    fig = V.size_curves({"NLI": {64: {"WC": 10.0}, 128: {"WC": 20.0}}, "NMT En-Fr": {64: {"WC": 5.0}, 128: {"WC": 6.0}}})
    assert len(fig.axes) == 2 and list(fig.axes[0].lines[0].get_xdata()) == [64, 128]
