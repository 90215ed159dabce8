"""Recurrent sentence encoders: LSTM / GRU (last state), BiGRU-last, BiLSTM with last / mean / max
pooling.

Sequences are packed (``pack_padded_sequence``), so the recurrence never reads padding, and
mean/max pooling are masked: a sentence gets the same vector alone or in any batch.
Book: chapter 3 (InferSent: the seven encoders).
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from xsent_lib.base.masking import check_batch, length_mask, masked_max, masked_mean
from xsent_lib.encoders.base import SentenceEncoder, build_embedding
from xsent_lib.text.batching import length_buckets, pad_csr
from xsent_lib.text.pipeline import TextPipeline

CELLS: dict[str, type[nn.RNNBase]] = {"lstm": nn.LSTM, "gru": nn.GRU}
POOLINGS = ("last", "mean", "max")

# The recurrent rows of thesis Table 3.6 (and the probing encoders of section 3.3), by name.
ARCHITECTURES: dict[str, dict[str, object]] = {
    "lstm": {"cell": "lstm", "bidirectional": False, "pooling": "last"},
    "gru": {"cell": "gru", "bidirectional": False, "pooling": "last"},
    "bigru-last": {"cell": "gru", "bidirectional": True, "pooling": "last"},
    "bilstm-last": {"cell": "lstm", "bidirectional": True, "pooling": "last"},
    "bilstm-mean": {"cell": "lstm", "bidirectional": True, "pooling": "mean"},
    "bilstm-max": {"cell": "lstm", "bidirectional": True, "pooling": "max"},
}


def run_packed(rnn: nn.RNNBase, inputs: torch.Tensor,
               lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Run ``rnn`` (batch_first) over padded ``inputs[B, T, d]`` without reading padding.

    Returns the zero-padded states ``[B, T, dirs*H]`` and the final hidden state ``h_n``
    ``[layers*dirs, B, H]`` (for an LSTM, ``h`` only), both in the input order.
    Book: chapter 3 (InferSent: the seven encoders).
    """
    packed = pack_padded_sequence(inputs, lengths.cpu(), batch_first=True, enforce_sorted=False)
    out, h_n = rnn(packed)
    states, _ = pad_packed_sequence(out, batch_first=True, total_length=inputs.shape[1])
    return states, (h_n[0] if isinstance(h_n, tuple) else h_n)


