"""Word vectors in text form: fastText ``.vec`` (``N D`` header, then ``word v1 ... vD`` rows) and
GloVe ``.txt``.

GloVe files are the same rows without the header. The reader streams: it stops after the first
``max_words`` rows, so the top of a multi-gigabyte file loads in seconds. Rows are read as bytes
(lines end at ``\\n`` only, so words holding exotic whitespace stay on their line) in chunks; the
words are split off in Python and each chunk's numbers are parsed by one call to pandas' C tokenizer
into float32. Gzipped files (``.vec.gz``) are read too.
Book: chapter 5 (Word translation without parallel data: MUSE).
"""
from __future__ import annotations

import csv
import gzip
import io
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pandas as pd

from xsent_lib.data.formats._io import PathLike, format_error, require_file

_CHUNK_ROWS = 8192
_HINT = (
    "fastText .vec files start with a 'N D' header line and then hold one 'word v1 ... vD' row a "
    "line, separated by single spaces (MUSE uses wiki.<lang>.vec from https://fasttext.cc); GloVe "
    ".txt files have the same rows and no header (load them with load_glove_txt)."
)


@dataclass
class WordVectors:
    """Words in file order (most frequent first), their float32 vectors, and what was dropped.

    ``n_read`` counts the rows read from the file; ``n_duplicates`` the rows dropped because their
    word (after lower-casing, when asked) already appeared: the first, most frequent occurrence
    wins, as in MUSE.
    Book: chapter 5 (Word translation without parallel data: MUSE).
    """

    words: list[str]
    vectors: np.ndarray
    n_read: int
    n_duplicates: int
    word2id: dict[str, int] = field(repr=False, default_factory=dict)

    def __len__(self) -> int:
        return len(self.words)


def _open_binary(path: Path) -> BinaryIO:
    return gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb")


def _locate_bad_number(path: Path, rows: list[bytes], first_lineno: int,
                       exc: Exception) -> ValueError:
    """Find the first row whose numbers do not parse, to name its line; only run when a chunk
    failed."""
    for offset, row in enumerate(rows):
        try:
            values = np.array(row.split(b" "), dtype=np.float32)
        except ValueError as row_exc:
            return format_error(path, first_lineno + offset, "numbers after the word", str(row_exc),
                                _HINT)
        if not np.isfinite(values).all():
            return format_error(path, first_lineno + offset, "finite numbers after the word",
                                "nan or inf", _HINT)
    return format_error(path, first_lineno, "numbers on lines "
                                            f"{first_lineno}-{first_lineno + len(rows) - 1}",
                        str(exc), _HINT)


def _parse_chunk(
    path: Path, lines: list[bytes], first_lineno: int, dim: int, lowercase: bool, errors: str
) -> tuple[list[str], np.ndarray]:
    """Split one chunk of rows into decoded words and a ``(rows, dim)`` float32 block, checking
    every row."""
    heads = [line.rstrip().partition(b" ") for line in lines]
    rows = [head[2] for head in heads]
    n_spaces = np.fromiter((row.count(b" ") for row in rows), np.int64, len(rows))
    empty = np.fromiter((not head[0] or not head[2] for head in heads), bool, len(heads))
    bad = np.flatnonzero((n_spaces != dim - 1) | empty)
    if bad.size:
        i = int(bad[0])
        got = "an empty line or word" if empty[i] else f"{n_spaces[i] + 1} space-separated values"
        raise format_error(path, first_lineno + i, f"a word then {dim} space-separated values", got,
                           _HINT)
    words: list[str] = []
    for offset, head in enumerate(heads):
        try:
            word = head[0].decode("utf-8", errors)
        except UnicodeDecodeError as exc:
            hint = f"{_HINT} Pass errors='replace' or 'ignore' to read files with broken UTF-8."
            raise format_error(path, first_lineno + offset, "a UTF-8 word",
                               f"undecodable bytes ({exc.reason})",
                               hint) from None
        words.append(word.lower() if lowercase else word)
    try:
        block = pd.read_csv(
            io.BytesIO(b"\n".join(rows)), sep=" ", header=None, dtype=np.float32, engine="c",
            quoting=csv.QUOTE_NONE, keep_default_na=False, na_values=["nan", "NaN"],
        ).to_numpy()
    except ValueError as exc:
        raise _locate_bad_number(path, rows, first_lineno, exc) from None
    if block.shape != (len(rows), dim) or not np.isfinite(block).all():
        raise _locate_bad_number(path, rows, first_lineno,
                                 ValueError(f"parsed shape {block.shape}"))
    return words, block


