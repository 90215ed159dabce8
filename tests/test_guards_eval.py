"""No wrong number passes silently: inputs that used to give a wrong score, NaN or a crash deep in numpy/torch
now give a clear error (or the right number). One section per probe of the issue."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from xsent_lib.align.procrustes import SentenceMapping, apply_map
from xsent_lib.base.neighbors import csls_knn, l2_normalize
from xsent_lib.base.runtime import LIBRARY_MAX_SEED, MAX_SEED, check_seed, seed_everything
from xsent_lib.chapter import start_chapter
from xsent_lib.data.formats import DataFormatError, load_task
from xsent_lib.data.formats.containers import PairTask, SentencePairs
from xsent_lib.encoders.baselines import RandomSentenceEncoder, random_bag_encoder
from xsent_lib.eval.bitext import select_threshold
from xsent_lib.eval.classifier import ClassifierConfig
from xsent_lib.eval.engine import Evaluation
from xsent_lib.eval.protocols import cv_then_test, nested_cv, stratified_folds
from xsent_lib.eval.retrieval import ranking_metrics
from xsent_lib.eval.scenes import scene_ranking_task
from xsent_lib.eval.sts import STSTask, correlations
from xsent_lib.eval.suite import senteval_suite
from xsent_lib.eval.transfer import RelatednessTask, transfer_aggregates
from xsent_lib.recipes import senteval as se
from xsent_lib.results.claims import Absent
from xsent_lib.results.paper import side_by_side
from xsent_lib.text.tokenizers import PTBWordTokenizer

FIXTURES = Path(__file__).parent / "fixtures" / "formats"
MR = FIXTURES / "downstream" / "MR"


def _mr_copy(tmp_path: Path) -> Path:
    """A data_dir holding only SentEval's MR folder (the fixture's two files)."""
    shutil.copytree(MR, tmp_path / "downstream" / "MR")
    return tmp_path


# --- 1. SentEval folders: one class, undecodable bytes --------------------------------------------------------

def test_mr_with_an_empty_class_file_is_refused_naming_it(tmp_path):
    data_dir = _mr_copy(tmp_path)
    (data_dir / "downstream" / "MR" / "rt-polarity.neg").write_bytes(b"")
    with pytest.raises(DataFormatError, match=r"rt-polarity\.neg.*no sentences.*both classes"):
        load_task("MR", data_dir)


def test_random_bytes_are_not_read_as_latin1_sentences(tmp_path):
    data_dir = _mr_copy(tmp_path)
    bad = data_dir / "downstream" / "MR" / "rt-polarity.neg"
    bad.write_bytes(np.random.default_rng(0).integers(0, 256, 2000, dtype=np.uint8).tobytes())
    with pytest.raises(DataFormatError, match=r"rt-polarity\.neg: line \d+: expected text.*control character"):
        load_task("MR", data_dir)


def test_latin1_text_with_tabs_and_crlf_still_reads(tmp_path):
    data_dir = _mr_copy(tmp_path)
    (data_dir / "downstream" / "MR" / "rt-polarity.neg").write_bytes("na\xefve\tplot .\r\ndull .\r\n".encode("latin-1"))
    assert load_task("MR", data_dir).splits["all"].sentences[-2:] == ["na\xefve\tplot .", "dull ."]


def test_protocols_refuse_a_single_class():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((40, 4)), np.ones(40, np.int64)
    cfg = ClassifierConfig.fast(kfold=2)
    with pytest.raises(ValueError, match=r"only one class \(1\).*two classes"):
        nested_cv(x, y, 2, cfg)
    with pytest.raises(ValueError, match=r"y_train.*only one class"):
        cv_then_test(x, y, x, y, 2, cfg)


# --- 2. degenerate scores: collapsed encoders, NaN aggregates, empty test splits ------------------------------

def _pairs(n: int, seed: int, low: float = 0.0, high: float = 5.0) -> SentencePairs:
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(30)]
    first = [" ".join(rng.choice(words, 4)) for _ in range(n)]
    second = [" ".join(rng.choice(words, 4)) for _ in range(n)]
    return SentencePairs(first, second, rng.uniform(low, high, n))


def _collapsed(params, batch) -> np.ndarray:
    """Every vector a positive multiple of one vector: all cosines are 1 up to rounding."""
    scale = np.array([1.0 + (sum(map(ord, " ".join(s))) % 97) / 7.0 for s in batch])
    return scale[:, None] * np.array([0.3, -1.7, 2.9, 0.11])


def test_sts_with_a_collapsed_encoder_is_refused_like_a_constant_one():
    task = STSTask(PairTask("STS-collapsed", {"news": _pairs(60, 0)}))
    with pytest.raises(ValueError, match=r"subset 'news'.*predictions are constant.*undefined"):
        Evaluation({}, _collapsed).eval(task)


def test_correlations_tolerance_is_relative_and_keeps_real_spreads():
    gold = np.arange(5.0)
    with pytest.raises(ValueError, match="predictions are constant"):
        correlations(1.0 + np.array([0, 1, -1, 2, 0]) * 1e-16, gold, name="x")
    assert correlations(1e-9 * np.arange(5.0), gold)["pearson"] == pytest.approx(1.0)
    assert correlations(1.0 + 1e-4 * np.arange(5.0), gold)["pearson"] == pytest.approx(1.0)


def test_relatedness_with_a_constant_encoder_is_refused_not_nan():
    data = PairTask("SICK-const", {"train": _pairs(60, 1, 1, 5), "dev": _pairs(30, 2, 1, 5),
                                   "test": _pairs(30, 3, 1, 5)})
    ev = Evaluation({"mode": "fast", "kfold": 2}, lambda params, batch: np.ones((len(batch), 4)))
    with pytest.raises(ValueError, match=r"SICK-const test.*predictions are constant"):
        ev.eval(RelatednessTask(data, score_range=(1, 5)))


def test_transfer_aggregates_refuse_a_nan_score_naming_the_task():
    results = {"MR": {"acc": 70.0, "ntest": 100}, "SICKRelatedness": {"pearson": float("nan"), "ntest": 50}}
    with pytest.raises(ValueError, match=r"'SICKRelatedness'.*pearson.*nan"):
        transfer_aggregates(results, key="test")
    with pytest.raises(ValueError, match=r"'MR'.*devacc.*inf"):
        transfer_aggregates({"MR": {"devacc": float("inf"), "ndev": 10}})


def test_cv_then_test_refuses_an_empty_test_split():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((40, 4)), np.arange(40) % 2
    with pytest.raises(ValueError, match=r"x_test has no rows.*empty"):
        cv_then_test(x, y, np.zeros((0, 4)), np.zeros(0, np.int64), 2, ClassifierConfig.fast(kfold=2))


# --- 3. retrieval ranks: ties count against the query, NaN and empty inputs refused -----------------------------

def test_a_constant_similarity_matrix_ranks_every_gold_last():
    m = ranking_metrics(np.zeros((4, 4)), np.arange(4))
    assert m["query_to_item"]["r@1"] == 0.0 and m["query_to_item"]["medr"] == 4.0
    assert m["item_to_query"]["r@1"] == 0.0 and m["item_to_query"]["medr"] == 4.0


def test_ties_between_captions_of_the_same_item_do_not_count_against_it():
    sim = np.array([[0.5, 0.1], [0.5, 0.2], [0.5, 0.9]])  # captions 0 and 1 (item 0) tie with caption 2
    m = ranking_metrics(sim, np.array([0, 0, 1]), ks=(1, 2))
    assert m["item_to_query"]["r@1"] == 50.0 and m["item_to_query"]["medr"] == 1.5  # item 0: rank 2, item 1: 1
    assert m["query_to_item"]["r@1"] == 100.0


def test_ranking_metrics_refuse_nan_and_empty_input():
    sim = np.eye(3)
    sim[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"row 1 \(query 1\).*NaN"):
        ranking_metrics(sim, np.arange(3))
    with pytest.raises(ValueError, match=r"no queries"):
        ranking_metrics(np.zeros((0, 3)), np.zeros(0, np.int64))


def test_a_constant_encoder_gets_no_caption_retrieval_on_the_scenes(world):
    task = scene_ranking_task(world, 30, 10, 20, dim=16)
    task.dim, task.epochs = 8, 2
    res = Evaluation({"seed": 1111}, lambda params, batch: np.ones((len(batch), 6))).eval(task)
    assert res["item_to_query"]["r@1"] == 0.0  # every caption ties: no scene finds its caption
    assert res["query_to_item"]["r@1"] <= 100 / 20  # all queries rank the scenes alike: one at most is first


# --- 4. classifier settings, seeds and thresholds are checked where they enter ---------------------------------

@pytest.mark.parametrize("field, value", [("l2", (1e-4, float("nan"))), ("l2", (float("inf"),)), ("l2", (-1e-3,)),
                                          ("lr", float("nan")), ("lr", float("inf")), ("lr", 0.0), ("lr", -1e-3),
                                          ("dropout", (float("nan"),)), ("validation_split", float("nan"))])
def test_classifier_config_refuses_non_finite_or_wrong_signed_floats(field, value):
    with pytest.raises(ValueError, match=rf"{field}.*got"):
        ClassifierConfig(**{field: value})


@pytest.mark.parametrize("seed", [-1, 2**32, 1.0, "7", True, None])
def test_classifier_config_seed_must_be_an_int_in_range(seed):
    with pytest.raises(ValueError, match=r"ClassifierConfig\.seed must be a non-negative integer in \[0, 2\*\*32 - 1"):
        ClassifierConfig(seed=seed)


def test_stratified_folds_refuses_a_seed_numpy_cannot_take():
    for seed in ("7", -1, 2.5):
        with pytest.raises(ValueError, match=r"stratified_folds seed must be a non-negative integer in \[0, 2\*\*64"):
            stratified_folds(np.arange(10) % 2, 2, seed)
    np.testing.assert_array_equal(stratified_folds(np.arange(10) % 2, 2, np.int64(7)),
                                  stratified_folds(np.arange(10) % 2, 2, 7))


def test_select_threshold_refuses_nan_scores():
    pairs = np.array([[0, 0], [1, 1], [2, 2]])
    with pytest.raises(ValueError, match=r"scores.*NaN.*candidate 1"):
        select_threshold(pairs, np.array([0.9, np.nan, 0.2]), pairs[:2])
    with pytest.raises(ValueError, match=r"one score per candidate pair"):
        select_threshold(pairs, np.array([0.9, 0.2]), pairs[:2])


# --- 6. a seed must leave room for the offsets the chapters add -------------------------------------------------

@pytest.mark.parametrize("seed", [2**64 - 1, 2**31, -1])
def test_chapter_refuses_a_seed_without_room_for_its_offsets(seed, tmp_path):
    with pytest.raises(ValueError, match=r"seed must be a non-negative integer in \[0, 2\*\*31 - 1\]"):
        start_chapter("guards", profile="smoke", device="cpu", seed=seed, results_dir=str(tmp_path))


def test_largest_chapter_seed_leaves_room_for_the_seeds_derived_from_it():
    assert check_seed(MAX_SEED) == 2**31 - 1
    seed_everything(MAX_SEED + 2)  # joint.py seeds its heads with seed + 1 and seed + 2
    ClassifierConfig(seed=MAX_SEED + 1)
    assert MAX_SEED + 10_000 <= LIBRARY_MAX_SEED  # gensim's per-language seeds (seed + crc32 % 10000) stay 32-bit


# --- 5. neighbours and maps: huge rows keep their direction, non-finite rows are named --------------------------

def test_a_huge_float32_row_keeps_its_direction_in_csls():
    rng = np.random.default_rng(0)
    src, tgt = rng.standard_normal((6, 8)).astype(np.float32), rng.standard_normal((6, 8)).astype(np.float32)
    huge = src.copy()
    huge[2] *= np.float32(1e30)  # its squared norm overflows float32
    unit = l2_normalize(huge)
    np.testing.assert_allclose(unit[2], src[2] / np.linalg.norm(src[2]), rtol=1e-6)
    np.testing.assert_array_equal(np.delete(unit, 2, 0), np.delete(l2_normalize(src), 2, 0))
    searched = [csls_knn(x, tgt, k_neighbors=3, use_faiss=False) for x in (huge, src)]
    np.testing.assert_array_equal(searched[0][1], searched[1][1])
    np.testing.assert_allclose(searched[0][0], searched[1][0], rtol=1e-5)


def test_neighbour_search_names_the_first_non_finite_row():
    x = np.ones((4, 3), np.float32)
    x[3, 1] = np.inf
    with pytest.raises(ValueError, match=r"src row 3 holds NaN or infinite values"):
        csls_knn(x, np.ones((4, 3), np.float32), k_neighbors=2, use_faiss=False)


def test_maps_refuse_nan_rows_naming_the_first():
    x = np.eye(3)
    x[1, 0] = np.nan
    with pytest.raises(ValueError, match=r"X row 1 holds NaN or infinite values"):
        apply_map(x, np.eye(3))
    with pytest.raises(ValueError, match=r"W .*NaN or infinite"):
        apply_map(np.eye(3), np.full((3, 3), np.nan))
    rng = np.random.default_rng(0)
    mapping = SentenceMapping().fit(rng.standard_normal((20, 3)), rng.standard_normal((20, 3)))
    with pytest.raises(ValueError, match=r"src row 1 holds NaN or infinite values"):
        mapping.transform(x)
    with pytest.raises(ValueError, match=r"tgt row 1 holds NaN or infinite values"):
        mapping.transform_target(x)


# --- 7. chapter 2's tables with a data_dir holding only MR ------------------------------------------------------

def test_senteval_tables_work_with_a_data_dir_holding_only_mr(tmp_path):
    suite = senteval_suite(_mr_copy(tmp_path))
    assert [t.name for t in suite.tasks] == ["MR"] and any(n.startswith("SST2 not found") for n in suite.notes)
    assert list(se.suite_table(suite, single=True).index) == ["MR"]
    pairs = se.suite_table(suite, single=False)
    assert pairs.empty and pairs.index.name == "task" and "paper N" in pairs.columns
    floor = se.Baseline("Random sentence vectors", "random", 8, RandomSentenceEncoder(8, seed=0))
    config = ClassifierConfig.fast(kfold=2, device="cpu")
    results = se.run_baselines([floor], suite, {"LogReg": config, "MLP": config}, mlp_for=[floor.name], seed=0)
    t33, t34 = se.table_3_3_ours([floor], suite, results), se.table_3_4_ours([floor], suite, results)
    assert list(t33["Random sentence vectors LogReg"]) == ["MR"] and t34 == {}
    assert side_by_side("thesis", "table_3_3", t33, paper_only_rows=True).shape[0] >= 1
    numbers = se.senteval_numbers(t33, t34, {"random": 8})
    assert isinstance(numbers.bag_sts, Absent) and isinstance(numbers.sts_columns_compared, Absent)
    rows = se.CLAIM_SET.check(numbers)
    untestable = {r["id"] for r in rows if r["holds"] is None}
    assert {"ch02.cosine_below_trained_head", "ch02.fasttext_beats_glove_sts"} <= untestable


def test_senteval_tables_work_with_a_data_dir_holding_only_sts_b(tmp_path):
    stsb = Path("downstream", "STS", "STSBenchmark")
    shutil.copytree(FIXTURES / stsb, tmp_path / stsb)
    suite = senteval_suite(tmp_path)
    assert [t.name for t in suite.tasks] == ["STSBenchmark"] and se.suite_table(suite, single=True).empty
    words = random_bag_encoder(suite.sentences(), PTBWordTokenizer(), 8)
    bag = se.Baseline("Random word vectors BoW", "bag", 8, words)
    config = ClassifierConfig.fast(kfold=2, device="cpu")
    results = se.run_baselines([bag], suite, {"LogReg": config, "MLP": config}, mlp_for=[bag.name], seed=0)
    assert "MLP" not in results[bag.name] and se.table_3_3_ours([bag], suite, results) == {}
    assert list(se.table_3_4_ours([bag], suite, results)["Random word vectors BoW"]) == ["STS-B"]
