"""Bag-of-vectors encoders: mean, sum and SIF-weighted averages of token embeddings.

The units are whatever the pipeline yields (words, character trigrams, sentencepieces), so one class
covers Wieting et al.'s Word / Trigram / SP encoders, the "random encoder" rows (N(0, 1) vectors,
never trained), X-CBOW, the vecmap mean/sum baselines and the SIF baselines. Encoding is one fused
``embedding_bag`` call per chunk over a CSR (flat ids + offsets) batch, never a padded tensor.
Book: chapter 8 (Paraphrastic embeddings from bitext, Wieting et al.).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
import torch.nn.functional as F

from xsent_lib.base.masking import check_batch, length_mask
from xsent_lib.encoders.base import SentenceEncoder, build_embedding
from xsent_lib.text.pipeline import TextPipeline

POOLINGS = ("mean", "sum", "sif")
CHUNK_SENTENCES = 65_536  # sentences per upload on an accelerator (about 5 MB of ids at 18 tokens)


def sif_weights(probabilities: np.ndarray, a: float = 1e-3) -> np.ndarray:
    """Smooth-inverse-frequency weights ``a / (a + p(w))`` (Arora et al. 2017).

    Tokens never counted (specials, p = 0) get weight 1, the largest possible.
    Book: chapter 7 (Joint vs transfer vs mapping: SIF baselines).
    """
    p = np.asarray(probabilities, dtype=np.float64)
    if p.ndim != 1 or (p < 0).any() or not np.isfinite(p).all():
        raise ValueError("probabilities must be a one-dimensional array of non-negative finite "
                         "numbers.")
    if not a > 0:
        raise ValueError(f"SIF parameter a must be positive, got {a!r}.")
    return a / (a + p)


def first_principal_component(vectors: np.ndarray) -> np.ndarray:
    """Unit first singular vector of ``vectors[N, d]`` (uncentred, as Arora et al.'s TruncatedSVD).

    Computed from the ``d x d`` Gram matrix in float64, so N can be large.
    Book: chapter 7 (Joint vs transfer vs mapping: SIF baselines).
    """
    x = np.asarray(vectors, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 1:
        raise ValueError(f"vectors must be a non-empty [N, d] matrix, got shape {x.shape}.")
    _, eigvecs = np.linalg.eigh(x.T @ x)
    return eigvecs[:, -1]


def remove_principal_component(vectors: np.ndarray, component: np.ndarray) -> np.ndarray:
    """``v - (v . c) c`` for every row: drop the common direction ``c`` (unit norm).

    Book: chapter 7 (Joint vs transfer vs mapping: SIF baselines).
    """
    c = np.asarray(component, dtype=vectors.dtype)
    return vectors - np.outer(vectors @ c, c)


class BagOfVectorsEncoder(SentenceEncoder):
    """Average (``"mean"``), sum (``"sum"``) or SIF-weighted average (``"sif"``) of token vectors.

    SIF is ``(1/|s|) sum_w a/(a + p(w)) v_w`` with ``p`` from ``sif_probabilities`` (default: the
    pipeline vocabulary's counts) and ``a = 1e-3`` (Arora et al.'s usual value; Aldarmaki & Diab do
    not state theirs). The optional first-principal-component removal is fitted separately with
    :meth:`fit_principal_component`. ``dropout`` (Wieting et al.: 0.3) drops embedding entries in
    training, which takes an unfused path; evaluation is always the fused ``embedding_bag``.
    Book: chapter 8 (Paraphrastic embeddings from bitext, Wieting et al.).
    """

    def __init__(
        self,
        vocab_size: int,
        dim: int = 300,
        pooling: str = "mean",
        embeddings: torch.Tensor | np.ndarray | None = None,
        freeze: bool = False,
        init_std: float = 1.0,
        dropout: float = 0.0,
        sif_probabilities: np.ndarray | None = None,
        sif_a: float = 1e-3,
        pipeline: TextPipeline | None = None,
    ) -> None:
        super().__init__()
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}.")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must lie in [0, 1), got {dropout!r}.")
        self.pooling = pooling
        self.dropout = float(dropout)
        self.output_dim = int(dim)
        self.embedding = build_embedding(vocab_size, dim, embeddings, freeze=freeze,
                                         init_std=init_std)
        self.register_buffer("token_weights", torch.ones(vocab_size))
        self.register_buffer("principal_component", torch.zeros(dim))
        if pooling == "sif":
            if sif_probabilities is None:
                if pipeline is None:
                    raise ValueError("pooling='sif' needs sif_probabilities or a pipeline whose "
                                     "vocabulary has counts.")
                sif_probabilities = pipeline.vocab.probabilities()
            self.set_sif_weights(sif_probabilities, a=sif_a)
        if pipeline is not None:
            self.attach_pipeline(pipeline)

    def set_sif_weights(self, probabilities: np.ndarray, a: float = 1e-3) -> None:
        """Set the per-token weights to ``a / (a + p(w))`` (only meaningful with ``pooling='sif'``).

        Book: chapter 7 (Joint vs transfer vs mapping: SIF baselines).
        """
        if self.pooling != "sif":
            raise ValueError("SIF weights only apply to pooling='sif', this encoder pools with "
                             f"{self.pooling!r}.")
        w = sif_weights(probabilities, a)
        if w.shape != (self.embedding.num_embeddings,):
            raise ValueError("need one probability per vocabulary entry "
                             f"({self.embedding.num_embeddings}), got {w.shape}.")
        self.token_weights.copy_(torch.from_numpy(w))

    def forward_flat(self, flat_ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        """Pool a CSR batch: ``flat_ids[N_tokens]`` and ``offsets[B + 1]`` (``offsets[0] == 0``).

        Bags must be non-empty. Returns ``[B, dim]``.
        Book: chapter 8 (Paraphrastic embeddings from bitext, Wieting et al.).
        """
        if (flat_ids.dim() != 1 or offsets.dim() != 1 or flat_ids.dtype != torch.long
                or offsets.dtype != torch.long):
            raise TypeError("forward_flat takes 1-D int64 flat_ids and offsets (see "
                            "TextPipeline.encode_flat).")
        if len(offsets) < 2 or int(offsets[0]) != 0 or int(offsets[-1]) != len(flat_ids):
            raise ValueError(f"offsets must run from 0 to len(flat_ids)={len(flat_ids)} with one "
                             "entry per sentence plus one.")
        return self._pool(flat_ids, offsets, bool(self.principal_component.any()))

    def _pool(self, flat_ids: torch.Tensor, offsets: torch.Tensor, remove_pc: bool) -> torch.Tensor:
        """:meth:`forward_flat` without its checks: no host synchronisation on an accelerator."""
        starts, lengths = offsets[:-1], offsets[1:] - offsets[:-1]
        weight = self.embedding.weight
        token_w = None
        if self.pooling == "sif":
            per_token = torch.repeat_interleave(lengths, lengths, output_size=flat_ids.shape[0])
            token_w = self.token_weights[flat_ids] / per_token.to(weight.dtype)
        if self.training and self.dropout > 0:
            vecs = F.dropout(F.embedding(flat_ids, weight, padding_idx=0), self.dropout,
                             training=True)
            if token_w is None:
                scale = (1.0 / lengths.to(weight.dtype) if self.pooling == "mean"
                         else torch.ones_like(lengths, dtype=weight.dtype))
                token_w = torch.repeat_interleave(scale, lengths)
            segment = torch.repeat_interleave(torch.arange(len(lengths), device=flat_ids.device),
                                              lengths)
            out = torch.zeros(len(lengths), weight.shape[1], dtype=weight.dtype,
                              device=weight.device)
            out = out.index_add(0, segment, vecs * token_w[:, None])
        else:
            # "sum" mode is the fast (fbgemm) kernel on CPU; the mean divides afterwards.
            out = F.embedding_bag(flat_ids, weight, starts, mode="sum", per_sample_weights=token_w)
            if self.pooling == "mean":
                out.div_(lengths.to(out.dtype)[:, None])
        if remove_pc:
            pc = self.principal_component
            out = out - (out @ pc)[:, None] * pc[None, :]
        return out

    def forward(self, token_ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Pool a padded batch (positions at or beyond each length are ignored).

        Book: chapter 8 (Paraphrastic embeddings from bitext, Wieting et al.).
        """
        check_batch(token_ids, lengths)
        mask = length_mask(lengths.to(token_ids.device), token_ids.shape[1])
        offsets = torch.zeros(len(lengths) + 1, dtype=torch.long, device=token_ids.device)
        offsets[1:] = torch.cumsum(lengths.to(token_ids.device), 0)
        return self.forward_flat(token_ids[mask], offsets)

    def encode_csr(self, flat: np.ndarray, offsets: np.ndarray, batch_size: int,
                   device: torch.device) -> np.ndarray:
        """Encode in input order with fused lookups (no sorting or padding needed).

        On the CPU all sentences go through ONE ``embedding_bag`` call whose result tensor is
        returned as the array itself (no per-chunk copies; ``batch_size`` is irrelevant there). On
        an accelerator ``batch_size`` sentences go per call, over large chunks uploaded ahead
        (:meth:`_encode_chunked`).
        Book: chapter 8 (Paraphrastic embeddings from bitext, Wieting et al.).
        """
        if (np.diff(offsets) < 1).any():
            raise ValueError("every sentence needs at least one token; TextPipeline maps empty "
                             "sentences to <unk>.")
        if device.type == "cpu":
            return self.forward_flat(torch.from_numpy(flat),
                                     torch.from_numpy(offsets)).float().numpy()
        return self._encode_chunked(flat, offsets, batch_size, device)

    def _encode_chunked(self, flat: np.ndarray, offsets: np.ndarray, batch_size: int,
                        device: torch.device, chunk: int = CHUNK_SENTENCES) -> np.ndarray:
        """``batch_size`` sentences per kernel call over chunks of ``chunk`` sentences, results kept
        on the device until the end: no host synchronisation between calls. On CUDA the ids come
        from pinned memory, each chunk copied (non-blocking, on a side stream) while the previous
        one is pooled, and the vectors come back in one copy. Elsewhere: same loop, plain copies."""
        n = len(offsets) - 1
        remove_pc = bool(self.principal_component.any())
        cuda = device.type == "cuda"
        flat_t, offs_t = torch.from_numpy(flat), torch.from_numpy(offsets)
        if cuda:
            flat_t, offs_t = flat_t.pin_memory(), offs_t.pin_memory()
        side = torch.cuda.Stream(device) if cuda else None
        out = torch.empty((n, self.output_dim), dtype=torch.float32, device=device)
        chunk = max(batch_size, chunk // batch_size * batch_size)

        def upload(s: int, e: int):
            if not cuda:
                ids = flat_t[offsets[s] : offsets[e]]
                return ids.to(device), offs_t[s : e + 1].to(device), None
            with torch.cuda.stream(side):
                ids = flat_t[offsets[s] : offsets[e]].to(device, non_blocking=True)
                offs = offs_t[s : e + 1].to(device, non_blocking=True)
                done = torch.cuda.Event()
                done.record(side)
            return ids, offs, done

        nxt = upload(0, min(chunk, n))
        for c0 in range(0, n, chunk):
            c1 = min(c0 + chunk, n)
            ids, offs, done = nxt
            if cuda:
                torch.cuda.current_stream(device).wait_event(done)
                ids.record_stream(torch.cuda.current_stream(device))
                offs.record_stream(torch.cuda.current_stream(device))
            if c1 < n:
                nxt = upload(c1, min(c1 + chunk, n))
            base = int(offsets[c0])
            for s in range(c0, c1, batch_size):
                e = min(s + batch_size, c1)
                a, b = int(offsets[s]) - base, int(offsets[e]) - base
                pooled = self._pool(ids[a:b], offs[s - c0 : e - c0 + 1] - (a + base), remove_pc)
                out[s:e] = pooled.float()
        if not cuda:
            return out.cpu().numpy()
        host = torch.empty(out.shape, dtype=torch.float32, pin_memory=True)
        host.copy_(out, non_blocking=True)
        torch.cuda.current_stream(device).synchronize()
        return host.numpy()

    def fit_principal_component(
        self, sentences: Sequence[str], batch_size: int = 1024, device: str | torch.device = "auto"
    ) -> np.ndarray:
        """Fit (and from now on remove) the first principal component of the embeddings of
        ``sentences``.

        Arora et al. fit it on the sentences being embedded; we fit it on whatever corpus is passed,
        typically the training side, so test sentences never influence their own embedding.
        Book: chapter 7 (Joint vs transfer vs mapping: SIF baselines).
        """
        self.principal_component.zero_()
        pc = first_principal_component(self.encode(sentences, batch_size=batch_size, device=device))
        self.principal_component.copy_(torch.from_numpy(pc).to(self.principal_component))
        return pc
