"""Training objectives of the book: NLI, alignment, margin, LM (CLM/MLM/TLM), seq2seq and more."""
