"""Training paraphrastic sentence encoders on bitext: Wieting et al.'s margin loss with mega-batch
negatives.

One encoder (and one vocabulary) serves both languages, so tokens the languages share are shared
parameters, as in the paper. Each epoch shuffles the pairs, cuts mini-batches, and groups
consecutive mini-batches into mega-batches (:func:`~xsent_lib.losses.margin.megabatch_plan`). For
every mega-batch the current model encodes all its sources and targets in eval mode without
gradient, and each pair gets the most similar *target* that is not its translation
(:func:`~xsent_lib.losses.margin.mine_hardest_negatives`, ``pool="target"``: negatives come from the
other language only). The mega-batch is then split back into its mini-batches, and each takes one
gradient step on the margin loss of its pairs and their mined negatives, with optional word
shuffling of the inputs (:func:`~xsent_lib.text.noise.shuffle_words`). A mega-batch of one
mini-batch is plain in-batch hardest negatives. The baseline ``negatives="random"`` draws each
pair's negative uniformly among the other targets of its mega-batch instead
(:func:`~xsent_lib.losses.margin.sample_random_negatives`, seeded, no encoding); with a mega-batch
of one it is in-batch random negatives. The steps go through the book's one loop,
:func:`~xsent_lib.train.fit`.
Book: chapter 8 (Paraphrastic embeddings from bitext).
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import torch

from xsent_lib.base.runtime import pick_device
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.losses.margin import (
    margin_loss,
    megabatch_plan,
    mine_hardest_negatives,
    sample_random_negatives,
)
from xsent_lib.text.batching import pad_csr
from xsent_lib.text.noise import shuffle_words
from xsent_lib.train.history import History
from xsent_lib.train.loop import fit


@dataclass(frozen=True)
class ParaphraseConfig:
    """Hyper-parameters of :func:`train_paraphrase`; defaults are the paper's where it gives them.

    ``megabatch`` is the (maximum) number of mini-batches per mega-batch (paper: 60) and
    ``anneal_rate`` the number of mini-batches after which it grows by one, starting from 1 (paper:
    150; ``None`` uses the full size from the start). ``delta`` is the margin (0.4), ``lr`` Adam's
    rate (0.001), ``shuffle_rate`` the word-shuffling probability (0.3 for BLSTM-SP, 0 otherwise).
    The paper leaves the mini-batch size open; 128 is the authors' later code. ``max_len`` truncates
    training sentences (in tokens) to bound the cost of long bitext lines; ``symmetric`` adds the
    mirror hinge of the later code. ``negatives`` is ``"hardest"`` (the paper) or ``"random"`` (the
    ablation's baseline: a uniform draw among the other targets of the mega-batch; ``megabatch=1``
    makes it in-batch random negatives).
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """

    batch_size: int = 128
    megabatch: int = 60
    anneal_rate: int | None = 150
    delta: float = 0.4
    epochs: int = 10
    lr: float = 1e-3
    shuffle_rate: float = 0.0
    symmetric: bool = False
    clip_norm: float | None = None
    max_len: int | None = None
    seed: int = 0
    negatives: Literal["hardest", "random"] = "hardest"

    def __post_init__(self) -> None:
        for name in ("batch_size", "megabatch", "epochs"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}.")
        if self.anneal_rate is not None and (not isinstance(self.anneal_rate, int)
                                             or self.anneal_rate < 1):
            raise ValueError("anneal_rate must be None or a positive integer, got "
                             f"{self.anneal_rate!r}.")
        if not 0.0 <= self.shuffle_rate <= 1.0:
            raise ValueError(f"shuffle_rate must lie in [0, 1], got {self.shuffle_rate!r}.")
        if self.delta < 0 or not self.lr > 0:
            raise ValueError(f"need delta >= 0 and lr > 0, got delta={self.delta!r}, "
                             f"lr={self.lr!r}.")
        if self.max_len is not None and (not isinstance(self.max_len, int) or self.max_len < 1):
            raise ValueError(f"max_len must be None or a positive integer, got {self.max_len!r}.")
        if self.negatives not in ("hardest", "random"):
            raise ValueError("negatives must be 'hardest' (mined, the paper) or 'random' (uniform "
                             f"draw), got {self.negatives!r}.")


@dataclass(frozen=True)
class EncodedBitext:
    """Both sides of a bitext as CSR token ids (``flat``, ``offsets``) plus duplicate keys per side.

    Equal keys mean identical sentences (after tokenisation and truncation); the miner never takes a
    duplicate of a pair's own translation as its negative.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """

    src_flat: np.ndarray
    src_offsets: np.ndarray
    tgt_flat: np.ndarray
    tgt_offsets: np.ndarray
    src_keys: np.ndarray
    tgt_keys: np.ndarray

    def __len__(self) -> int:
        return len(self.src_offsets) - 1


