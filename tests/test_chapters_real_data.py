"""Every chapter's real-data code path runs: each chapter in the smoke profile with a fixture ``data_dir`` in the
papers' layouts (``tools/make_fixture_data.py``), checked from its provenance (data sets read, files, sha256)."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

#: chapter -> the data sets its smoke run must read from the fixture data_dir (status "real" in provenance)
CHAPTER_USES: dict[str, tuple[str, ...]] = {
    "01_data": ("snli", "multinli", "senteval", "probing", "xnli", "xnli-mt", "muse-en-fr", "bucc"),
    "02_senteval": ("senteval", "glove-840b", "fasttext-crawl"),
    "03_infersent": ("snli", "senteval", "glove-840b"),
    "04_probing": ("probing", "senteval", "bitext", "monolingual"),  # smoke trains no NLI encoder: snli unused
    "05_muse": ("fasttext-en", "fasttext-fr", "fasttext-de", "muse-en-fr", "muse-en-de", "bitext"),
    "06_xnli": ("xnli", "xnli-mt"),
    "07_aldarmaki": ("bitext",),  # Europarl fr-en and de-en for the real-bitext curves
    "08_wieting": ("sts",),
}


@pytest.fixture(scope="module")
def fixture_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import make_fixture_data

    return make_fixture_data.build(tmp_path_factory.mktemp("papers") / "data")


@pytest.mark.slow
@pytest.mark.parametrize("stem", sorted(CHAPTER_USES))
def test_chapter_reads_the_real_data_it_is_given(stem: str, fixture_data: Path, tmp_path: Path):
    results = tmp_path / "results"
    env = {k: v for k, v in os.environ.items() if k != "XSENT_PROFILE"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    cmd = [sys.executable, str(ROOT / "tools" / "nbexec.py"), str(ROOT / "notebooks" / f"{stem}.ipynb"),
           str(tmp_path / "out.ipynb"), "-p", "profile", "smoke", "-p", "data_dir", str(fixture_data),
           "-p", "results_dir", str(results), "--timeout", "600"]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, f"{stem} failed with data_dir:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    prov = json.loads((results / stem / "smoke" / "provenance.json").read_text())
    sources = prov["data_sources"]
    assert sources["data_dir"] == str(fixture_data.resolve())
    for name in CHAPTER_USES[stem]:
        assert sources["datasets"][name]["status"] == "real", f"{stem} did not read {name}: {sources['datasets'][name]}"
    assert sources["files"], f"{stem} lists no file read from data_dir"
    for f in sources["files"]:
        path = fixture_data / f["path"]
        assert f["bytes"] == path.stat().st_size
        assert f["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    read = {f["path"].split("/")[0] for f in sources["files"]}
    assert read, f"{stem}: no file under data_dir"
    # the first output lines of the chapter say what was found
    import nbformat

    nb = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code" and "start_chapter(" in c.source)
    text = "".join(o.get("text", "") for o in first.outputs if o.get("output_type") == "stream")
    assert f"data_dir: {fixture_data.resolve()}" in text
    assert all(f"found    {name}:" in text for name in CHAPTER_USES[stem])
