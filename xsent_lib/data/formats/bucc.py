"""BUCC 2018 bitext-mining data: ``<src>-<tgt>.<split>.<lang>`` files of ``id<TAB>sentence`` lines and, for the
sample and training splits, a ``<src>-<tgt>.<split>.gold`` file of ``src_id<TAB>tgt_id`` true pairs.

Book: chapter 8 (Paraphrastic embeddings from bitext: Wieting et al.).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from xsent_lib.data.formats._io import PathLike, format_error, iter_lines, split_columns

BUCC_SPLITS: tuple[str, ...] = ("sample", "training", "test")
_HINT = (
    "The BUCC 2018 shared-task archives (bucc2018-<src>-en.<split>.tar.bz2, https://comparable.limsi.fr/bucc2018/) "
    "unpack to a folder <src>-en/ holding <src>-en.<split>.<src>, <src>-en.<split>.en and, except for test, "
    "<src>-en.<split>.gold; pass that folder as bucc_dir."
)


@dataclass
class BuccCorpus:
    """Two monolingual corpora to mine, with ids, and the gold pairs as row indices when known.

    ``gold`` is an ``(n_gold, 2)`` int64 array of (source row, target row), or ``None`` for the test split.
    Book: chapter 8 (Paraphrastic embeddings from bitext: Wieting et al.).
    """

    source_ids: list[str]
    source_sentences: list[str]
    target_ids: list[str]
    target_sentences: list[str]
    gold: np.ndarray | None


def _read_side(path: Path) -> tuple[list[str], list[str], dict[str, int]]:
    ids: list[str] = []
    sentences: list[str] = []
    row_of: dict[str, int] = {}
    for lineno, line in iter_lines(path, _HINT):
        if not line.strip():
            continue
        sentence_id, sentence = split_columns(path, lineno, line, 2, "id, sentence", _HINT)
        if sentence_id in row_of:
            raise format_error(path, lineno, "unique sentence ids", f"{sentence_id!r} a second time", _HINT)
        row_of[sentence_id] = len(ids)
        ids.append(sentence_id)
        sentences.append(sentence.strip())
    return ids, sentences, row_of


def load_bucc(bucc_dir: PathLike, source_lang: str, target_lang: str = "en", split: str = "training") -> BuccCorpus:
    """Load one BUCC split; gold ids must name sentences of the two corpora.

    The gold file is required for ``sample`` and ``training`` and read for ``test`` when present.
    Book: chapter 8 (Paraphrastic embeddings from bitext: Wieting et al.).
    """
    if split not in BUCC_SPLITS:
        raise ValueError(f"BUCC split must be one of {BUCC_SPLITS}, got {split!r}.")
    stem = Path(bucc_dir) / f"{source_lang}-{target_lang}.{split}"
    source_ids, source_sentences, source_row = _read_side(Path(f"{stem}.{source_lang}"))
    target_ids, target_sentences, target_row = _read_side(Path(f"{stem}.{target_lang}"))
    gold_path = Path(f"{stem}.gold")
    gold = None
    if split != "test" or gold_path.is_file():
        rows: list[tuple[int, int]] = []
        for lineno, line in iter_lines(gold_path, _HINT):
            if not line.strip():
                continue
            src_id, tgt_id = split_columns(gold_path, lineno, line, 2, "source id, target id", _HINT)
            if src_id not in source_row or tgt_id not in target_row:
                missing = src_id if src_id not in source_row else tgt_id
                raise format_error(gold_path, lineno, "ids present in the two sentence files", repr(missing), _HINT)
            rows.append((source_row[src_id], target_row[tgt_id]))
        gold = np.asarray(rows, dtype=np.int64).reshape(-1, 2)
    return BuccCorpus(source_ids, source_sentences, target_ids, target_sentences, gold)
