"""XLM pretraining (Lample & Conneau, 2019): a shared subword vocabulary, CLM / MLM / TLM training, LM metrics.

The pieces, in the order the chapter uses them:

* :func:`shared_vocabulary` learns one sentencepiece model for all languages on sentences drawn with
  XLM's smoothed language distribution ``q_i ∝ p_i ** alpha`` (alpha 0.5 in the paper), so a small
  language is not cut into characters; :func:`vocabulary_stats` measures how finely each language is cut.
* :func:`build_lm_corpus` turns monolingual text into streams (sentences joined by ``</s>``, cut into rows
  of ``stream_len`` tokens) and bitext into id pairs for TLM, holding out streams to measure perplexity.
* :func:`pretrain_xlm` trains a :class:`~xsent_lib.encoders.transformer.TransformerSentenceEncoder` with
  language embeddings through the library's one loop (:func:`xsent_lib.train.fit`): each batch holds one
  language drawn with ``q_i`` (alpha 0.7); with ``"mlm+tlm"`` MLM and TLM batches alternate; Adam with a
  linear warm-up then ``1/sqrt(step)`` decay; bf16 autocast on a GPU only; the weights with the lowest
  held-out loss averaged over languages (the paper's stopping criterion) are kept and checkpointed.
* :func:`heldout_loss`, :func:`clm_perplexity`, :func:`unigram_entropy` and :func:`language_unigram_entropy`
  score a model.

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
    token_streams,
)
from xsent_lib.text import EOS_TOKEN, PAD_TOKEN, UNK_TOKEN, TextPipeline, Vocab, train_sentencepiece
from xsent_lib.text.batching import pad_batch
from xsent_lib.train.history import History
from xsent_lib.train.loop import fit
from xsent_lib.train.schedules import WarmupInverseSqrt

MASK_TOKEN = "<mask>"
#: specials of the shared vocabulary, ids 0..3: padding, unknown piece, sentence end (XLM's ``</s>``), mask
XLM_SPECIALS = (PAD_TOKEN, UNK_TOKEN, EOS_TOKEN, MASK_TOKEN)
OBJECTIVES = ("clm", "mlm", "tlm", "mlm+tlm")


# --------------------------------------------------------------------------------------------- vocabulary
def sample_sentences(corpora: Mapping[str, Sequence[str]], n: int, alpha: float, seed: int = 0) -> list[str]:
    """``n`` sentences drawn from ``corpora`` (language -> sentences) with XLM's ``q_i ∝ p_i ** alpha``.

    The language of each draw follows :func:`~xsent_lib.losses.lm.language_sampling_probs`; within a
    language sentences are drawn uniformly (with replacement once a small language is exhausted).
    Book: chapter 10 (Cross-lingual language models, XLM: the shared vocabulary).
    """
    langs = [lang for lang in corpora if len(corpora[lang])]
    if not langs:
        raise ValueError("corpora holds no sentence; pass {language: [sentences, ...]}.")
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}.")
    q = language_sampling_probs([len(corpora[lang]) for lang in langs], alpha)
    rng = np.random.default_rng(seed)
    per_lang = rng.multinomial(n, q)
    out: list[str] = []
    for lang, k in zip(langs, per_lang):
        text = corpora[lang]
        idx = rng.choice(len(text), size=int(k), replace=bool(k > len(text)))
        out += [text[i] for i in idx]
    rng.shuffle(out)
    return out


def shared_vocabulary(corpora: Mapping[str, Sequence[str]], vocab_size: int, workdir: str | Path, *,
                      alpha: float = 0.5, n_sample: int | None = None, seed: int = 0,
                      model_type: str = "bpe") -> TextPipeline:
    """One sentencepiece vocabulary for every language, learned on :func:`sample_sentences` (``alpha``).

    XLM learns 80k-95k BPE codes with fastBPE on sentences sampled with alpha = 0.5; here sentencepiece's
    BPE (``model_type``) with ``vocab_size`` pieces, trained offline in ``workdir``. ``n_sample`` defaults
    to all sentences. The returned pipeline ends every sentence with ``</s>``; its vocabulary holds
    :data:`XLM_SPECIALS` then the pieces seen in ``corpora``, with their counts over all of ``corpora`` (the
    MLM target weights read them).
    Book: chapter 10 (Cross-lingual language models, XLM: the shared vocabulary).
    """
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    total = sum(len(v) for v in corpora.values())
    sample = sample_sentences(corpora, n_sample or total, alpha, seed)
    tokenizer = train_sentencepiece(sample, vocab_size, workdir / f"xlm-a{alpha:g}-{vocab_size}", seed=seed,
                                    model_type=model_type)
    pieces = tokenizer.tokenize_batch([s for text in corpora.values() for s in text])
    vocab = Vocab.build(pieces, specials=XLM_SPECIALS)
    return TextPipeline(tokenizer, vocab, eos=EOS_TOKEN)


def vocabulary_stats(pipeline: TextPipeline, corpora: Mapping[str, Sequence[str]]) -> dict[str, dict[str, float]]:
    """Per language: pieces per word, share of words cut into single characters, share of unknown pieces.

    A language the vocabulary under-serves is cut into more, shorter pieces.
    Book: chapter 10 (Cross-lingual language models, XLM: the shared vocabulary).
    """
    out = {}
    for lang, text in corpora.items():
        words = [w for s in text for w in s.split()]
        if not words:
            continue
        pieces = pipeline.tokenizer.tokenize_batch(words)
        n_pieces = sum(len(p) for p in pieces)
        chars = sum(1 for p in pieces if len(p) > 1 and all(len(x.lstrip("\u2581")) <= 1 for x in p))
        unk = sum(1 for p in pieces for x in p if x not in pipeline.vocab)
        out[lang] = {"pieces per word": n_pieces / len(words), "words cut into characters": chars / len(words),
                     "unknown pieces": unk / max(n_pieces, 1)}
    return out


# --------------------------------------------------------------------------------------------- data
@dataclass
class LMCorpus:
    """Everything pretraining reads: per-language streams, held-out streams, bitext pairs, piece counts.

    ``streams[lang]`` / ``heldout[lang]`` are LongTensors ``[rows, stream_len]``; ``pairs[(a, b)]`` are two
    lists of id arrays (each sentence ends with ``</s>``); ``lang_ids`` maps a language to its embedding id;
    ``n_sentences`` counts the monolingual sentences (the ``p_i`` of the sampling formula).
    Book: chapter 10 (Cross-lingual language models, XLM: text streams).
    """

    pipeline: TextPipeline
    lang_ids: dict[str, int]
    streams: dict[str, torch.Tensor]
    heldout: dict[str, torch.Tensor]
    pairs: dict[tuple[str, str], tuple[list[np.ndarray], list[np.ndarray]]]
    n_sentences: dict[str, int]
    stream_len: int

    @property
    def mask_id(self) -> int:
        """Id of ``<mask>``. Book: chapter 10 (Cross-lingual language models, XLM)."""
        return self.pipeline.vocab.stoi[MASK_TOKEN]

    @property
    def special_ids(self) -> tuple[int, ...]:
        """Ids never masked: padding, unknown, ``</s>``, ``<mask>``. Book: chapter 10 (XLM)."""
        return tuple(self.pipeline.vocab.stoi[t] for t in XLM_SPECIALS)

    def tokens(self) -> dict[str, int]:
        """Training tokens per language (streams) and per bitext pair. Book: chapter 10 (XLM)."""
        out = {lang: int(s.numel()) for lang, s in self.streams.items()}
        out.update({f"{a}-{b}": int(sum(len(x) for x in src) + sum(len(y) for y in tgt))
                    for (a, b), (src, tgt) in self.pairs.items()})
        return out


def build_lm_corpus(pipeline: TextPipeline, monolingual: Mapping[str, Sequence[str]],
                    bitext: Mapping[tuple[str, str], tuple[Sequence[str], Sequence[str]]] | None = None, *,
                    languages: Sequence[str] | None = None, stream_len: int = 64, heldout_rows: int = 8,
                    max_pair_len: int | None = None) -> LMCorpus:
    """Encode text for pretraining: streams per language (the last ``heldout_rows`` rows held out) and bitext.

    ``languages`` fixes the language ids (default: the monolingual languages, then those only in the
    bitext); a language keeps its id in every model of a chapter when the same list is passed.
    ``max_pair_len`` truncates each side of a pair (keeping its ``</s>``) so a TLM row fits the model.
    Book: chapter 10 (Cross-lingual language models, XLM: text streams).
    """
    bitext = dict(bitext or {})
    order = list(languages) if languages is not None else list(dict.fromkeys(
        [*monolingual, *[x for pair in bitext for x in pair]]))
    lang_ids = {lang: i for i, lang in enumerate(order)}
    for lang in [*monolingual, *[x for pair in bitext for x in pair]]:
        if lang not in lang_ids:
            raise ValueError(f"language {lang!r} has text but is not in languages={order}.")
    streams, heldout = {}, {}
    for lang, text in monolingual.items():
        flat, _ = pipeline.encode_flat(list(text))
        rows = token_streams(torch.as_tensor(flat), stream_len)
        if rows.shape[0] <= heldout_rows:
            raise ValueError(f"{lang}: {rows.shape[0]} streams of {stream_len} tokens, need more than "
                             f"heldout_rows={heldout_rows}; give more text or shorter streams.")
        streams[lang], heldout[lang] = rows[:-heldout_rows], rows[-heldout_rows:]
    eos = pipeline.vocab.stoi[EOS_TOKEN]
    pairs = {}
    for (a, b), (src, tgt) in bitext.items():
        if len(src) != len(tgt) or not len(src):
            raise ValueError(f"bitext {a}-{b}: {len(src)} source and {len(tgt)} target sentences; need equal, > 0.")
        enc = [pipeline.encode(list(side)) for side in (src, tgt)]
        if max_pair_len is not None:
            enc = [[x if len(x) <= max_pair_len else np.append(x[: max_pair_len - 1], eos) for x in side]
                   for side in enc]
        pairs[(a, b)] = (enc[0], enc[1])
    return LMCorpus(pipeline, lang_ids, streams, heldout, pairs, {k: len(v) for k, v in monolingual.items()},
                    stream_len)


# --------------------------------------------------------------------------------------------- config
@dataclass(frozen=True)
class XLMConfig:
    """Model size and pretraining settings.

    ``objective``: ``clm``, ``mlm``, ``tlm`` or ``mlm+tlm`` (alternating batches). ``batch_size`` streams per
    CLM/MLM batch, ``pair_batch`` sentence pairs per TLM batch. ``steps`` in all, evaluated every
    ``eval_every`` steps on the held-out streams. ``alpha``: language sampling of batches (0.7 in XLM).
    ``dropout`` 0.1 in the paper; on a CPU a tiny model runs 2-3 times faster without it.
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
            raise ValueError(f"steps ({self.steps}) must be a positive multiple of eval_every ({self.eval_every}).")

    def summary(self) -> dict[str, Any]:
        """Plain values for metrics.json. Book: chapter 10 (XLM)."""
        return asdict(self)


