"""The papers pass their own claims: every chapter's strict claims, evaluated on the numbers of the papers' own
stored tables (``results/paper``) wherever those tables hold what a claim compares, hold; and every claim has a
stable id, the paper's sentence and its place, unique across the book.
"""
from __future__ import annotations

import importlib

import pytest

from xsent_lib.results.claims import ClaimSet

#: chapter -> the recipe module that declares its CLAIM_SET (chapters 2-10)
CLAIM_MODULES = {
    "02_senteval": "xsent_lib.recipes.senteval",
    "03_infersent": "xsent_lib.recipes.infersent",
    "04_probing": "xsent_lib.recipes.probing",
    "05_muse": "xsent_lib.recipes.muse",
    "06_xnli": "xsent_lib.recipes.xnli",
    "07_aldarmaki": "xsent_lib.recipes.aldarmaki",
    "08_wieting": "xsent_lib.recipes.wieting",
    "09_wang": "xsent_lib.recipes.wang",
    "10_xlm": "xsent_lib.recipes.xlm",
}


def _claim_set(chapter: str) -> ClaimSet:
    module = importlib.import_module(CLAIM_MODULES[chapter])
    found = getattr(module, "CLAIM_SET", None)
    assert isinstance(found, ClaimSet), f"{CLAIM_MODULES[chapter]} must declare CLAIM_SET = ClaimSet(...)"
    assert found.chapter == chapter
    return found


@pytest.mark.parametrize("chapter", sorted(CLAIM_MODULES))
def test_the_paper_passes_its_own_strict_claims(chapter: str):
    rows = _claim_set(chapter).on_paper()
    failing = [f"{r['id']}: {r['ours']}" for r in rows if r["holds"] is False]
    assert not failing, f"{chapter}: the paper's own numbers fail these claims (restate them):\n" + "\n".join(failing)


def test_claim_ids_are_unique_across_the_book():
    ids = [i for ch in CLAIM_MODULES for c in _claim_set(ch).claims for i in (c.id, c.weaker.id if c.weaker else "")
           if i]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
