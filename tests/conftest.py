"""Shared test fixtures. Tests run on CPU with few threads so the suite fits 2 cores.

A test module that needs another synthetic world (another seed) defines its own ``world`` fixture, which
takes precedence over the shared one.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from xsent_lib.data.synthetic import SyntheticWorld

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
# The fake package registry's builders (tests/fixtures/registry/registry_builder.py), for test_fetch and test_corpora.
sys.path.insert(0, str(FIXTURES / "registry"))


def find_shared_dir(root: Path = ROOT) -> Path | None:
    """The project's ``shared/`` folder: ``../shared`` beside this checkout or, for a git worktree, beside the
    main checkout (``.git`` is then a file naming ``<main>/.git/worktrees/<name>``). None if there is none."""
    candidates = [root.parent / "shared"]
    git = root / ".git"
    if git.is_file() and "gitdir:" in (text := git.read_text()):
        gitdir = Path(text.split("gitdir:", 1)[1].strip())
        if len(gitdir.parents) > 3 and gitdir.parent.name == "worktrees":
            candidates.append(gitdir.parents[2].parent / "shared")
    return next((c for c in candidates if c.is_dir()), None)


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def formats_dir() -> Path:
    """Tiny files in the layouts of the real corpora (SentEval, SNLI, XNLI, MUSE, ...)."""
    return FIXTURES / "formats"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared`` beside the checkout (see :func:`find_shared_dir`); skips the test when there is none."""
    found = find_shared_dir()
    if found is None:
        pytest.skip(f"no shared/ folder beside this checkout ({ROOT.parent / 'shared'}) or its main checkout")
    return found


@pytest.fixture(scope="session")
def spec_dir() -> Path:
    """The spec folder: ``$XSENT_SPEC_DIR``, else ``shared/spec`` beside the checkout; skips when absent."""
    if "XSENT_SPEC_DIR" in os.environ:
        found = Path(os.environ["XSENT_SPEC_DIR"])
    else:
        shared = find_shared_dir()
        found = shared / "spec" if shared is not None else ROOT.parent / "shared" / "spec"
    if not found.is_dir():
        pytest.skip(f"spec folder {found} not available (../shared/spec beside the checkout, or set XSENT_SPEC_DIR)")
    return found


@pytest.fixture(scope="session")
def world() -> SyntheticWorld:
    """The synthetic world with seed 3, shared by the modules that use it (it is deterministic per call)."""
    return SyntheticWorld(seed=3)


@pytest.fixture
def one_thread() -> Iterator[None]:
    """One torch thread: tiny matrices run 10x slower with thread hand-offs on a loaded 2-core box."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