@dataclass
class XLMRun:
    """A pretrained model with its corpus, config, history and throughput.

    ``tokens`` counts the real (non-padding) input tokens of the training batches; ``tokens_per_second``
    divides it by the training seconds (held-out evaluations excluded). ``heldout``: the final held-out loss
    per language (for MLM: on ``<mask>`` positions, targets drawn with the training weights).
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
        return {"objective": self.config.objective, "steps": self.history.steps[-1] if self.history.steps else 0,
                "best_eval": self.history.best_epoch, "heldout_loss": self.heldout, "seconds": self.seconds,
                "tokens": self.tokens, "tokens_per_second": self.tokens_per_second, "device": self.device,
                "train_loss": self.history.train_loss, "dev_loss": self.history.dev,
                "parameters": sum(p.numel() for p in self.model.parameters())}


def build_xlm(corpus: LMCorpus, config: XLMConfig, seed: int = 0) -> TransformerSentenceEncoder:
    """A fresh Transformer with one language embedding per language of ``corpus`` (XLM: learned positions,
    GELU, post-LN, tied output projection; pooling ``first`` for the classifier of fine-tuning).
    Book: chapter 10 (Cross-lingual language models, XLM: the Transformer).
    """
    seed_everything(seed)
    return TransformerSentenceEncoder(len(corpus.pipeline.vocab), d_model=config.d_model, n_heads=config.n_heads,
                                      n_layers=config.n_layers, d_ff=config.d_ff, dropout=config.dropout,
                                      max_len=config.max_len, n_langs=len(corpus.lang_ids), pooling="first",
                                      pipeline=corpus.pipeline)


# --------------------------------------------------------------------------------------------- batches
def mask_batch(ids: torch.Tensor, lengths: torch.Tensor, corpus: LMCorpus, weights: torch.Tensor, config: XLMConfig,
               gen: torch.Generator) -> dict[str, torch.Tensor]:
    """MLM-corrupt a batch (:func:`~xsent_lib.losses.lm.mlm_mask` with ``config.mask_prob`` and target ``weights``)
    and return it as the dict :func:`lm_step_loss` reads (``langs`` / ``positions`` are added by the caller).

    Book: chapter 10 (Cross-lingual language models, XLM: MLM).
    """
    m = mlm_mask(ids, lengths, vocab_size=len(corpus.pipeline.vocab), mask_id=corpus.mask_id,
                 special_ids=corpus.special_ids, token_weights=weights, mask_prob=config.mask_prob, generator=gen)
    return {"inputs": m.inputs, "targets": m.targets, "selected": m.selected, "replaced_by": m.replaced_by,
            "lengths": lengths}


def stream_batch(corpus: LMCorpus, lang: str, rows: torch.Tensor) -> dict[str, torch.Tensor]:
    """An unmasked batch of whole streams of ``lang`` (``rows`` indexes ``corpus.streams[lang]``).

    Book: chapter 10 (Cross-lingual language models, XLM: text streams).
    """
    ids = corpus.streams[lang][rows]
    return {"ids": ids, "lengths": torch.full((ids.shape[0],), ids.shape[1], dtype=torch.long),
            "langs": torch.full(ids.shape, corpus.lang_ids[lang], dtype=torch.long), "dense": True}


def tlm_batch(corpus: LMCorpus, pair: tuple[str, str], index: Sequence[int], swap: bool = False):
    """The :class:`~xsent_lib.losses.lm.PairBatch` of pairs ``index`` of bitext ``pair`` (``swap``: target first).

    Book: chapter 10 (Cross-lingual language models, XLM: TLM).
    """
    src, tgt = corpus.pairs[pair]
    a, b = pair
    left, right = [src[i] for i in index], [tgt[i] for i in index]
    if swap:
        left, right, a, b = right, left, b, a
    s_ids, s_len = pad_batch(left)
    t_ids, t_len = pad_batch(right)
    return tlm_concat(s_ids, s_len, t_ids, t_len, src_lang=corpus.lang_ids[a], tgt_lang=corpus.lang_ids[b])


def lm_batches(corpus: LMCorpus, config: XLMConfig, n_steps: int, seed: int) -> list[dict[str, torch.Tensor]]:
    """``n_steps`` training batches: language (pair) drawn with ``q_i`` (``config.alpha``), masks drawn here.

    CLM/MLM batches hold ``batch_size`` random streams of one language; TLM batches ``pair_batch`` random
    pairs of one language pair, in a random direction. ``mlm+tlm`` alternates MLM (even steps) and TLM.
    Book: chapter 10 (Cross-lingual language models, XLM: language sampling).
    """
    gen = torch.Generator().manual_seed(int(seed) % (2**63))
    rng = np.random.default_rng(seed)
    langs = list(corpus.streams)
    pairs = list(corpus.pairs)
    needs_mono = config.objective in ("clm", "mlm", "mlm+tlm")
    needs_pairs = config.objective in ("tlm", "mlm+tlm")
    if needs_mono and not langs:
        raise ValueError(f"objective {config.objective!r} needs monolingual streams; the corpus has none.")
    if needs_pairs and not pairs:
        raise ValueError(f"objective {config.objective!r} needs bitext; the corpus has none.")
    q_lang = language_sampling_probs([corpus.n_sentences[x] for x in langs], config.alpha) if langs else None
    q_pair = language_sampling_probs([len(corpus.pairs[p][0]) for p in pairs], config.alpha) if pairs else None
    weights = frequency_smoothed_weights(corpus.pipeline.vocab.counts, config.target_exponent, corpus.special_ids)
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
            rows = torch.as_tensor(rng.integers(0, corpus.streams[lang].shape[0], config.batch_size))
            sb = stream_batch(corpus, lang, rows)
            if config.objective == "clm":
                batch = sb
            else:
                batch = mask_batch(sb["ids"], sb["lengths"], corpus, weights, config, gen)
                batch.update(langs=sb["langs"], dense=True)
        out.append(batch)
    return out


def lm_step_loss(model: TransformerSentenceEncoder, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
    """The loss of one :func:`lm_batches` batch: CLM when it holds ``ids``, else MLM/TLM on its masked inputs.

    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    trusted = getattr(model, "trusted_batch", None)  # batches of lm_batches hold valid ids
    with trusted(dense=batch.get("dense", False)) if trusted else contextlib.nullcontext():
        if "ids" in batch:
            return clm_loss(model, batch["ids"], batch["lengths"], langs=batch["langs"])
        masked = MaskedBatch(batch["inputs"], batch["targets"], batch["selected"],
                             batch["replaced_by"])
        return mlm_loss(model, masked, batch["lengths"], langs=batch["langs"],
                        positions=batch.get("positions"))