def _parse_header(path: Path, line: bytes) -> tuple[int, int]:
    fields = line.split()
    if len(fields) != 2 or not all(f.isdigit() for f in fields) or int(fields[1]) == 0:
        raise format_error(path, 1, "a header 'N D' (number of words, dimension)", repr(line[:80]),
                           _HINT)
    return int(fields[0]), int(fields[1])


def _chunks(lines: Iterator[bytes]) -> Iterator[list[bytes]]:
    while chunk := list(islice(lines, _CHUNK_ROWS)):
        yield chunk


def _looks_like_header(line: bytes) -> bool:
    fields = line.split()
    return len(fields) == 2 and all(f.isdigit() for f in fields)


def _keep_rows(chunk: list[bytes], vocabulary: frozenset[str], lowercase: bool,
               errors: str) -> list[int]:
    """The positions of the rows of ``chunk`` whose word (lower-cased when asked) is in
    ``vocabulary``; undecodable words are kept so that the parser reports them."""
    kept = []
    for i, line in enumerate(chunk):
        head = line.partition(b" ")[0]
        try:
            word = head.decode("utf-8", errors)
        except UnicodeDecodeError:
            kept.append(i)
            continue
        if (word.lower() if lowercase else word) in vocabulary:
            kept.append(i)
    return kept


def _read_vectors(path: PathLike, has_header: bool, max_words: int | None, lowercase: bool,
                  errors: str, vocabulary: Collection[str] | None = None) -> WordVectors:
    if max_words is not None and max_words < 1:
        raise ValueError("max_words must be a positive number of rows (or None for all), got "
                         f"{max_words}.")
    p = require_file(path, _HINT)
    words: list[str] = []
    blocks: list[np.ndarray] = []
    vocab = None if vocabulary is None else frozenset(w.lower() if lowercase else w
                                                      for w in vocabulary)
    with _open_binary(p) as f:
        n_header, dim = _parse_header(p, f.readline()) if has_header else (None, None)
        limit = max_words if n_header is None else min(n_header, max_words or n_header)
        lineno = int(has_header)  # lines consumed so far
        for chunk in _chunks(iter(f) if limit is None else islice(f, limit)):
            if dim is None:
                if _looks_like_header(chunk[0]):
                    raise format_error(p, 1, "a 'word v1 ... vD' row (GloVe files have no header)",
                                       repr(chunk[0][:80]), "A file starting with 'N D' is read by "
                                                            "load_vec.")
                dim = max(chunk[0].rstrip().count(b" "), 1)
            keep = None if vocab is None else _keep_rows(chunk, vocab, lowercase, errors)
            rows = chunk if keep is None else [chunk[i] for i in keep]
            if rows:
                try:
                    chunk_words, block = _parse_chunk(p, rows, lineno + 1, dim, lowercase, errors)
                except ValueError:
                    if keep is None:
                        raise
                    for i in keep:  # the kept row that failed, named by its own line
                        _parse_chunk(p, [chunk[i]], lineno + 1 + i, dim, lowercase, errors)
                    raise
                words += chunk_words
                blocks.append(block)
            lineno += len(chunk)
        if n_header is not None and limit == n_header:
            if lineno - 1 < n_header:
                raise format_error(p, lineno + 1, f"{n_header} rows as the header says",
                                   f"{lineno - 1} rows (truncated file?)", _HINT)
            if f.readline().strip():
                raise format_error(p, lineno + 1, f"the end of the file after the {n_header} rows "
                                                  "of the header",
                                   "more rows", _HINT)
    if not words and vocab is not None:
        raise ValueError(f"{p}: none of the {len(vocab)} words asked for has a vector in the first "
                         f"{lineno} rows; check the file's language and case (lowercase=True "
                         "matches 'The' to 'the').")
    if not words:
        raise format_error(p, lineno + 1, "at least one 'word v1 ... vD' row", "none", _HINT)
    vectors = np.concatenate(blocks) if len(blocks) > 1 else blocks[0]
    n_read = len(words)
    if len(dict.fromkeys(words)) < n_read:
        first_index: dict[str, int] = {}
        keep = np.fromiter((first_index.setdefault(w, i) == i for i, w in enumerate(words)), bool,
                           n_read)
        vectors = vectors[keep]
        words = list(first_index)
    word2id = {w: i for i, w in enumerate(words)}
    return WordVectors(words, vectors, n_read, n_read - len(words), word2id)


