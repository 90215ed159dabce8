"""The book's experiments as library functions: each chapter's recipes, tested and shared with the
notebooks."""
