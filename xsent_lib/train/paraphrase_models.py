"""Wieting et al.'s encoders built on our text and trained on one bitext with the margin loss.

:class:`EncoderShape` holds the sizes and initial scales of the encoders, :class:`BitextSchedule`
the training schedule; :func:`build_paraphrase_encoder` builds Word, Trigram, SP averaging, BLSTM-SP
(and a Schwenk-width BiLSTM-max for timing), and :func:`train_bitext_encoder` trains one of them
with :func:`~xsent_lib.train.paraphrase.train_paraphrase`.
Book: chapter 8 (Paraphrastic embeddings from bitext).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import torch

from xsent_lib.base.threads import single_thread
from xsent_lib.data.bitext_split import Bitext
from xsent_lib.encoders import BagOfVectorsEncoder, RecurrentEncoder
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.losses.margin import megabatch_size
from xsent_lib.text import CharTrigramTokenizer, TextPipeline, WordTokenizer, train_sentencepiece
from xsent_lib.text.noise import word_start_table
from xsent_lib.train.paraphrase import ParaphraseConfig, train_paraphrase

KINDS = ("word", "trigram", "sp", "blstm-sp")


@dataclass(frozen=True, kw_only=True)
class EncoderShape:
    """Sizes and initial scales of the encoders: ``dim``-d token vectors drawn N(0, ``init_std``^2)
    for the averages (``blstm_init_std`` for the LSTMs), ``blstm_hidden`` units per direction for
    BLSTM-SP, and the averages' ``dropout``.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """

    dim: int = 300
    blstm_hidden: int = 150
    dropout: float = 0.0
    init_std: float = 0.1
    blstm_init_std: float = 1.0


@dataclass(frozen=True, kw_only=True)
class BitextSchedule:
    """The training schedule: mini-batches of ``batch_size``, ``epochs``, sentences cut at
    ``max_len`` tokens, ``megabatch`` mini-batches per mega-batch, annealed every ``anneal_rate``
    mini-batches for the averages and every ``blstm_anneal_rate`` for the LSTMs (``None``: fixed
    size).
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """

    batch_size: int = 128
    epochs: int = 1
    max_len: int = 32
    megabatch: int = 1
    anneal_rate: int | None = None
    blstm_anneal_rate: int | None = 150


def build_paraphrase_encoder(
    kind: str,
    text: Sequence[str],
    shape: EncoderShape,
    *,
    vocab: int | None = None,
    seed: int = 0,
    workdir: str | Path | None = None,
) -> SentenceEncoder:
    """An untrained encoder of the paper on our text: ``word``, ``trigram``, ``sp`` (averages),
    ``blstm-sp``.

    ``text`` (both languages) builds the one shared vocabulary (words and trigrams: up to 200k
    types, the paper's cap) or trains the sentencepiece model of ``vocab`` pieces. Embeddings start
    N(0, ``shape.init_std``^2) (the random-encoder rows use them untrained). BLSTM-SP: a one-layer
    BiLSTM over 300-d piece embeddings, ``shape.blstm_hidden`` units per direction and mean pooling
    (the paper gives neither; these are the authors' later code's defaults). ``bilstm-max`` is a 2 x
    512 BiLSTM-max (Schwenk 2018's width) for the speed table only.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    torch.manual_seed(seed)
    if kind == "word":
        pipe = TextPipeline.fit(list(text), WordTokenizer(), max_size=200_000)
    elif kind == "trigram":
        pipe = TextPipeline.fit(list(text), CharTrigramTokenizer(), max_size=200_000)
    elif kind in ("sp", "blstm-sp", "bilstm-max"):
        if vocab is None:
            raise ValueError(f"kind={kind!r} needs vocab= (the number of sentencepieces).")
        folder = Path(workdir or tempfile.mkdtemp(prefix="xsent-sp-"))
        sp = train_sentencepiece(list(text), vocab, folder / f"sp{vocab}", seed=seed)
        pipe = TextPipeline(sp, sp.vocab())
    else:
        raise ValueError(f"kind must be one of {KINDS + ('bilstm-max',)}, got {kind!r}.")
    if kind == "blstm-sp":
        enc: SentenceEncoder = RecurrentEncoder(
            len(pipe.vocab), shape.dim, shape.blstm_hidden, pooling="mean", pipeline=pipe
        )
    elif kind == "bilstm-max":
        enc = RecurrentEncoder(len(pipe.vocab), shape.dim, 512, pooling="max", pipeline=pipe)
    else:
        enc = BagOfVectorsEncoder(len(pipe.vocab), shape.dim, dropout=shape.dropout, pipeline=pipe)
    recurrent = isinstance(enc, RecurrentEncoder)
    with torch.no_grad():
        enc.embedding.weight.mul_(shape.blstm_init_std if recurrent else shape.init_std)
    return enc


def train_bitext_encoder(
    encoder: SentenceEncoder,
    data: Bitext,
    schedule: BitextSchedule,
    *,
    megabatch: int | None = None,
    negatives: Literal["hardest", "random"] = "hardest",
    seed: int = 0,
    device: torch.device | str = "cpu",
) -> dict[str, Any]:
    """Train with the margin loss (delta 0.4, hardest other-language negatives in mega-batches, Adam
    0.001).

    ``negatives="random"`` draws each pair's negative uniformly among the other targets of its
    mega-batch instead (the ablation's baseline; with ``megabatch=1``, in-batch random negatives).
    BLSTM-SP gets word shuffling at rate 0.3 and ``schedule.blstm_anneal_rate``. ``"megabatch"`` in
    the result is the size the schedule reached at the last mini-batch. Runs on one thread on the
    CPU (faster for these sizes on a busy machine). Returns ``{"loss": per-epoch losses, "seconds",
    "megabatch"}``.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    recurrent = isinstance(encoder, RecurrentEncoder)
    config = ParaphraseConfig(
        batch_size=schedule.batch_size,
        megabatch=megabatch or schedule.megabatch,
        anneal_rate=schedule.blstm_anneal_rate if recurrent else schedule.anneal_rate,
        epochs=schedule.epochs,
        max_len=schedule.max_len,
        shuffle_rate=0.3 if recurrent else 0.0,
        seed=seed,
        negatives=negatives,
    )
    assert encoder.pipeline is not None  # built by build_paraphrase_encoder
    starts = word_start_table(encoder.pipeline.vocab.itos) if recurrent else None
    t0 = time.perf_counter()
    with single_thread(torch.device(device).type == "cpu"):
        history = train_paraphrase(
            encoder, data.train_src, data.train_tgt, config, device=device, word_starts=starts
        )
    encoder.cpu().eval()
    steps = schedule.epochs * -(-len(data.train_src) // schedule.batch_size)
    last = megabatch_size(steps - 1, max_size=config.megabatch, anneal_rate=config.anneal_rate)
    return {"loss": history.train_loss, "seconds": time.perf_counter() - t0, "megabatch": last}
