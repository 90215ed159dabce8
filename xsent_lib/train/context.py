"""Wang et al.'s two-stage training from monolingual documents: context classification, then rounds
of coherence regression on sentence pairs the encoder mines itself.

Stage 1 (:func:`train_stage1`): every sentence is shown in its true context (label 1) and replaced
by a random sentence of the same language (label 0); a *linear* classifier on the encoder's mean-max
vector of the whole concatenation is trained with binary cross-entropy
(:func:`xsent_lib.losses.context.context_classification_loss`). Stage 2 (:func:`coherence_round`):
the current encoder embeds every sentence alone; draws of ``m`` queries x ``m`` candidates of
another language are scored by CSLS and the best pairs kept; each sentence of a pair is swapped into
the other's context and a *linear* regressor learns the pair's cosine from the swapped text (squared
error). :func:`train_wang` runs stage 1 and rounds ``1..R``, calling back after each round (round 0
= stage 1 only) so a chapter can measure accuracy and mined-pair precision against the number of
iterations.

Choices where the paper is silent (each stated once, here and in the chapter):

* ``k = 1`` sentence each side: the help pages and the world's documents are short (a few
  sentences), and ``2k + 1 = 3`` sentences stay under our ``maxlen``.
* every sentence ends with ``</s>`` (the pipeline's ``eos``), which is the separator inside a
  concatenation: the encoder must know where the swapped sentence starts.
* pad positions are masked out of the mean and the max (the encoder's pooling): otherwise a vector
  would depend on how much padding its batch carries.
* the regressor ``R`` starts as a copy of the classifier ``M``: the coherence direction learned in
  stage 1 is what the swapped pairs are scored along. Stage 2 trains on the swapped pairs only (the
  paper's set ``F``); ``keep_stage1=True`` mixes the stage-1 examples back in (the chapter leaves
  that comparison as an exercise).
* pairs are cross-lingual only (queries from one language, candidates from the others): a
  same-language pair teaches nothing about the shared space.

Book: chapter 9 (Multilingual embeddings from monolingual text).
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

from xsent_lib.align.mining import MinedPairs, build_coherence_examples, mine_coherent_pairs
from xsent_lib.base.neighbors import l2_normalize
from xsent_lib.base.runtime import pick_device, seed_everything
from xsent_lib.encoders.transformer import TransformerSentenceEncoder
from xsent_lib.losses.context import (
    build_context_examples,
    coherence_regression_loss,
    concat_windows,
    context_classification_loss,
)
from xsent_lib.losses.lm import mlm_loss, mlm_mask
from xsent_lib.text.pipeline import TextPipeline


@dataclass(frozen=True)
class ContextConfig:
    """Sizes and settings of the two stages (defaults: the paper's where it gives one, else ours).

    ``m``: sentences per side of one retrieval draw (paper 10,000); ``pairs_per_draw``: pairs kept
    per draw (paper ``min(m*m, 1000)``); ``pairs_per_round``: pairs collected per round (paper
    100,000); ``rounds``: regression rounds (paper 3, Fig. 3 up to 5); ``k_neighbors``: CSLS
    neighbourhood (MUSE's 10); ``lr`` with linear decay (paper 1e-4; a tiny model on a small corpus
    needs more); ``stage1_epochs`` (paper 1). ``random_partners`` (not in the paper, off by
    default): each mined pair also gets a random partner of the candidate languages, swapped in the
    same way with *its* cosine as target, so the targets of a round are graded instead of all near
    the top.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """

    k: int = 1
    maxlen: int = 150
    stage1_epochs: int = 1
    rounds: int = 3
    m: int = 10_000
    pairs_per_draw: int = 1000
    pairs_per_round: int = 100_000
    k_neighbors: int = 10
    batch_size: int = 64
    lr: float = 1e-4
    regress_epochs: int = 1
    keep_stage1: bool = False
    random_partners: bool = False

    def __post_init__(self) -> None:
        if self.k < 0 or self.maxlen < 1 or self.stage1_epochs < 0 or self.rounds < 0:
            raise ValueError("need k >= 0, maxlen >= 1, stage1_epochs >= 0 and rounds >= 0.")
        if self.m < 1 or self.pairs_per_draw < 1 or self.pairs_per_round < 1 or self.batch_size < 1:
            raise ValueError("m, pairs_per_draw, pairs_per_round and batch_size must be positive.")
        if not self.lr > 0:
            raise ValueError(f"lr must be positive, got {self.lr}.")


@dataclass
class DocCorpus:
    """A corpus in reading order as the trainer sees it: padded ids, lengths, document and language
    ids.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """

    tokens: torch.Tensor
    lengths: torch.Tensor
    doc_ids: np.ndarray
    lang_ids: np.ndarray

    def __post_init__(self) -> None:
        n = self.tokens.shape[0]
        if self.lengths.shape != (n,) or len(self.doc_ids) != n or len(self.lang_ids) != n:
            raise ValueError("tokens, lengths, doc_ids and lang_ids must have one entry per "
                             "sentence.")


def token_matrix(pipeline: TextPipeline, sentences: Sequence[str],
                 max_tokens: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Padded ``(n, L)`` ids and ``(n,)`` lengths of ``sentences``; a sentence keeps its first
    ``max_tokens - 1`` tokens and its final ``</s>`` when the pipeline adds one.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    if max_tokens < 2:
        raise ValueError(f"max_tokens must be >= 2, got {max_tokens}.")
    flat, offsets = pipeline.encode_flat(list(sentences))
    lengths = np.diff(offsets)
    clipped = np.minimum(lengths, max_tokens)
    out = np.zeros((len(lengths), max(1, int(clipped.max(initial=1)))), dtype=np.int64)
    for i, (a, n, c) in enumerate(zip(offsets[:-1], lengths, clipped)):
        row = flat[a:a + n]
        if c < n:
            row = np.concatenate([row[: c - 1], row[-1:]]) if pipeline.eos is not None else row[:c]
        out[i, :c] = row
    return torch.from_numpy(out), torch.from_numpy(clipped.astype(np.int64))


def doc_corpus(pipeline: TextPipeline, sentences: Sequence[str], doc_ids: Sequence[int],
               lang_ids: Sequence[int], max_tokens: int = 40) -> DocCorpus:
    """Tokenise a document-ordered corpus for :func:`train_wang`. Book: chapter 9 (Multilingual
    embeddings)."""
    tokens, lengths = token_matrix(pipeline, sentences, max_tokens)
    return DocCorpus(tokens, lengths, np.asarray(doc_ids, dtype=np.int64),
                     np.asarray(lang_ids, dtype=np.int64))


class WangModel(nn.Module):
    """The encoder with the two linear heads: classifier ``M`` (stage 1) and regressor ``R`` (stage
    2).

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """

    def __init__(self, encoder: TransformerSentenceEncoder) -> None:
        super().__init__()
        if not isinstance(encoder, TransformerSentenceEncoder):
            raise TypeError("encoder must be a TransformerSentenceEncoder, got "
                            f"{type(encoder).__name__}.")
        self.encoder = encoder
        self.classifier = nn.Linear(encoder.output_dim, 1)
        self.regressor = nn.Linear(encoder.output_dim, 1)

    def start_regressor(self) -> None:
        """``R`` <- copy of ``M`` (our choice; see the module docstring). Book: chapter 9."""
        self.regressor.load_state_dict(self.classifier.state_dict())


@torch.no_grad()
def embed_corpus(encoder: nn.Module, tokens: torch.Tensor, lengths: torch.Tensor, *,
                 batch_size: int = 256, device: str | torch.device = "cpu") -> np.ndarray:
    """Every sentence encoded alone (eval mode), ``(n, output_dim)`` float32.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    device = pick_device(device)
    was = encoder.training
    encoder.eval()
    out = []
    for a in range(0, tokens.shape[0], batch_size):
        lens = lengths[a:a + batch_size]
        width = int(lens.max())
        out.append(encoder(tokens[a:a + batch_size, :width].to(device),
                           lens.to(device)).float().cpu())
    encoder.train(was)
    return torch.cat(out).numpy() if out else np.zeros((0, encoder.output_dim), np.float32)


def _steps(model: WangModel, corpus: DocCorpus, windows: np.ndarray, targets: np.ndarray,
           kinds: np.ndarray, config: ContextConfig, optimizer: torch.optim.Optimizer,
           rng: np.random.Generator, device: torch.device, epochs: int) -> list[float]:
    """Shuffled minibatches of windows; ``kinds`` 0 = classification (M, BCE), 1 = regression (R,
    MSE).

    The learning rate decays linearly to 0 over these steps (the paper's schedule). Returns the loss
    per step.
    """
    n = len(windows)
    total = max(1, epochs * math.ceil(n / config.batch_size))
    sched = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: max(0.0, 1.0 - s / total))
    losses = []
    model.train()
    tokens, lengths = corpus.tokens.to(device), corpus.lengths.to(device)
    for _ in range(epochs):
        order = rng.permutation(n)
        for a in range(0, n, config.batch_size):
            idx = order[a:a + config.batch_size]
            ids, lens = concat_windows(tokens, lengths, windows[idx], maxlen=config.maxlen,
                                       pad_id=model.encoder.pad_id)
            width = int(lens.max())
            vec = model.encoder(ids[:, :width], lens)
            kind = torch.as_tensor(kinds[idx], device=device)
            y = torch.as_tensor(targets[idx], device=device)
            loss = vec.new_zeros(())
            if bool((kind == 0).any()):
                sel = kind == 0
                loss = loss + (context_classification_loss(model.classifier(vec[sel]).squeeze(-1),
                                                           y[sel]) * sel.float().mean())
            if bool((kind == 1).any()):
                sel = kind == 1
                loss = loss + (coherence_regression_loss(model.regressor(vec[sel]).squeeze(-1),
                                                         y[sel]) * sel.float().mean())
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            sched.step()
            losses.append(float(loss.detach()))
    return losses


def train_stage1(model: WangModel, corpus: DocCorpus, config: ContextConfig, *,
                 device: str | torch.device = "cpu", seed: int = 0) -> list[float]:
    """Stage 1: sentence-context classification, ``config.stage1_epochs`` passes, fresh negatives
    each pass.

    The paper prints ``L = sum p(y=1) y + (1 - p(y=1)) (1 - y)``, a sum of probabilities
    (maximised); we minimise the binary cross-entropy ``-sum y log p + (1 - y) log(1 - p)``, the
    log-likelihood it describes in words. Returns the loss of every step (it should
    fall). Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    device = pick_device(device)
    model.to(device)
    seed_everything(seed)
    rng = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    losses: list[float] = []
    for epoch in range(config.stage1_epochs):
        ex = build_context_examples(corpus.doc_ids, corpus.lang_ids, k=config.k, seed=seed + epoch)
        losses += _steps(model, corpus, ex.windows, ex.targets, np.zeros(len(ex.targets), np.int64),
                         config, optimizer, rng, device, 1)
    return losses


def mine_cross_lingual(embeddings: np.ndarray, lang_ids: np.ndarray, config: ContextConfig, *,
                       seed: int = 0) -> MinedPairs:
    """One round's pairs: draws of ``m`` queries of one language x ``m`` candidates of the others
    (CSLS, top ``pairs_per_draw`` each) until ``pairs_per_round`` pairs; the query language cycles
    over the languages.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    langs = np.unique(lang_ids)
    if len(langs) < 2:
        raise ValueError("cross-lingual mining needs sentences of at least two languages.")
    draws = math.ceil(config.pairs_per_round / config.pairs_per_draw)
    parts = []
    for d in range(draws):
        lang = langs[d % len(langs)]
        parts.append(mine_coherent_pairs(embeddings, m=config.m, n_pairs=config.pairs_per_draw,
                                         k_neighbors=config.k_neighbors,
                                         query_pool=np.flatnonzero(lang_ids == lang),
                                         candidate_pool=np.flatnonzero(lang_ids != lang),
                                         seed=seed + d, use_faiss=False))
    cat = lambda f: np.concatenate([getattr(p, f) for p in parts])[: config.pairs_per_round]  # noqa: E731
    return MinedPairs(cat("query"), cat("partner"), cat("csls"), cat("cosine"))


