"""BUCC 2018 bitext-mining data: ``<src>-<tgt>.<split>.<lang>`` files of ``id<TAB>sentence`` lines
and, for the sample and training splits, a ``<src>-<tgt>.<split>.gold`` file of
``src_id<TAB>tgt_id`` true pairs.

Book: chapter 8 (Paraphrastic embeddings from bitext: Wieting et al.).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from xsent_lib.data.formats._io import PathLike, format_error, iter_lines, split_columns

BUCC_SPLITS: tuple[str, ...] = ("sample", "training", "test")
_HINT = (
    "The BUCC 2018 shared-task archives (bucc2018-<src>-en.<split>.tar.bz2, "
    "https://comparable.limsi.fr/bucc2018/) unpack to a folder <src>-en/ holding "
    "<src>-en.<split>.<src>, <src>-en.<split>.en and, except for test, <src>-en.<split>.gold; pass "
    "that folder as bucc_dir."
)


@dataclass
class BuccCorpus:
    """Two monolingual corpora to mine, with ids, and the gold pairs as row indices when known.

    ``gold`` is an ``(n_gold, 2)`` int64 array of (source row, target row), or ``None`` for the test
    split.
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
            raise format_error(path, lineno, "unique sentence ids",
                               f"{sentence_id!r} a second time", _HINT)
        row_of[sentence_id] = len(ids)
        ids.append(sentence_id)
        sentences.append(sentence.strip())
    return ids, sentences, row_of


def load_bucc(bucc_dir: PathLike, source_lang: str, target_lang: str = "en",
              split: str = "training") -> BuccCorpus:
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
            src_id, tgt_id = split_columns(gold_path, lineno, line, 2, "source id, target id",
                                           _HINT)
            if src_id not in source_row or tgt_id not in target_row:
                missing = src_id if src_id not in source_row else tgt_id
                raise format_error(gold_path, lineno, "ids present in the two sentence files",
                                   repr(missing), _HINT)
            rows.append((source_row[src_id], target_row[tgt_id]))
        gold = np.asarray(rows, dtype=np.int64).reshape(-1, 2)
    return BuccCorpus(source_ids, source_sentences, target_ids, target_sentences, gold)


def cap_bucc(corpus: BuccCorpus, max_sentences: int | None, seed: int = 0) -> BuccCorpus:
    """At most ``max_sentences`` sentences per side of ``corpus``, drawn with ``seed`` so that
    BUCC's share of sentences with a translation stays about as published.

    A real BUCC 2018 split holds hundreds of thousands of sentences per side, of which a few percent
    are gold. Taking the first lines would keep almost no gold pair (both sides must survive), so
    the cap samples at one rate ``r = max_sentences / (larger side)``: about ``r`` of the gold
    pairs, each with both of its sentences, and about ``r`` of the other sentences of each side. The
    gold returned is every published pair whose two sentences are both kept; file order is kept.
    ``None``, or a corpus already within the cap, comes back unchanged (the same object). Works on a
    split without gold (sides sampled at rate ``r``).
    Book: chapter 8 (Paraphrastic embeddings from bitext: mining).
    """
    if max_sentences is None:
        return corpus
    if not isinstance(max_sentences, int) or isinstance(max_sentences, bool) or max_sentences < 1:
        raise ValueError("max_sentences must be None (all) or a positive integer, got "
                         f"{max_sentences!r}.")
    n_src, n_tgt = len(corpus.source_sentences), len(corpus.target_sentences)
    if max(n_src, n_tgt) <= max_sentences:
        return corpus
    rate = max_sentences / max(n_src, n_tgt)
    rng = np.random.default_rng(seed)
    gold = corpus.gold if corpus.gold is not None else np.zeros((0, 2), dtype=np.int64)
    n_gold = min(len(gold), max(1, int(rate * len(gold))))
    chosen = gold[rng.choice(len(gold), size=n_gold, replace=False)]

    def side(n: int, column: int) -> np.ndarray:
        """Sorted rows kept on one side: the chosen gold rows, then other rows up to the cap."""
        kept = np.unique(chosen[:, column])
        others = np.setdiff1d(np.arange(n), gold[:, column])
        extra = min(max_sentences - len(kept), int(round(rate * len(others))), len(others))
        return np.sort(np.concatenate([kept, rng.choice(others, size=max(extra, 0),
                                                        replace=False)]))

    keep_src, keep_tgt = side(n_src, 0), side(n_tgt, 1)
    new_gold = None
    if corpus.gold is not None:
        both = np.isin(gold[:, 0], keep_src) & np.isin(gold[:, 1], keep_tgt)
        new_gold = np.stack([np.searchsorted(keep_src, gold[both, 0]),
                             np.searchsorted(keep_tgt, gold[both, 1])],
                            axis=1).astype(np.int64).reshape(-1, 2)
    return BuccCorpus([corpus.source_ids[i] for i in keep_src],
                      [corpus.source_sentences[i] for i in keep_src],
                      [corpus.target_ids[i] for i in keep_tgt],
                      [corpus.target_sentences[i] for i in keep_tgt],
                      new_gold)