# --------------------------------------------------------------------------------------------- metrics
#: which masked positions the held-out MLM loss scores: only those whose input became ``<mask>`` (default), or
#: every chosen position (the training loss, which also counts the 10% left unchanged, whose input is the answer)
MLM_SCORES = ("mask", "selected")


@torch.no_grad()
def heldout_loss(model: TransformerSentenceEncoder, corpus: LMCorpus, objective: str, lang: str, *,
                 seed: int = 0, batch_size: int = 64, streams: torch.Tensor | None = None,
                 score: str = "mask", target_exponent: float | None = None) -> float:
    """Mean loss (nats per predicted token) of ``model`` on ``lang``'s held-out streams (or ``streams``).

    ``clm`` predicts every next token. ``mlm`` (and ``tlm``, scored on monolingual streams) masks 15% of the
    tokens with a fixed ``seed`` and the training corruption (80% ``<mask>``, 10% random, 10% kept), the
    positions drawn with weights ``count ** -target_exponent`` (as in training; ``None`` or 0: uniformly, so the
    targets follow the language's unigram distribution). ``score="mask"`` scores only the positions whose input
    is ``<mask>``: the model sees nothing of the answer there, so the loss compares directly with
    :func:`language_unigram_entropy` at the same ``target_exponent``. ``score="selected"`` scores every chosen
    position, as the training loss does (the kept 10% show the answer in the input). The model is put in eval
    mode.
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
                m = mlm_mask(ids, lengths, vocab_size=len(corpus.pipeline.vocab), mask_id=corpus.mask_id,
                             special_ids=corpus.special_ids, token_weights=weights, generator=gen)
                scored = m.selected & (m.replaced_by == 0) if score == "mask" else m.selected
                n = int(scored.sum())
                if n == 0:
                    continue
                masked = MaskedBatch(*(t.to(dev) for t in (m.inputs, m.targets, scored, m.replaced_by)))
                loss = mlm_loss(model, masked, lengths.to(dev), langs=langs)
            total += float(loss) * n
            count += n
    finally:
        model.train(was)
    if count == 0:
        raise ValueError(f"{lang}: the held-out streams gave no position to score; hold out more streams.")
    return total / count


def clm_perplexity(model: TransformerSentenceEncoder, corpus: LMCorpus, lang: str,
                   streams: torch.Tensor | None = None) -> float:
    """Perplexity per subword piece, ``exp`` of the CLM held-out loss of ``lang``.

    Book: chapter 10 (Cross-lingual language models, XLM: low-resource language modelling).
    """
    return float(np.exp(heldout_loss(model, corpus, "clm", lang, streams=streams)))


def unigram_entropy(counts: Sequence[int] | np.ndarray, exclude: Sequence[int] = ()) -> float:
    """Entropy (nats) of the distribution given by ``counts`` (ids in ``exclude`` dropped): the loss of a
    predictor that knows these frequencies and nothing else. Counts pooled over several languages give a
    baseline that is too easy for a model that knows the language; use :func:`language_unigram_entropy`.
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
    """Per language: the entropy (nats) of the MLM targets of its training streams, the loss of the best
    predictor that knows the language but ignores the context.

    MLM draws a position holding piece ``w`` with weight ``count(w) ** -target_exponent`` (XLM: 0.5; 0 is a
    uniform choice), so the targets of language ``L`` follow ``q_L(w) ∝ count_L(w) * count(w) ** -exponent``
    (``count_L``: the pieces of ``L``'s training streams; ``count``: the vocabulary's counts, as in training).
    With exponent 0 this is ``L``'s unigram entropy. Compare it with :func:`heldout_loss` at the same
    ``target_exponent`` and ``score="mask"``. A model with language embeddings must beat this per-language
    number, not the entropy of all languages pooled: that one is higher, and knowing the language is enough
    to beat it. Specials are never targets. (The draw is without replacement, which flattens ``q_L`` a little
    for rare pieces; a finite held-out sample also varies around it.)
    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    size = len(corpus.pipeline.vocab)
    weights = frequency_smoothed_weights(corpus.pipeline.vocab.counts, target_exponent, corpus.special_ids).double()
    out = {}
    for lang, rows in corpus.streams.items():
        mass = torch.bincount(rows.reshape(-1), minlength=size).double() * weights
        out[lang] = unigram_entropy(mass.numpy(), corpus.special_ids)
    return out


# --------------------------------------------------------------------------------------------- pretraining
def pretrain_xlm(corpus: LMCorpus, config: XLMConfig, *, device: str | torch.device = "auto", seed: int = 0,
                 checkpoint_path: str | Path | None = None,
                 model: TransformerSentenceEncoder | None = None, compile: bool = False) -> XLMRun:
    """Pretrain a Transformer on ``corpus`` with ``config.objective`` through :func:`xsent_lib.train.fit`.

    Every ``eval_every`` steps (one "epoch" of the loop, with freshly drawn batches and masks) the held-out
    loss averaged over the languages is computed (CLM loss for ``clm``; otherwise the MLM loss on the held-out
    positions masked with ``<mask>``, their targets drawn with the training weights, see :func:`heldout_loss`,
    which :func:`language_unigram_entropy` with ``config.target_exponent`` sets beside); the best weights
    are restored at the end and written to ``checkpoint_path``
    (:func:`~xsent_lib.train.checkpoint.save_checkpoint`). Adam, linear warm-up over ``config.warmup`` steps
    then ``1/sqrt`` decay (:class:`~xsent_lib.train.schedules.WarmupInverseSqrt`), gradient clipping,
    and bf16 mixed precision on CUDA only (``amp="auto"`` is full precision on a CPU). On CUDA the
    step reads nothing back from the device (the library's batches skip the input checks), stream
    batches run attention without a padding mask (flash kernels) and Adam is fused;
    ``compile=True`` compiles the Transformer layers with ``torch.compile`` (off by default).
    :attr:`XLMRun.tokens_per_second` times the whole loop.
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
        return heldout_loss(m, corpus, eval_objective, lang, seed=seed, target_exponent=config.target_exponent)

    def dev_loss(m: TransformerSentenceEncoder) -> float:
        t0 = time.perf_counter()
        value = float(np.mean([scored(m, lang) for lang in langs])) if langs else 0.0
        eval_seconds[0] += time.perf_counter() - t0
        return value

    start = time.perf_counter()
    history = fit(model, lm_step_loss, batches, optimizer="adam", lr=config.lr,
                  epochs=config.steps // config.eval_every, device=dev, seed=seed, dev_fn=dev_loss, dev_mode="min",
                  schedule=WarmupInverseSqrt(config.warmup), clip_norm=config.clip_norm, amp=config.amp,
                  progress=False, checkpoint_path=checkpoint_path)
    seconds = time.perf_counter() - start
    train_seconds = max(seconds - eval_seconds[0], 1e-9)
    model.eval()
    heldout = {lang: scored(model, lang) for lang in langs}
    return XLMRun(model, corpus, config, history, seconds, n_tokens[0], n_tokens[0] / train_seconds, str(dev),
                  None if checkpoint_path is None else str(checkpoint_path), heldout)
