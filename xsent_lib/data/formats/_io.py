"""Shared helpers of the real-format loaders: checked paths, exact line splitting, error messages.

Lines are split on ``\\n`` only (a stray ``\\r``, form feed or U+2028 inside a sentence must not
shift an aligned corpus by one line, which ``str.splitlines`` and universal-newline reading would
do).
Book: chapter 1 (Data).
"""
from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

PathLike = str | os.PathLike[str]

#: every file a loader opened in this process (resolved paths), for the provenance of a chapter's
#: real data
_FILES_READ: set[Path] = set()


def files_read() -> set[Path]:
    """The resolved paths of every data file the loaders of :mod:`xsent_lib.data.formats` opened so
    far.

    :class:`xsent_lib.data.sources.DataSources` lists those under ``data_dir`` in a chapter's
    provenance.
    Book: chapter 0 (How to run this book: your own data).
    """
    return set(_FILES_READ)


class DataFormatError(ValueError):
    """A data file exists but breaks its format; the message names the file, the line and the fix.

    Book: chapter 1 (Data).
    """


def require_file(path: PathLike, hint: str) -> Path:
    """Return ``path`` as a Path, or raise FileNotFoundError naming it and saying where to get it.

    Book: chapter 1 (Data).
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"missing data file {p}. {hint}")
    _FILES_READ.add(p.resolve())
    return p


def format_error(path: PathLike, lineno: int, expected: str, got: str,
                 hint: str = "") -> DataFormatError:
    """Build the error for line ``lineno`` (1-based) of ``path``: what was expected, what was found,
    what to do.

    Book: chapter 1 (Data).
    """
    message = f"{path}: line {lineno}: expected {expected}, got {got}."
    return DataFormatError(f"{message} {hint}".rstrip())


def _decode_error(path: Path, data: bytes, exc: UnicodeDecodeError, hint: str) -> DataFormatError:
    lineno = data.count(b"\n", 0, exc.start) + 1
    return format_error(path, lineno, f"{exc.encoding} text", f"undecodable bytes ({exc.reason})",
                        hint)


def _control_error(path: Path, text: str, encoding: str, hint: str) -> DataFormatError | None:
    """The error for a fallback decoding holding a control character other than tab, CR and LF (None
    if clean)."""
    bad = next((i for i, ch in enumerate(text) if (ch < " " or ch == "\x7f")
                and ch not in "\t\r\n"), None)
    if bad is None:
        return None
    lineno = text.count("\n", 0, bad) + 1
    return format_error(path, lineno, f"text (it is not UTF-8, and read as {encoding} it is binary "
                                      "data)",
                        f"the control character U+{ord(text[bad]):04X}; the file looks truncated "
                        "or corrupt: download it again", hint)


def read_lines(path: PathLike, hint: str, encodings: Sequence[str] = ("utf-8-sig",)) -> list[str]:
    """Read a whole (small) text file as lines without their line ends, trying ``encodings`` in
    order.

    The last encoding's failure is reported with its line number; the final newline adds no empty
    line. A fallback encoding (any after the first, e.g. latin-1, which decodes every byte) is
    accepted only for plausible text: no C0 control character other than tab, CR and LF, and no DEL;
    otherwise the file is refused as binary data, naming the line of the first such character
    (random bytes would read as "sentences").
    Book: chapter 1 (Data).
    """
    p = require_file(path, hint)
    data = p.read_bytes()
    for i, encoding in enumerate(encodings):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as exc:
            if i == len(encodings) - 1:
                raise _decode_error(p, data, exc, hint) from None
            continue
        if i > 0 and (error := _control_error(p, text, encoding, hint)) is not None:
            raise error
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        return [line.rstrip("\r") for line in lines]
    raise ValueError("read_lines needs at least one encoding, e.g. ('utf-8-sig',).")


def iter_lines(path: PathLike, hint: str,
               max_lines: int | None = None) -> Iterator[tuple[int, str]]:
    """Stream ``(line_number, line)`` pairs of a UTF-8 file (1-based, line ends removed), at most
    ``max_lines``.

    Book: chapter 1 (Data).
    """
    p = require_file(path, hint)
    with p.open("rb") as f:
        for lineno, raw in enumerate(f, start=1):
            if max_lines is not None and lineno > max_lines:
                return
            try:
                line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise format_error(p, lineno, "UTF-8 text", f"undecodable bytes ({exc.reason})",
                                   hint) from None
            yield lineno, line.rstrip("\r\n")


def split_columns(
    path: PathLike, lineno: int, line: str, n_columns: int, names: str, hint: str,
    at_least: bool = False
) -> list[str]:
    """Split a tab-separated line and check it has ``n_columns`` columns (or more when
    ``at_least``).

    Book: chapter 1 (Data).
    """
    columns = line.split("\t")
    if len(columns) < n_columns or (not at_least and len(columns) != n_columns):
        wanted = f"{'at least ' if at_least else ''}{n_columns} tab-separated columns ({names})"
        raise format_error(path, lineno, wanted, str(len(columns)), hint)
    return columns


def parse_float(path: PathLike, lineno: int, value: str, what: str, hint: str) -> float:
    """Parse ``value`` as a float or raise a DataFormatError that names the file, the line and the
    field.

    Book: chapter 1 (Data).
    """
    try:
        return float(value)
    except ValueError:
        raise format_error(path, lineno, f"a number for {what}", repr(value), hint) from None


def header_index(path: PathLike, header: str, required: Sequence[str], hint: str) -> dict[str, int]:
    """Map the column names of a tab-separated header line to positions; fail if a required one is
    absent.

    Book: chapter 1 (Data).
    """
    names = header.split("\t")
    missing = [name for name in required if name not in names]
    if missing:
        raise format_error(path, 1, f"a header with columns {list(required)}",
                           f"{names} (missing {missing})", hint)
    return {name: i for i, name in enumerate(names)}
