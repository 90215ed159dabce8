"""Data: the offline corpora catalogue, the synthetic world and loaders for the papers' real file
formats."""
