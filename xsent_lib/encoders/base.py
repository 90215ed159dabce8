"""The sentence-encoder contract and the masked pooling every encoder shares.

An encoder maps padded token ids ``LongTensor[B, T]`` and true lengths ``LongTensor[B]`` to
``FloatTensor[B, output_dim]``; ``encode`` wraps that for raw strings. Padding never changes a
sentence's vector: pooling here only ever reads the first ``length`` positions.
Book: chapter 3 (InferSent: sentence encoders).
"""
from __future__ import annotations

from abc import ABCMeta, abstractmethod
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from xsent_lib.base.runtime import pick_device
from xsent_lib.text.batching import length_buckets, pad_csr
from xsent_lib.text.pipeline import TextPipeline
from xsent_lib.text.tokenizers import check_sentences

# encode(precision=...): the dtype the forward pass runs in (the returned vectors are always
# float32).
PRECISIONS: dict[str, torch.dtype] = {"float32": torch.float32, "bfloat16": torch.bfloat16}


def build_embedding(
    vocab_size: int,
    dim: int,
    weights: torch.Tensor | np.ndarray | None = None,
    freeze: bool = False,
    init_std: float = 1.0,
) -> nn.Embedding:
    """An ``nn.Embedding`` with padding row 0 held at zero, random N(0, init_std^2) or copied from
    ``weights``.

    ``weights`` (e.g. GloVe rows aligned with the vocabulary) must be ``[vocab_size, dim]``; its row
    0 is overwritten with zeros because id 0 is padding. ``freeze=True`` keeps the vectors fixed, as
    InferSent keeps GloVe fixed. The default N(0, 1) is Wieting et al.'s "random encoder" init.
    Book: chapter 3 (InferSent: sentence encoders).
    """
    if not isinstance(vocab_size, (int, np.integer)) or vocab_size < 2:
        raise ValueError("vocab_size must be an integer >= 2 (padding + at least one token), got "
                         f"{vocab_size!r}.")
    if not isinstance(dim, (int, np.integer)) or dim < 1:
        raise ValueError(f"embedding dim must be a positive integer, got {dim!r}.")
    emb = nn.Embedding(int(vocab_size), int(dim), padding_idx=0)
    with torch.no_grad():
        if weights is None:
            emb.weight.normal_(0.0, init_std)
        else:
            w = torch.as_tensor(np.asarray(weights) if not isinstance(weights, torch.Tensor)
                                else weights)
            if tuple(w.shape) != (vocab_size, dim):
                raise ValueError(f"embedding weights must have shape ({vocab_size}, {dim}), got "
                                 f"{tuple(w.shape)}.")
            if not torch.isfinite(w).all():
                raise ValueError("embedding weights contain NaN or inf.")
            emb.weight.copy_(w.to(emb.weight.dtype))
        emb.weight[0].zero_()
    emb.weight.requires_grad_(not freeze)
    return emb


