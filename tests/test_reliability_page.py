"""book/reliability.md names the test that keeps each promise: every named test must exist."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "reliability.md"
REF = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


def test_every_test_the_reliability_page_names_exists():
    text = PAGE.read_text(encoding="utf-8")
    refs = REF.findall(text)
    assert len(refs) >= 15
    for path, name in refs:
        source = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(rf"^def {name}\(", source, re.M), f"{PAGE.name} names {path}::{name}, which does not exist"


def test_every_promise_names_a_test_and_the_execution_section_is_there():
    text = PAGE.read_text(encoding="utf-8")
    promises, execution = text.split("## Execution")
    bullets = re.split(r"\n- ", promises)[1:]
    assert bullets and all(REF.search(b) for b in bullets), "a promise without the test that keeps it"
    assert len(re.findall(r"^- ", execution, re.M)) >= 2  # never stall silently; rerun from any folder