def load_vec(path: PathLike, max_words: int | None = None, lowercase: bool = False,
             errors: str = "strict", vocabulary: Collection[str] | None = None) -> WordVectors:
    """Read a fastText ``.vec`` (or ``.vec.gz``) file, stopping after ``max_words`` rows.

    Every row must hold the header's dimension; a malformed row raises a DataFormatError naming its
    line. Without ``max_words`` the row count must match the header (a short file is a truncated
    download). ``errors`` is the UTF-8 error policy for words (``"replace"`` keeps rows with broken
    bytes). ``vocabulary``: keep only the rows of these words (compared after lower-casing when
    ``lowercase``), so a 2M-word file streams through in memory for those words only (the other rows
    are skipped unparsed).
    Book: chapter 5 (Word translation without parallel data: MUSE).
    """
    return _read_vectors(path, True, max_words, lowercase, errors, vocabulary)


def load_glove_txt(path: PathLike, max_words: int | None = None, lowercase: bool = False,
                   errors: str = "strict",
                   vocabulary: Collection[str] | None = None) -> WordVectors:
    """Read a GloVe text file (rows ``word v1 ... vD``, no header), stopping after ``max_words``
    rows.

    The dimension is taken from the first row and checked on every kept row. ``vocabulary`` keeps
    only the rows of those words: ``glove.840B.300d.txt`` (2.2M rows, 5.6 GB) then needs memory for
    the chapter's words only. Chapters 2 and 3 read GloVe 840B this way.

    Book: chapter 5 (Word translation without parallel data: MUSE).
    """
    return _read_vectors(path, False, max_words, lowercase, errors, vocabulary)


def save_vec(path: PathLike, words: list[str] | tuple[str, ...], vectors: np.ndarray) -> Path:
    """Write words and float32 vectors as a fastText ``.vec`` file (``.vec.gz`` gzipped) that
    :func:`load_vec` reads back bit for bit.

    The header is ``N D``; each row is the word, then its values with 9 significant digits
    (``%.9g``, enough to round-trip every float32 exactly). Words must be non-empty, unique, and
    free of spaces and line breaks (the format splits on them); values must be finite. Returns the
    path.
    Book: chapter 5 (Word translation without parallel data: MUSE).
    """
    words = list(words)
    x = np.asarray(vectors)
    if (x.ndim != 2 or x.shape[0] != len(words) or x.shape[1] < 1
            or not np.issubdtype(x.dtype, np.floating)):
        raise ValueError("vectors must be a float (n_words, dim) matrix with one row per word "
                         f"({len(words)}), got shape {x.shape} {x.dtype}.")
    x = x.astype(np.float32, copy=False)
    if not np.isfinite(x).all():
        raise ValueError("vectors hold NaN or inf; the .vec format (and load_vec) takes finite "
                         "numbers only.")
    for i, w in enumerate(words):
        if not isinstance(w, str) or not w or any(c in w for c in " \n\r"):
            raise ValueError(f"word {i} ({w!r}) must be a non-empty string without spaces or line "
                             "breaks.")
    if len(set(words)) != len(words):
        dup = next(w for w, c in pd.Series(words).value_counts().items() if c > 1)
        raise ValueError(f"word {dup!r} occurs more than once; load_vec would keep only its first "
                         "row.")
    p = Path(path)
    opener = gzip.open if p.suffix == ".gz" else open
    with opener(p, "wt", encoding="utf-8", newline="\n") as f:
        f.write(f"{len(words)} {x.shape[1]}\n")
        for w, row in zip(words, x.tolist()):
            f.write(w + " " + " ".join(["%.9g" % v for v in row]) + "\n")
    return p
