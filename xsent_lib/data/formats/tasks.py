"""One entry point for the SentEval task names: ``load_task("SICK-E", data_dir)``.

Book: chapter 2 (Evaluating sentence embeddings: SentEval) and chapter 4 (Probing).
"""
from __future__ import annotations

from collections.abc import Callable

from xsent_lib.data.formats._io import PathLike
from xsent_lib.data.formats.classification import load_binary_task, load_sst, load_trec
from xsent_lib.data.formats.containers import ClassificationTask, PairTask
from xsent_lib.data.formats.pairs import load_mrpc, load_sick, load_stsb
from xsent_lib.data.formats.probing import PROBING_TASKS, load_probing
from xsent_lib.data.formats.sts import STS_SUBSETS, load_sts

_LOADERS: dict[str, Callable[[PathLike], ClassificationTask | PairTask]] = {
    "MR": lambda d: load_binary_task("MR", d),
    "CR": lambda d: load_binary_task("CR", d),
    "SUBJ": lambda d: load_binary_task("SUBJ", d),
    "MPQA": lambda d: load_binary_task("MPQA", d),
    "SST2": lambda d: load_sst(d, 2),
    "SST5": lambda d: load_sst(d, 5),
    "TREC": load_trec,
    "MRPC": load_mrpc,
    "SICK-R": lambda d: load_sick(d, "relatedness"),
    "SICK-E": lambda d: load_sick(d, "entailment"),
    "STSBenchmark": load_stsb,
    **{name: (lambda d, n=name: load_sts(d, n)) for name in STS_SUBSETS},
    **{name: (lambda d, n=name: load_probing(d, n)) for name in PROBING_TASKS},
    **{senteval: (lambda d, n=name: load_probing(d, n))
       for name, (senteval, _file) in PROBING_TASKS.items()},
}
_ALIASES = {"SST-2": "SST2", "SST-5": "SST5", "STS-B": "STSBenchmark", "SICKRelatedness": "SICK-R",
            "SICKEntailment": "SICK-E"}
TASK_NAMES: tuple[str, ...] = tuple(_LOADERS)


def load_task(name: str, data_dir: PathLike) -> ClassificationTask | PairTask:
    """Load a SentEval downstream task or probing task by name from ``data_dir`` (SentEval's
    layout).

    ``data_dir`` holds ``downstream/`` (MR, CR, SUBJ, MPQA, SST, TREC, MRPC, SICK, STS) and
    ``probing/``. Probing tasks answer to the paper names (``BShift``) and SentEval's
    (``BigramShift``).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval) and chapter 4 (Probing).
    """
    key = _ALIASES.get(name, name)
    if key not in _LOADERS:
        raise ValueError(f"unknown SentEval task {name!r}; known tasks: {list(TASK_NAMES)}.")
    return _LOADERS[key](data_dir)
