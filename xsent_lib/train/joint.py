"""Joint training of one encoder per language in a shared space (Aldarmaki & Diab 2019, sec.
3.2-3.3).

Two routines train every language's encoder at the same time, from scratch, through a part they
share:

* :func:`joint_nli` (joint InferSent): one encoder per language and one NLI classifier. Each batch
  draws a language for the premises and one for the hypotheses (Fig. 3 of the paper: a German
  premise, an English hypothesis), reading the training pairs in their translations, so the
  classifier can only work if the encoders agree. It uses no parallel corpus beyond the translated
  NLI set.
* :func:`joint_sdae` (joint SDAE / NMT): one encoder per language and one LSTM decoder that writes
  English. English batches are a sequential denoising auto-encoder (noised English in, clean English
  out); a batch of another language is translation into English (that language's side of the bitext
  in, its English side out), so the size of the bitext matters here.

Choices the paper leaves open, made here: the decoder writes English; languages take turns batch by
batch (round robin over English and the others); Adam with its default rate; a fixed number of steps
(:func:`steps_for`) so a curve over bitext sizes costs what its data needs.
Book: chapter 7 (Joint vs transfer vs mapping).
"""
from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from xsent_lib.base.runtime import pick_device, seed_everything
from xsent_lib.data.formats import NLIData
from xsent_lib.encoders import LSTMDecoder, NLIClassifier, SentenceEncoder
from xsent_lib.encoders.decoder import sdae_noise, teacher_forcing_pair
from xsent_lib.losses.nli import nli_loss
from xsent_lib.losses.seq2seq import sequence_cross_entropy
from xsent_lib.text import BOS_TOKEN, EOS_TOKEN, Vocab
from xsent_lib.text.batching import pad_csr
from xsent_lib.train.history import History
from xsent_lib.train.loop import fit


@dataclass(frozen=True)
class JointConfig:
    """Optimisation of a joint run: Adam ``lr``, ``batch_size``, ``epochs`` over the data (turned
    into steps by :func:`steps_for`, between ``min_steps`` and ``max_steps``) and the SDAE noise
    (word drop ``p_drop``, bigram swap ``p_swap``: Hill et al.'s 0.1 and 0.1, the paper gives none).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """

    lr: float = 1e-3
    batch_size: int = 64
    epochs: float = 3.0
    min_steps: int = 20
    max_steps: int = 2000
    p_drop: float = 0.1
    p_swap: float = 0.1

    def __post_init__(self) -> None:
        if self.batch_size < 2 or self.epochs <= 0 or self.lr <= 0:
            raise ValueError(f"need batch_size >= 2, epochs > 0 and lr > 0, got {self.batch_size}, "
                             f"{self.epochs}, {self.lr}.")
        if not 1 <= self.min_steps <= self.max_steps:
            raise ValueError(f"need 1 <= min_steps <= max_steps, got {self.min_steps} and "
                             f"{self.max_steps}.")


def steps_for(n_examples: int, batch_size: int, epochs: float, min_steps: int = 1,
              max_steps: int = 10**9) -> int:
    """Optimiser steps for ``epochs`` passes over ``n_examples`` in batches of ``batch_size``,
    clipped to ``[min_steps, max_steps]``. Book: chapter 7 (Joint vs transfer vs mapping).
    """
    if n_examples < 1:
        raise ValueError(f"n_examples must be >= 1, got {n_examples}.")
    return int(min(max(math.ceil(epochs * n_examples / batch_size), min_steps), max_steps))


