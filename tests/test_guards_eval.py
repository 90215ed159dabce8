"""No wrong number passes silently: inputs that used to give a wrong score, NaN or a crash deep in numpy/torch
now give a clear error (or the right number). One section per probe of the issue."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from xsent_lib.data.formats import DataFormatError, load_task
from xsent_lib.eval.classifier import ClassifierConfig
from xsent_lib.eval.protocols import cv_then_test, nested_cv

FIXTURES = Path(__file__).parent / "fixtures" / "formats"
MR = FIXTURES / "downstream" / "MR"


def _mr_copy(tmp_path: Path) -> Path:
    """A data_dir holding only SentEval's MR folder (the fixture's two files)."""
    shutil.copytree(MR, tmp_path / "downstream" / "MR")
    return tmp_path


# --- 1. SentEval folders: one class, undecodable bytes --------------------------------------------------------

def test_mr_with_an_empty_class_file_is_refused_naming_it(tmp_path):
    data_dir = _mr_copy(tmp_path)
    (data_dir / "downstream" / "MR" / "rt-polarity.neg").write_bytes(b"")
    with pytest.raises(DataFormatError, match=r"rt-polarity\.neg.*no sentences.*both classes"):
        load_task("MR", data_dir)


def test_random_bytes_are_not_read_as_latin1_sentences(tmp_path):
    data_dir = _mr_copy(tmp_path)
    bad = data_dir / "downstream" / "MR" / "rt-polarity.neg"
    bad.write_bytes(np.random.default_rng(0).integers(0, 256, 2000, dtype=np.uint8).tobytes())
    with pytest.raises(DataFormatError, match=r"rt-polarity\.neg: line \d+: expected text.*control character"):
        load_task("MR", data_dir)


def test_latin1_text_with_tabs_and_crlf_still_reads(tmp_path):
    data_dir = _mr_copy(tmp_path)
    (data_dir / "downstream" / "MR" / "rt-polarity.neg").write_bytes("na\xefve\tplot .\r\ndull .\r\n".encode("latin-1"))
    assert load_task("MR", data_dir).splits["all"].sentences[-2:] == ["na\xefve\tplot .", "dull ."]


def test_protocols_refuse_a_single_class():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((40, 4)), np.ones(40, np.int64)
    cfg = ClassifierConfig.fast(kfold=2)
    with pytest.raises(ValueError, match=r"only one class \(1\).*two classes"):
        nested_cv(x, y, 2, cfg)
    with pytest.raises(ValueError, match=r"y_train.*only one class"):
        cv_then_test(x, y, x, y, 2, cfg)
