"""An inventory of the papers' real data formats: every loader run on a folder in the papers'
layouts.

Book: chapter 1 (Data: the corpora and the synthetic world).
"""
from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from xsent_lib.data.formats import (
    NLI_LABELS,
    ClassificationTask,
    DataFormatError,
    NLIData,
    PairTask,
    load_bucc,
    load_moses_bitext,
    load_multinli,
    load_muse_dictionary,
    load_snli,
    load_task,
    load_xnli,
    load_xnli_mt,
)
from xsent_lib.data.formats.probing import PROBING_TASKS as SENTEVAL_PROBING


def _nli_row(data: NLIData) -> tuple[str, str]:
    return (f"{len(data)} pairs",
            f"{data.premises[0]} ||| {data.hypotheses[0]} -> {NLI_LABELS[data.labels[0]]}")


def _task_row(task: ClassificationTask | PairTask) -> tuple[str, str]:
    sizes = " / ".join(f"{k} {len(v)}" for k, v in task.splits.items())
    split = next(iter(task.splits.values()))
    if hasattr(split, "sentences"):
        label = task.label_names[split.labels[0]] if task.label_names else split.labels[0]
        return sizes, f"{split.sentences[0]} -> {label}"
    label = (task.label_names[split.labels[0]] if task.label_names
             else round(float(split.labels[0]), 3))
    return sizes, f"{split.first[0]} ||| {split.second[0]} -> {label}"


def _format_loaders() -> list[tuple[str, str, Callable[[Path], tuple[str, str]]]]:
    tasks = ("MR", "CR", "SUBJ", "MPQA", "SST2", "SST5", "TREC", "MRPC", "SICK-R", "SICK-E",
             "STSBenchmark",
             "STS12", "STS13", "STS14", "STS15", "STS16")
    out: list[tuple[str, str, Callable[[Path], tuple[str, str]]]] = [
        ("SNLI dev", "load_snli", lambda d: _nli_row(load_snli(d, "dev"))),
        ("MultiNLI dev matched", "load_multinli",
         lambda d: _nli_row(load_multinli(d, "dev_matched"))),
        ("XNLI dev", "load_xnli", lambda d: _nli_row(load_xnli(d, "dev"))),
        ("XNLI-MT train (fr)", "load_xnli_mt", lambda d: _nli_row(load_xnli_mt(d, "fr"))),
    ]
    out += [(t, "load_task", lambda d, t=t: _task_row(load_task(t, d))) for t in tasks]
    out += [(t, "load_task", lambda d, t=t: _task_row(load_task(t, d))) for t in SENTEVAL_PROBING]

    def muse(d: Path) -> tuple[str, str]:
        train, test = load_muse_dictionary(d, "en", "fr",
                                           "0-5000"), load_muse_dictionary(d, "en", "fr")
        return f"train {len(train)} / test {len(test)}", f"{train.source[0]} -> {train.target[0]}"

    def bucc(d: Path) -> tuple[str, str]:
        b = load_bucc(d / "bucc2018" / "de-en", "de", "en", "sample")
        gold = 0 if b.gold is None else len(b.gold)
        return (f"{len(b.source_sentences)} de / {len(b.target_sentences)} en, {gold} gold pairs",
                f"{b.source_sentences[0]}")

    def moses(d: Path) -> tuple[str, str]:
        b = load_moses_bitext(d / "bitext" / "corpus", "en", "fr")
        return f"{len(b)} pairs", f"{b.source[0]} ||| {b.target[0]}"

    out += [("MUSE en-fr dictionaries", "load_muse_dictionary", muse),
            ("BUCC 2018 de-en sample", "load_bucc", bucc),
            ("Moses bitext bitext/corpus.en-fr", "load_moses_bitext", moses)]
    return out


def format_inventory(data_dir: str | os.PathLike[str]) -> pd.DataFrame:
    """Try every loader of :mod:`xsent_lib.data.formats` on its usual place under ``data_dir``: one
    row per data set with its status (``ok``, ``not found`` or ``format error``), sizes, a first
    example and the message.

    Only a missing file (FileNotFoundError) or a malformed one (DataFormatError) is caught and
    reported; any other error propagates.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    root = Path(data_dir)
    if not root.is_dir():
        raise FileNotFoundError(f"data_dir {root} is not a folder; point it at the folder holding "
                                "the papers' data.")
    rows = []
    for name, loader, read in _format_loaders():
        try:
            size, example = read(root)
            status, note = "ok", ""
        except FileNotFoundError as exc:
            status, size, example, note = "not found", "", "", str(exc).split("\n")[0]
        except DataFormatError as exc:
            status, size, example, note = "format error", "", "", str(exc).split("\n")[0]
        rows.append({"data set": name, "loader": loader, "status": status, "size": size,
                     "example": example,
                     "note": note})
    return pd.DataFrame(rows, columns=["data set", "loader", "status", "size", "example", "note"])
