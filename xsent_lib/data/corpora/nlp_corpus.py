"""npm ``nlp-corpus`` + ``fr-corpus``/``de-corpus``: 100 documents of 1,000 English sentences and
their translations.

Layout: ``package/builds/doc-<i>.json`` is a list of English strings in ``nlp-corpus``; the same
file in ``fr-corpus``/``de-corpus`` is a list of ``[translation, md5 of the English]`` aligned line
by line. The md5 was computed in JavaScript: for 93.5% of lines it is the md5 of the UTF-8 bytes,
for most of the rest the md5 of the low bytes of the UTF-16 code units (Node's ``"binary"``
encoding). A line is joined by md5 when either hash finds it in its document and kept by line
position otherwise (about 1%: those translations still match by hand-checking, their hash was taken
from a slightly different English string). ``ref`` records which (``md5`` or ``line``).
Book: chapter 1 (Data: the corpora and the synthetic world).
"""
from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path

from xsent_lib.data.corpora.bitext import PAIRS_FILE, PAIRS_HEADER
from xsent_lib.data.corpora.tables import one_line, write_table

FORMAT_VERSION = 1
_DOC = re.compile(r"doc-(\d+)\.json$")


def js_md5_candidates(text: str) -> tuple[str, str]:
    """The two md5 digests JavaScript code may have taken of ``text``: of its UTF-8 bytes, and of
    its UTF-16 low bytes.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    utf8 = hashlib.md5(text.encode("utf-8")).hexdigest()
    binary = hashlib.md5(text.encode("utf-16-le", "surrogatepass")[0::2]).hexdigest()
    return utf8, binary


def english_documents(root: Path) -> dict[int, list[str]]:
    """The English documents of an unpacked ``nlp-corpus``: document number -> sentences (as in the
    file).

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    builds = root / "package" / "builds"
    docs = {int(m.group(1)): p for p in builds.glob("doc-*.json") if (m := _DOC.search(p.name))}
    if not docs:
        raise ValueError(f"{builds} holds no doc-<i>.json files: is this an unpacked nlp-corpus "
                         "package?")
    out = {}
    for i in sorted(docs):
        sentences = json.loads(docs[i].read_text(encoding="utf-8"))
        if not isinstance(sentences, list) or not all(isinstance(s, str) for s in sentences):
            raise ValueError(f"{docs[i]}: expected a JSON list of strings.")
        out[i] = sentences
    return out


def align_document(english: list[str], translated: list[list[str]]) -> list[tuple[str, str, str]]:
    """Pair one document's English lines with its ``[translation, md5]`` rows: ``(english,
    translation, join)``.

    ``join`` is ``"md5"`` when a hash of the English line is found among the document's hashes
    (the translation is then taken from that row) and ``"line"`` when the row at the same position
    is used. Both lists must have the same length.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    if len(english) != len(translated):
        raise ValueError(f"document lengths differ: {len(english)} English lines, "
                         f"{len(translated)} translations.")
    by_hash = {row[1]: row[0] for row in translated}
    out = []
    for en, row in zip(english, translated):
        hit = next((by_hash[h] for h in js_md5_candidates(en) if h in by_hash), None)
        out.append((en, row[0], "line") if hit is None else (en, hit, "md5"))
    return out


def normalise_nlp_bitext(raw: Mapping[str, Path], out: Path, target: str) -> dict[str, object]:
    """Write ``pairs.tsv`` for nlp-corpus English joined with the translations of source ``target``.

    Pairs with an empty side after whitespace normalisation are dropped.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    english = english_documents(raw["nlp-corpus"])
    builds = raw[target] / "package" / "builds"
    rows, joins = [], {"md5": 0, "line": 0}
    for i, sentences in english.items():
        path = builds / f"doc-{i}.json"
        if not path.is_file():
            raise ValueError(f"{path} is missing: {target} does not cover nlp-corpus document {i}.")
        translated = json.loads(path.read_text(encoding="utf-8"))
        for j, (en, tr, how) in enumerate(align_document(sentences, translated)):
            en, tr = one_line(en), one_line(tr)
            if en and tr:
                rows.append((en, tr, f"doc-{i}:{j}:{how}"))
                joins[how] += 1
    n = write_table(out / PAIRS_FILE, PAIRS_HEADER, rows)
    return {"pairs": n, "documents": len(english), "joined_by_md5": joins["md5"],
            "joined_by_line": joins["line"]}
