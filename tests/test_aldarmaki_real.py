"""Chapter 7 (Aldarmaki & Diab) on real bitext: the plan's sizes, the bitext split and preparation, Europarl from a
data_dir with the cache as fallback, the real-bitext run and records, the teacher targets and the real claims."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from xsent_lib.data.held_out_bitext import load_real_bitext, prepare_text, split_bitext
from xsent_lib.eval.alignment_curves import curve_table
from xsent_lib.eval.alignment_runs import run_real_seed, teacher_record
from xsent_lib.recipes import aldarmaki as rec
from xsent_lib.results.curve_numbers import real_claim_numbers
from xsent_lib.train.bitext_frameworks import english_teacher_vectors

pytestmark = pytest.mark.usefixtures("one_thread")

TINY = replace(rec.REAL_SMOKE, sizes=(40, 80), seeds=(0,), n_test=20, n_mono=60, n_mono_joint=20, max_pairs=140)


def _load(plan: rec.RealPlan, data_dir: Path | None = None, **kwargs):
    return load_real_bitext(plan.languages, rec.REAL_CURVE_BITEXTS, n_test=plan.n_test, max_len=plan.max_len,
                            max_pairs=plan.max_pairs, data_dir=data_dir, **kwargs)


def test_curve_sizes_double_to_the_most_the_bitext_allows():
    assert rec.REAL_FULL.curve_sizes(98_000) == [1000 * 2**k for k in range(7)]
    assert rec.REAL_BOOK.curve_sizes(5000) == [1000, 2000, 4000]
    assert rec.REAL_BOOK.curve_sizes(2500) == [1000, 2000]
    assert rec.REAL_BOOK.curve_sizes(500) == [500]  # less than the first size: one point at what there is
    assert len(rec.REAL_BOOK.seeds) >= 3
    with pytest.raises(ValueError, match="at least 2 training pairs"):
        rec.REAL_BOOK.curve_sizes(1)
    with pytest.raises(ValueError, match="increasing"):
        replace(rec.REAL_BOOK, sizes=(2000, 1000))
    with pytest.raises(ValueError, match="not 'en'"):
        replace(rec.REAL_BOOK, languages=("en",))


def test_prepare_and_split_drop_repeats_and_hold_out_the_tail():
    assert prepare_text(["Hello, World and more words!"], 3) == ["hello , world"]
    with pytest.raises(ValueError, match="max_len"):
        prepare_text(["a"], 0)
    en = ["a", "b", "a", "", "c", "d", "e", "f"]
    xx = ["A", "B", "Z", "Y", "B", "D", "E", "F"]
    (tr_en, tr_x), (te_en, te_x) = split_bitext(en, xx, 2)
    assert (tr_en, tr_x) == (["a", "b", "d"], ["A", "B", "D"])  # "a" repeated, "" empty, "B" repeated: dropped
    assert (te_en, te_x) == (["e", "f"], ["E", "F"])
    assert not set(te_en) & set(tr_en)
    with pytest.raises(ValueError, match="not aligned"):
        split_bitext(["a"], [], 1)
    with pytest.raises(ValueError, match="too few"):
        split_bitext(en, xx, 5)


def _europarl(root: Path, lang: str, n: int) -> None:
    (root / "bitext").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(len(lang))
    en = [" ".join(f"w{i}" for i in rng.integers(0, 40, 6)) + f" s{k}" for k in range(n)]
    (root / "bitext" / f"europarl-v7.{lang}-en.en").write_text("\n".join(en) + "\n")
    (root / "bitext" / f"europarl-v7.{lang}-en.{lang}").write_text(
        "\n".join(" ".join(f"{lang}{t}" for t in s.split()) for s in en) + "\n")


def test_load_real_bitext_reads_europarl_from_data_dir_and_falls_back_to_the_cache(tmp_path: Path):
    _europarl(tmp_path, "fr", 200)
    data = _load(TINY, tmp_path)
    assert "Europarl" in data.source["fr"] and "data cache" in data.source["de"]
    assert len(data.test["fr"][0]) == TINY.n_test and len(data.train["fr"][0]) == TINY.max_pairs - TINY.n_test
    assert data.train["fr"][1][0].split()[0].startswith("frw")
    assert all(len(s.split()) <= TINY.max_len for side in data.train["de"] for s in side)
    # a broken Europarl pair (sides of different lengths) falls back with its reason
    (tmp_path / "bitext" / "europarl-v7.fr-en.fr").write_text("only one line\n")
    heard = []
    data = _load(TINY, tmp_path, on_fallback=lambda lang, why: heard.append((lang, why)))
    assert heard and heard[0][0] == "fr" and "not aligned" in heard[0][1]
    assert "data cache" in data.source["fr"]
    with pytest.raises(ValueError, match="no cached bitext"):
        _load(replace(TINY, languages=("xx",)), tmp_path)


@pytest.fixture(scope="module")
def real_run():
    data = _load(TINY)

    def teacher(sents: list[str]) -> np.ndarray:  # a stand-in teacher: hashed bag of words, 24-d
        out = np.zeros((len(sents), 24), np.float32)
        for i, s in enumerate(sents):
            for w in s.split():
                out[i, hash(w) % 24] += 1.0
        return out + 0.01

    tv = english_teacher_vectors(teacher, data.train, 80)
    records = run_real_seed(data, TINY, 0, teacher_vectors=tv, log=lambda _: None)
    return data, records, teacher, tv


def test_real_run_scores_every_framework_in_both_directions(real_run):
    data, records, teacher, tv = real_run
    assert {r["system"] for r in records} == set(rec.REAL_SYSTEMS)
    assert sorted({r["n"] for r in records}) == [40, 80]
    for r in records:
        assert set(r["retrieval"]) == {"en→fr", "fr→en", "en→de", "de→en"}
        assert 0.0 <= r["retrieval_avg"] <= 100.0
        assert r["retrieval_avg"] == pytest.approx(np.mean(list(r["retrieval"].values())))
    assert tv["fr"].shape == (80, 24)
    top = teacher_record(teacher, "bag", data)
    assert top["n"] is None and top["system"] == f"{rec.TEACHER_ROW} bag" and set(top["retrieval"]) == set(r["retrieval"])
    note = rec.real_stop_note(TINY, records, data)
    assert "40 to 80" in note and "1 seeds" in note
    with pytest.raises(ValueError, match="cover the first"):
        run_real_seed(data, TINY, 0, teacher_vectors={k: v[:10] for k, v in tv.items()})
    with pytest.raises(ValueError, match="no record"):
        rec.real_stop_note(TINY, [], data)


def test_real_records_draw_with_the_chapter_viz(real_run):
    from xsent_lib.viz import aldarmaki as viz

    _, records, _, _ = real_run
    fig = viz.alignment_curves(records, {"real": rec.REAL_SYSTEMS}, note="tiny")
    assert len(fig.axes[0].get_lines()) == len(rec.REAL_SYSTEMS)
    table = curve_table(records)
    assert set(table["SDAE transfer"]) == {"40", "80"}


def _rec(system: str, n: int | None, value: float, seed: int = 0) -> dict:
    return {"system": system, "n": n, "seed": seed, "retrieval_avg": value}


def test_real_claims_find_the_crossover_and_are_not_testable_with_one_size():
    records = [_rec("joint SDAE/NMT", 1000, 1.0), _rec("SDAE transfer", 1000, 5.0), _rec("SDAE mapping", 1000, 4.0),
               _rec("joint SDAE/NMT", 2000, 9.0), _rec("SDAE transfer", 2000, 8.0), _rec("SDAE mapping", 2000, 4.0),
               _rec("InfoNCE (shared BiLSTM)", 2000, 20.0)]
    nums = real_claim_numbers(records, n_test=300, systems=rec.REAL_SYSTEMS)
    assert nums.crossover_pairs == 2000.0 and nums.five_x_chance == pytest.approx(500 / 300)
    assert nums.best_trained_most == 20.0 and nums.sdae_mapping_most == 4.0
    rows = rec.REAL_CLAIM_SET.check(nums)
    assert [r["id"] for r in rows] == ["ch07.real_above_chance", "ch07.real_small_bitext_all_beat_joint",
                                       "ch07.real_joint_overtakes_transfer", "ch07.real_mapping_below_transfer"]
    assert [r["holds"] for r in rows] == [True, True, True, True]
    one = rec.REAL_CLAIM_SET.check(real_claim_numbers([r for r in records if r["n"] == 1000], systems=rec.REAL_SYSTEMS))
    holds = {r["id"]: r["holds"] for r in one} | {r["weaker id"]: r["weaker holds"] for r in one if r["weaker id"]}
    assert holds["ch07.real_above_chance"] is None  # no n_test: the chance precondition is not testable
    assert holds["ch07.real_joint_overtakes_transfer"] is None and holds["ch07.real_joint_gap_narrows"] is None
    assert holds["ch07.real_small_bitext_all_beat_joint"] is True
    assert all(r["holds"] is None for r in rec.REAL_CLAIM_SET.check(real_claim_numbers([], systems=rec.REAL_SYSTEMS)))
    with pytest.raises(ValueError, match="n_test"):
        real_claim_numbers(records, n_test=0, systems=rec.REAL_SYSTEMS)

