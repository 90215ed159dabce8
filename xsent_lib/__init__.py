"""xsent_lib: the tested library behind *xsent*, the executable book of cross-lingual sentence
embeddings.

Every model, loss, data set and metric of the book lives here; the chapters in ``notebooks/``
import it and never re-implement it. See the preface (``book/intro.md``) for the map of chapters.
"""
from __future__ import annotations

__version__ = "0.1.0"
