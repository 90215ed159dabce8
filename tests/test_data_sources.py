"""The real-data mechanism of the chapters: what is found in data_dir, what is read, what falls back, checksums."""
from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from xsent_lib.data.formats import load_glove_txt, load_probing, load_snli, load_vec
from xsent_lib.data.sources import (
    REAL_DATA,
    SMOKE_EXAMPLES,
    DataSources,
    sha256_file,
    vocabulary_of,
)

ROOT = Path(__file__).resolve().parents[1]
FORMATS = ROOT / "tests" / "fixtures" / "formats"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    root = tmp_path / "papers"
    shutil.copytree(FORMATS, root)
    (root / "snli_1.0" / "snli_1.0_train.jsonl").write_bytes((root / "snli_1.0" / "snli_1.0_dev.jsonl").read_bytes())
    return root


def test_found_missing_used_and_checksummed(data_dir: Path, capsys: pytest.CaptureFixture[str]):
    for split in ("0-5000", "5000-6500"):  # one direction only
        (data_dir / "crosslingual" / "dictionaries" / f"fr-en.{split}.txt").unlink()
    data = DataSources(data_dir.resolve(), "smoke", ("snli", "probing", "glove-840b", "muse-en-fr"))
    assert data.available("snli") and data.available("probing")
    assert not data.available("glove-840b")
    assert not data.available("muse-en-fr"), "en-fr alone is not MUSE's setting: it needs both directions"
    lines = "\n".join(data.lines())
    assert "found    snli" in lines and "stand-in glove-840b" in lines and "glove.840B.300d.txt" in lines
    load_snli(data.use("snli", "dev"), "dev")
    load_probing(data.use("probing"), "Tense")
    data.fallback("probing", "too small for the probes")
    assert "falls back" in capsys.readouterr().out
    report = data.report()
    assert report["datasets"]["snli"] == {"status": "real", "note": "dev"}
    assert report["datasets"]["probing"]["status"] == "stand-in"
    assert report["datasets"]["glove-840b"]["status"] == "stand-in"
    files = {f["path"]: f for f in report["files"]}
    assert set(files) == {"snli_1.0/snli_1.0_dev.jsonl", "probing/past_present.txt"}
    dev = data_dir / "snli_1.0" / "snli_1.0_dev.jsonl"
    assert files["snli_1.0/snli_1.0_dev.jsonl"]["sha256"] == hashlib.sha256(dev.read_bytes()).hexdigest()
    assert files["snli_1.0/snli_1.0_dev.jsonl"]["bytes"] == dev.stat().st_size


def test_only_files_read_during_the_run_are_listed(data_dir: Path):
    load_snli(data_dir, "dev")  # read before the run started: not this run's
    data = DataSources(data_dir.resolve(), "book", ("snli",))
    assert data.report()["files"] == []


def test_limits_follow_the_profile(data_dir: Path):
    assert DataSources(data_dir, "smoke").limit(book=5000) == SMOKE_EXAMPLES
    assert DataSources(data_dir, "smoke").limit(book=90) == 90
    assert DataSources(data_dir, "smoke").limit(book=None, smoke=60) == 60
    assert DataSources(data_dir, "book").limit(book=5000) == 5000
    assert DataSources(data_dir, "full").limit(book=5000) is None


def test_clear_errors(data_dir: Path, tmp_path: Path):
    with pytest.raises(ValueError, match="unknown real data set"):
        DataSources(data_dir, "smoke", ("snli", "imagenet"))
    with pytest.raises(FileNotFoundError, match="not a folder"):
        DataSources(tmp_path / "nowhere", "smoke", ("snli",))
    data = DataSources(data_dir, "smoke", ("glove-840b",))
    with pytest.raises(FileNotFoundError, match="glove.840B.300d.txt"):
        data.use("glove-840b")
    with pytest.raises(ValueError, match="did not declare|declared"):
        data.available("snli")
    none = DataSources(None, "smoke", ("snli",))
    assert not none.available("snli") and none.report()["files"] == []
    assert "no data_dir given" in "\n".join(none.lines())


def test_format_fixtures_hold_both_muse_directions():
    assert DataSources(FORMATS, "smoke", ("muse-en-fr",)).available("muse-en-fr")
    from xsent_lib.data.formats import load_muse_dictionary

    back = load_muse_dictionary(FORMATS, "fr", "en", "0-5000")
    forth = load_muse_dictionary(FORMATS, "en", "fr", "0-5000")
    assert sorted(zip(back.target, back.source)) == sorted(zip(forth.source, forth.target))
    assert set(REAL_DATA) >= {"snli", "senteval", "probing", "glove-840b", "fasttext-en", "xnli", "bucc", "sts"}


