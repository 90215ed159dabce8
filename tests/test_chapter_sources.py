"""Every chapter's reviewed source (``notebooks/NN_name.md``, MyST) and its notebook hold the same cells."""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

jupytext = pytest.importorskip("jupytext")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))


def _cells(nb) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(c.cell_type, c.source.strip(), tuple(c.metadata.get("tags", ()))) for c in nb.cells]


def test_every_notebook_has_a_markdown_source():
    sources = {p.stem for p in (ROOT / "notebooks").glob("[0-9]*.md")}
    assert sources == {p.stem for p in NOTEBOOKS}, "each chapter needs both NN_name.md and NN_name.ipynb"


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.stem)
def test_markdown_source_and_notebook_are_in_sync(nb_path: Path):
    md = jupytext.read(nb_path.with_suffix(".md"))
    nb = nbformat.read(nb_path, as_version=4)
    assert _cells(md) == _cells(nb), (
        f"{nb_path.name} and {nb_path.with_suffix('.md').name} differ: run `make sync` after editing either")
