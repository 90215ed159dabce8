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


CODE_WIDTH = 90  # the widest code line a reader sees in a chapter (the library's limit is 100)
SOURCES = sorted((ROOT / "notebooks").glob("[0-9]*.md"))


def _code_cell_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, text) of every line inside a ```{code-cell} block, options excluded."""
    rows, inside, header = [], False, False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not inside:
            inside = header = line.startswith("```{code-cell}")
            continue
        if line.startswith("```"):
            inside = False
        elif header and (line.startswith(":") or line.strip() == "---"):
            continue  # the cell's options (`:tags: [...]` or a `---` block) are not code
        else:
            header = False
            rows.append((number, line))
    return rows


@pytest.mark.parametrize("md_path", SOURCES, ids=lambda p: p.stem)
def test_code_cells_fit_the_reader_width(md_path: Path):
    long = [f"{md_path.name}:{n}: {len(line)} characters: {line.strip()[:60]}..."
            for n, line in _code_cell_lines(md_path) if len(line) > CODE_WIDTH]
    assert not long, (
        f"{len(long)} code line(s) of {md_path.name} are wider than {CODE_WIDTH} characters; "
        "wrap them (split calls at the open bracket, name an intermediate value, split long "
        "strings by implicit concatenation):\n" + "\n".join(long))


def test_the_width_check_sees_long_lines(tmp_path: Path):
    chapter = tmp_path / "99_example.md"
    chapter.write_text("```{code-cell}\n:tags: [parameters]\n\nx = 1\n" + "y = " + "1 + " * 30
                       + "1\n```\n\n" + "prose " * 30 + "\n", encoding="utf-8")
    rows = _code_cell_lines(chapter)
    assert [n for n, line in rows if len(line) > CODE_WIDTH] == [5]
    assert all(not line.startswith(":tags:") for _, line in rows)
