"""Table 3.7's transfer tasks on a frozen encoder: the suite, the thesis's micro/macro aggregates,
the row.

Book: chapter 3 (InferSent: transfer).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from xsent_lib.base.runtime import pick_device
from xsent_lib.base.threads import single_thread
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.eval.engine import Evaluation, batcher_from_encoder
from xsent_lib.eval.offline_suite import offline_suite, with_protocol
from xsent_lib.eval.suite import Suite, SuiteSizes, senteval_suite, subsample_suite
from xsent_lib.train.nli import small_on_cpu

# Table 3.7 columns filled by each SentEval task, keyed by the SentEval name a suite task stands in
# for (``SuiteTask.paper`` of :mod:`xsent_lib.eval.suite`); STS'14 is the mean over its subsets.
TABLE_3_7_COLUMNS: dict[str, dict[str, str]] = {
    "MR": {"MR": "acc"}, "CR": {"CR": "acc"}, "SUBJ": {"SUBJ": "acc"}, "MPQA": {"MPQA": "acc"},
    "SST-2": {"SST": "acc"}, "TREC": {"TREC": "acc"}, "MRPC": {"MRPC acc": "acc", "MRPC F1": "f1"},
    "SICK-R": {"SICK-R": "pearson"}, "SICK-E": {"SICK-E": "acc"},
    "STS'14": {"STS14 Pearson": "pearson", "STS14 Spearman": "spearman"},
}
# Table 3.13's two columns that Table 3.7 lacks (chapter 4 asks for them with ``extra``).
TABLE_3_13_EXTRA: dict[str, dict[str, str]] = {"SST-5": {"SST-5": "acc"},
                                               "STS-B": {"STS-B": "pearson"}}
# SentEval's own tasks of Table 3.7, by SentEval's task names
# (:data:`xsent_lib.eval.suite.SENTEVAL_TASKS`).
SENTEVAL_TABLE_3_7: tuple[str, ...] = ("MR", "CR", "SUBJ", "MPQA", "SST2", "TREC", "MRPC",
                                       "SICKEntailment", "SICKRelatedness", "STS14")


@dataclass
class TransferSuite:
    """The transfer tasks of Table 3.7 as :mod:`xsent_lib.eval` task objects, with the SentEval task
    each one stands in for (``papers``), what data is behind it (``standins``) and the suite's notes
    (what was skipped).

    Book: chapter 3 (InferSent: transfer).
    """

    tasks: list
    papers: dict[str, str]
    standins: dict[str, str]
    notes: list[str] = field(default_factory=list)
    # Table 3.13's columns beyond Table 3.7 that transfer_row fills (chapter 4)
    extra: tuple[str, ...] = ()

    def describe(self) -> list[dict[str, str]]:
        """One row per task: our name, the SentEval task it stands in for, the data behind it.

        Book: chapter 3 (InferSent: transfer).
        """
        return [{"task": t.name, "stands in for": self.papers[t.name],
                 "our data": self.standins[t.name]}
                for t in self.tasks]


def table_3_7_suite(suite: Suite, extra: Sequence[str] = ()) -> TransferSuite:
    """Keep the tasks of a :class:`~xsent_lib.eval.suite.Suite` that fill a column of Table 3.7
    (SST-5 and the rating regression have none) and turn them into evaluation tasks; ``extra`` keeps
    the tasks standing in for Table 3.13's other columns too (``"SST-5"``, ``"STS-B"``).

    Book: chapter 3 (InferSent: transfer); chapter 4 (Probing: downstream tasks) for ``extra``.
    """
    if not isinstance(suite, Suite):
        raise TypeError(f"suite must be an eval.suite.Suite, got {type(suite).__name__}.")
    unknown = sorted(set(extra) - set(TABLE_3_13_EXTRA))
    if unknown:
        raise ValueError(f"extra columns {unknown} are not Table 3.13's; known: "
                         f"{sorted(TABLE_3_13_EXTRA)}.")
    kept = [t for t in suite.tasks if t.paper in TABLE_3_7_COLUMNS or t.paper in extra]
    if not kept:
        raise ValueError("no task of the suite stands in for a Table 3.7 task "
                         f"({sorted(TABLE_3_7_COLUMNS)}).")
    return TransferSuite([t.evaluator() for t in kept], {t.name: t.paper for t in kept},
                         {t.name: f"{t.source}: {t.description}" for t in kept}, list(suite.notes),
                         tuple(extra))


def transfer_suite(seed: int, sizes: SuiteSizes, real: bool = True,
                   cache_dir: str | Path | None = None, extra: Sequence[str] = ()) -> TransferSuite:
    """Chapter 2's offline suite (:func:`xsent_lib.eval.offline_suite.offline_suite`, split
    protocol) restricted to Table 3.7: cached sentiment corpora for MR/CR/SUBJ/MPQA/SST when
    ``real``, synthetic pairs for SICK-E, MRPC, SICK-R and STS'14.

    The synthetic tasks come from the world of seed ``seed + 1``, never from the NLI training world
    (whose ``nli`` stream would otherwise repeat training pairs). ``extra`` keeps Table 3.13's other
    columns that the offline suite stands in for (``"SST-5"``: VADER's movie snippets in five
    classes, as in chapter 2).
    Book: chapter 3 (InferSent: transfer).
    """
    return table_3_7_suite(offline_suite(SyntheticWorld(seed + 1), sizes, real=real,
                                         protocol="split", seed=seed, cache_dir=cache_dir), extra)


def senteval_transfer_suite(data_dir: str | Path, names: Sequence[str] = SENTEVAL_TABLE_3_7,
                            extra: Sequence[str] = (), max_items: int | None = None, seed: int = 0,
                            protocol: str = "senteval") -> TransferSuite:
    """SentEval's own Table 3.7 tasks from ``data_dir`` (``downstream/`` layout), read at any
    profile; ``extra`` keeps the tasks standing in for Table 3.13's other columns (see
    :func:`table_3_7_suite`).

    Missing tasks leave a note; if none is found the FileNotFoundError says where the data should
    be. ``max_items`` cuts every task to at most that many items (stratified, see
    ``subsample_suite``), e.g. a few hundred in the smoke profile; ``None`` keeps them whole.
    ``protocol='split'`` gives MR/CR/SUBJ/MPQA one stratified train/dev/test split, as the offline
    suite's (``'senteval'``: SentEval's nested CV).
    Book: chapter 3 (InferSent: transfer).
    """
    suite = senteval_suite(data_dir, names)
    if not suite.tasks:
        raise FileNotFoundError(f"none of the SentEval tasks {list(names)} is under {data_dir}; "
                                "get them with SentEval's data/downstream/get_transfer_data.bash "
                                "and pass that folder's parent.")
    if max_items is not None:
        suite = subsample_suite(suite, max_items, seed)
    return table_3_7_suite(with_protocol(suite, protocol, seed), extra)


def aggregate_transfer(results: Mapping[str, Mapping[str, Any]]) -> dict[str, float]:
    """Thesis aggregates over the tasks with a dev accuracy: ``macro`` = mean,
    ``micro`` = mean weighted by dev size.

    Book: chapter 3 (InferSent: transfer).
    """
    scored = [r for r in results.values() if "devacc" in r and "ndev" in r]
    if not scored:
        raise ValueError("no task result has a dev accuracy ('devacc' and 'ndev').")
    acc = np.array([r["devacc"] for r in scored], np.float64)
    n = np.array([r["ndev"] for r in scored], np.float64)
    micro = float((acc * n).sum() / n.sum())
    return {"micro": micro, "macro": float(acc.mean()), "n_tasks": len(scored)}


def evaluate_transfer(encoder: SentenceEncoder, suite: TransferSuite, seed: int = 1111,
                      device: str | torch.device = "auto", batch_size: int = 256,
                      mode: str = "fast") -> dict[str, Any]:
    """Run every task of ``suite`` on the frozen ``encoder`` with SentEval's ``"fast"`` or the
    thesis's ``"full"`` classifier setting.

    Returns ``{"tasks": {name: result}, "micro", "macro", "row": {Table 3.7 column: value}}``.
    Book: chapter 3 (InferSent: transfer).
    """
    params = {"seed": seed, "device": str(pick_device(device)), "tokenized": False,
              "batch_size": 1024, "mode": mode}
    ev = Evaluation(params, batcher_from_encoder(encoder, batch_size=batch_size, device=device))
    with single_thread(small_on_cpu(encoder.output_dim // 2, device)):
        results = ev.eval(suite.tasks)
    return {"tasks": results, **aggregate_transfer(results),
            "row": transfer_row(results, suite.papers, suite.extra)}


def transfer_row(results: Mapping[str, Mapping[str, Any]], papers: Mapping[str, str],
                 extra: Sequence[str] = ()) -> dict[str, float]:
    """Table 3.7's columns from task results, ``papers`` naming the SentEval task behind each of our
    tasks (accuracies in percent, correlations as fractions; STS'14 averages its subsets); ``extra``
    adds Table 3.13's ``"SST-5"`` / ``"STS-B"`` columns for the tasks standing in for them.

    Book: chapter 3 (InferSent: transfer).
    """
    row = {}
    columns = {**TABLE_3_7_COLUMNS, **{k: TABLE_3_13_EXTRA[k] for k in extra}}
    for task, res in results.items():
        paper = papers.get(task)
        for column, key in columns.get(paper, {}).items():
            row[column] = float(res["mean"][key] if paper == "STS'14" else res[key])
    return row