def test_checksum_cache_is_reused_and_keyed_on_size_and_mtime(data_dir: Path, tmp_path: Path):
    cache = tmp_path / "sums.json"
    data = DataSources(data_dir.resolve(), "smoke", ("snli",), checksum_cache=cache)
    load_snli(data_dir, "dev")
    first = data.report()["files"][0]["sha256"]
    assert first in json.loads(cache.read_text()).values()
    assert data.report()["files"][0]["sha256"] == first == sha256_file(data_dir / "snli_1.0" / "snli_1.0_dev.jsonl")


def test_vector_files_stream_only_the_words_asked_for(tmp_path: Path):
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(50)] + ["The", "the", "Cat"]
    rows = [f"{w} " + " ".join(f"{x:.3f}" for x in rng.normal(size=6)) for w in words]
    glove = tmp_path / "glove.840B.300d.txt"
    glove.write_text("\n".join(rows) + "\n")
    vec = tmp_path / "wiki.en.vec"
    vec.write_text(f"{len(rows)} 6\n" + "\n".join(rows) + "\n")
    full = load_glove_txt(glove)
    kept = load_glove_txt(glove, vocabulary={"w3", "the", "cat", "absent"}, lowercase=True)
    assert kept.words == ["w3", "the", "cat"]
    assert np.array_equal(kept.vectors[0], full.vectors[full.word2id["w3"]])
    assert np.array_equal(kept.vectors[1], full.vectors[full.word2id["The"]]), "the first (most frequent) casing wins"
    assert load_vec(vec, vocabulary={"w7", "Cat"}).words == ["w7", "Cat"]
    with pytest.raises(ValueError, match="none of the 1 words"):
        load_glove_txt(glove, vocabulary={"zzz"})
    bad = tmp_path / "bad.txt"
    bad.write_text(rows[0] + "\n" + "w8 1 2 3\n" + "w9 1 2 x 4 5 6\n")  # GloVe 840B has odd rows like w8's
    with pytest.raises(ValueError, match="line 3"):  # a kept row that does not parse is named by its own line
        load_glove_txt(bad, vocabulary={"w9"})
    assert load_glove_txt(bad, vocabulary={"w0"}).words == ["w0"], "rows of other words are skipped unparsed"


def test_vocabulary_of_holds_cased_and_lowercased_forms():
    vocab = vocabulary_of(["The cat sat.", "Paris , it's"])
    assert {"The", "the", "cat", "Paris", "paris"} <= vocab


def test_start_chapter_prints_the_data_and_finish_records_it(data_dir: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]):
    from xsent_lib.chapter import start_chapter

    ch = start_chapter("99_data_test", profile="smoke", device="cpu", seed=1, results_dir=str(tmp_path / "r"),
                       data_dir=str(data_dir), uses=("snli", "glove-840b"))
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("data_dir: ") and "found    snli" in out[2] and "stand-in glove-840b" in out[3]
    load_snli(ch.data.use("snli", "dev"), "dev")
    shown = ch.finish()
    prov = json.loads((tmp_path / "r" / "99_data_test" / "smoke" / "provenance.json").read_text())
    assert prov["data_sources"]["datasets"]["snli"]["status"] == "real"
    assert [f["path"] for f in prov["data_sources"]["files"]] == ["snli_1.0/snli_1.0_dev.jsonl"]
    assert shown["real data read"] == "snli"
    from xsent_lib.results import collect_runs

    assert collect_runs(tmp_path / "r", "smoke")["real_data"].tolist() == ["snli"]


def test_build_book_key_follows_what_data_dir_holds(tmp_path: Path):
    sys.path.insert(0, str(ROOT / "tools"))
    import build_book

    root = tmp_path / "d"
    root.mkdir()
    (root / "a.txt").write_text("x")
    before = build_book.data_fingerprint(str(root))
    (root / "b.txt").write_text("y")
    assert build_book.data_fingerprint(str(root)) != before
    assert build_book.data_fingerprint(None) == "none"


def test_xnli_smoke_plan_reads_xnli_languages_at_its_own_sizes():
    from xsent_lib.recipes import xnli as rec

    bench, plan, world = rec.benchmark(rec.SMOKE, 0, ROOT / "tests" / "fixtures" / "xnli_full", real=True)
    assert world is None and plan.languages == ("fr",) and plan.n_train == rec.SMOKE.n_train
    assert plan.ablation_languages == plan.translate_train_languages == ("fr",) and plan.curve_language == "fr"
    assert bench.languages == ["en", "fr"]