class RecurrentEncoder(SentenceEncoder):
    """Embedding -> (Bi)LSTM or (Bi)GRU -> last-state / mean / max pooling.

    Defaults are InferSent (BiLSTM-max, 300-d words, 2 x 2048 states). ``pooling="last"`` with a
    bidirectional RNN concatenates the last forward state (after the final token) and the last
    backward state (after the first token), as SkipThought's and InferSent's BiGRU-last. With
    several layers, pooling reads the top layer. ``dropout`` applies to the word vectors and between
    layers (InferSent: 0; the probing paper tunes it and does not report the value).
    Book: chapter 3 (InferSent: the seven encoders).
    """

    def __init__(
        self,
        vocab_size: int,
        word_dim: int = 300,
        hidden_dim: int = 2048,
        cell: str = "lstm",
        bidirectional: bool = True,
        pooling: str = "max",
        num_layers: int = 1,
        dropout: float = 0.0,
        embeddings: torch.Tensor | np.ndarray | None = None,
        freeze_embeddings: bool = False,
        pipeline: TextPipeline | None = None,
    ) -> None:
        super().__init__()
        if cell not in CELLS:
            raise ValueError(f"cell must be one of {sorted(CELLS)}, got {cell!r}.")
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}.")
        if (not isinstance(hidden_dim, int) or hidden_dim < 1
                or not isinstance(num_layers, int) or num_layers < 1):
            raise ValueError("hidden_dim and num_layers must be positive integers, got "
                             f"{hidden_dim!r}, {num_layers!r}.")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must lie in [0, 1), got {dropout!r}.")
        self.cell, self.pooling, self.bidirectional = cell, pooling, bool(bidirectional)
        self.hidden_dim, self.num_layers = hidden_dim, num_layers
        self.num_directions = 2 if bidirectional else 1
        self.output_dim = self.num_directions * hidden_dim
        self.embedding = build_embedding(vocab_size, word_dim, embeddings, freeze=freeze_embeddings)
        self.input_dropout = nn.Dropout(dropout)
        self.rnn = CELLS[cell](
            word_dim,
            hidden_dim,
            num_layers,
            batch_first=True,
            bidirectional=bidirectional,
            dropout=dropout if num_layers > 1 else 0.0,
        )
        if pipeline is not None:
            self.attach_pipeline(pipeline)

    @classmethod
    def from_architecture(cls, name: str, vocab_size: int, **kwargs: object) -> RecurrentEncoder:
        """Build one of the named recurrent encoders of thesis Table 3.6 (``"bilstm-max"``,
        ``"bigru-last"``, ...).

        Book: chapter 3 (InferSent: the seven encoders).
        """
        key = name.lower()
        if key not in ARCHITECTURES:
            raise ValueError(f"unknown recurrent architecture {name!r}; known: "
                             f"{sorted(ARCHITECTURES)}.")
        return cls(vocab_size, **ARCHITECTURES[key], **kwargs)

    def states(self, token_ids: torch.Tensor,
               lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """All hidden states ``[B, T, dirs*H]`` (zero beyond each length) and the final ``h_n``.

        Book: chapter 3 (InferSent: the seven encoders).
        """
        check_batch(token_ids, lengths)
        return run_packed(self.rnn, self.input_dropout(self.embedding(token_ids)), lengths)

    def forward(self, token_ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Sentence vectors ``[B, output_dim]``. Book: chapter 3 (InferSent: the seven encoders)."""
        states, h_n = self.states(token_ids, lengths)
        if self.pooling == "max":
            return masked_max(states, lengths)
        if self.pooling == "mean":
            return masked_mean(states, lengths)
        top = h_n.view(self.num_layers, self.num_directions, h_n.shape[1], self.hidden_dim)[-1]
        return top.transpose(0, 1).reshape(h_n.shape[1], self.output_dim)

    def _pooled(self, token_ids: torch.Tensor, lengths: torch.Tensor,
                lengths_on_device: torch.Tensor) -> torch.Tensor:
        """:meth:`forward` for a batch sorted by decreasing length, ``lengths`` on the host (and a
        copy on the states' device for the pooling masks): packs without sorting again and without
        reading the lengths back from the device."""
        packed = pack_padded_sequence(self.embedding(token_ids), lengths, batch_first=True)
        out, h_n = self.rnn(packed)
        states, _ = pad_packed_sequence(out, batch_first=True, total_length=token_ids.shape[1])
        h_n = h_n[0] if isinstance(h_n, tuple) else h_n
        if self.pooling == "max":
            return masked_max(states, lengths_on_device)
        if self.pooling == "mean":
            return masked_mean(states, lengths_on_device)
        top = h_n.view(self.num_layers, self.num_directions, h_n.shape[1], self.hidden_dim)[-1]
        return top.transpose(0, 1).reshape(h_n.shape[1], self.output_dim)

    def encode_csr(self, flat: np.ndarray, offsets: np.ndarray, batch_size: int,
                   device: torch.device) -> np.ndarray:
        """Encode CSR sentences in input order: sorted by length once, each batch padded on the
        host and packed without another sort; on CUDA the ids go from pinned memory (non-blocking)
        and the vectors stay on the device until one copy back at the end (no sync per batch).

        The vectors are those of :meth:`forward` (evaluation mode: no dropout).
        Book: chapter 3 (InferSent: using the released model).
        """
        cuda = device.type == "cuda"
        out = torch.empty((len(offsets) - 1, self.output_dim), dtype=torch.float32, device=device)
        for idx in length_buckets(np.diff(offsets), batch_size):
            token_ids, lens = pad_csr(flat, offsets, idx, pad_id=0)
            rows, lens_dev = torch.from_numpy(idx), lens
            if cuda:  # pinned, so that the copies below do not wait for the device
                token_ids, rows, lens_dev = (t.pin_memory() for t in (token_ids, rows, lens))
            token_ids = token_ids.to(device, non_blocking=cuda)
            lens_dev = lens_dev.to(device, non_blocking=cuda)
            pooled = self._pooled(token_ids, lens, lens_dev)
            out[rows.to(device, non_blocking=cuda)] = pooled.float()
        return out.cpu().numpy()

    def max_pool_positions(self, token_ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """For each sentence and dimension, the time step that wins the max-pool:
        ``LongTensor[B, output_dim]``.

        Always smaller than the sentence length; this is what the max-pooling figures count.
        Book: chapter 3 (InferSent: visualising max-pooling).
        """
        states, _ = self.states(token_ids, lengths)
        mask = length_mask(lengths.to(states.device), states.shape[1]).unsqueeze(-1)
        return states.masked_fill(~mask, float("-inf")).argmax(dim=1)
