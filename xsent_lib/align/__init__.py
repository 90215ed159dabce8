"""Mapping one embedding space onto another: Procrustes, adversarial training, CSLS refinement,
dictionaries."""
