"""Natural language inference files: SNLI / MultiNLI jsonl, XNLI tsv and the XNLI-MT translated
training sets.

Labels are ids into ``NLI_LABELS`` (entailment 0, neutral 1, contradiction 2, InferSent's order)
everywhere.
Book: chapter 3 (InferSent) and chapter 6 (XNLI and aligned encoders).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from xsent_lib.data.formats._io import (
    DataFormatError,
    PathLike,
    format_error,
    header_index,
    iter_lines,
    read_lines,
    split_columns,
)
from xsent_lib.data.formats.containers import PairTask, SentencePairs

NLI_LABELS: tuple[str, ...] = ("entailment", "neutral", "contradiction")
_LABEL_ID = {name: i for i, name in enumerate(NLI_LABELS)}
_NO_CONSENSUS = "-"

_SNLI_HINT = (
    "SNLI comes as snli_1.0.zip from https://nlp.stanford.edu/projects/snli/; unzip it so that "
    "<data_dir>/snli_1.0/snli_1.0_{train,dev,test}.jsonl exist."
)
_MULTINLI_HINT = (
    "MultiNLI comes as multinli_1.0.zip from https://cims.nyu.edu/~sbowman/multinli/; unzip it so "
    "that <data_dir>/multinli_1.0/multinli_1.0_{train,dev_matched,dev_mismatched}.jsonl exist."
)
_XNLI_HINT = (
    "XNLI comes as XNLI-1.0.zip from https://github.com/facebookresearch/XNLI; unzip it so that "
    "<data_dir>/XNLI-1.0/xnli.{dev,test}.tsv exist (tab-separated, header line first)."
)
_XNLI_MT_HINT = (
    "The machine-translated training sets come as XNLI-MT-1.0.zip from "
    "https://github.com/facebookresearch/XNLI; unzip it so that "
    "<data_dir>/XNLI-MT-1.0/multinli/multinli.train.<lang>.tsv exist (premise, hypo, label)."
)


@dataclass
class NLIData:
    """Premise/hypothesis pairs with label ids into ``NLI_LABELS``.

    ``genres`` is set for MultiNLI and XNLI, ``languages`` for XNLI; ``n_skipped`` counts the pairs
    dropped because the annotators reached no consensus (gold label ``-``).
    Book: chapter 3 (InferSent).
    """

    premises: list[str]
    hypotheses: list[str]
    labels: np.ndarray
    genres: list[str] | None = None
    languages: list[str] | None = None
    n_skipped: int = 0

    def __len__(self) -> int:
        return len(self.labels)


def _label_id(path: PathLike, lineno: int, label: str, hint: str) -> int:
    if label not in _LABEL_ID:
        raise format_error(path, lineno, f"a gold label in {list(NLI_LABELS)} or '-'", repr(label),
                           hint)
    return _LABEL_ID[label]


def load_nli_jsonl(path: PathLike, max_examples: int | None = None) -> NLIData:
    """Read an SNLI or MultiNLI ``.jsonl`` file (keys ``sentence1``, ``sentence2``, ``gold_label``).

    Pairs whose ``gold_label`` is ``-`` are skipped and counted; MultiNLI's ``genre`` is kept when
    every record has one. ``max_examples`` stops reading after that many kept pairs.
    Book: chapter 3 (InferSent).
    """
    return _read_nli_jsonl(path, max_examples, f"{_SNLI_HINT} {_MULTINLI_HINT}")


def _read_nli_jsonl(path: PathLike, max_examples: int | None, hint: str) -> NLIData:
    premises: list[str] = []
    hypotheses: list[str] = []
    labels: list[int] = []
    genres: list[str] = []
    skipped = 0
    for lineno, line in iter_lines(path, hint):
        if max_examples is not None and len(labels) >= max_examples:
            break
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise format_error(path, lineno, "one JSON object per line",
                               f"invalid JSON ({exc.msg})", hint) from None
        if not isinstance(record, dict) or not {"sentence1", "sentence2",
                                                "gold_label"} <= record.keys():
            keys = sorted(record) if isinstance(record, dict) else type(record).__name__
            raise format_error(path, lineno, "keys sentence1, sentence2, gold_label", str(keys),
                               hint)
        if record["gold_label"] == _NO_CONSENSUS:
            skipped += 1
            continue
        labels.append(_label_id(path, lineno, record["gold_label"], hint))
        premises.append(record["sentence1"])
        hypotheses.append(record["sentence2"])
        if "genre" in record:
            genres.append(record["genre"])
    return NLIData(
        premises,
        hypotheses,
        np.asarray(labels, dtype=np.int64),
        genres=genres if genres and len(genres) == len(labels) else None,
        n_skipped=skipped,
    )


def _check_split(split: str, allowed: tuple[str, ...], what: str) -> None:
    if split not in allowed:
        raise ValueError(f"{what} split must be one of {allowed}, got {split!r}.")


def load_snli(data_dir: PathLike, split: str = "train", max_examples: int | None = None) -> NLIData:
    """Load SNLI 1.0 from ``<data_dir>/snli_1.0/snli_1.0_<split>.jsonl`` (split: train, dev or
    test).

    Book: chapter 3 (InferSent).
    """
    _check_split(split, ("train", "dev", "test"), "SNLI")
    path = Path(data_dir) / "snli_1.0" / f"snli_1.0_{split}.jsonl"
    return _read_nli_jsonl(path, max_examples, _SNLI_HINT)


def load_multinli(data_dir: PathLike, split: str = "train",
                  max_examples: int | None = None) -> NLIData:
    """Load MultiNLI 1.0 from ``<data_dir>/multinli_1.0/multinli_1.0_<split>.jsonl``, with genres.

    ``split`` is train, dev_matched or dev_mismatched (the test labels were never released).
    Book: chapter 3 (InferSent).
    """
    _check_split(split, ("train", "dev_matched", "dev_mismatched"), "MultiNLI")
    path = Path(data_dir) / "multinli_1.0" / f"multinli_1.0_{split}.jsonl"
    return _read_nli_jsonl(path, max_examples, _MULTINLI_HINT)


def load_xnli_tsv(path: PathLike, language: str | None = None) -> NLIData:
    """Read ``xnli.dev.tsv`` / ``xnli.test.tsv``, keeping one ``language`` (``None`` keeps all 15).

    Columns are found by name in the header (``language``, ``gold_label``, ``sentence1``,
    ``sentence2``, ``genre``), so the parse and annotator columns may be present or not. Fields are
    split on tabs only: the files contain unbalanced quotes, which a CSV reader would merge across
    lines.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    required = ("language", "gold_label", "sentence1", "sentence2")
    premises: list[str] = []
    hypotheses: list[str] = []
    labels: list[int] = []
    genres: list[str] = []
    languages: list[str] = []
    seen_languages: set[str] = set()
    skipped = 0
    lines = iter_lines(path, _XNLI_HINT)
    first = next(lines, None)
    if first is None:
        raise format_error(path, 1, "a header line naming the columns", "an empty file", _XNLI_HINT)
    col = header_index(path, first[1], required, _XNLI_HINT)
    n_columns = len(col)
    for lineno, line in lines:
        fields = split_columns(path, lineno, line, n_columns, "as many as the header", _XNLI_HINT)
        lang = fields[col["language"]]
        seen_languages.add(lang)
        if language is not None and lang != language:
            continue
        if fields[col["gold_label"]] == _NO_CONSENSUS:
            skipped += 1
            continue
        labels.append(_label_id(path, lineno, fields[col["gold_label"]], _XNLI_HINT))
        premises.append(fields[col["sentence1"]])
        hypotheses.append(fields[col["sentence2"]])
        languages.append(lang)
        if "genre" in col:
            genres.append(fields[col["genre"]])
    if language is not None and not labels and skipped == 0:
        raise ValueError(
            f"{path}: no rows for language {language!r}; the file holds {sorted(seen_languages)}. "
            "Use one of those ISO codes."
        )
    return NLIData(
        premises,
        hypotheses,
        np.asarray(labels, dtype=np.int64),
        genres=genres or None,
        languages=languages,
        n_skipped=skipped,
    )


