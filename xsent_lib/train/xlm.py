"""XLM pretraining (Lample & Conneau, 2019): CLM / MLM / TLM training and LM metrics.

The pieces, in the order the chapter uses them (the shared vocabulary and the :class:`LMCorpus` of
streams and bitext pairs come first, from :mod:`xsent_lib.train.xlm_corpus`):

* :func:`pretrain_xlm` trains a :class:`~xsent_lib.encoders.transformer.TransformerSentenceEncoder`
  with language embeddings through the library's one loop (:func:`xsent_lib.train.fit`): each batch
  holds one language drawn with ``q_i`` (alpha 0.7); with ``"mlm+tlm"`` MLM and TLM batches
  alternate; Adam with a linear warm-up then ``1/sqrt(step)`` decay; bf16 autocast on a GPU only;
  the weights with the lowest held-out loss averaged over languages (the paper's stopping criterion)
  are kept and checkpointed.
* :func:`heldout_loss`, :func:`clm_perplexity`, :func:`unigram_entropy` and
  :func:`language_unigram_entropy` score a model.

Book: chapter 10 (Cross-lingual language models, XLM).
"""
from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from xsent_lib.base.runtime import pick_device, seed_everything
from xsent_lib.encoders.transformer import TransformerSentenceEncoder
from xsent_lib.losses.lm import (
    MaskedBatch,
    clm_loss,
    frequency_smoothed_weights,
    language_sampling_probs,
    mlm_loss,
    mlm_mask,
    tlm_concat,
)
from xsent_lib.text.batching import pad_batch
from xsent_lib.train.history import History
from xsent_lib.train.loop import fit
from xsent_lib.train.schedules import WarmupInverseSqrt
from xsent_lib.train.xlm_corpus import LMCorpus

OBJECTIVES = ("clm", "mlm", "tlm", "mlm+tlm")


# ------------------------------------------------------------------------------------------- config
@dataclass(frozen=True)
class XLMConfig:
    """Model size and pretraining settings.

    ``objective``: ``clm``, ``mlm``, ``tlm`` or ``mlm+tlm`` (alternating batches). ``batch_size``
    streams per CLM/MLM batch, ``pair_batch`` sentence pairs per TLM batch. ``steps`` in all,
    evaluated every ``eval_every`` steps on the held-out streams. ``alpha``: language sampling of
    batches (0.7 in XLM). ``dropout`` 0.1 in the paper; on a CPU a tiny model runs 2-3 times faster
    without it.
    Book: chapter 10 (Cross-lingual language models, XLM: training details).
    """

    objective: str = "mlm"
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    d_ff: int | None = None
    dropout: float = 0.1
    max_len: int = 128
    batch_size: int = 32
    pair_batch: int = 32
    steps: int = 400
    eval_every: int = 100
    lr: float = 1e-3
    warmup: int = 50
    alpha: float = 0.7
    mask_prob: float = 0.15
    target_exponent: float = 0.5
    clip_norm: float | None = 1.0
    amp: str | None = "auto"

    def __post_init__(self) -> None:
        if self.objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {OBJECTIVES}, got {self.objective!r}.")
        if self.steps < 1 or self.eval_every < 1 or self.steps % self.eval_every:
            raise ValueError(f"steps ({self.steps}) must be a positive multiple of eval_every "
                             f"({self.eval_every}).")

    def summary(self) -> dict[str, Any]:
        """Plain values for metrics.json. Book: chapter 10 (XLM)."""
        return asdict(self)


@dataclass
class XLMRun:
    """A pretrained model with its corpus, config, history and throughput.

    ``tokens`` counts the real (non-padding) input tokens of the training batches;
    ``tokens_per_second`` divides it by the training seconds (held-out evaluations excluded).
    ``heldout``: the final held-out loss per language (for MLM: on ``<mask>`` positions, targets
    drawn with the training weights).
    Book: chapter 10 (Cross-lingual language models, XLM).
    """

    model: TransformerSentenceEncoder
    corpus: LMCorpus
    config: XLMConfig
    history: History
    seconds: float
    tokens: int
    tokens_per_second: float
    device: str
    checkpoint: str | None = None
    heldout: dict[str, float] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """Plain values for metrics.json. Book: chapter 10 (XLM)."""
        return {"objective": self.config.objective,
                "steps": self.history.steps[-1] if self.history.steps else 0,
                "best_eval": self.history.best_epoch, "heldout_loss": self.heldout,
                "seconds": self.seconds, "tokens": self.tokens,
                "tokens_per_second": self.tokens_per_second, "device": self.device,
                "train_loss": self.history.train_loss, "dev_loss": self.history.dev,
                "parameters": sum(p.numel() for p in self.model.parameters())}