def _truncate(flat: np.ndarray, offsets: np.ndarray,
              max_len: int | None) -> tuple[np.ndarray, np.ndarray]:
    if max_len is None:
        return flat, offsets
    lengths = np.minimum(np.diff(offsets), max_len)
    keep = (np.arange(len(flat)) - np.repeat(offsets[:-1], np.diff(offsets))
            < np.repeat(lengths, np.diff(offsets)))
    new = np.zeros_like(offsets)
    np.cumsum(lengths, out=new[1:])
    return flat[keep], new


def _keys(flat: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """One integer per sentence, equal iff the id sequences are equal."""
    rows = [flat[offsets[i]: offsets[i + 1]].tobytes() for i in range(len(offsets) - 1)]
    index: dict[bytes, int] = {}
    return np.fromiter((index.setdefault(r, len(index)) for r in rows), dtype=np.int64,
                       count=len(rows))


def encode_bitext(encoder: SentenceEncoder, src: Sequence[str], tgt: Sequence[str],
                  max_len: int | None = None) -> EncodedBitext:
    """Tokenise aligned ``src``/``tgt`` with the encoder's pipeline (one shared vocabulary) for
    training.

    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    if encoder.pipeline is None:
        raise ValueError("the encoder has no text pipeline; build it with "
                         "pipeline=TextPipeline(...).")
    if len(src) != len(tgt) or len(src) < 2:
        raise ValueError(f"need two aligned sides of at least 2 sentences, got {len(src)} and "
                         f"{len(tgt)}.")
    s_flat, s_off = _truncate(*encoder.pipeline.encode_flat(list(src)), max_len)
    t_flat, t_off = _truncate(*encoder.pipeline.encode_flat(list(tgt)), max_len)
    return EncodedBitext(s_flat, s_off, t_flat, t_off, _keys(s_flat, s_off), _keys(t_flat, t_off))


def _take(flat: np.ndarray, offsets: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sentences ``rows`` of a CSR batch, as a new CSR batch."""
    lengths = offsets[rows + 1] - offsets[rows]
    new = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lengths, out=new[1:])
    idx = np.repeat(offsets[rows] - new[:-1], lengths) + np.arange(int(new[-1]))
    return flat[idx], new


@torch.no_grad()
def _embed(encoder: SentenceEncoder, flat: np.ndarray, offsets: np.ndarray,
           device: torch.device) -> torch.Tensor:
    was_training = encoder.training
    encoder.eval()
    try:
        return torch.from_numpy(encoder.encode_csr(flat, offsets, 1024, device))
    finally:
        encoder.train(was_training)


def mine_megabatch(encoder: SentenceEncoder, data: EncodedBitext, rows: np.ndarray,
                   device: torch.device | str = "cpu") -> np.ndarray:
    """For the pairs ``rows`` of ``data`` (one mega-batch), the global index of each pair's hardest
    negative target.

    Encodes the mega-batch with the current model in eval mode without gradient, then mines with
    :func:`~xsent_lib.losses.margin.mine_hardest_negatives` (``pool="target"``, duplicates excluded
    by key).
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    rows = np.asarray(rows, dtype=np.int64)
    device = torch.device(device)
    src = _embed(encoder, *_take(data.src_flat, data.src_offsets, rows), device)
    tgt = _embed(encoder, *_take(data.tgt_flat, data.tgt_offsets, rows), device)
    mined = mine_hardest_negatives(src, tgt, pool="target", src_keys=data.src_keys[rows],
                                   tgt_keys=data.tgt_keys[rows])
    return rows[mined.target_idx.cpu().numpy()]


def random_megabatch(data: EncodedBitext, rows: np.ndarray,
                     generator: torch.Generator) -> np.ndarray:
    """For the pairs ``rows`` of ``data`` (one mega-batch), the global index of a random negative
    target each: :func:`~xsent_lib.losses.margin.sample_random_negatives` over the mega-batch
    (duplicates excluded by key).
    Book: chapter 8 (Paraphrastic embeddings from bitext: random against hardest negatives).
    """
    rows = np.asarray(rows, dtype=np.int64)
    picked = sample_random_negatives(data.src_keys[rows], data.tgt_keys[rows], generator=generator)
    return rows[picked.numpy()]


def paraphrase_batches(encoder: SentenceEncoder, data: EncodedBitext, config: ParaphraseConfig,
                       epoch: int, seen: list[int],
                       device: torch.device | str = "cpu") -> Iterator[dict[str, torch.Tensor]]:
    """One epoch of mini-batches ``{src, src_len, tgt, tgt_len, neg, neg_len}`` with mined (or
    random) negatives.

    Pairs are shuffled with a generator seeded by ``(config.seed, epoch)``; ``seen[0]`` counts
    mini-batches across epochs for the mega-batch schedule and is advanced here. Mining runs lazily,
    just before the first mini-batch of each mega-batch, so it sees the model as trained so far.
    With ``config.negatives == "random"`` the negatives are drawn by :func:`random_megabatch` from a
    torch generator seeded by ``(config.seed, epoch)`` instead.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    n = len(data)
    order = np.random.default_rng((config.seed, epoch)).permutation(n)
    minibatches = [order[i: i + config.batch_size] for i in range(0, n, config.batch_size)]
    # a lone pair has no negative in its batch
    if len(minibatches) > 1 and len(minibatches[-1]) < 2:
        minibatches[-2] = np.concatenate(minibatches[-2:])
        minibatches.pop()
    plan = megabatch_plan(len(minibatches), n_batches_seen=seen[0], max_size=config.megabatch,
                          anneal_rate=config.anneal_rate)
    draws = torch.Generator().manual_seed(
        int(np.random.default_rng((config.seed, epoch, 1)).integers(2**62)))
    for group in plan:
        rows = np.concatenate([minibatches[j] for j in group])
        picked = (random_megabatch(data, rows, draws) if config.negatives == "random"
                  else mine_megabatch(encoder, data, rows, device))
        negatives = dict(zip(rows.tolist(), picked.tolist()))
        for j in group:
            pairs = minibatches[j]
            neg = np.fromiter((negatives[i] for i in pairs.tolist()), dtype=np.int64,
                              count=len(pairs))
            s, s_len = pad_csr(data.src_flat, data.src_offsets, pairs)
            t, t_len = pad_csr(data.tgt_flat, data.tgt_offsets, pairs)
            g, g_len = pad_csr(data.tgt_flat, data.tgt_offsets, neg)
            seen[0] += 1
            yield {"src": s, "src_len": s_len, "tgt": t, "tgt_len": t_len, "neg": g,
                   "neg_len": g_len}


