"""Reading the cached bitexts: ``pairs.tsv`` with columns ``src``, ``tgt`` (one-line texts) and
``ref`` (the origin).

``ref`` is ``doc-<i>:<line>:<md5|line>`` for nlp-corpus, ``<help file>#<paragraph id>`` for the
LibreOffice help, ``<catalogue>.mo#<msgctxt>`` for the LibreOffice interface messages
(``gettext-en-*``) and ``<Book>.<chapter>.<verse>`` for the Bible.
Book: chapter 1 (Data: the corpora and the synthetic world).
"""
from __future__ import annotations

import os

from xsent_lib.data.cache import require_dataset
from xsent_lib.data.catalogue import CATALOGUE
from xsent_lib.data.corpora.tables import read_table

PAIRS_FILE = "pairs.tsv"
PAIRS_HEADER = ("src", "tgt", "ref")


def _bitext_path(name: str, cache_dir: str | os.PathLike[str] | None):
    if CATALOGUE.dataset(name).kind != "bitext":
        bitexts = sorted(d.name for d in CATALOGUE.datasets.values() if d.kind == "bitext")
        raise ValueError(f"{name!r} is not a bitext; bitexts are: {', '.join(bitexts)}.")
    return require_dataset(name, cache_dir) / PAIRS_FILE


def load_bitext(name: str, max_pairs: int | None = None,
                cache_dir: str | os.PathLike[str] | None = None) -> tuple[list[str], list[str]]:
    """Return the aligned (source, target) sentences of bitext ``name``, e.g.
    ``load_bitext("nlp-en-fr")``.

    ``max_pairs`` keeps the first pairs in file order (nlp-corpus: document order; LibreOffice
    help: sorted by help file; interface messages: sorted by catalogue; Bible: canonical order).
    Raises FileNotFoundError with the command to run when the dataset is not cached.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    table = read_table(_bitext_path(name, cache_dir), ("src", "tgt"), max_pairs)
    return table["src"], table["tgt"]


def load_bitext_refs(name: str, max_pairs: int | None = None,
                     cache_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """Return where each pair of :func:`load_bitext` came from (same order), e.g. to group pairs by
    document.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    return read_table(_bitext_path(name, cache_dir), ("ref",), max_pairs)["ref"]