def coherence_round(model: WangModel, corpus: DocCorpus, config: ContextConfig, *,
                    device: str | torch.device = "cpu",
                    seed: int = 0) -> tuple[MinedPairs, list[float]]:
    """One stage-2 round: embed, mine (:func:`mine_cross_lingual`), swap into contexts, regress the
    cosines (plus the stage-1 examples when ``config.keep_stage1``). Returns the mined pairs and the
    step losses.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    device = pick_device(device)
    emb = embed_corpus(model.encoder, corpus.tokens, corpus.lengths, device=device)
    pairs = mine_cross_lingual(emb, corpus.lang_ids, config, seed=seed)
    reg = build_coherence_examples(pairs, corpus.doc_ids, k=config.k)
    windows, targets = [reg.windows], [reg.targets]
    kinds = [np.ones(len(reg.targets), np.int64)]
    if config.random_partners:
        rng = np.random.default_rng(seed + 31)
        partner = np.array([rng.choice(np.flatnonzero(corpus.lang_ids != corpus.lang_ids[q]))
                            for q in pairs.query])
        cos = np.sum(l2_normalize(emb[pairs.query]) * l2_normalize(emb[partner]),
                     axis=1).astype(np.float32)
        rand = build_coherence_examples(MinedPairs(pairs.query, partner, cos, cos), corpus.doc_ids,
                                        k=config.k)
        windows.append(rand.windows)
        targets.append(rand.targets)
        kinds.append(np.ones(len(rand.targets), np.int64))
    if config.keep_stage1:
        cls = build_context_examples(corpus.doc_ids, corpus.lang_ids, k=config.k, seed=seed + 7919)
        windows.append(cls.windows)
        targets.append(cls.targets)
        kinds.append(np.zeros(len(cls.targets), np.int64))
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    losses = _steps(model, corpus, np.concatenate(windows), np.concatenate(targets),
                    np.concatenate(kinds), config, optimizer, np.random.default_rng(seed), device,
                    config.regress_epochs)
    return pairs, losses


@dataclass
class WangRun:
    """What :func:`train_wang` produced: the model, the losses, the pairs of each round and the
    callbacks' results.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """

    model: WangModel
    config: ContextConfig
    stage1_losses: list[float] = field(default_factory=list)
    round_losses: list[list[float]] = field(default_factory=list)
    pairs: list[MinedPairs] = field(default_factory=list)
    per_round: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        """Plain values for metrics.json. Book: chapter 9."""
        first = self.stage1_losses[: max(1, len(self.stage1_losses) // 10)]
        last = self.stage1_losses[-max(1, len(self.stage1_losses) // 10):]
        return {"config": asdict(self.config),
                "stage1_loss_first": float(np.mean(first)) if first else None,
                "stage1_loss_last": float(np.mean(last)) if last else None,
                "round_loss": [float(np.mean(r)) if r else None for r in self.round_losses],
                "pairs_per_round": [len(p.query) for p in self.pairs], "per_round": self.per_round,
                "seconds": self.seconds}


def build_wang_model(vocab_size: int, *, d_model: int = 512, n_layers: int = 3, n_heads: int = 8,
                     max_len: int = 150, dropout: float = 0.1, seed: int = 0,
                     pipeline: TextPipeline | None = None) -> WangModel:
    """A fresh :class:`WangModel` over a shared vocabulary (paper: 3 layers, 8 heads, 512 units,
    mean-max).

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    seed_everything(seed)
    enc = TransformerSentenceEncoder(vocab_size, d_model=d_model, n_heads=n_heads,
                                     n_layers=n_layers, max_len=max_len, dropout=dropout,
                                     pooling="mean-max", pipeline=pipeline)
    return WangModel(enc)


def train_wang(model: WangModel, corpus: DocCorpus, config: ContextConfig, *,
               on_round: Callable[[int, WangModel, MinedPairs | None], dict[str, Any]]
               | None = None,
               start: WangRun | None = None, device: str | torch.device = "cpu",
               seed: int = 0) -> WangRun:
    """Stage 1, then ``config.rounds`` rounds of coherence regression; ``on_round(r, model, pairs)``
    is called after stage 1 (``r = 0``, ``pairs = None``) and after every round, and its dict is
    kept in ``per_round``.

    ``start``: continue from a run whose stage 1 (and rounds) are done, e.g. to study ``m`` from one
    stage-1 model (pass a copy of its model). Book: chapter 9 (Multilingual embeddings from
    monolingual text).
    """
    t0 = time.perf_counter()
    run = WangRun(model, config)
    done = 0
    if start is None:
        run.stage1_losses = train_stage1(model, corpus, config, device=device, seed=seed)
        model.start_regressor()
        if on_round is not None:
            run.per_round.append({"round": 0, **on_round(0, model, None)})
    else:
        run.stage1_losses = list(start.stage1_losses)
        done = len(start.round_losses)
    for r in range(done + 1, config.rounds + 1):
        pairs, losses = coherence_round(model, corpus, config, device=device, seed=seed + 1000 * r)
        run.pairs.append(pairs)
        run.round_losses.append(losses)
        if on_round is not None:
            run.per_round.append({"round": r, **on_round(r, model, pairs)})
    run.seconds = time.perf_counter() - t0
    return run


def gold_pair_precision(emb_a: np.ndarray, emb_b: np.ndarray, *, n_keep: int, k_neighbors: int = 10,
                        seed: int = 0) -> float:
    """Precision of CSLS-mined pairs against a gold alignment: row ``i`` of ``emb_a`` translates row
    ``i`` of ``emb_b``. All of ``a`` query all of ``b`` (one ``m x m`` draw, ``m = len(a)``), the
    ``n_keep`` best pairs are kept, and the share of them that are gold is returned (percent).

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    if emb_a.shape != emb_b.shape or emb_a.ndim != 2:
        raise ValueError(f"emb_a and emb_b must be (n, d) of the same shape, got {emb_a.shape} and "
                         f"{emb_b.shape}.")
    n = len(emb_a)
    both = np.vstack([emb_a, emb_b])
    pairs = mine_coherent_pairs(both, m=n, n_pairs=n_keep, k_neighbors=k_neighbors,
                                query_pool=np.arange(n), candidate_pool=np.arange(n, 2 * n),
                                seed=seed, use_faiss=False)
    return 100.0 * float(np.mean(pairs.partner - n == pairs.query))


def train_mlm(encoder: TransformerSentenceEncoder, tokens: torch.Tensor, lengths: torch.Tensor, *,
              mask_id: int, special_ids: Sequence[int], epochs: int = 1, batch_size: int = 64,
              lr: float = 5e-4, device: str | torch.device = "cpu", seed: int = 0) -> list[float]:
    """The shared-vocabulary MLM baseline: the same Transformer trained with BERT's masked LM on the
    same sentences (alone, no context), Adam with linear decay. Returns the loss per step.

    Book: chapter 9 (Multilingual embeddings from monolingual text; the MLM itself: chapter 10).
    """
    device = pick_device(device)
    seed_everything(seed)
    encoder.to(device).train()
    gen = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(encoder.parameters(), lr=lr)
    n = tokens.shape[0]
    total = max(1, epochs * math.ceil(n / batch_size))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: max(0.0, 1.0 - s / total))
    losses = []
    for _ in range(epochs):
        order = rng.permutation(n)
        for a in range(0, n, batch_size):
            idx = torch.as_tensor(order[a:a + batch_size])
            lens = lengths[idx]
            ids = tokens[idx, : int(lens.max())]
            batch = mlm_mask(ids, lens, vocab_size=encoder.vocab_size, mask_id=mask_id,
                             special_ids=special_ids, generator=gen)
            moved = type(batch)(batch.inputs.to(device), batch.targets.to(device),
                                batch.selected.to(device), batch.replaced_by.to(device))
            loss = mlm_loss(encoder, moved, lens.to(device))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            losses.append(float(loss.detach()))
    return losses
