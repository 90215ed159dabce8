"""Bitext split by whole documents for chapter 8: training pairs and held-out pairs of one language
pair.

Real bitext of the data cache (nlp-corpus, LibreOffice help, Bible, gettext catalogues) is split by
document so that no held-out sentence comes from a document seen in training; the synthetic world's
parallel corpora use the world's own train and test splits.
Book: chapter 8 (Paraphrastic embeddings from bitext).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from xsent_lib.data.corpora import load_bitext, load_bitext_refs
from xsent_lib.data.synthetic import SyntheticWorld


@dataclass
class Bitext:
    """Training pairs and held-out pairs of one language pair (split by document for real bitext).

    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """

    name: str
    train_src: list[str]
    train_tgt: list[str]
    held_src: list[str]
    held_tgt: list[str]


def document_of(ref: str) -> str:
    """The document of a line reference: ``doc-7:12:md5`` -> ``doc-7`` (nlp-corpus), a help page
    ``text/x.html#par`` -> ``text/x.html`` (LibreOffice help), a verse ``Gen.1.1`` -> ``Gen.1`` (a
    chapter), an interface message ``sw.mo#ID`` -> ``sw.mo`` (one gettext catalogue).
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    doc = ref.split(":")[0].split("#")[0]
    return doc.rsplit(".", 1)[0] if doc.count(".") == 2 and doc.split(".")[-1].isdigit() else doc


def load_pair(
    name: str, n_train: int, seed: int, world: SyntheticWorld | None = None, n_held: int = 20_000
) -> Bitext:
    """Real bitext ``name`` (e.g. ``"nlp-en-fr"``) split by whole documents, or synthetic
    ``"synthetic-en-xa"``.

    Real: documents (nlp-corpus documents, LibreOffice help pages, Bible chapters, gettext
    catalogues) are shuffled with ``seed``; held-out documents (about ``n_held`` pairs) never reach
    training; a small bitext (the gettext catalogues' 7k pairs, book profile only) holds out at most
    half of its pairs. Synthetic: the world's train and test splits. Raises FileNotFoundError if a
    real bitext is not cached.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    if name.startswith("synthetic-"):
        src, tgt = name.split("-")[1:]
        world = world or SyntheticWorld(seed % 1000)
        train, held = (
            world.parallel(n_train, src, tgt, "train"),
            world.parallel(n_held, src, tgt, "test"),
        )
        return Bitext(name, train.src, train.tgt, held.src, held.tgt)
    src, tgt = load_bitext(name)
    docs = np.array([document_of(r) for r in load_bitext_refs(name)])
    names = np.random.default_rng(seed).permutation(np.unique(docs))
    sizes = np.array([np.sum(docs == d) for d in names])
    n_held = min(n_held, len(src) // 2)
    held_docs = set(names[: int(np.searchsorted(np.cumsum(sizes), n_held)) + 1])
    held = np.isin(docs, list(held_docs))
    train_rows = np.random.default_rng(seed + 1).permutation(np.flatnonzero(~held))[:n_train]
    return Bitext(
        name,
        [src[i] for i in train_rows],
        [tgt[i] for i in train_rows],
        [src[i] for i in np.flatnonzero(held)],
        [tgt[i] for i in np.flatnonzero(held)],
    )
