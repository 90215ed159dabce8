"""The GPU side-by-side script runs on the CPU in dry-run mode and records a missing reference."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_side_by_side_dry_run_on_cpu(tmp_path):
    out = tmp_path / "sbs.json"
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "bench_gpu_side_by_side.py"),
            "--device",
            "cpu",
            "--quick",
            "--only",
            "csls",
            "--refs",
            str(tmp_path / "no_refs"),
            "--out",
            str(out),
        ],
        check=True,
        cwd=ROOT,
        capture_output=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    rec = json.loads(out.read_text())
    csls = rec["csls"]
    assert "error" not in csls, csls.get("error")
    assert csls["xsent_word_translation"]["result"] == csls["xsent_csls_knn_float32"]["result"]
    assert 0 < csls["xsent_word_translation"]["result"]["p@1"] < 100
    assert "missing" in csls["muse"]
    assert rec["provenance"]["commit"]


def test_word_and_trigram_rows_dry_run_on_cpu(tmp_path):
    """The ``bags`` section times word and trigram averaging on Table 4's sentences (here 300)."""
    sents = tmp_path / "refs" / "sp" / "sents.txt"
    sents.parent.mkdir(parents=True)
    sents.write_text("\n".join(f"sentence {i} of the dry run, with words." for i in range(300)))
    out = tmp_path / "sbs.json"
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_gpu_side_by_side.py"), "--device", "cpu",
                    "--quick", "--only", "bags", "--refs", str(tmp_path / "refs"), "--out", str(out)],
                   check=True, cwd=ROOT, capture_output=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    bags = json.loads(out.read_text())["bags"]
    assert "error" not in bags, bags.get("error")
    got = {(r["unit"], r["what"]) for r in bags["rows"]}
    assert got == {(u, w) for u in ("word", "trigram") for w in ("tokenise", "text to vector")}
    assert all(r["sent_per_s"] > 0 for r in bags["rows"])