def random_batches(n: int, batch_size: int, steps: int,
                   rng: np.random.Generator) -> list[np.ndarray]:
    """``steps`` index batches over ``range(n)``: successive shuffles cut into batches (every row
    once per pass).

    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    if n < 1 or steps < 1:
        raise ValueError(f"need n >= 1 and steps >= 1, got n={n}, steps={steps}.")
    size = min(batch_size, n)
    out: list[np.ndarray] = []
    while len(out) < steps:
        perm = rng.permutation(n)
        out += [perm[i:i + size] for i in range(0, n - size + 1, size)]
    return out[:steps]


class LanguageEncoders(nn.Module):
    """One :class:`SentenceEncoder` per language (each with its own text pipeline), trained
    together.

    ``encoders[lang]`` is a plain encoder afterwards: ``encode`` works on it as on any other.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """

    def __init__(self, encoders: Mapping[str, SentenceEncoder]) -> None:
        super().__init__()
        if not encoders:
            raise ValueError("give at least one encoder, keyed by language code.")
        dims = {lang: enc.output_dim for lang, enc in encoders.items()}
        if len(set(dims.values())) != 1:
            raise ValueError(
                f"joint training needs one output size for every language, got {dims}.")
        for lang, enc in encoders.items():
            if not isinstance(enc, SentenceEncoder) or enc.pipeline is None:
                raise ValueError(
                    f"encoder {lang!r} must be a SentenceEncoder with a text pipeline.")
        self.encoders = nn.ModuleDict(dict(encoders))
        self.output_dim = next(iter(dims.values()))

    @property
    def languages(self) -> list[str]:
        """Language codes, in the order given. Book: chapter 7 (Joint vs transfer vs mapping)."""
        return list(self.encoders.keys())

    def __getitem__(self, lang: str) -> SentenceEncoder:
        """The encoder of ``lang`` (a clear KeyError for a language it does not have).

        Book: chapter 7.
        """
        if lang not in self.encoders:
            raise KeyError(f"no encoder for {lang!r}; languages: {self.languages}.")
        return self.encoders[lang]


@dataclass
class JointRun:
    """A finished joint run: the encoders (and the shared head: classifier or decoder), steps,
    losses, time.

    Book: chapter 7 (Joint vs transfer vs mapping).
    """

    encoders: LanguageEncoders
    head: nn.Module
    config: JointConfig
    steps: int
    history: History
    seconds: float

    def summary(self) -> dict[str, Any]:
        """JSON-ready numbers of the run. Book: chapter 7 (Joint vs transfer vs mapping)."""
        return {"config": asdict(self.config), "steps": self.steps, "seconds": self.seconds,
                "train_loss": list(self.history.train_loss), "languages": self.encoders.languages}


class _NLIJointModel(nn.Module):
    def __init__(self, encoders: LanguageEncoders, classifier: NLIClassifier) -> None:
        super().__init__()
        self.encoders, self.classifier = encoders, classifier


def joint_nli(encoders: LanguageEncoders, classifier: NLIClassifier, train: Mapping[str, NLIData],
              config: JointConfig = JointConfig(), *, device: str | torch.device = "auto",
              seed: int = 0) -> JointRun:
    """Joint InferSent: ``train[lang]`` holds the same NLI pairs in every language (row ``i``
    translates row ``i``); each batch reads its premises in one random language and its hypotheses
    in another (drawn independently, English included), through that language's encoder and the
    shared ``classifier``.

    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    langs = encoders.languages
    missing = [lang for lang in langs if lang not in train]
    if missing:
        raise ValueError(f"no translated NLI pairs for {missing}; train has {sorted(train)}.")
    sizes = {lang: len(train[lang]) for lang in langs}
    if len(set(sizes.values())) != 1:
        raise ValueError(f"the translated NLI sets must be row-aligned (same size), got {sizes}.")
    labels = np.asarray(train[langs[0]].labels, np.int64)
    for lang in langs[1:]:
        if not np.array_equal(np.asarray(train[lang].labels), labels):
            raise ValueError(f"labels of {lang!r} differ from {langs[0]!r}: the sets are not "
                             "translations row by row.")
    csr = {lang: (encoders[lang].pipeline.encode_flat(list(train[lang].premises)),
                  encoders[lang].pipeline.encode_flat(list(train[lang].hypotheses)))
           for lang in langs}
    y = torch.from_numpy(labels)
    n = len(labels)
    steps = steps_for(n, config.batch_size, config.epochs, config.min_steps, config.max_steps)
    rng = np.random.default_rng([seed, 7])
    plan = [(idx, langs[rng.integers(len(langs))], langs[rng.integers(len(langs))])
            for idx in random_batches(n, config.batch_size, steps, rng)]

    def batches(epoch: int) -> list[tuple[Any, ...]]:
        out = []
        for idx, lp, lh in plan:
            (pf, po), (hf, ho) = csr[lp][0], csr[lh][1]
            out.append((lp, lh, *pad_csr(pf, po, idx), *pad_csr(hf, ho, idx), y[idx]))
        return out

    def step_loss(model: _NLIJointModel, batch: tuple[Any, ...]) -> torch.Tensor:
        lp, lh, p, pl, h, hl, lab = batch
        return nli_loss(model.classifier(model.encoders[lp](p, pl), model.encoders[lh](h, hl)), lab)

    model = _NLIJointModel(encoders, classifier)
    seed_everything(seed)
    start = time.perf_counter()
    history = fit(model, step_loss, batches, optimizer="adam", lr=config.lr, epochs=1,
                  device=pick_device(device), seed=seed, progress=False)
    return JointRun(encoders, classifier, config, steps, history, time.perf_counter() - start)


def decoder_vocab(english: Sequence[str], max_size: int | None = None) -> Vocab:
    """The shared decoder's output vocabulary: whitespace tokens of ``english`` (the ``max_size``
    most frequent entries, specials included; ``None``: all) plus padding, ``<unk>``, ``<s>`` and
    ``</s>``.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    from xsent_lib.train.seq2seq import target_vocab

    return target_vocab(list(english), max_size)


class _SeqJointModel(nn.Module):
    def __init__(self, encoders: LanguageEncoders, decoder: LSTMDecoder) -> None:
        super().__init__()
        self.encoders, self.decoder = encoders, decoder


def joint_sdae(encoders: LanguageEncoders, decoder: LSTMDecoder, vocab: Vocab,
               english: Sequence[str], parallel: Mapping[str, tuple[Sequence[str], Sequence[str]]],
               config: JointConfig = JointConfig(), *, device: str | torch.device = "auto",
               seed: int = 0) -> JointRun:
    """Joint SDAE / NMT with one shared decoder writing English (``vocab``, see
    :func:`decoder_vocab`).

    English batches: ``english`` sentences noised by :func:`sdae_noise` (word drop, bigram swap) and
    rebuilt; a batch of language ``lang``: ``parallel[lang] = (english side, lang
    side)``, the ``lang`` side in and its English side out. Batches go round robin over English and
    the other languages; the number of steps follows the data (:func:`steps_for` over all
    sentences). With ``encoders`` holding only English, this is a monolingual SDAE (the pivot of
    representation transfer and mapping).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    if "en" not in encoders.languages:
        raise ValueError("joint_sdae needs an English encoder under 'en' (the decoder writes "
                         "English).")
    others = [lang for lang in encoders.languages if lang != "en"]
    missing = [lang for lang in others if lang not in parallel]
    if missing:
        raise ValueError(f"no bitext for {missing}; parallel has {sorted(parallel)}.")
    en_pipe = encoders["en"].pipeline
    protected = [en_pipe.vocab.stoi[t] for t in (en_pipe.bos, en_pipe.eos) if t is not None
                 and t in en_pipe.vocab.stoi]
    streams: dict[str, tuple[Any, Any]] = {"en": (en_pipe.encode_flat(list(english)),
                                                  vocab.lookup_flat([s.split() for s in english]))}
    for lang in others:
        en_side, tgt_side = (list(s) for s in parallel[lang])
        if len(en_side) != len(tgt_side) or not en_side:
            raise ValueError(f"bitext {lang}: {len(en_side)} English and {len(tgt_side)} {lang} "
                             "sentences.")
        streams[lang] = (encoders[lang].pipeline.encode_flat(tgt_side),
                         vocab.lookup_flat([s.split() for s in en_side]))
    total = sum(len(s[0][1]) - 1 for s in streams.values())
    steps = steps_for(total, config.batch_size, config.epochs, config.min_steps, config.max_steps)
    rng = np.random.default_rng([seed, 11])
    order = list(streams)
    per = {lang: random_batches(len(streams[lang][0][1]) - 1, config.batch_size, steps, rng)
           for lang in order}
    plan = [(order[k % len(order)], per[order[k % len(order)]][k // len(order)])
            for k in range(steps)]
    generator = torch.Generator().manual_seed(seed)

    def batches(epoch: int) -> list[tuple[Any, ...]]:
        out = []
        for lang, idx in plan:
            (sf, so), (tf, to) = streams[lang]
            out.append((lang, *pad_csr(sf, so, idx), *pad_csr(tf, to, idx)))
        return out

    def step_loss(model: _SeqJointModel, batch: tuple[Any, ...]) -> torch.Tensor:
        lang, src, src_len, tgt, tgt_len = batch
        if lang == "en":
            src, src_len = sdae_noise(src, src_len, p_drop=config.p_drop, p_swap=config.p_swap,
                                      protected_ids=protected, generator=generator)
        inputs, targets = teacher_forcing_pair(tgt, tgt_len, bos_id=model.decoder.bos_id,
                                               eos_id=model.decoder.eos_id,
                                               pad_id=model.decoder.pad_id)
        return sequence_cross_entropy(model.decoder(model.encoders[lang](src, src_len), inputs),
                                      targets)

    model = _SeqJointModel(encoders, decoder)
    seed_everything(seed)
    start = time.perf_counter()
    history = fit(model, step_loss, batches, optimizer="adam", lr=config.lr, epochs=1,
                  device=pick_device(device), seed=seed, progress=False)
    return JointRun(encoders, decoder, config, steps, history, time.perf_counter() - start)


def train_sdae(encoder: SentenceEncoder, decoder: LSTMDecoder, vocab: Vocab,
               sentences: Sequence[str], config: JointConfig = JointConfig(), *,
               device: str | torch.device = "auto", seed: int = 0) -> JointRun:
    """A monolingual SDAE in any language (:func:`joint_sdae` with that one encoder and no bitext):
    the English pivot, or the target-language encoder that sentence mapping aligns afterwards.
    ``vocab`` is the decoder's vocabulary of that language (:func:`decoder_vocab` of ``sentences``).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    return joint_sdae(LanguageEncoders({"en": encoder}), decoder, vocab, sentences, {}, config,
                      device=device, seed=seed)


def sdae_decoder(texts: Sequence[str], input_dim: int, *, embed_dim: int, hidden_dim: int,
                 seed: int = 0, max_vocab: int | None = None) -> tuple[Vocab, LSTMDecoder]:
    """The output vocabulary of ``texts`` (:func:`decoder_vocab`, at most ``max_vocab`` entries) and
    a fresh one-layer LSTM decoder over it (``embed_dim``-d word vectors, ``hidden_dim`` units,
    initialised from seed ``seed + 1``) reading ``input_dim``-d sentence vectors.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    vocab = decoder_vocab(texts, max_vocab)
    seed_everything(seed + 1)
    return vocab, LSTMDecoder(len(vocab), input_dim, bos_id=vocab.stoi[BOS_TOKEN],
                              eos_id=vocab.stoi[EOS_TOKEN], embed_dim=embed_dim,
                              hidden_dim=hidden_dim, n_layers=1)


def sdae_encoder(encoder: SentenceEncoder, sentences: Sequence[str],
                 config: JointConfig = JointConfig(), *, embed_dim: int, hidden_dim: int,
                 max_vocab: int | None = None, device: str | torch.device = "auto",
                 seed: int = 0) -> SentenceEncoder:
    """``encoder`` trained as a monolingual SDAE on ``sentences`` (:func:`train_sdae`) with a fresh
    decoder over their vocabulary (:func:`sdae_decoder`): an English pivot, or a target encoder that
    sentence mapping aligns.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    vocab, decoder = sdae_decoder(sentences, encoder.output_dim, embed_dim=embed_dim,
                                  hidden_dim=hidden_dim, seed=seed, max_vocab=max_vocab)
    return train_sdae(encoder, decoder, vocab, sentences, config, device=device,
                      seed=seed).encoders["en"]


def infersent_run(encoders: Mapping[str, SentenceEncoder], train: Mapping[str, NLIData],
                  config: JointConfig = JointConfig(), *, device: str | torch.device = "auto",
                  seed: int = 0) -> JointRun:
    """``encoders`` (one language or several) trained on ``train`` through one fresh InferSent
    classifier (:func:`joint_nli`; hidden layer twice the sentence vector's size, initialised from
    seed ``seed + 2``): an English pivot, a target encoder that sentence mapping aligns, or joint
    InferSent.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    if not encoders:
        raise ValueError("need at least one encoder to train.")
    language_encoders = LanguageEncoders(dict(encoders))
    dim = next(iter(encoders.values())).output_dim
    seed_everything(seed + 2)
    return joint_nli(language_encoders, NLIClassifier(dim, 2 * dim), train, config, device=device,
                     seed=seed)
