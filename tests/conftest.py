"""Shared test fixtures. Tests run on CPU with few threads so the suite fits 2 cores."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT
