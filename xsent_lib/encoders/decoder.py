"""The LSTM decoder of the seq2seq training tasks, conditioned only on a sentence vector (no
attention).

Conneau et al. (2018) train probing encoders with seq2seq tasks: auto-encoding, NMT (En-Fr/De/Fi),
SkipThought next-sentence prediction and Seq2Tree (linearised parse trees); Aldarmaki & Diab
(2019) train SDAE and NMT the same way. All share one decoder: a 2-layer, 512-unit LSTM that
sees the encoder's sentence vector at every time step. The task only changes the (source, target)
pairs, built here with :func:`sdae_noise` (denoising auto-encoder), :func:`next_sentence_pairs`
(SkipThought) and :func:`linearize_tree` (Seq2Tree); NMT uses parallel pairs as they are.
Book: chapter 4 (Probing: the seq2seq training tasks).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from xsent_lib.base.masking import IGNORE_INDEX, check_batch, length_mask
from xsent_lib.encoders.base import SentenceEncoder

CONDITIONS = ("input", "init", "both")


def teacher_forcing_pair(
    targets: torch.Tensor, lengths: torch.Tensor, *, bos_id: int, eos_id: int, pad_id: int = 0
) -> tuple[torch.Tensor, torch.Tensor]:
    """Decoder inputs ``[BOS, y_1..y_n]`` and targets ``[y_1..y_n, EOS]``, both ``[B, T + 1]``.

    Inputs are padded with ``pad_id``; targets carry ``IGNORE_INDEX`` past the EOS, so
    :func:`~xsent_lib.losses.seq2seq.sequence_cross_entropy` skips padding.
    Book: chapter 4 (Probing: the seq2seq training tasks).
    """
    check_batch(targets, lengths)
    batch, width = targets.shape
    real = length_mask(lengths, width + 1)
    body = torch.cat([targets, torch.full((batch, 1), pad_id, dtype=targets.dtype,
                                          device=targets.device)], dim=1)
    inputs = torch.cat([torch.full((batch, 1), bos_id, dtype=targets.dtype, device=targets.device),
                        targets], dim=1)
    inputs = inputs.masked_fill(~length_mask(lengths + 1, width + 1), pad_id)
    out = body.masked_fill(~real, IGNORE_INDEX)
    out = out.scatter(1, lengths.unsqueeze(1), eos_id)
    return inputs, out


class LSTMDecoder(nn.Module):
    """An LSTM language model over the target vocabulary, conditioned on a sentence vector.

    ``condition`` says how the vector enters: ``"input"`` concatenates it to the word embedding at
    every step (Conneau et al. 2018, Table 3.9 tasks), ``"init"`` sets the initial hidden state of
    every layer to ``tanh(W s)``, ``"both"`` does both. Defaults follow the thesis: 2 layers x 512.
    The word-embedding size (256) and dropout (0) are our choices; the papers are silent.
    Book: chapter 4 (Probing: the seq2seq training tasks).
    """

    def __init__(
        self,
        vocab_size: int,
        sentence_dim: int,
        *,
        bos_id: int,
        eos_id: int,
        pad_id: int = 0,
        embed_dim: int = 256,
        hidden_dim: int = 512,
        n_layers: int = 2,
        dropout: float = 0.0,
        condition: str = "input",
    ) -> None:
        super().__init__()
        if condition not in CONDITIONS:
            raise ValueError(f"condition must be one of {CONDITIONS}, got {condition!r}.")
        if vocab_size < 2 or sentence_dim < 1 or embed_dim < 1 or hidden_dim < 1 or n_layers < 1:
            raise ValueError("vocab_size >= 2 and positive sentence_dim, embed_dim, hidden_dim, "
                             "n_layers are required.")
        for name, tok in (("bos_id", bos_id), ("eos_id", eos_id), ("pad_id", pad_id)):
            if not 0 <= tok < vocab_size:
                raise ValueError(f"{name}={tok} must be an id in [0, {vocab_size}).")
        self.vocab_size, self.sentence_dim = vocab_size, sentence_dim
        self.hidden_dim, self.n_layers = hidden_dim, n_layers
        self.bos_id, self.eos_id, self.pad_id, self.condition = bos_id, eos_id, pad_id, condition
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=pad_id)
        feeds_input = condition in ("input", "both")
        self.lstm = nn.LSTM(
            embed_dim + (sentence_dim if feeds_input else 0),
            hidden_dim,
            num_layers=n_layers,
            batch_first=True,
            dropout=dropout if n_layers > 1 else 0.0,
        )
        self.init_projection = nn.Linear(sentence_dim,
                                         n_layers * hidden_dim) if condition != "input" else None
        self.dropout = nn.Dropout(dropout)
        self.output = nn.Linear(hidden_dim, vocab_size)

    def _check_sentence(self, sentence: torch.Tensor) -> None:
        if (not isinstance(sentence, torch.Tensor) or sentence.dim() != 2
                or sentence.shape[1] != self.sentence_dim):
            raise ValueError(f"sentence vectors must be a FloatTensor [B, {self.sentence_dim}].")

    def initial_state(self, sentence: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor] | None:
        """``(h0, c0)`` of shape ``[n_layers, B, hidden]`` from the sentence vector (None: zeros).

        Book: chapter 4 (Probing: the seq2seq training tasks).
        """
        if self.init_projection is None:
            return None
        batch = sentence.shape[0]
        h0 = torch.tanh(self.init_projection(sentence))
        h0 = h0.view(batch, self.n_layers, self.hidden_dim).transpose(0, 1)
        return h0.contiguous(), torch.zeros_like(h0)

    def _step_inputs(self, sentence: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
        x = self.dropout(self.embedding(tokens))
        if self.condition in ("input", "both"):
            x = torch.cat([x, sentence.unsqueeze(1).expand(-1, tokens.shape[1], -1).to(x.dtype)],
                          dim=-1)
        return x

    def forward(self, sentence: torch.Tensor, inputs: torch.Tensor) -> torch.Tensor:
        """Teacher-forced logits ``[B, T, V]`` for decoder inputs ``[B, T]`` (start with BOS).

        Book: chapter 4 (Probing: the seq2seq training tasks).
        """
        self._check_sentence(sentence)
        if inputs.dim() != 2 or inputs.dtype != torch.long or inputs.shape[0] != sentence.shape[0]:
            raise ValueError(f"inputs must be a LongTensor [B={sentence.shape[0]}, T] of target "
                             "ids.")
        states, _ = self.lstm(self._step_inputs(sentence, inputs), self.initial_state(sentence))
        return self.output(self.dropout(states))

    @torch.no_grad()
    def greedy_decode(self, sentence: torch.Tensor,
                      max_len: int = 50) -> tuple[torch.Tensor, torch.Tensor]:
        """Most likely token at each step until EOS or ``max_len``: ids ``[B, L]`` (no BOS/EOS) and
        lengths.

        Rows are padded with ``pad_id`` after their EOS; a row that never emits EOS has length
        ``max_len``.
        Book: chapter 4 (Probing: the seq2seq training tasks).
        """
        self._check_sentence(sentence)
        if not isinstance(max_len, int) or max_len < 1:
            raise ValueError(f"max_len must be a positive integer, got {max_len!r}.")
        batch, device = sentence.shape[0], sentence.device
        state = self.initial_state(sentence)
        token = torch.full((batch, 1), self.bos_id, dtype=torch.long, device=device)
        out = torch.full((batch, max_len), self.pad_id, dtype=torch.long, device=device)
        lengths = torch.full((batch,), max_len, dtype=torch.long, device=device)
        done = torch.zeros(batch, dtype=torch.bool, device=device)
        for step in range(max_len):
            states, state = self.lstm(self._step_inputs(sentence, token), state)
            token = self.output(states[:, -1]).argmax(dim=-1, keepdim=True)
            ended = token.squeeze(1) == self.eos_id
            lengths = torch.where(ended & ~done, torch.full_like(lengths, step), lengths)
            done = done | ended
            out[:, step] = token.squeeze(1).masked_fill(done, self.pad_id)
            if bool(done.all()):
                break
        width = max(int(lengths.max()), 1)
        return out[:, :width], lengths


class Seq2Seq(nn.Module):
    """Any :class:`SentenceEncoder` followed by an :class:`LSTMDecoder` that reads only its vector.

    Book: chapter 4 (Probing: the seq2seq training tasks).
    """

    def __init__(self, encoder: SentenceEncoder, decoder: LSTMDecoder) -> None:
        super().__init__()
        if not isinstance(encoder, SentenceEncoder) or not isinstance(decoder, LSTMDecoder):
            raise TypeError("Seq2Seq(encoder, decoder) needs a SentenceEncoder and an LSTMDecoder.")
        if encoder.output_dim != decoder.sentence_dim:
            raise ValueError(
                f"encoder.output_dim={encoder.output_dim} but "
                f"decoder.sentence_dim={decoder.sentence_dim}; build the decoder with "
                "sentence_dim=encoder.output_dim."
            )
        self.encoder, self.decoder = encoder, decoder

    def forward(self, src_ids: torch.Tensor, src_lengths: torch.Tensor,
                dec_inputs: torch.Tensor) -> torch.Tensor:
        """Teacher-forced logits ``[B, T, V]`` of the target given the source batch.

        Book: chapter 4 (Probing: the seq2seq training tasks).
        """
        return self.decoder(self.encoder(src_ids, src_lengths), dec_inputs)

    @torch.no_grad()
    def greedy_decode(
        self, src_ids: torch.Tensor, src_lengths: torch.Tensor, max_len: int = 50
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Greedy output ids and lengths for a source batch (see :meth:`LSTMDecoder.greedy_decode`).

        Book: chapter 4 (Probing: the seq2seq training tasks).
        """
        return self.decoder.greedy_decode(self.encoder(src_ids, src_lengths), max_len=max_len)


def _next_barrier(barrier: torch.Tensor) -> torch.Tensor:
    """For each position, the index of the first barrier at or after it (``T`` when there is
    none)."""
    width = barrier.shape[1]
    idx = torch.arange(width, device=barrier.device).expand_as(barrier)
    return torch.where(barrier, idx,
                       torch.full_like(idx, width)).flip(1).cummin(dim=1).values.flip(1)


def sdae_noise(
    token_ids: torch.Tensor,
    lengths: torch.Tensor,
    *,
    p_drop: float = 0.1,
    p_swap: float = 0.1,
    shuffle_k: int | None = None,
    protected_ids: Sequence[int] = (),
    pad_id: int = 0,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Corrupt a batch for the sequential denoising auto-encoder: drop words, then reorder locally.

    Each token is deleted with probability ``p_drop`` (a sentence always keeps one word). Then, as
    in Hill et al. (2016), each non-overlapping bigram is swapped with probability ``p_swap``; or,
    when ``shuffle_k`` is given, the words are locally shuffled so none moves more than ``k``
    places (the noise of Lample et al. 2018, who use ``p_drop=0.1, k=3``). Defaults are Hill et
    al.'s ``p_drop = p_swap = 0.1``; Aldarmaki & Diab do not give theirs. Tokens in
    ``protected_ids`` (``<s>``, ``</s>``) are never dropped and never move; words never cross them.
    Returns the noisy ids (padded with ``pad_id``) and their new lengths.
    Book: chapter 7 (Joint vs transfer vs mapping: the SDAE).
    """
    check_batch(token_ids, lengths)
    if not (0.0 <= p_drop < 1.0) or not (0.0 <= p_swap <= 1.0):
        raise ValueError(f"need 0 <= p_drop < 1 and 0 <= p_swap <= 1, got p_drop={p_drop}, "
                         f"p_swap={p_swap}.")
    if shuffle_k is not None and (not isinstance(shuffle_k, int) or shuffle_k < 0):
        raise ValueError(f"shuffle_k must be None or a non-negative integer, got {shuffle_k!r}.")
    device = token_ids.device
    gen_device = generator.device if generator is not None else device
    batch, width = token_ids.shape

    def uniform() -> torch.Tensor:
        return torch.rand(batch, width, generator=generator, device=gen_device).to(device)

    real = length_mask(lengths, width)
    protected = torch.isin(token_ids, torch.as_tensor(list(protected_ids), dtype=torch.long,
                                                      device=device)) & real
    body = real & ~protected
    drop = body & (uniform() < p_drop)
    emptied = (body.sum(1) > 0) & ((body & ~drop).sum(1) == 0)
    first_body = torch.argmax(body.int(), dim=1)
    drop[emptied, first_body[emptied]] = False
    keep = real & ~drop
    new_lengths = keep.sum(1)
    order = torch.argsort((~keep).int(), dim=1, stable=True)
    ids = token_ids.gather(1, order)
    prot = protected.gather(1, order)
    now_real = length_mask(new_lengths, width)
    ids = ids.masked_fill(~now_real, pad_id)
    prot = prot & now_real
    body = now_real & ~prot

    idx = torch.arange(width, device=device, dtype=torch.float64).expand(batch, width)
    if shuffle_k is not None:
        noisy = idx + uniform().double() * (shuffle_k + 1)
        noisy = torch.minimum(noisy, _next_barrier(prot | ~now_real).double() - 0.5)
        key = torch.where(body, noisy, idx)
    else:
        rank = body.long().cumsum(dim=1) - 1
        next_body = torch.cat([body[:, 1:], torch.zeros(batch, 1, dtype=torch.bool, device=device)],
                              dim=1)
        start = body & (rank % 2 == 0) & next_body & (uniform() < p_swap)
        after_start = torch.cat([torch.zeros(batch, 1, dtype=torch.bool, device=device),
                                 start[:, :-1]], dim=1)
        key = idx + start.double() - after_start.double()
    key = torch.where(now_real, key, idx + width)
    perm = torch.argsort(key, dim=1, stable=True)
    return ids.gather(1, perm), new_lengths


def next_sentence_pairs(doc_ids: Sequence[int] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(i, i + 1)`` of consecutive sentences of the same document, for SkipThought-next.

    ``doc_ids[i]`` is the document of sentence ``i`` in corpus order; Conneau et al. (2018) predict
    only the next sentence (Tang et al. 2017), so each pair is (source, target).
    Book: chapter 4 (Probing: the seq2seq training tasks).
    """
    docs = np.asarray(doc_ids)
    if docs.ndim != 1:
        raise ValueError("doc_ids must be one document id per sentence (1-D), got shape "
                         f"{docs.shape}.")
    src = np.flatnonzero(docs[:-1] == docs[1:])
    return src, src + 1


_TREE_TOKEN = re.compile(r"\(|\)|[^\s()]+")


def linearize_tree(tree: str) -> list[str]:
    """Linearise a bracketed parse tree into Seq2Tree target tokens (Vinyals et al. 2015).

    Each constituent ``(X ...)`` becomes ``(X`` ... ``)X`` and each pre-terminal ``(TAG word)``
    becomes ``TAG`` (words are dropped): ``(ROOT (S (NP (NNP Dikoya)) (VP (VBZ is))))`` gives
    ``['(ROOT', '(S', '(NP', 'NNP', ')NP', '(VP', 'VBZ', ')VP', ')S', ')ROOT']``.
    Book: chapter 4 (Probing: the seq2seq training tasks).
    """
    if not isinstance(tree, str):
        raise TypeError("tree must be a bracketed string like '(S (NP (DT a)) ...)', got "
                        f"{type(tree).__name__}.")
    tokens = _TREE_TOKEN.findall(tree)
    out: list[str] = []
    stack: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "(":
            if i + 1 >= len(tokens) or tokens[i + 1] in "()":
                raise ValueError("every '(' must be followed by a label; malformed tree near token "
                                 f"{i}: {tree[:80]!r}.")
            label = tokens[i + 1]
            if i + 3 < len(tokens) and tokens[i + 2] not in "()" and tokens[i + 3] == ")":
                out.append(label)
                i += 4
                continue
            stack.append(label)
            out.append("(" + label)
            i += 2
        elif tok == ")":
            if not stack:
                raise ValueError(f"unbalanced ')' in tree {tree[:80]!r}.")
            out.append(")" + stack.pop())
            i += 1
        else:
            raise ValueError(f"word {tok!r} outside a pre-terminal '(TAG word)' in tree "
                             f"{tree[:80]!r}.")
    if stack or not out:
        raise ValueError(f"unbalanced or empty tree {tree[:80]!r}; every '(' needs its ')'.")
    return out
