"""SWORD zText Bible modules (Debian ``sword-text-kjv``, ``sword-text-sparv``) read in pure Python.

A module is described by ``usr/share/sword/mods.d/<module>.conf`` (``DataPath``, ``ModDrv=zText``,
``CompressType=ZIP``, ``Encoding``) and stored per testament as three files:
``<t>.bzs`` (per compressed block: offset, compressed size, uncompressed size; three uint32 LE),
``<t>.bzz`` (the zlib-compressed blocks) and ``<t>.bzv`` (per verse slot: block number and offset
as uint32 LE, text length as uint16 LE). Slots follow the versification: module and testament
headers, then per book a book-introduction slot, and per chapter a chapter-heading slot followed
by the verses. Verse references are recovered from the OSIS ``<chapter sID="Gen.1"/>`` markers in
the heading slots, so two modules with the same versification (KJV and Reina-Valera 1909 both use
KJV's) align by reference. Text cleaning: notes and non-canonical titles are dropped (canonical
titles such as Psalm headings are part of the verse in both translations), other tags and the KJV's
paragraph signs (¶) are removed.
Book: chapter 1 (Data: the corpora and the synthetic world).
"""
from __future__ import annotations

import html
import re
import zlib
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from xsent_lib.data.corpora.bitext import PAIRS_FILE, PAIRS_HEADER
from xsent_lib.data.corpora.tables import one_line, write_table

FORMAT_VERSION = 1
MODS_DIR = Path("usr/share/sword/mods.d")
_CHAPTER = re.compile(r'<chapter\b[^>]*\bsID="([^"]+)"')
_NOTE = re.compile(r"<note\b[^>]*>.*?</note>", re.S)
_TITLE = re.compile(r"<title\b([^>]*)>(.*?)</title>", re.S)
_TAG = re.compile(r"<[^>]*>")
_BZV = np.dtype([("block", "<u4"), ("offset", "<u4"), ("size", "<u2")])


def read_conf(path: Path) -> dict[str, str]:
    """The ``key=value`` lines of a SWORD ``.conf`` file (first value of a repeated key wins;
    comments skipped).

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    conf: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        key, sep, value = line.partition("=")
        if sep and not line.lstrip().startswith("#"):
            conf.setdefault(key.strip(), value.strip())
    return conf


def read_ztext_slots(data_dir: Path, testament: str, encoding: str = "utf-8") -> list[str]:
    """Every verse slot of one testament (``"ot"`` or ``"nt"``) of a zText module, raw markup
    included.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    blocks_index = np.fromfile(data_dir / f"{testament}.bzs", dtype="<u4")
    if blocks_index.size % 3:
        raise ValueError(f"{data_dir / testament}.bzs: size is not a multiple of 12 bytes; the "
                         "module is damaged.")
    verses = np.fromfile(data_dir / f"{testament}.bzv", dtype=_BZV)
    data = (data_dir / f"{testament}.bzz").read_bytes()
    blocks = [zlib.decompress(data[o:o + c]) for o, c, _ in blocks_index.reshape(-1, 3).tolist()]
    return [blocks[b][o:o + s].decode(encoding, errors="replace") if s else ""
            for b, o, s in verses.tolist()]


def label_slots(slots: list[str]) -> dict[str, str]:
    """Map verse references (``Gen.1.1``) to their slot text, using the chapter markers of the
    heading slots.

    The slots between one chapter heading and the next are that chapter's verses, except the slot
    just before a chapter 1 heading, which introduces the next book.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    heads = [(i, m[-1]) for i, text in enumerate(slots) if (m := _CHAPTER.findall(text))]
    verses = {}
    for k, (i, chapter) in enumerate(heads):
        end = heads[k + 1][0] if k + 1 < len(heads) else len(slots)
        if k + 1 < len(heads) and heads[k + 1][1].endswith(".1"):
            end -= 1
        for n, j in enumerate(range(i + 1, end), start=1):
            verses[f"{chapter}.{n}"] = slots[j]
    return verses


def clean_osis(text: str) -> str:
    """Plain one-line text of an OSIS verse: notes, non-canonical titles, tags and ¶ removed,
    entities decoded.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    text = _NOTE.sub(" ", text)
    text = _TITLE.sub(lambda m: f" {m.group(2)} " if 'canonical="true"' in m.group(1) else " ",
                      text)
    return one_line(html.unescape(_TAG.sub("", text)).replace("\u00b6", " "))


def read_bible(root: Path) -> dict[str, str]:
    """Verse reference -> clean text for the (single) zText module of an unpacked ``sword-text-*``
    package.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    confs = sorted((root / MODS_DIR).glob("*.conf"))
    if len(confs) != 1:
        raise ValueError(f"{root / MODS_DIR} should hold exactly one module .conf, found "
                         f"{len(confs)}.")
    conf = read_conf(confs[0])
    if conf.get("ModDrv",
                "").lower() != "ztext" or conf.get("CompressType", "ZIP").upper() != "ZIP":
        raise ValueError(f"{confs[0]}: only zText modules with ZIP compression are supported, "
                         f"got ModDrv={conf.get('ModDrv')!r}, "
                         f"CompressType={conf.get('CompressType')!r}.")
    encoding = "utf-8" if conf.get("Encoding", "").upper().replace("-", "") == "UTF8" else "latin-1"
    data_dir = root / MODS_DIR.parent / conf.get("DataPath", "").lstrip("./")
    verses: dict[str, str] = {}
    for testament in ("ot", "nt"):
        if (data_dir / f"{testament}.bzv").is_file():
            verses.update(label_slots(read_ztext_slots(data_dir, testament, encoding)))
    if not verses:
        raise ValueError(f"{data_dir} holds no readable ot/nt verse index.")
    return {ref: clean_osis(text) for ref, text in verses.items()}


def normalise_bible(raw: Mapping[str, Path], out: Path, source: str,
                    target: str) -> dict[str, object]:
    """Write ``pairs.tsv`` of verse pairs (``ref`` = verse reference) for two modules sharing a
    versification.

    Verses empty in either module are dropped; order is canonical (the source module's).
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    src, tgt = read_bible(raw[source]), read_bible(raw[target])
    rows = [(s, tgt[ref], ref) for ref, s in src.items() if s and tgt.get(ref)]
    n = write_table(out / PAIRS_FILE, PAIRS_HEADER, rows)
    return {"pairs": n, "source_verses": len(src), "target_verses": len(tgt)}