def build_xlm(corpus: LMCorpus, config: XLMConfig, seed: int = 0) -> TransformerSentenceEncoder:
    """A fresh Transformer with one language embedding per language of ``corpus`` (XLM: learned
    positions, GELU, post-LN, tied output projection; pooling ``first`` for the classifier of
    fine-tuning).
    Book: chapter 10 (Cross-lingual language models, XLM: the Transformer).
    """
    seed_everything(seed)
    return TransformerSentenceEncoder(len(corpus.pipeline.vocab), d_model=config.d_model,
                                      n_heads=config.n_heads, n_layers=config.n_layers,
                                      d_ff=config.d_ff, dropout=config.dropout,
                                      max_len=config.max_len, n_langs=len(corpus.lang_ids),
                                      pooling="first", pipeline=corpus.pipeline)


# ------------------------------------------------------------------------------------------ batches
def mask_batch(ids: torch.Tensor, lengths: torch.Tensor, corpus: LMCorpus, weights: torch.Tensor,
               config: XLMConfig, gen: torch.Generator) -> dict[str, torch.Tensor]:
    """MLM-corrupt a batch (:func:`~xsent_lib.losses.lm.mlm_mask` with ``config.mask_prob`` and
    target ``weights``) and return it as the dict :func:`lm_step_loss` reads (``langs`` /
    ``positions`` are added by the caller).

    Book: chapter 10 (Cross-lingual language models, XLM: MLM).
    """
    m = mlm_mask(ids, lengths, vocab_size=len(corpus.pipeline.vocab), mask_id=corpus.mask_id,
                 special_ids=corpus.special_ids, token_weights=weights, mask_prob=config.mask_prob,
                 generator=gen)
    return {"inputs": m.inputs, "targets": m.targets, "selected": m.selected,
            "replaced_by": m.replaced_by, "chosen": m.chosen, "lengths": lengths}


def stream_batch(corpus: LMCorpus, lang: str, rows: torch.Tensor) -> dict[str, torch.Tensor]:
    """An unmasked batch of whole streams of ``lang`` (``rows`` indexes ``corpus.streams[lang]``).

    Book: chapter 10 (Cross-lingual language models, XLM: text streams).
    """
    ids = corpus.streams[lang][rows]
    return {"ids": ids, "lengths": torch.full((ids.shape[0],), ids.shape[1], dtype=torch.long),
            "langs": torch.full(ids.shape, corpus.lang_ids[lang], dtype=torch.long), "dense": True}


def tlm_batch(corpus: LMCorpus, pair: tuple[str, str], index: Sequence[int], swap: bool = False):
    """The :class:`~xsent_lib.losses.lm.PairBatch` of pairs ``index`` of bitext ``pair`` (``swap``:
    target first).

    Book: chapter 10 (Cross-lingual language models, XLM: TLM).
    """
    src, tgt = corpus.pairs[pair]
    a, b = pair
    left, right = [src[i] for i in index], [tgt[i] for i in index]
    if swap:
        left, right, a, b = right, left, b, a
    s_ids, s_len = pad_batch(left)
    t_ids, t_len = pad_batch(right)
    return tlm_concat(s_ids, s_len, t_ids, t_len, src_lang=corpus.lang_ids[a],
                      tgt_lang=corpus.lang_ids[b])


