"""SentEval's task list, built from the data files through :mod:`xsent_lib.data.formats`.

``senteval_tasks(data_dir)`` gives the monolingual suite of chapter 2 (and the ten probing tasks of
chapter 4) as ready-to-run task objects, each with the protocol SentEval uses for it.
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from xsent_lib.data.formats.classification import load_binary_task, load_sst, load_trec
from xsent_lib.data.formats.pairs import load_mrpc, load_sick, load_stsb
from xsent_lib.data.formats.probing import PROBING_TASKS, load_probing
from xsent_lib.data.formats.sts import STS_SUBSETS, load_sts
from xsent_lib.eval.probing import ProbingTask
from xsent_lib.eval.sts import STSTask
from xsent_lib.eval.transfer import PairClassificationTask, RelatednessTask, TransferTask

_BUILDERS: dict[str, Callable[[Path], object]] = {
    **{name: (lambda d, n=name: TransferTask(load_binary_task(n, d))) for name in ("MR", "CR", "SUBJ", "MPQA")},
    "SST2": lambda d: TransferTask(load_sst(d, 2), name="SST2"),
    "SST5": lambda d: TransferTask(load_sst(d, 5), name="SST5"),
    "TREC": lambda d: TransferTask(load_trec(d), name="TREC"),
    "MRPC": lambda d: PairClassificationTask(load_mrpc(d), name="MRPC"),
    "SICKEntailment": lambda d: PairClassificationTask(load_sick(d, "entailment"), name="SICKEntailment"),
    "SICKRelatedness": lambda d: RelatednessTask(load_sick(d, "relatedness"), name="SICKRelatedness",
                                                 score_range=(1, 5)),
    "STSBenchmark": lambda d: RelatednessTask(load_stsb(d), name="STSBenchmark", score_range=(0, 5)),
    **{name: (lambda d, n=name: STSTask(load_sts(d, n), name=n)) for name in STS_SUBSETS},
}
SENTEVAL_TASKS: tuple[str, ...] = tuple(_BUILDERS)
PROBING_NAMES: tuple[str, ...] = tuple(PROBING_TASKS)


def senteval_tasks(data_dir: str | Path, names: tuple[str, ...] | list[str] | None = None) -> list:
    """Task objects for ``names`` (default: every transfer and STS task of :data:`SENTEVAL_TASKS`).

    Probing tasks are asked for by their paper names (``"Tense"``, ``"SentLen"``, ...; see
    :data:`PROBING_NAMES`) and use the MLP probe. Missing files raise the loaders' FileNotFoundError,
    which says where the data comes from.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    data_dir = Path(data_dir)
    chosen = list(SENTEVAL_TASKS if names is None else names)
    unknown = [n for n in chosen if n not in _BUILDERS and n not in PROBING_TASKS]
    if unknown:
        raise ValueError(f"unknown tasks {unknown}; choose from {SENTEVAL_TASKS} or probing {PROBING_NAMES}.")
    return [_BUILDERS[n](data_dir) if n in _BUILDERS else ProbingTask(load_probing(data_dir, n), name=n)
            for n in chosen]
