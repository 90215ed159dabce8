"""Gettext catalogues (``.mo``): English interface messages and their human translations, e.g.
``libreoffice-l10n-fr``.

A compiled catalogue maps each English ``msgid`` to its translation ``msgstr``; the standard
library's ``gettext.GNUTranslations`` reads it. Debian's ``libreoffice-l10n-<lang>`` holds one
catalogue per LibreOffice module under
``usr/lib/libreoffice/program/resource/<lang>/LC_MESSAGES/*.mo``. Each message becomes at most one
pair, cleaned and filtered as follows:

* the context (``msgctxt``, stored before a ``\\x04`` in the key) is stripped from the English and
  kept in ``ref`` as ``<catalogue>.mo#<context>``; of a plural message only the singular is kept;
* accelerator markers are removed: ``~``, ``_`` or ``&`` before a letter or digit (``Collec_t`` ->
  ``Collect``) and a trailing ``(_F)``-style key as Chinese and Japanese menus write it;
* messages with a format code or placeholder on either side are dropped (``%s``, ``%d``,
  ``%(name)s``, ``%1``, ``%PRODUCTNAME``, ``%{link}``, ``{0}``, ``$(ARG1)``, ``$1``, ``$name$``,
  ``#1``): the runtime fills them in, so the text is not a sentence;
* the English must have at least ``min_words`` words; the translation must not be empty nor equal to
  the English (untranslated); whitespace is collapsed to one line per side; exact duplicate pairs
  are kept once.

Order: catalogues by file name, messages in catalogue order (sorted by key).
Book: chapter 1 (Data: the corpora and the synthetic world).
"""
from __future__ import annotations

import gettext
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

from xsent_lib.data.corpora.bitext import PAIRS_FILE, PAIRS_HEADER
from xsent_lib.data.corpora.tables import one_line, write_table

FORMAT_VERSION = 1
RESOURCE_ROOT = Path("usr/lib/libreoffice/program/resource")
CONTEXT_SEP = "\x04"
_ACCEL_KEY = re.compile(r"\s*\([~_&]\w\)")  # "ファイル(_F)"
_ACCEL_MARK = re.compile(r"[~_&](?=\w)")  # "~Close", "Collec_t", "&Open"
_FORMAT_CODE = re.compile(
    # printf, %(name)s
    r"%(?:\(\w+\))?[-+#0]*(?:\d+|\*)?(?:\.\d+)?(?:hh|h|ll|l|L|z|j|t)?[diouxXeEfFgGcrsaA]"
    r"|%\d|%[A-Z][A-Z_]+|%\{\w+\}"  # %1, %PRODUCTNAME, %{link}
    r"|\{\w*\}"  # {0}, {name}, {}
    r"|\$\(\w+\)|\$\d|\$\w+\$"  # $(ARG1), $1, $filename$
    r"|#\d"  # #1
)


def strip_accelerators(text: str) -> str:
    """Remove keyboard accelerator markers: ``~Close`` -> ``Close``, ``Collec_t`` -> ``Collect``,
    ``文件(_F)`` -> ``文件``.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    return _ACCEL_MARK.sub("", _ACCEL_KEY.sub("", text))


def has_format_code(text: str) -> bool:
    """Whether ``text`` holds a format code or placeholder (``%s``, ``%(n)d``, ``%1``, ``{0}``,
    ``$(ARG1)``, ...).

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    return _FORMAT_CODE.search(text) is not None


def read_mo(path: Path) -> list[tuple[str, str, str]]:
    """``(context, msgid, msgstr)`` of every message of one ``.mo`` file, in catalogue order;
    plurals give the singular.

    The header entry (empty msgid) is left out; ``context`` is ``""`` for a message without one.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    try:
        with path.open("rb") as fh:
            catalog = gettext.GNUTranslations(fh)._catalog
    except OSError as exc:
        raise ValueError(f"{path} is not a readable gettext .mo catalogue: {exc}") from exc
    rows = []
    for key, msgstr in catalog.items():
        # plural: (singular msgid, form index); form 0 is the singular translation
        if isinstance(key, tuple):
            key, form = key
            if form != 0:
                continue
        if not key:
            continue
        context, sep, msgid = key.rpartition(CONTEXT_SEP)
        rows.append((context if sep else "", msgid, msgstr))
    return rows


def catalogue_pairs(mo_files: Iterable[Path],
                    min_words: int = 4) -> tuple[list[tuple[str, str, str]], Counter]:
    """Clean and filter the messages of ``mo_files`` into ``(english, translation, ref)`` rows; also
    what was dropped.

    The counter holds ``messages`` (read) and the drops by reason: ``format_code``, ``short``,
    ``untranslated`` and ``duplicate``.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    if min_words < 1:
        raise ValueError(f"min_words must be a positive number of English words, "
                         f"got {min_words!r}.")
    rows, seen, counts = [], set(), Counter()
    for path in mo_files:
        for context, msgid, msgstr in read_mo(path):
            counts["messages"] += 1
            if has_format_code(msgid) or has_format_code(msgstr):
                counts["format_code"] += 1
                continue
            en, tr = one_line(strip_accelerators(msgid)), one_line(strip_accelerators(msgstr))
            if len(en.split()) < min_words:
                counts["short"] += 1
            elif not tr or tr == en:
                counts["untranslated"] += 1
            elif (en, tr) in seen:
                counts["duplicate"] += 1
            else:
                seen.add((en, tr))
                rows.append((en, tr, one_line(f"{path.name}#{context}")))
    return rows, counts


def normalise_gettext(raw: Mapping[str, Path], out: Path, source: str, lang_dir: str,
                      min_words: int = 4) -> dict[str, object]:
    """Write ``pairs.tsv`` from the catalogues ``resource/<lang_dir>/LC_MESSAGES/*.mo`` of the
    unpacked ``source``.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    folder = raw[source] / RESOURCE_ROOT / lang_dir / "LC_MESSAGES"
    mo_files = sorted(folder.glob("*.mo"))
    if not mo_files:
        raise ValueError(f"{folder} holds no .mo catalogue: is this an unpacked "
                         f"libreoffice-l10n-{lang_dir} package?")
    rows, counts = catalogue_pairs(mo_files, min_words)
    n = write_table(out / PAIRS_FILE, PAIRS_HEADER, rows)
    return {"pairs": n, "catalogues": len(mo_files), "messages": counts["messages"],
            "dropped_format_code": counts["format_code"], "dropped_short": counts["short"],
            "dropped_untranslated": counts["untranslated"],
            "dropped_duplicate": counts["duplicate"],
            "english_words": sum(len(r[0].split()) for r in rows)}
