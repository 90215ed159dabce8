"""The Transformer sentence encoder of Wang et al. (2019) and XLM (Lample & Conneau, 2019).

Input embedding = token + position + (optional) language embedding, then LayerNorm and dropout,
as in XLM; no ``sqrt(d)`` scaling. Layers are **post-LN** by default (``norm_first=False``), the
structure of Vaswani et al. that both papers say they copy; ``norm_first=True`` gives pre-LN
(a final LayerNorm is then added). Attention uses a key-padding mask, so padding never reaches a
real token, and pooling reads only the first ``length`` positions: a sentence gets the same
vector alone or padded in any batch. The output projection for LM heads is tied to the input
token embeddings (plus a bias).

Values the papers leave open, chosen here: GELU activation (XLM), FFN width ``4 * d_model``,
learned positions (XLM; Wang et al. are silent), and token embeddings initialised
``N(0, d_model**-0.5)`` with a zero padding row.
Book: chapter 9 (Multilingual embeddings from monolingual text, Wang et al.).
"""
from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from xsent_lib.base.masking import check_batch, length_mask, masked_max, masked_mean
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.text.pipeline import TextPipeline

POOLINGS = ("mean", "max", "mean-max", "first")
POSITION_KINDS = ("learned", "sinusoidal")


def sinusoidal_positions(max_len: int, dim: int) -> torch.Tensor:
    """The fixed sine/cosine position table ``[max_len, dim]`` of Vaswani et al. (2017).

    Even columns hold ``sin(pos / 10000**(2i/dim))``, odd columns the cosine.
    Book: chapter 10 (Cross-lingual language models, XLM: the Transformer).
    """
    if max_len < 1 or dim < 2 or dim % 2:
        raise ValueError(f"need max_len >= 1 and an even dim >= 2, got max_len={max_len}, "
                         f"dim={dim}.")
    pos = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
    freq = torch.exp(-math.log(10000.0) * torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    table = torch.zeros(max_len, dim, dtype=torch.float64)
    table[:, 0::2] = torch.sin(pos * freq)
    table[:, 1::2] = torch.cos(pos * freq)
    return table.float()


class TransformerSentenceEncoder(SentenceEncoder):
    """Transformer over a shared multilingual subword vocabulary, pooled into one sentence vector.

    ``forward(token_ids, lengths, langs=None, positions=None)`` returns ``[B, output_dim]`` with
    ``pooling`` in ``mean`` / ``max`` / ``mean-max`` (Wang et al.: ``[mean; max]``, 2 x d_model) /
    ``first`` (XLM's XNLI classifier reads the first state of the last layer).
    :meth:`hidden_states` gives the per-token states and :meth:`lm_logits` the tied LM projection.
    ``langs`` is ``None``, one id per sentence ``[B]`` or one per token ``[B, T]``; with ``None``
    the ``default_lang`` is used, and when that is ``None`` too no language embedding is added.
    Defaults follow Wang et al.: 3 layers, 8 heads, d_model 512, dropout 0.1, mean-max pooling;
    XLM uses 1024 hidden units, 8 heads and 6-12 layers.
    Book: chapter 9 (Multilingual embeddings from monolingual text, Wang et al.).
    """

    def __init__(
        self,
        vocab_size: int,
        *,
        d_model: int = 512,
        n_heads: int = 8,
        n_layers: int = 3,
        d_ff: int | None = None,
        dropout: float = 0.1,
        max_len: int = 256,
        n_langs: int = 0,
        positions: str = "learned",
        pooling: str = "mean-max",
        norm_first: bool = False,
        pad_id: int = 0,
        pipeline: TextPipeline | None = None,
    ) -> None:
        if not isinstance(vocab_size, int) or vocab_size < 2:
            raise ValueError(f"vocab_size must be an integer >= 2, got {vocab_size!r}.")
        if d_model < 2 or d_model % n_heads:
            raise ValueError(f"d_model ({d_model}) must be a positive multiple of n_heads "
                             f"({n_heads}).")
        if n_layers < 1 or max_len < 1 or n_langs < 0 or not (0.0 <= dropout < 1.0):
            raise ValueError("need n_layers >= 1, max_len >= 1, n_langs >= 0 and 0 <= dropout < 1.")
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}.")
        if positions not in POSITION_KINDS:
            raise ValueError(f"positions must be one of {POSITION_KINDS}, got {positions!r}.")
        if not 0 <= pad_id < vocab_size:
            raise ValueError(f"pad_id must be an id in [0, {vocab_size}), got {pad_id}.")
        self.vocab_size, self.d_model = vocab_size, d_model
        self.max_len, self.n_langs = max_len, n_langs
        self.pooling, self.pad_id, self.norm_first = pooling, pad_id, norm_first
        super().__init__(pipeline)
        self.output_dim = 2 * d_model if pooling == "mean-max" else d_model
        self.default_lang: int | None = None
        self.inputs_trusted = False  # inside trusted_batch(): no checks that read values back
        self._dense_batch = False

        self.token_embedding = nn.Embedding(vocab_size, d_model, padding_idx=pad_id)
        nn.init.normal_(self.token_embedding.weight, mean=0.0, std=d_model**-0.5)
        with torch.no_grad():
            self.token_embedding.weight[pad_id].zero_()
        if positions == "learned":
            self.position_embedding: nn.Embedding | None = nn.Embedding(max_len, d_model)
            nn.init.normal_(self.position_embedding.weight, mean=0.0, std=d_model**-0.5)
        else:
            self.position_embedding = None
            self.register_buffer("position_table", sinusoidal_positions(max_len, d_model),
                                 persistent=False)
        self.language_embedding = nn.Embedding(n_langs, d_model) if n_langs > 0 else None
        if self.language_embedding is not None:
            nn.init.normal_(self.language_embedding.weight, mean=0.0, std=d_model**-0.5)
        self.embedding_norm = nn.LayerNorm(d_model)
        self.embedding_dropout = nn.Dropout(dropout)
        layer = nn.TransformerEncoderLayer(
            d_model,
            n_heads,
            dim_feedforward=d_ff if d_ff is not None else 4 * d_model,
            dropout=dropout,
            activation="gelu",
            batch_first=True,
            norm_first=norm_first,
        )
        self.layers = nn.TransformerEncoder(
            layer,
            n_layers,
            norm=nn.LayerNorm(d_model) if norm_first else None,
            enable_nested_tensor=False,
        )
        self.lm_bias = nn.Parameter(torch.zeros(vocab_size))

    @property
    def num_embeddings(self) -> int:
        """Size of the shared subword vocabulary.

        Book: chapter 9 (Multilingual embeddings from monolingual text, Wang et al.).
        """
        return self.vocab_size

    def _language_ids(self, langs: torch.Tensor | None, shape: torch.Size,
                      device: torch.device) -> torch.Tensor | None:
        if langs is None and self.default_lang is None:
            return None
        if self.language_embedding is None:
            raise ValueError("This encoder was built with n_langs=0; pass langs=None or rebuild "
                             "with n_langs > 0.")
        if langs is None:
            langs = torch.full(shape, int(self.default_lang), dtype=torch.long, device=device)
        if not isinstance(langs, torch.Tensor) or langs.dtype != torch.long:
            raise TypeError("langs must be a LongTensor [B] (one language per sentence) or [B, T] "
                            "(per token).")
        if langs.dim() == 1 and langs.shape[0] == shape[0]:
            langs = langs.unsqueeze(1).expand(shape)
        if langs.shape != shape:
            raise ValueError(f"langs must have shape [{shape[0]}] or {list(shape)}, got "
                             f"{list(langs.shape)}.")
        if not self.inputs_trusted and (int(langs.min()) < 0 or int(langs.max()) >= self.n_langs):
            raise ValueError(f"language ids must lie in [0, {self.n_langs}), got "
                             f"{int(langs.min())}..{int(langs.max())}.")
        return langs.to(device)

    @property
    def dense_batch(self) -> bool:
        """True inside ``trusted_batch(dense=True)``: the batch has no padding.

        Book: chapter 10 (Cross-lingual language models, XLM: training speed).
        """
        return self.inputs_trusted and self._dense_batch

    @contextlib.contextmanager
    def trusted_batch(self, *, dense: bool):
        """Within the block, skip the input checks that read values back from the device (one host
        synchronisation each) and, when ``dense`` (no padding in the batch) on CUDA, pass no
        padding mask, so that scaled-dot-product attention can take its flash kernels (causal for
        CLM).
        For batches the library built itself (XLM pretraining); the CPU computes exactly as outside.
        Book: chapter 10 (Cross-lingual language models, XLM: training speed).
        """
        before = self.inputs_trusted, self._dense_batch
        self.inputs_trusted, self._dense_batch = True, bool(dense)
        try:
            yield self
        finally:
            self.inputs_trusted, self._dense_batch = before

    def hidden_states(
        self,
        token_ids: torch.Tensor,
        lengths: torch.Tensor,
        langs: torch.Tensor | None = None,
        positions: torch.Tensor | None = None,
        causal: bool = False,
    ) -> torch.Tensor:
        """Last-layer states ``[B, T, d_model]``; padded positions are set to 0.

        ``positions`` (``[B, T]``, default ``0..T-1``) lets TLM restart positions at the
        translation; ``causal=True`` adds the left-to-right mask used by CLM.
        Book: chapter 10 (Cross-lingual language models, XLM).
        """
        trusted = self.inputs_trusted
        if not trusted:
            check_batch(token_ids, lengths)
        batch, width = token_ids.shape
        if not trusted and (int(token_ids.min()) < 0 or int(token_ids.max()) >= self.vocab_size):
            raise ValueError(f"token ids must lie in [0, {self.vocab_size}); got "
                             f"{int(token_ids.min())}..{int(token_ids.max())}.")
        device = self.token_embedding.weight.device
        token_ids, lengths = token_ids.to(device), lengths.to(device)
        if positions is None:
            positions = torch.arange(width, device=device).unsqueeze(0).expand(batch, width)
        elif positions.shape != token_ids.shape or positions.dtype != torch.long:
            raise ValueError("positions must be a LongTensor shaped like token_ids "
                             f"{list(token_ids.shape)}.")
        positions = positions.to(device)
        if not trusted and (int(positions.max()) >= self.max_len or int(positions.min()) < 0):
            raise ValueError(
                f"positions reach {int(positions.max())} but this encoder has "
                f"max_len={self.max_len}; truncate sentences (TextPipeline(max_len=...)) or build "
                "the encoder with a larger max_len."
            )
        x = self.token_embedding(token_ids)
        if self.position_embedding is not None:
            x = x + self.position_embedding(positions)
        else:
            x = x + self.position_table[positions]
        lang_ids = self._language_ids(langs, token_ids.shape, device)
        if lang_ids is not None:
            x = x + self.language_embedding(lang_ids)
        x = self.embedding_dropout(self.embedding_norm(x))
        real = length_mask(lengths, width)
        causal_mask = None
        if causal:
            causal_mask = torch.triu(torch.ones(width, width, dtype=torch.bool, device=device),
                                     diagonal=1)
        padding = None if self._dense_batch and device.type == "cuda" else ~real
        h = self.layers(x, mask=causal_mask, src_key_padding_mask=padding, is_causal=causal)
        return h.masked_fill(~real.unsqueeze(-1), 0.0)

    def pool(self, hidden: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Pool per-token states ``[B, T, d]`` into sentence vectors with this encoder's
        ``pooling``.

        Book: chapter 9 (Multilingual embeddings from monolingual text: mean-max pooling).
        """
        lengths = lengths.to(hidden.device)
        if self.pooling == "mean":
            return masked_mean(hidden, lengths)
        if self.pooling == "max":
            return masked_max(hidden, lengths)
        if self.pooling == "first":
            return hidden[:, 0]
        return torch.cat([masked_mean(hidden, lengths), masked_max(hidden, lengths)], dim=-1)

    def forward(
        self,
        token_ids: torch.Tensor,
        lengths: torch.Tensor,
        langs: torch.Tensor | None = None,
        positions: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Sentence vectors ``[B, output_dim]`` of a padded batch (see the class docstring).

        Book: chapter 9 (Multilingual embeddings from monolingual text, Wang et al.).
        """
        return self.pool(self.hidden_states(token_ids, lengths, langs=langs, positions=positions),
                         lengths)

    def lm_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """Vocabulary logits ``hidden @ E^T + b`` with ``E`` the input token embeddings (tied
        weights).

        Book: chapter 10 (Cross-lingual language models, XLM).
        """
        if hidden.shape[-1] != self.d_model:
            raise ValueError(f"hidden states must end in d_model={self.d_model}, got "
                             f"{tuple(hidden.shape)}.")
        return F.linear(hidden, self.token_embedding.weight, self.lm_bias)

    def encode(
        self,
        sentences: Sequence[str],
        batch_size: int = 128,
        device: str | torch.device = "auto",
        lang: int | None = None,
        precision: str = "float32",
    ) -> np.ndarray:
        """Embed raw sentences (see :meth:`SentenceEncoder.encode`, also for ``precision``), all
        tagged with language ``lang``.

        Book: chapter 10 (Cross-lingual language models, XLM: language embeddings).
        """
        if lang is not None and (self.language_embedding is None
                                 or not 0 <= int(lang) < self.n_langs):
            raise ValueError(f"lang must be None or a language id in [0, {self.n_langs}), got "
                             f"{lang!r}.")
        previous, self.default_lang = self.default_lang, lang
        try:
            return super().encode(sentences, batch_size=batch_size, device=device,
                                  precision=precision)
        finally:
            self.default_lang = previous
