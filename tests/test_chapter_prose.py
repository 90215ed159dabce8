"""No chapter's prose states a run's outcome or a measured size that the run did not compute.

Prose is the markdown of the chapter sources (``notebooks/NN_*.md``) outside code cells; a number a run produces
belongs in a printed line or a table computed by the run. The phrases below are the cases an audit of the book
found typed into the prose (outcomes of the run, sizes of the data, a stale plan value); each must stay gone.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.md"))
#: chapter -> phrases (whitespace-normalised, case-insensitive) that state a run's outcome or a measured size
TYPED_OUTCOMES = {
    "00_how_to_run": ["agree exactly (a difference of 0.0)", "reaches a few hundred GFLOP/s"],
    "01_data": ["The fixtures hold no STS13-16", "under a thousand English concepts"],
    "02_senteval": ["about 1.6M words"],
    "04_probing": ["probing sets of 1k training sentences"],
    "05_muse": ["English 4.2M tokens", "French and German about 2.3M", "English-Russian has only 1.8k pairs",
                "skip-gram on 0.5-4M tokens", "occur only a few dozen times"],
    "06_xnli": ["The row equals the English accuracy"],
}


def prose(path: Path) -> str:
    """The chapter's markdown without its code cells, whitespace-normalised."""
    text = re.sub(r"```\{code-cell\}.*?```", " ", path.read_text(), flags=re.S)
    return " ".join(text.split())


@pytest.mark.parametrize("stem", sorted(TYPED_OUTCOMES))
def test_no_typed_outcome_in_the_prose(stem: str):
    text = prose(ROOT / "notebooks" / f"{stem}.md").lower()
    found = [p for p in TYPED_OUTCOMES[stem] if " ".join(p.split()).lower() in text]
    assert not found, f"{stem}: prose states what the run computes (print it from the run instead): {found}"


def test_the_scan_reads_prose_only():
    assert all(path.stem[:2].isdigit() for path in CHAPTERS) and len(CHAPTERS) >= 12
    sample = "Text 1.\n```{code-cell}\nprint('a difference of 0.0')\n```\nMore text."
    assert "difference" not in " ".join(re.sub(r"```\{code-cell\}.*?```", " ", sample, flags=re.S).split())
