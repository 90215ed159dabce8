"""Moses-style bitext: two plain-text files with one sentence a line, line i of one translating line
i of the other.

Book: chapter 8 (Paraphrastic embeddings from bitext: Wieting et al.).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from xsent_lib.data.formats._io import PathLike, iter_lines

_HINT = (
    "A Moses-style bitext is two aligned UTF-8 files named <prefix>.<lang> (e.g. corpus.en and "
    "corpus.fr, as unpacked from Europarl or OPUS 'Moses' downloads), with exactly one sentence "
    "per line in both."
)


@dataclass
class Bitext:
    """Aligned sentences: ``source[i]`` translates ``target[i]`` (whitespace-stripped, empty lines
    kept).

    Book: chapter 8 (Paraphrastic embeddings from bitext: Wieting et al.).
    """

    source: list[str]
    target: list[str]

    def __len__(self) -> int:
        return len(self.source)


def load_bitext(source_path: PathLike, target_path: PathLike,
                max_lines: int | None = None) -> Bitext:
    """Read two aligned files, at most ``max_lines`` lines of each; their line counts must agree.

    Empty lines are kept so that alignment is never shifted; filter pairs afterwards if needed.
    Lines end at ``\\n`` only, so a stray carriage return inside a sentence does not break the
    alignment.
    Book: chapter 8 (Paraphrastic embeddings from bitext: Wieting et al.).
    """
    if max_lines is not None and max_lines < 1:
        raise ValueError("max_lines must be a positive number of lines (or None for all), got "
                         f"{max_lines}.")
    source = [line.strip() for _, line in iter_lines(source_path, _HINT, max_lines)]
    target = [line.strip() for _, line in iter_lines(target_path, _HINT, max_lines)]
    if len(source) != len(target):
        short, long_ = (source_path,
                        target_path) if len(source) < len(target) else (target_path, source_path)
        raise ValueError(
            f"bitext files are not aligned: {short} has {min(len(source), len(target))} lines but "
            f"{long_} has {max(len(source), len(target))}"
            f"{'' if max_lines is None else f' (reading at most {max_lines})'}; "
            f"{short} is short. {_HINT}"
        )
    return Bitext(source, target)


def load_moses_bitext(prefix: PathLike, source_lang: str, target_lang: str,
                      max_lines: int | None = None) -> Bitext:
    """Read ``<prefix>.<source_lang>`` and ``<prefix>.<target_lang>`` (e.g. ``corpus.en`` /
    ``corpus.fr``).

    Book: chapter 8 (Paraphrastic embeddings from bitext: Wieting et al.).
    """
    base = Path(prefix)
    return load_bitext(f"{base}.{source_lang}", f"{base}.{target_lang}", max_lines)
