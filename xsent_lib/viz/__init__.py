"""Figures of the book: one module per chapter or figure kind, each function returns a matplotlib
Figure."""
