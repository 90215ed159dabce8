"""Normalisers (archive layout -> compact cached files) and readers for the real offline corpora.

Readers raise FileNotFoundError naming the command to run when a dataset is not cached.
Book: chapter 1 (Data: the corpora and the synthetic world).
"""
from __future__ import annotations

from xsent_lib.data.corpora.bitext import load_bitext, load_bitext_refs
from xsent_lib.data.corpora.encoders import import_encoder
from xsent_lib.data.corpora.freedict import load_dictionary
from xsent_lib.data.corpora.monolingual import (
    TaggedSentences,
    load_brown,
    load_monolingual,
    load_text,
)
from xsent_lib.data.corpora.sentiment import load_labelled, load_ratings
from xsent_lib.data.corpora.vectors import load_glove50

__all__ = [
    "TaggedSentences", "import_encoder", "load_bitext", "load_bitext_refs", "load_brown",
    "load_dictionary",
    "load_glove50", "load_labelled", "load_monolingual", "load_ratings", "load_text",
]
