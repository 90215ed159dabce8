"""Every chapter executes under papermill in the smoke profile and leaves its results and provenance."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.slow
@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.stem)
def test_chapter_runs_in_smoke_profile(nb_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    papermill = pytest.importorskip("papermill")
    monkeypatch.delenv("XSENT_PROFILE", raising=False)
    results = tmp_path / "results"
    papermill.execute_notebook(
        str(nb_path), str(tmp_path / nb_path.name),
        parameters={"profile": "smoke", "seed": 1234, "results_dir": str(results)},
        cwd=str(nb_path.parent), kernel_name="python3", progress_bar=False,
        execution_timeout=600,
    )
    run_dir = results / nb_path.stem / "smoke"
    metrics = json.loads((run_dir / "metrics.json").read_text())
    provenance = json.loads((run_dir / "provenance.json").read_text())
    assert metrics, f"{nb_path.stem} logged no metrics"
    assert provenance["profile"] == "smoke" and provenance["params"]["profile"] == "smoke"
    assert provenance["seed"] == 1234 and provenance["wall_time_s"] > 0
    assert provenance["xsent_lib_version"] and provenance["commit"] and provenance["device"].startswith("cpu")
    assert os.environ.get("XSENT_PROFILE") is None