def lm_batches(corpus: LMCorpus, config: XLMConfig, n_steps: int,
               seed: int) -> list[dict[str, torch.Tensor]]:
    """``n_steps`` training batches: language (pair) drawn with ``q_i`` (``config.alpha``), masks
    drawn here.

    CLM/MLM batches hold ``batch_size`` random streams of one language; TLM batches ``pair_batch``
    random pairs of one language pair, in a random direction. ``mlm+tlm`` alternates MLM (even
    steps) and TLM.
    Book: chapter 10 (Cross-lingual language models, XLM: language sampling).
    """
    gen = torch.Generator().manual_seed(int(seed) % (2**63))
    rng = np.random.default_rng(seed)
    langs = list(corpus.streams)
    pairs = list(corpus.pairs)
    needs_mono = config.objective in ("clm", "mlm", "mlm+tlm")
    needs_pairs = config.objective in ("tlm", "mlm+tlm")
    if needs_mono and not langs:
        raise ValueError(f"objective {config.objective!r} needs monolingual streams; the corpus "
                         "has none.")
    if needs_pairs and not pairs:
        raise ValueError(f"objective {config.objective!r} needs bitext; the corpus has none.")
    q_lang = language_sampling_probs([corpus.n_sentences[x] for x in langs],
                                     config.alpha) if langs else None
    q_pair = language_sampling_probs([len(corpus.pairs[p][0]) for p in pairs],
                                     config.alpha) if pairs else None
    weights = frequency_smoothed_weights(corpus.pipeline.vocab.counts, config.target_exponent,
                                         corpus.special_ids)
    out = []
    for step in range(n_steps):
        tlm = config.objective == "tlm" or (config.objective == "mlm+tlm" and step % 2 == 1)
        if tlm:
            pair = pairs[int(rng.choice(len(pairs), p=q_pair))]
            index = rng.integers(0, len(corpus.pairs[pair][0]), config.pair_batch)
            pb = tlm_batch(corpus, pair, index, swap=bool(rng.integers(2)))
            batch = mask_batch(pb.token_ids, pb.lengths, corpus, weights, config, gen)
            batch.update(langs=pb.langs, positions=pb.positions, dense=False)
        else:
            lang = langs[int(rng.choice(len(langs), p=q_lang))]
            rows = torch.as_tensor(rng.integers(0, corpus.streams[lang].shape[0],
                                                config.batch_size))
            sb = stream_batch(corpus, lang, rows)
            if config.objective == "clm":
                batch = sb
            else:
                batch = mask_batch(sb["ids"], sb["lengths"], corpus, weights, config, gen)
                batch.update(langs=sb["langs"], dense=True)
        out.append(batch)
    return out


