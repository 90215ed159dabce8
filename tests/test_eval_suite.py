"""The SentEval task list builds from the data files with the right protocol for each task."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.eval.engine import Evaluation
from xsent_lib.eval.probing import ProbingTask
from xsent_lib.eval.sts import STSTask
from xsent_lib.eval.suite import PROBING_NAMES, SENTEVAL_TASKS, senteval_tasks
from xsent_lib.eval.transfer import PairClassificationTask, RelatednessTask, TransferTask


def test_protocols_follow_senteval(formats_dir):
    tasks = {t.name: t for t in senteval_tasks(formats_dir, ["MR", "SST2", "TREC", "MRPC", "SICKEntailment",
                                                          "SICKRelatedness", "STSBenchmark", "Tense"])}
    assert isinstance(tasks["MR"], TransferTask) and tasks["MR"].protocol == "cv"
    assert tasks["SST2"].protocol == "split" and tasks["TREC"].protocol == "cv_test"
    assert isinstance(tasks["MRPC"], PairClassificationTask) and tasks["MRPC"].protocol == "cv_test"
    assert tasks["SICKEntailment"].protocol == "split"
    assert isinstance(tasks["SICKRelatedness"], RelatednessTask) and tasks["SICKRelatedness"].n_classes == 5
    assert tasks["STSBenchmark"].n_classes == 6
    assert isinstance(tasks["Tense"], ProbingTask)
    assert len(SENTEVAL_TASKS) == 16 and len(PROBING_NAMES) == 10


def test_sts_runs_on_the_fixture_files_and_rejects_one_pair_subsets(formats_dir):
    from xsent_lib.data.formats.sts import load_sts

    rng = np.random.default_rng(0)
    table = {}

    def batcher(params, batch):
        return np.vstack([np.sum([table.setdefault(w, rng.standard_normal(8)) for w in s], 0) for s in batch])

    data = load_sts(formats_dir, "STS12", subsets=("MSRpar", "MSRvid"))
    res = Evaluation({}, batcher).eval(STSTask(data))
    assert set(res["subsets"]) == {"MSRpar", "MSRvid"} and res["subsets"]["MSRpar"]["n"] == len(data.splits["MSRpar"])
    (full,) = senteval_tasks(formats_dir, ["STS12"])  # the fixture's OnWN subset has a single pair
    with pytest.raises(ValueError, match="length >= 2"):
        Evaluation({}, batcher).eval(full)


def test_unknown_task_names_are_rejected(formats_dir):
    with pytest.raises(ValueError, match="unknown tasks"):
        senteval_tasks(formats_dir, ["MRR"])
