"""Sentence encoders: the shared contract, bags of vectors, RNNs, attention, ConvNets and heads.

Book: chapter 3 (InferSent: sentence encoders).
"""
from __future__ import annotations

from xsent_lib.encoders.base import SentenceEncoder, check_batch, length_mask, masked_max, masked_mean

__all__ = ["SentenceEncoder", "check_batch", "length_mask", "masked_max", "masked_mean"]