def lm_step_loss(model: TransformerSentenceEncoder,
                 batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
    """The loss of one :func:`lm_batches` batch: CLM when it holds ``ids``, else MLM/TLM on its
    masked inputs.

    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    trusted = getattr(model, "trusted_batch", None)  # batches of lm_batches hold valid ids
    with trusted(dense=batch.get("dense", False)) if trusted else contextlib.nullcontext():
        if "ids" in batch:
            return clm_loss(model, batch["ids"], batch["lengths"], langs=batch["langs"])
        masked = MaskedBatch(batch["inputs"], batch["targets"], batch["selected"],
                             batch["replaced_by"], batch.get("chosen"))
        return mlm_loss(model, masked, batch["lengths"], langs=batch["langs"],
                        positions=batch.get("positions"))


# ------------------------------------------------------------------------------------------ metrics
#: which masked positions the held-out MLM loss scores: only those whose input became ``<mask>``
#: (default), or every chosen position (the training loss, which also counts the 10% left unchanged,
#: whose input is the answer)
MLM_SCORES = ("mask", "selected")


@torch.no_grad()
def heldout_loss(model: TransformerSentenceEncoder, corpus: LMCorpus, objective: str, lang: str, *,
                 seed: int = 0, batch_size: int = 64, streams: torch.Tensor | None = None,
                 score: str = "mask", target_exponent: float | None = None) -> float:
    """Mean loss (nats per predicted token) of ``model`` on ``lang``'s held-out streams (or
    ``streams``).

    ``clm`` predicts every next token. ``mlm`` (and ``tlm``, scored on monolingual streams) masks
    15% of the tokens with a fixed ``seed`` and the training corruption (80% ``<mask>``, 10% random,
    10% kept), the positions drawn with weights ``count ** -target_exponent`` (as in training;
    ``None`` or 0: uniformly, so the targets follow the language's unigram distribution).
    ``score="mask"`` scores only the positions whose input is ``<mask>``: the model sees nothing of
    the answer there, so the loss compares directly with :func:`language_unigram_entropy` at the
    same ``target_exponent``. ``score="selected"`` scores every chosen position, as the training
    loss does (the kept 10% show the answer in the input). The model is put in eval mode.
    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    if score not in MLM_SCORES:
        raise ValueError(f"score must be one of {MLM_SCORES}, got {score!r}.")
    rows = corpus.heldout[lang] if streams is None else streams
    dev = next(model.parameters()).device
    was = model.training
    model.eval()
    gen = torch.Generator().manual_seed(seed)
    weights = None if target_exponent is None else frequency_smoothed_weights(
        corpus.pipeline.vocab.counts, target_exponent, corpus.special_ids)
    total, count = 0.0, 0
    try:
        for start in range(0, rows.shape[0], batch_size):
            ids = rows[start:start + batch_size]
            lengths = torch.full((ids.shape[0],), ids.shape[1], dtype=torch.long)
            langs = torch.full(ids.shape, corpus.lang_ids[lang], dtype=torch.long).to(dev)
            if objective == "clm":
                n = int((lengths - 1).sum())
                loss = clm_loss(model, ids.to(dev), lengths.to(dev), langs=langs)
            else:
                m = mlm_mask(ids, lengths, vocab_size=len(corpus.pipeline.vocab),
                             mask_id=corpus.mask_id, special_ids=corpus.special_ids,
                             token_weights=weights, generator=gen)
                scored = m.selected & (m.replaced_by == 0) if score == "mask" else m.selected
                n = int(scored.sum())
                if n == 0:
                    continue
                masked = MaskedBatch(*(t.to(dev)
                                       for t in (m.inputs, m.targets, scored, m.replaced_by)))
                loss = mlm_loss(model, masked, lengths.to(dev), langs=langs)
            total += float(loss) * n
            count += n
    finally:
        model.train(was)
    if count == 0:
        raise ValueError(f"{lang}: the held-out streams gave no position to score; hold out more "
                         "streams.")
    return total / count


def clm_perplexity(model: TransformerSentenceEncoder, corpus: LMCorpus, lang: str,
                   streams: torch.Tensor | None = None) -> float:
    """Perplexity per subword piece, ``exp`` of the CLM held-out loss of ``lang``.

    Book: chapter 10 (Cross-lingual language models, XLM: low-resource language modelling).
    """
    return float(np.exp(heldout_loss(model, corpus, "clm", lang, streams=streams)))


def unigram_entropy(counts: Sequence[int] | np.ndarray, exclude: Sequence[int] = ()) -> float:
    """Entropy (nats) of the distribution given by ``counts`` (ids in ``exclude`` dropped): the loss
    of a predictor that knows these frequencies and nothing else. Counts pooled over several
    languages give a baseline that is too easy for a model that knows the language; use
    :func:`language_unigram_entropy`.
    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    c = np.asarray(counts, dtype=np.float64).copy()
    if c.ndim != 1 or (c < 0).any():
        raise ValueError("counts must be a 1-D array of non-negative counts.")
    c[list(exclude)] = 0
    if c.sum() <= 0:
        raise ValueError("counts sum to 0 after the exclusions; nothing to measure.")
    p = c[c > 0] / c.sum()
    return float(-(p * np.log(p)).sum())


def language_unigram_entropy(corpus: LMCorpus, target_exponent: float = 0.0) -> dict[str, float]:
    """Per language: the entropy (nats) of the MLM targets of its training streams, the loss of the
    best predictor that knows the language but ignores the context.

    MLM draws a position holding piece ``w`` with weight ``count(w) ** -target_exponent`` (XLM: 0.5;
    0 is a uniform choice), so the targets of language ``L`` follow ``q_L(w) ∝ count_L(w) * count(w)
    ** -exponent`` (``count_L``: the pieces of ``L``'s training streams; ``count``: the vocabulary's
    counts, as in training). With exponent 0 this is ``L``'s unigram entropy. Compare it with
    :func:`heldout_loss` at the same ``target_exponent`` and ``score="mask"``. A model with language
    embeddings must beat this per-language number, not the entropy of all languages pooled: that one
    is higher, and knowing the language is enough to beat it. Specials are never targets. (The draw
    is without replacement, which flattens ``q_L`` a little for rare pieces; a finite held-out
    sample also varies around it.)
    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    size = len(corpus.pipeline.vocab)
    weights = frequency_smoothed_weights(corpus.pipeline.vocab.counts, target_exponent,
                                         corpus.special_ids).double()
    out = {}
    for lang, rows in corpus.streams.items():
        mass = torch.bincount(rows.reshape(-1), minlength=size).double() * weights
        out[lang] = unigram_entropy(mass.numpy(), corpus.special_ids)
    return out


# -------------------------------------------------------------------------------------- pretraining
def pretrain_xlm(corpus: LMCorpus, config: XLMConfig, *, device: str | torch.device = "auto",
                 seed: int = 0, checkpoint_path: str | Path | None = None,
                 model: TransformerSentenceEncoder | None = None, compile: bool = False) -> XLMRun:
    """Pretrain a Transformer on ``corpus`` with ``config.objective`` through
    :func:`xsent_lib.train.fit`.

    Every ``eval_every`` steps (one "epoch" of the loop, with freshly drawn batches and masks) the
    held-out loss averaged over the languages is computed (CLM loss for ``clm``; otherwise the MLM
    loss on the held-out positions masked with ``<mask>``, their targets drawn with the training
    weights, see :func:`heldout_loss`, which :func:`language_unigram_entropy` with
    ``config.target_exponent`` sets beside); the best weights are restored at the end and written to
    ``checkpoint_path`` (:func:`~xsent_lib.train.checkpoint.save_checkpoint`). Adam, linear warm-up
    over ``config.warmup`` steps then ``1/sqrt`` decay
    (:class:`~xsent_lib.train.schedules.WarmupInverseSqrt`), gradient clipping, and bf16 mixed
    precision on CUDA only (``amp="auto"`` is full precision on a CPU). On CUDA the step reads
    nothing back from the device (the library's batches skip the input checks), stream batches run
    attention without a padding mask (flash kernels) and Adam is fused; ``compile=True`` compiles
    the Transformer layers with ``torch.compile`` (off by default).
    Book: chapter 10 (Cross-lingual language models, XLM: pretraining).
    """
    dev = pick_device(device)
    model = model if model is not None else build_xlm(corpus, config, seed)
    if compile:
        model.layers.compile()
    eval_objective = "clm" if config.objective == "clm" else "mlm"
    langs = list(corpus.heldout)
    n_tokens = [0]
    eval_seconds = [0.0]

    def batches(epoch: int) -> list[dict[str, torch.Tensor]]:
        chunk = lm_batches(corpus, config, config.eval_every, seed * 1000 + epoch)
        n_tokens[0] += sum(int(b["lengths"].sum()) for b in chunk)
        return chunk

    def scored(m: TransformerSentenceEncoder, lang: str) -> float:
        return heldout_loss(m, corpus, eval_objective, lang, seed=seed,
                            target_exponent=config.target_exponent)

    def dev_loss(m: TransformerSentenceEncoder) -> float:
        t0 = time.perf_counter()
        value = float(np.mean([scored(m, lang) for lang in langs])) if langs else 0.0
        eval_seconds[0] += time.perf_counter() - t0
        return value

    start = time.perf_counter()
    history = fit(model, lm_step_loss, batches, optimizer="adam", lr=config.lr,
                  epochs=config.steps // config.eval_every, device=dev, seed=seed, dev_fn=dev_loss,
                  dev_mode="min", schedule=WarmupInverseSqrt(config.warmup),
                  clip_norm=config.clip_norm, amp=config.amp, progress=False,
                  checkpoint_path=checkpoint_path)
    seconds = time.perf_counter() - start
    train_seconds = max(seconds - eval_seconds[0], 1e-9)
    model.eval()
    heldout = {lang: scored(model, lang) for lang in langs}
    return XLMRun(model, corpus, config, history, seconds, n_tokens[0], n_tokens[0] / train_seconds,
                  str(dev), None if checkpoint_path is None else str(checkpoint_path), heldout)
