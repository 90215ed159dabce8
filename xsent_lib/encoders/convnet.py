"""Convolutional sentence encoders: InferSent's hierarchical ConvNet and the probing paper's gated
ConvNet.

Between layers every position at or beyond a sentence's length is reset to zero, so a real
position near the end sees exactly the zeros that convolution padding would give it alone: the
vectors do not depend on how much padding the batch has (the reference code lacks this).
Book: chapter 3 (InferSent: hierarchical ConvNet; Probing: gated ConvNet).
"""
from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from xsent_lib.base.masking import check_batch, length_mask
from xsent_lib.encoders.base import SentenceEncoder, build_embedding
from xsent_lib.text.pipeline import TextPipeline


def _masked_time_max(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Max over time of ``x[B, C, T]`` where ``mask[B, 1, T]`` is True."""
    return x.masked_fill(~mask, float("-inf")).amax(dim=2)


def _check_kernel(kernel_size: int) -> None:
    if not isinstance(kernel_size, int) or kernel_size < 1 or kernel_size % 2 == 0:
        raise ValueError("kernel_size must be a positive odd integer (same-length convolutions), "
                         f"got {kernel_size!r}.")


class HierarchicalConvNetEncoder(SentenceEncoder):
    """``num_layers`` stacked Conv1d+ReLU layers; each layer is max-pooled over time; the maxima are
    concatenated.

    Thesis/InferSent: 4 layers, kernel 3, 2 x enc_dim channels each (enc_dim 512 -> 4 x 1024 =
    4096).
    Book: chapter 3 (InferSent: hierarchical ConvNet).
    """

    def __init__(
        self,
        vocab_size: int,
        word_dim: int = 300,
        channels: int = 1024,
        num_layers: int = 4,
        kernel_size: int = 3,
        dropout: float = 0.0,
        embeddings: torch.Tensor | np.ndarray | None = None,
        freeze_embeddings: bool = False,
        pipeline: TextPipeline | None = None,
    ) -> None:
        super().__init__()
        _check_kernel(kernel_size)
        if (not isinstance(num_layers, int) or num_layers < 1
                or not isinstance(channels, int) or channels < 1):
            raise ValueError("channels and num_layers must be positive integers, got "
                             f"{channels!r}, {num_layers!r}.")
        self.output_dim = channels * num_layers
        self.embedding = build_embedding(vocab_size, word_dim, embeddings, freeze=freeze_embeddings)
        self.input_dropout = nn.Dropout(dropout)
        self.convs = nn.ModuleList(
            nn.Conv1d(word_dim if i == 0 else channels, channels, kernel_size,
                      padding=kernel_size // 2)
            for i in range(num_layers)
        )
        if pipeline is not None:
            self.attach_pipeline(pipeline)

    def forward(self, token_ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Concatenated per-layer maxima ``[B, channels * num_layers]``. Book: chapter 3 (InferSent:
        hierarchical ConvNet)."""
        check_batch(token_ids, lengths)
        # [B, 1, T]
        mask = length_mask(lengths.to(token_ids.device), token_ids.shape[1]).unsqueeze(1)
        x = self.input_dropout(self.embedding(token_ids)).transpose(1, 2).masked_fill(~mask, 0.0)
        pooled = []
        for conv in self.convs:
            x = F.relu(conv(x)).masked_fill(~mask, 0.0)
            pooled.append(_masked_time_max(x, mask))
        return torch.cat(pooled, dim=1)


class GatedConvNetEncoder(SentenceEncoder):
    """Word + learned position embeddings -> gated (GLU) residual convolutions -> max over time of
    the last layer.

    Probing paper: 8 layers, 512 hidden, kernel 3, positions as in Sukhbaatar et al. (added,
    learned). The paper does not describe residual connections or the input projection; we follow
    Gehring et al.'s convolutional blocks: a linear map word_dim -> hidden, then
    ``(x + GLU(conv(x))) * sqrt(1/2)``. ``max_positions`` caps sentence length (truncate with
    ``TextPipeline(max_len=...)``).
    Book: chapter 4 (Probing: the gated ConvNet encoder).
    """

    def __init__(
        self,
        vocab_size: int,
        word_dim: int = 300,
        hidden_dim: int = 512,
        num_layers: int = 8,
        kernel_size: int = 3,
        max_positions: int = 512,
        dropout: float = 0.0,
        embeddings: torch.Tensor | np.ndarray | None = None,
        freeze_embeddings: bool = False,
        pipeline: TextPipeline | None = None,
    ) -> None:
        super().__init__()
        _check_kernel(kernel_size)
        if (not isinstance(num_layers, int) or num_layers < 1
                or not isinstance(hidden_dim, int) or hidden_dim < 1):
            raise ValueError("hidden_dim and num_layers must be positive integers, got "
                             f"{hidden_dim!r}, {num_layers!r}.")
        self.output_dim = hidden_dim
        self.max_positions = int(max_positions)
        self.embedding = build_embedding(vocab_size, word_dim, embeddings, freeze=freeze_embeddings)
        self.positions = nn.Embedding(self.max_positions, word_dim)
        nn.init.normal_(self.positions.weight, 0.0, 0.1)
        self.input_projection = nn.Linear(word_dim, hidden_dim)
        self.dropout = nn.Dropout(dropout)
        self.convs = nn.ModuleList(
            nn.Conv1d(hidden_dim, 2 * hidden_dim, kernel_size, padding=kernel_size // 2)
            for _ in range(num_layers)
        )
        if pipeline is not None:
            self.attach_pipeline(pipeline)

    def forward(self, token_ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Max over time of the last gated layer ``[B, hidden_dim]``. Book: chapter 4 (Probing: the
        gated ConvNet encoder)."""
        check_batch(token_ids, lengths)
        if token_ids.shape[1] > self.max_positions:
            raise ValueError(
                f"batch is {token_ids.shape[1]} tokens wide but "
                f"max_positions={self.max_positions}; truncate with TextPipeline(max_len=...) or "
                "build the encoder with a larger max_positions."
            )
        mask = length_mask(lengths.to(token_ids.device), token_ids.shape[1]).unsqueeze(1)
        pos = torch.arange(token_ids.shape[1], device=token_ids.device)
        x = self.dropout(self.embedding(token_ids) + self.positions(pos)[None])
        x = self.input_projection(x).transpose(1, 2).masked_fill(~mask, 0.0)
        scale = math.sqrt(0.5)
        for conv in self.convs:
            x = ((x + F.glu(conv(self.dropout(x)), dim=1)) * scale).masked_fill(~mask, 0.0)
        return _masked_time_max(x, mask)
