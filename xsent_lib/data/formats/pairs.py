"""SentEval's sentence-pair tasks: MRPC, SICK (relatedness and entailment) and the STS Benchmark.

MRPC: ``MRPC/msr_paraphrase_{train,test}.txt``, header ``Quality, #1 ID, #2 ID, #1 String, #2
String``. SICK: ``SICK/SICK_{train,trial,test_annotated}.txt``, header ``pair_ID, sentence_A,
sentence_B, relatedness_score, entailment_judgment`` (the trial file is the dev split). STS
Benchmark: ``STS/STSBenchmark/sts-{train,dev,test}.csv``, no header, tab-separated: genre, file,
year, id, score, sentence 1, sentence 2 and, on some lines, source columns.
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from xsent_lib.data.formats._io import (
    PathLike,
    format_error,
    header_index,
    parse_float,
    read_lines,
    split_columns,
)
from xsent_lib.data.formats.classification import SENTEVAL_HINT, downstream_dir
from xsent_lib.data.formats.containers import PairTask, SentencePairs
from xsent_lib.data.formats.nli import NLI_LABELS

_SICK_COLUMNS = ("pair_ID", "sentence_A", "sentence_B", "relatedness_score", "entailment_judgment")


def load_mrpc_file(path: PathLike) -> SentencePairs:
    """Read an MSR paraphrase file: a header line, then ``quality, id1, id2, string1, string2``
    rows.

    Labels are 1 (paraphrase) or 0. The Microsoft files start with a byte-order mark, which is
    dropped.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    lines = read_lines(path, SENTEVAL_HINT)
    if not lines or not lines[0].startswith("Quality"):
        got = repr(lines[0]) if lines else "an empty file"
        raise format_error(path, 1, "the header 'Quality<TAB>#1 ID<TAB>#2 ID<TAB>#1 String<TAB>#2 "
                                    "String'", got,
                           SENTEVAL_HINT)
    first: list[str] = []
    second: list[str] = []
    labels: list[int] = []
    for lineno, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        quality, _id1, _id2, s1, s2 = split_columns(path, lineno, line, 5,
                                                    "quality, id1, id2, string1, string2",
                                                    SENTEVAL_HINT)
        if quality not in ("0", "1"):
            raise format_error(path, lineno, "a quality label 0 or 1 in the first column",
                               repr(quality),
                               SENTEVAL_HINT)
        first.append(s1.strip())
        second.append(s2.strip())
        labels.append(int(quality))
    return SentencePairs(first, second, np.asarray(labels, dtype=np.int64))


def load_mrpc(data_dir: PathLike) -> PairTask:
    """Load MRPC train and test from ``<data_dir>/downstream/MRPC``.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    splits = {
        split: load_mrpc_file(downstream_dir(data_dir, "MRPC", f"msr_paraphrase_{split}.txt"))
        for split in ("train", "test")
    }
    return PairTask("MRPC", splits, ("not paraphrase", "paraphrase"))


def load_sick_file(path: PathLike, target: str = "relatedness") -> SentencePairs:
    """Read a SICK file; ``target`` picks float relatedness scores (1-5) or entailment ids into
    ``NLI_LABELS``.

    Columns are found by header name, so the full 12-column ``SICK.txt`` export works too.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if target not in ("relatedness", "entailment"):
        raise ValueError(f"SICK target must be 'relatedness' or 'entailment', got {target!r}.")
    lines = read_lines(path, SENTEVAL_HINT)
    if not lines:
        raise format_error(path, 1, "a header line naming the columns", "an empty file",
                           SENTEVAL_HINT)
    col = header_index(path, lines[0], _SICK_COLUMNS[1:], SENTEVAL_HINT)
    first: list[str] = []
    second: list[str] = []
    labels: list[float] = []
    for lineno, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = split_columns(path, lineno, line, len(col), "as many as the header", SENTEVAL_HINT)
        first.append(fields[col["sentence_A"]].strip())
        second.append(fields[col["sentence_B"]].strip())
        if target == "relatedness":
            labels.append(parse_float(path, lineno, fields[col["relatedness_score"]],
                                      "relatedness_score",
                                      SENTEVAL_HINT))
            continue
        judgment = fields[col["entailment_judgment"]].lower()
        if judgment not in NLI_LABELS:
            raise format_error(path, lineno, "ENTAILMENT, NEUTRAL or CONTRADICTION", repr(judgment),
                               SENTEVAL_HINT)
        labels.append(NLI_LABELS.index(judgment))
    dtype = np.float64 if target == "relatedness" else np.int64
    return SentencePairs(first, second, np.asarray(labels, dtype=dtype))


def load_sick(data_dir: PathLike, target: str = "relatedness") -> PairTask:
    """Load SICK-R (``target="relatedness"``) or SICK-E (``"entailment"``): train, dev (trial) and
    test.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    files = {"train": "SICK_train.txt", "dev": "SICK_trial.txt", "test": "SICK_test_annotated.txt"}
    splits = {split: load_sick_file(downstream_dir(data_dir, "SICK", name), target)
              for split, name in files.items()}
    if target == "entailment":
        return PairTask("SICK-E", splits, NLI_LABELS)
    return PairTask("SICK-R", splits)


def load_stsb_file(path: PathLike) -> SentencePairs:
    """Read one STS Benchmark split: tab-separated rows with the 0-5 score in column 5, sentences in
    6 and 7.

    Fields are split on tabs only (the files contain unbalanced quotes); extra source columns are
    ignored.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval) and chapter 8 (Wieting et al.).
    """
    first: list[str] = []
    second: list[str] = []
    scores: list[float] = []
    for lineno, line in enumerate(read_lines(path, SENTEVAL_HINT), start=1):
        if not line.strip():
            continue
        fields = split_columns(path, lineno, line, 7, "genre, file, year, id, score, sentence1, "
                                                      "sentence2",
                               SENTEVAL_HINT, at_least=True)
        scores.append(parse_float(path, lineno, fields[4], "the score (column 5)", SENTEVAL_HINT))
        first.append(fields[5].strip())
        second.append(fields[6].strip())
    return SentencePairs(first, second, np.asarray(scores, dtype=np.float64))


def load_stsb(data_dir: PathLike) -> PairTask:
    """Load the STS Benchmark train/dev/test from ``<data_dir>/downstream/STS/STSBenchmark``.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval) and chapter 8 (Wieting et al.).
    """
    folder: Path = downstream_dir(data_dir, "STS", "STSBenchmark")
    splits = {split: load_stsb_file(folder / f"sts-{split}.csv")
              for split in ("train", "dev", "test")}
    return PairTask("STSBenchmark", splits)
