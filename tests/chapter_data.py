"""What each chapter must read from a fixture ``data_dir`` in the papers' layouts, and the check of it.

Shared by the smoke book build (``tests/test_book_build.py``, which builds the whole book with ``--data-dir``
as ``make book DATA_DIR=... PROFILE=smoke`` does) and the data-path tests. Not a test module.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

#: chapter -> the data sets its smoke run must read from the fixture data_dir (status "real" in provenance).
#: Declared but not checked here, each with its reason: 03 and 04 fasttext-crawl (read only when glove-840b is
#: absent, and the fixture has both), 04 snli (the smoke profile trains no NLI encoder), 05 es/ru (smoke aligns
#: only the first two pairs, en-de and en-fr), 02 fasttext-en (a fallback when fasttext-crawl is absent).
CHAPTER_USES: dict[str, tuple[str, ...]] = {
    "01_data": ("snli", "multinli", "senteval", "probing", "xnli", "xnli-mt", "muse-en-fr", "bucc"),
    "02_senteval": ("senteval", "glove-840b", "fasttext-crawl"),
    "03_infersent": ("snli", "senteval", "glove-840b"),
    "04_probing": ("probing", "senteval", "bitext", "monolingual", "glove-840b"),
    "05_muse": ("fasttext-en", "fasttext-fr", "fasttext-de", "muse-en-fr", "muse-en-de", "bitext"),
    "06_xnli": ("xnli", "xnli-mt"),
    "07_aldarmaki": ("bitext",),
    "08_wieting": ("sts", "bucc"),
    "09_wang": ("monolingual", "bitext", "xnli", "xnli-mt"),
    "10_xlm": ("xnli", "xnli-mt"),
}


def check_real_data(stem: str, run_dir: Path, executed: Path, fixture_data: Path) -> None:
    """The chapter's provenance (in ``run_dir``) lists every data set of ``CHAPTER_USES[stem]`` as read, with
    exact sizes and checksums, and the first outputs of the executed notebook say what it found."""
    import nbformat

    sources = json.loads((run_dir / "provenance.json").read_text())["data_sources"]
    assert sources["data_dir"] == str(fixture_data.resolve())
    for name in CHAPTER_USES[stem]:
        assert sources["datasets"][name]["status"] == "real", f"{stem} did not read {name}: {sources['datasets'][name]}"
    assert sources["files"], f"{stem} lists no file read from data_dir"
    for f in sources["files"]:
        path = fixture_data / f["path"]
        assert f["bytes"] == path.stat().st_size
        assert f["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    nb = nbformat.read(executed, as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code" and "start_chapter(" in c.source)
    text = "".join(o.get("text", "") for o in first.outputs if o.get("output_type") == "stream")
    assert f"data_dir: {fixture_data.resolve()}" in text
    assert all(f"found    {name}:" in text for name in CHAPTER_USES[stem])