def load_xnli(data_dir: PathLike, split: str = "test", language: str | None = None) -> NLIData:
    """Load XNLI 1.0 from ``<data_dir>/XNLI-1.0/xnli.<split>.tsv`` (split: dev or test) for one
    language.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    _check_split(split, ("dev", "test"), "XNLI")
    return load_xnli_tsv(Path(data_dir) / "XNLI-1.0" / f"xnli.{split}.tsv", language)


def load_xnli_mt_tsv(path: PathLike, max_examples: int | None = None) -> NLIData:
    """Read an XNLI-MT ``multinli.train.<lang>.tsv`` file: header ``premise, hypo, label``, then one
    pair a line.

    The label ``contradictory`` used in these files is mapped to ``contradiction``.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    premises: list[str] = []
    hypotheses: list[str] = []
    labels: list[int] = []
    limit = None if max_examples is None else max_examples + 1
    for lineno, line in iter_lines(path, _XNLI_MT_HINT, max_lines=limit):
        fields = split_columns(path, lineno, line, 3, "premise, hypo, label", _XNLI_MT_HINT)
        if lineno == 1:
            if fields[2] != "label":
                raise format_error(path, 1, "the header 'premise<TAB>hypo<TAB>label'", repr(line),
                                   _XNLI_MT_HINT)
            continue
        label = "contradiction" if fields[2] == "contradictory" else fields[2]
        labels.append(_label_id(path, lineno, label, _XNLI_MT_HINT))
        premises.append(fields[0])
        hypotheses.append(fields[1])
    return NLIData(premises, hypotheses, np.asarray(labels, dtype=np.int64))


