"""SentEval's single-sentence classification tasks in their distributed layout under
``<data_dir>/downstream/``.

MR (``rt-polarity.pos/neg``), CR (``custrev.pos/neg``), SUBJ (``subj.objective/subjective``), MPQA
(``mpqa.pos/neg``): one sentence a line, one file a class. SST2 (``SST/binary/sentiment-<split>``)
and SST5 (``SST/fine/sentiment-<split>``): ``sentence<TAB>label`` or ``label sentence`` lines. TREC
(``TREC/train_5500.label``, ``TREC/TREC_10.label``): ``COARSE:fine question`` lines.
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from xsent_lib.data.formats._io import DataFormatError, PathLike, format_error, read_lines
from xsent_lib.data.formats.containers import ClassificationTask, LabelledSentences

SENTEVAL_HINT = (
    "The SentEval transfer data is built by SentEval's data/downstream/get_transfer_data.bash "
    "(https://github.com/facebookresearch/SentEval); point data_dir at the folder that holds its "
    "downstream/ folder (downstream/MR, downstream/SST/binary, downstream/STS/STSBenchmark, ...)."
)
# The MR/CR/SUBJ/MPQA/TREC files predate UTF-8 and carry Latin-1 bytes (SentEval reads them as
# latin-1). UTF-8 is tried first so that re-encoded copies are read correctly too.
LEGACY_ENCODINGS: tuple[str, ...] = ("utf-8-sig", "latin-1")

# task -> (folder, file of class 1, file of class 0, class names by id)
_BINARY_TASKS: dict[str, tuple[str, str, str, tuple[str, str]]] = {
    "MR": ("MR", "rt-polarity.pos", "rt-polarity.neg", ("negative", "positive")),
    "CR": ("CR", "custrev.pos", "custrev.neg", ("negative", "positive")),
    "SUBJ": ("SUBJ", "subj.objective", "subj.subjective", ("subjective", "objective")),
    "MPQA": ("MPQA", "mpqa.pos", "mpqa.neg", ("negative", "positive")),
}
TREC_LABELS: tuple[str, ...] = ("ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM")


def downstream_dir(data_dir: PathLike, *parts: str) -> Path:
    """The folder ``<data_dir>/downstream/<parts...>`` of SentEval's layout.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    return Path(data_dir).joinpath("downstream", *parts)


def _sentences(path: Path) -> list[str]:
    """Non-empty stripped lines of a one-sentence-a-line file (blank lines carry no sentence)."""
    return [line.strip() for line in read_lines(path, SENTEVAL_HINT, LEGACY_ENCODINGS)
            if line.strip()]


def load_binary_task(name: str, data_dir: PathLike) -> ClassificationTask:
    """Load MR, CR, SUBJ or MPQA: class-1 sentences first, then class-0 ones, in one ``"all"``
    split.

    Class 1 is positive (objective for SUBJ), as in SentEval; these tasks are scored by 10-fold
    cross-validation, so no train/test split is imposed here. A file without sentences is refused,
    naming it.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if name not in _BINARY_TASKS:
        raise ValueError(f"binary SentEval task must be one of {sorted(_BINARY_TASKS)}, got "
                         f"{name!r}.")
    folder, first_file, second_file, label_names = _BINARY_TASKS[name]
    paths = [downstream_dir(data_dir, folder, f) for f in (first_file, second_file)]
    ones, zeros = (_sentences(path) for path in paths)
    empty = [str(path) for path, sentences in zip(paths, (ones, zeros)) if not sentences]
    if empty:
        raise DataFormatError(f"{' and '.join(empty)}: no sentences (an empty or truncated file); "
                              f"{name} is scored on both classes, and one class alone would score "
                              f"100%. {SENTEVAL_HINT}")
    labels = np.concatenate([np.ones(len(ones), np.int64), np.zeros(len(zeros), np.int64)])
    return ClassificationTask(name, {"all": LabelledSentences(ones + zeros, labels)}, label_names)


def load_sst_file(path: PathLike, n_classes: int) -> LabelledSentences:
    """Read one SST split: ``sentence<TAB>label`` lines (SentEval's binary files) or ``label
    sentence`` lines (its fine-grained files); the first line decides, and every line must follow
    it.

    Labels must lie in ``0..n_classes-1``.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    lines = read_lines(path, SENTEVAL_HINT)
    tab_format = bool(lines) and "\t" in lines[0]
    expected = "'sentence<TAB>label'" if tab_format else "'label sentence'"
    sentences: list[str] = []
    labels: list[int] = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if tab_format:
            sentence, _, label = line.rpartition("\t")
        else:
            label, _, sentence = line.strip().partition(" ")
        label = label.strip()
        if not sentence.strip() or not label.isdigit() or int(label) >= n_classes:
            raise format_error(
                path, lineno, f"{expected} with a label in 0..{n_classes - 1}", repr(line),
                SENTEVAL_HINT
            )
        sentences.append(sentence.strip())
        labels.append(int(label))
    return LabelledSentences(sentences, np.asarray(labels, dtype=np.int64))


def load_sst(data_dir: PathLike, n_classes: int = 2) -> ClassificationTask:
    """Load SST2 (``n_classes=2``, ``SST/binary``) or SST5 (``n_classes=5``, ``SST/fine``)
    train/dev/test.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if n_classes not in (2, 5):
        raise ValueError("SST has 2 (binary) or 5 (fine-grained) classes, got "
                         f"n_classes={n_classes}.")
    folder = "binary" if n_classes == 2 else "fine"
    splits = {
        split: load_sst_file(downstream_dir(data_dir, "SST", folder, f"sentiment-{split}"),
                             n_classes)
        for split in ("train", "dev", "test")
    }
    names = ("negative", "positive") if n_classes == 2 else (
        "very negative", "negative", "neutral", "positive", "very positive"
    )
    return ClassificationTask(f"SST{n_classes}", splits, names)


def load_trec_file(path: PathLike) -> LabelledSentences:
    """Read a TREC question file: ``COARSE:fine question words`` a line; labels are coarse class
    ids.

    Only the six coarse classes (``TREC_LABELS``) are kept, as in SentEval and the papers.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    sentences: list[str] = []
    labels: list[int] = []
    for lineno, line in enumerate(read_lines(path, SENTEVAL_HINT, LEGACY_ENCODINGS), start=1):
        if not line.strip():
            continue
        coarse, colon, rest = line.strip().partition(":")
        _fine, _, question = rest.partition(" ")
        if not colon or coarse not in TREC_LABELS or not question.strip():
            raise format_error(
                path, lineno, f"'COARSE:fine question' with COARSE in {list(TREC_LABELS)}",
                repr(line), SENTEVAL_HINT
            )
        sentences.append(question.strip())
        labels.append(TREC_LABELS.index(coarse))
    return LabelledSentences(sentences, np.asarray(labels, dtype=np.int64))


def load_trec(data_dir: PathLike) -> ClassificationTask:
    """Load TREC question classification: train (``train_5500.label``) and test (``TREC_10.label``).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    splits = {
        "train": load_trec_file(downstream_dir(data_dir, "TREC", "train_5500.label")),
        "test": load_trec_file(downstream_dir(data_dir, "TREC", "TREC_10.label")),
    }
    return ClassificationTask("TREC", splits, TREC_LABELS)