class SentenceEncoder(nn.Module, metaclass=ABCMeta):
    """Base of every sentence encoder: ``forward(ids, lengths) -> [B, output_dim]`` plus
    ``encode(strings)``.

    Subclasses set ``output_dim`` and implement :meth:`forward`. ``encode`` needs a
    :class:`~xsent_lib.text.pipeline.TextPipeline`, given to the constructor or
    :meth:`attach_pipeline`; encoders with a faster path than padding (bags of vectors) override
    :meth:`encode_csr`.
    Book: chapter 3 (InferSent: sentence encoders).
    """

    output_dim: int

    def __init__(self, pipeline: TextPipeline | None = None) -> None:
        super().__init__()
        self.pipeline: TextPipeline | None = None
        if pipeline is not None:
            self.attach_pipeline(pipeline)

    @property
    def num_embeddings(self) -> int | None:
        """Size of the input vocabulary this encoder can embed (None when unbounded).

        Reads ``self.embedding`` when the subclass has one; subclasses embedding differently
        override it.
        Book: chapter 3 (InferSent: sentence encoders).
        """
        emb = getattr(self, "embedding", None)
        return int(emb.num_embeddings) if isinstance(emb, (nn.Embedding, nn.EmbeddingBag)) else None

    @classmethod
    def from_pipeline(cls, pipeline: TextPipeline, **kwargs: object) -> SentenceEncoder:
        """Build the encoder with ``vocab_size=len(pipeline.vocab)`` and attach ``pipeline``.

        Book: chapter 3 (InferSent: sentence encoders).
        """
        if not isinstance(pipeline, TextPipeline):
            raise TypeError(f"pipeline must be a TextPipeline, got {type(pipeline).__name__}.")
        return cls(vocab_size=len(pipeline.vocab), pipeline=pipeline, **kwargs)

    def attach_pipeline(self, pipeline: TextPipeline) -> SentenceEncoder:
        """Set the tokeniser+vocabulary used by :meth:`encode`; returns ``self`` for chaining.

        Book: chapter 3 (InferSent: sentence encoders).
        """
        if not isinstance(pipeline, TextPipeline):
            raise TypeError(f"pipeline must be a TextPipeline, got {type(pipeline).__name__}.")
        self._check_vocab_fits(pipeline)
        self.pipeline = pipeline
        return self

    def _check_vocab_fits(self, pipeline: TextPipeline) -> None:
        n = self.num_embeddings
        if n is not None and len(pipeline.vocab) > n:
            raise ValueError(
                f"pipeline vocabulary has {len(pipeline.vocab)} entries but this encoder embeds "
                f"only {n}; build the encoder with vocab_size=len(pipeline.vocab)."
            )

    @abstractmethod
    def forward(self, token_ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Encode a padded batch ``token_ids[B, T]`` with true ``lengths[B]`` into
        ``[B, output_dim]``.

        Book: chapter 3 (InferSent: sentence encoders).
        """

    def encode_csr(self, flat: np.ndarray, offsets: np.ndarray, batch_size: int,
                   device: torch.device) -> np.ndarray:
        """Encode sentences given in CSR form (flat ids, ``N + 1`` offsets); rows come back in input
        order.

        The default pads length buckets (longest first) and calls :meth:`forward`; bag encoders
        override it with one fused ``EmbeddingBag`` call per chunk.
        Book: chapter 3 (InferSent: sentence encoders).
        """
        out = np.empty((len(offsets) - 1, self.output_dim), dtype=np.float32)
        for idx in length_buckets(np.diff(offsets), batch_size):
            token_ids, lens = pad_csr(flat, offsets, idx, pad_id=0)
            out[idx] = self(token_ids.to(device), lens.to(device)).float().cpu().numpy()
        return out

    def encode(self, sentences: Sequence[str], batch_size: int = 128,
               device: str | torch.device = "auto", precision: str = "float32") -> np.ndarray:
        """Embed raw sentences into a float32 array ``[N, output_dim]`` in the ORIGINAL order.

        Tokenises with ``self.pipeline``, batches by length (little padding), runs in eval mode
        under ``torch.inference_mode()`` on ``device`` (the module is moved there), and restores the
        previous train/eval mode afterwards. Larger ``batch_size`` values make the recurrent GEMMs
        of big encoders more efficient on a CPU (512 is ~1.3x faster than 64 at 2 x 2048).
        ``precision="bfloat16"`` runs the forward pass with bfloat16 weights and activations: about
        2x faster on CPUs with AVX512-BF16/AMX (slower elsewhere) and on recent GPUs; the vectors
        then differ from float32 in the third significant digit (cosine to the float32 vectors >
        0.9999 in our benchmark). The module's own float32 weights are restored exactly afterwards.
        Book: chapter 3 (InferSent: sentence encoders).
        """
        sentences = check_sentences(sentences)
        if not sentences:
            raise ValueError("encode() got an empty list of sentences; pass at least one string.")
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}.")
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {list(PRECISIONS)}, got {precision!r}.")
        if self.pipeline is None:
            raise ValueError(
                f"{type(self).__name__} has no text pipeline; pass pipeline=... to the constructor "
                "or call attach_pipeline(TextPipeline.fit(sentences, WordTokenizer()))."
            )
        self._check_vocab_fits(self.pipeline)
        dev = pick_device(device)
        self.to(dev)
        flat, offsets = self.pipeline.encode_flat(sentences)
        was_training = self.training
        saved = None
        self.eval()
        try:
            if precision != "float32":
                if any(t.is_floating_point() and t.dtype != torch.float32
                       for t in self.state_dict().values()):
                    raise ValueError("precision='bfloat16' needs a float32 module (its weights are "
                                     "restored as float32).")
                saved = {k: v.detach().clone() for k, v in self.state_dict().items()}
                self.to(PRECISIONS[precision])
            with torch.inference_mode():
                return self.encode_csr(flat, offsets, batch_size, dev)
        finally:
            if saved is not None:
                self.to(torch.float32)
                self.load_state_dict(saved)
            self.train(was_training)
