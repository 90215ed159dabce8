"""The unsupervised STS 2012-2016 tasks: ``STS.input.<subset>.txt`` pairs and
``STS.gs.<subset>.txt`` gold scores.

Layout (SentEval's): ``<data_dir>/downstream/STS/STS<yy>-en-test/``. Input lines are
``sentence1<TAB>sentence2`` (the raw 2016 release adds source columns, ignored here); the gold file
has one 0-5 score a line, and an empty gold line means the pair was not scored, so the pair is
dropped.
Book: chapter 2 (Evaluating sentence embeddings: SentEval) and chapter 8 (Wieting et al.).
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from xsent_lib.data.formats._io import PathLike, parse_float, read_lines, split_columns
from xsent_lib.data.formats.classification import SENTEVAL_HINT, downstream_dir
from xsent_lib.data.formats.containers import PairTask, SentencePairs

STS_SUBSETS: dict[str, tuple[str, ...]] = {
    "STS12": ("MSRpar", "MSRvid", "SMTeuroparl", "surprise.OnWN", "surprise.SMTnews"),
    "STS13": ("FNWN", "headlines", "OnWN"),
    "STS14": ("deft-forum", "deft-news", "headlines", "images", "OnWN", "tweet-news"),
    "STS15": ("answers-forums", "answers-students", "belief", "headlines", "images"),
    "STS16": ("answer-answer", "headlines", "plagiarism", "postediting", "question-question"),
}


def load_sts_pair_files(input_path: PathLike, gold_path: PathLike) -> SentencePairs:
    """Read one STS sub-dataset from its input and gold files, dropping pairs whose gold line is
    empty.

    The two files must have the same number of lines; otherwise the pairs cannot be matched to
    scores.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval) and chapter 8 (Wieting et al.).
    """
    inputs = read_lines(input_path, SENTEVAL_HINT)
    golds = read_lines(gold_path, SENTEVAL_HINT)
    if len(inputs) != len(golds):
        raise ValueError(
            f"{input_path} has {len(inputs)} lines but {gold_path} has {len(golds)}: an STS input "
            "file and its gold file must have one line per pair (empty gold lines for unscored "
            f"pairs). {SENTEVAL_HINT}"
        )
    first: list[str] = []
    second: list[str] = []
    scores: list[float] = []
    for lineno, (line, gold) in enumerate(zip(inputs, golds, strict=True), start=1):
        if not gold.strip():
            continue
        fields = split_columns(input_path, lineno, line, 2, "sentence1, sentence2", SENTEVAL_HINT,
                               at_least=True)
        scores.append(parse_float(gold_path, lineno, gold.strip(), "the gold score", SENTEVAL_HINT))
        first.append(fields[0].strip())
        second.append(fields[1].strip())
    return SentencePairs(first, second, np.asarray(scores, dtype=np.float64))


def _subset_files(folder: Path, year: str, subset: str) -> tuple[Path, Path]:
    """SentEval's renamed files, or the raw ``STS2016.input.*`` names the 2016 release ships
    with."""
    renamed = (folder / f"STS.input.{subset}.txt", folder / f"STS.gs.{subset}.txt")
    raw = (folder / f"STS20{year}.input.{subset}.txt", folder / f"STS20{year}.gs.{subset}.txt")
    return raw if not renamed[0].is_file() and raw[0].is_file() else renamed


def load_sts(data_dir: PathLike, name: str, subsets: Sequence[str] | None = None) -> PairTask:
    """Load STS12..STS16 (``name``), one split per sub-dataset; ``subsets`` restricts to some of
    them.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval) and chapter 8 (Wieting et al.).
    """
    if name not in STS_SUBSETS:
        raise ValueError(f"STS task must be one of {sorted(STS_SUBSETS)}, got {name!r}.")
    chosen = STS_SUBSETS[name] if subsets is None else tuple(subsets)
    unknown = [s for s in chosen if s not in STS_SUBSETS[name]]
    if unknown:
        raise ValueError(f"{name} has sub-datasets {STS_SUBSETS[name]}; unknown: {unknown}.")
    folder = downstream_dir(data_dir, "STS", f"{name}-en-test")
    splits = {subset: load_sts_pair_files(*_subset_files(folder, name[-2:], subset))
              for subset in chosen}
    return PairTask(name, splits)