def paraphrase_loss(encoder: SentenceEncoder, batch: dict[str, torch.Tensor], *, delta: float = 0.4,
                    shuffle_rate: float = 0.0,
                    word_starts: torch.Tensor | None = None) -> torch.Tensor:
    """Mean margin loss ``max(0, delta - cos(s, t) + cos(s, t'))`` of one mini-batch from
    :func:`paraphrase_batches`.

    With ``shuffle_rate > 0`` (and the encoder in training mode) each input sentence has its words
    shuffled with that probability first.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    def side(name: str) -> torch.Tensor:
        ids, lengths = batch[name], batch[f"{name}_len"]
        if shuffle_rate > 0 and encoder.training:
            ids = shuffle_words(ids, lengths, shuffle_rate, word_starts=word_starts)
        return encoder(ids, lengths)

    return margin_loss(side("src"), side("tgt"), side("neg"), delta=delta)


def train_paraphrase(encoder: SentenceEncoder, src: Sequence[str], tgt: Sequence[str],
                     config: ParaphraseConfig, *, device: str | torch.device = "cpu",
                     word_starts: torch.Tensor | None = None,
                     callbacks: dict[str, Any] | None = None, progress: bool = False) -> History:
    """Train ``encoder`` (with its pipeline) on the aligned sentences ``src``/``tgt`` and return the
    history.

    Adam with ``config.lr`` for ``config.epochs`` epochs through :func:`~xsent_lib.train.fit`; the
    encoder is trained in place. ``word_starts`` groups sentencepieces into words for shuffling (see
    :func:`~xsent_lib.text.noise.word_start_table`). ``callbacks`` are passed to ``fit`` (evaluated
    at each epoch end and before training).
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    if not isinstance(config, ParaphraseConfig):
        raise TypeError(f"config must be a ParaphraseConfig, got {type(config).__name__}.")
    data = encode_bitext(encoder, src, tgt, config.max_len)
    seen = [0]
    dev = pick_device(device)

    def batches(epoch: int) -> Iterator[dict[str, torch.Tensor]]:
        return paraphrase_batches(encoder, data, config, epoch, seen, dev)

    def loss_fn(model: SentenceEncoder, batch: dict[str, torch.Tensor]) -> torch.Tensor:
        return paraphrase_loss(model, batch, delta=config.delta, shuffle_rate=config.shuffle_rate,
                               word_starts=word_starts)

    return fit(encoder, loss_fn, batches, optimizer="adam", lr=config.lr, epochs=config.epochs,
               device=dev, seed=config.seed, clip_norm=config.clip_norm, progress=progress,
               callbacks=callbacks, restore_best=False)


@torch.no_grad()
def heldout_margin_loss(encoder: SentenceEncoder, src: Sequence[str], tgt: Sequence[str], *,
                        delta: float = 0.4, device: str | torch.device = "cpu") -> float:
    """Mean margin loss on held-out pairs, negatives mined among all of them (one mega-batch), in
    eval mode.

    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    data = encode_bitext(encoder, src, tgt)
    rows = np.arange(len(data))
    dev = pick_device(device)
    encoder.to(dev)
    neg = mine_megabatch(encoder, data, rows, dev)
    s = _embed(encoder, data.src_flat, data.src_offsets, dev)
    t = _embed(encoder, data.tgt_flat, data.tgt_offsets, dev)
    return float(margin_loss(s, t, t[torch.from_numpy(neg)], delta=delta))