def load_xnli_mt(data_dir: PathLike, language: str, max_examples: int | None = None) -> NLIData:
    """Load the translated MultiNLI training set
    ``<data_dir>/XNLI-MT-1.0/multinli/multinli.train.<lang>.tsv``.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    path = Path(data_dir) / "XNLI-MT-1.0" / "multinli" / f"multinli.train.{language}.tsv"
    return load_xnli_mt_tsv(path, max_examples)


def load_senteval_snli(data_dir: PathLike) -> PairTask:
    """SNLI in SentEval's layout: ``<data_dir>/downstream/SNLI/{s1,s2,labels}.{train,dev,test}``
    (one item a line).

    The sentences are SentEval's tokenised ones, read as latin-1 as SentEval does; labels are
    ``NLI_LABELS`` ids. Splits are ``train``, ``dev`` and ``test``.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    from xsent_lib.data.formats.classification import SENTEVAL_HINT, downstream_dir

    folder = downstream_dir(data_dir, "SNLI")
    splits = {}
    for split in ("train", "dev", "test"):
        first = read_lines(folder / f"s1.{split}", SENTEVAL_HINT, ("latin-1",))
        second = read_lines(folder / f"s2.{split}", SENTEVAL_HINT, ("latin-1",))
        names = read_lines(folder / f"labels.{split}", SENTEVAL_HINT, ("utf-8",))
        if not len(first) == len(second) == len(names):
            raise DataFormatError(f"{folder}: s1.{split}, s2.{split} and labels.{split} have "
                                  f"{len(first)}, {len(second)} and {len(names)} lines; they must "
                                  "align line by line.")
        bad = sorted({n for n in names if n not in _LABEL_ID})
        if bad:
            raise DataFormatError(f"{folder / f'labels.{split}'}: labels must be one of "
                                  f"{NLI_LABELS}, found {bad[:3]}.")
        splits[split] = SentencePairs(first, second,
                                      np.array([_LABEL_ID[n] for n in names], dtype=np.int64))
    return PairTask("SNLI", splits, NLI_LABELS)
