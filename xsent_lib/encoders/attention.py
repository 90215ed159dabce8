"""Inner (self-)attention over BiLSTM states, with several learned query vectors ("views").

Thesis formula, per view k:  h̄_i = tanh(W h_i + b_w),  α_i^k = softmax_i(h̄_iᵀ u_w^k),
u^k = Σ_i α_i^k h_i; the sentence vector is [u^1, ..., u^K]. Padding gets probability exactly 0.
Book: chapter 3 (InferSent: inner-attention encoder).
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from xsent_lib.base.masking import check_batch, length_mask
from xsent_lib.encoders.base import SentenceEncoder, build_embedding
from xsent_lib.encoders.recurrent import run_packed
from xsent_lib.text.pipeline import TextPipeline


class InnerAttentionEncoder(SentenceEncoder):
    """BiLSTM followed by ``num_views`` attention-weighted sums of its states (Lin et al. 2017
    style).

    We implement the thesis formula (keys with a bias, values = the raw BiLSTM states, no
    temperature); the released code instead projects values without bias and divides logits by a
    temperature, which the thesis only mentions. ``attention_dim`` (size of ``W``) defaults to 2H.
    Output size ``num_views * 2 * hidden_dim`` (thesis: 4 views, 4096 = 4 x 2 x 512).
    Book: chapter 3 (InferSent: inner-attention encoder).
    """

    def __init__(
        self,
        vocab_size: int,
        word_dim: int = 300,
        hidden_dim: int = 512,
        num_views: int = 4,
        attention_dim: int | None = None,
        dropout: float = 0.0,
        embeddings: torch.Tensor | np.ndarray | None = None,
        freeze_embeddings: bool = False,
        pipeline: TextPipeline | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(num_views, int) or num_views < 1:
            raise ValueError(f"num_views must be a positive integer, got {num_views!r}.")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must lie in [0, 1), got {dropout!r}.")
        state_dim = 2 * hidden_dim
        attention_dim = attention_dim or state_dim
        self.num_views = num_views
        self.output_dim = num_views * state_dim
        self.embedding = build_embedding(vocab_size, word_dim, embeddings, freeze=freeze_embeddings)
        self.input_dropout = nn.Dropout(dropout)
        self.rnn = nn.LSTM(word_dim, hidden_dim, 1, batch_first=True, bidirectional=True)
        self.key_projection = nn.Linear(state_dim, attention_dim)
        self.queries = nn.Parameter(torch.randn(num_views, attention_dim) / attention_dim**0.5)
        if pipeline is not None:
            self.attach_pipeline(pipeline)

    def attend(self, token_ids: torch.Tensor,
               lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """BiLSTM states ``[B, T, 2H]`` and attention weights ``[B, K, T]`` (rows sum to 1, 0 on
        padding).

        The weights also serve Lin et al.'s penalty ``||A Aᵀ - I||²`` when training with many views.
        Book: chapter 3 (InferSent: inner-attention encoder).
        """
        check_batch(token_ids, lengths)
        states, _ = run_packed(self.rnn, self.input_dropout(self.embedding(token_ids)), lengths)
        keys = torch.tanh(self.key_projection(states))  # [B, T, A]
        logits = torch.einsum("bta,ka->bkt", keys, self.queries)
        mask = length_mask(lengths.to(states.device), states.shape[1])[:, None, :]
        alphas = torch.softmax(logits.masked_fill(~mask, float("-inf")), dim=-1)
        return states, alphas

    def forward(self, token_ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Concatenated attention views ``[B, num_views * 2H]``. Book: chapter 3 (InferSent:
        inner-attention encoder)."""
        states, alphas = self.attend(token_ids, lengths)
        return torch.bmm(alphas, states).reshape(states.shape[0], self.output_dim)
