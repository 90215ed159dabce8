"""Training Wang et al.'s encoder on one corpus of monolingual documents, as chapter 9 runs it: a
word vocabulary shared by every language, stage 1 then the rounds of stage 2 with an evaluation
after each round, stage 2 again from the saved stage-1 model (the sampling-size study), and the
masked-language-model baseline of the same size.
Book: chapter 9 (Multilingual embeddings from monolingual text).
"""
from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import torch

from xsent_lib.base.threads import single_thread
from xsent_lib.data.monodocs import MonoDocs
from xsent_lib.text import WordTokenizer
from xsent_lib.text.pipeline import TextPipeline
from xsent_lib.text.vocab import Vocab
from xsent_lib.train.context import (
    ContextConfig,
    DocCorpus,
    WangModel,
    WangRun,
    build_wang_model,
    doc_corpus,
    embed_corpus,
    token_matrix,
    train_mlm,
    train_wang,
)

SPECIALS = ("<pad>", "<unk>", "</s>", "<mask>")
#: ``texts -> vectors``
Encode = Callable[[Sequence[str]], np.ndarray]
#: ``encode -> what one round measured`` (stored in :attr:`WangRun.per_round`)
Evaluate = Callable[[Encode], dict[str, Any]]


class ContextModelPlan(Protocol):
    """The sizes a corpus run reads from a chapter's plan: the Transformer (``d_model``,
    ``n_layers``, ``n_heads``), the two stages (``config``), the tokens kept per sentence and the
    MLM baseline's epochs.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """

    @property
    def d_model(self) -> int: ...
    @property
    def n_layers(self) -> int: ...
    @property
    def n_heads(self) -> int: ...
    @property
    def config(self) -> ContextConfig: ...
    @property
    def max_tokens(self) -> int: ...
    @property
    def mlm_epochs(self) -> int: ...


def shared_pipeline(sentences: Sequence[str], max_size: int | None = None) -> TextPipeline:
    """One word vocabulary over every language (identical strings share an id), ``</s>`` ends each
    sentence.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    tok = WordTokenizer()
    vocab = Vocab.build(tok.tokenize_batch(list(sentences)), 1, max_size, specials=list(SPECIALS))
    return TextPipeline(tok, vocab, eos="</s>")


@dataclass
class FrozenEncode:
    """``texts -> vectors`` with the frozen encoder (sentences alone); a plain object, so it can be
    saved.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """

    encoder: torch.nn.Module
    pipeline: TextPipeline
    max_tokens: int

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        return embed_corpus(self.encoder, *token_matrix(self.pipeline, texts, self.max_tokens))

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """The same as calling it.

        Book: chapter 9 (Multilingual embeddings from monolingual text).
        """
        return self(texts)


def encoder_fn(encoder: torch.nn.Module, pipeline: TextPipeline, max_tokens: int) -> Encode:
    """``texts -> vectors`` with the frozen encoder (sentences alone): a :class:`FrozenEncode`.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    return FrozenEncode(encoder, pipeline, max_tokens)


@dataclass
class CorpusRun:
    """One corpus trained with the two stages: its data, pipeline, tokenised corpus and
    :class:`WangRun`.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """

    docs: MonoDocs
    pipeline: TextPipeline
    corpus: DocCorpus
    run: WangRun
    stage1_model: WangModel


def train_corpus(docs: MonoDocs, plan: ContextModelPlan, evaluate: Evaluate, *,
                 config: ContextConfig | None = None, device: str | torch.device = "cpu",
                 seed: int = 0) -> CorpusRun:
    """Build the shared vocabulary, the model, and run stage 1 + rounds, calling
    ``evaluate(encode)`` each round.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    config = config or plan.config
    pipeline = shared_pipeline(docs.sentences)
    corpus = doc_corpus(pipeline, docs.sentences, docs.doc_ids, docs.lang_ids, plan.max_tokens)
    model = build_wang_model(len(pipeline.vocab), d_model=plan.d_model, n_layers=plan.n_layers,
                             n_heads=plan.n_heads, max_len=config.maxlen, dropout=0.1, seed=seed)
    saved: dict[str, WangModel] = {}

    def on_round(r: int, m: WangModel, pairs: Any) -> dict[str, Any]:
        if r == 0:
            saved["stage1"] = copy.deepcopy(m)
        return evaluate(encoder_fn(m.encoder, pipeline, plan.max_tokens))

    with single_thread():
        run = train_wang(model, corpus, config, on_round=on_round, device=device, seed=seed)
    return CorpusRun(docs, pipeline, corpus, run, saved["stage1"])


def continue_with(base: CorpusRun, plan: ContextModelPlan, config: ContextConfig,
                  evaluate: Evaluate, *, device: str | torch.device = "cpu",
                  seed: int = 0) -> WangRun:
    """Stage 2 again from ``base``'s stage-1 model with another ``config`` (the ``m`` study).

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    model = copy.deepcopy(base.stage1_model)
    start = WangRun(model, config, stage1_losses=base.run.stage1_losses)

    def on_round(r: int, m: WangModel, pairs: Any) -> dict[str, Any]:
        return evaluate(encoder_fn(m.encoder, base.pipeline, plan.max_tokens))

    with single_thread():
        return train_wang(model, base.corpus, config, on_round=on_round, start=start, device=device,
                          seed=seed)


def mlm_baseline(base: CorpusRun, plan: ContextModelPlan, *, device: str | torch.device = "cpu",
                 seed: int = 0) -> Encode:
    """The shared-vocabulary MLM Transformer (same size, same sentences, no context); returns
    ``encode``.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    model = build_wang_model(len(base.pipeline.vocab), d_model=plan.d_model, n_layers=plan.n_layers,
                             n_heads=plan.n_heads, max_len=plan.config.maxlen, seed=seed)
    stoi = base.pipeline.vocab.stoi
    with single_thread():
        train_mlm(model.encoder, base.corpus.tokens, base.corpus.lengths, mask_id=stoi["<mask>"],
                  special_ids=[stoi[t] for t in SPECIALS], epochs=plan.mlm_epochs,
                  lr=plan.config.lr, device=device, seed=seed)
    return encoder_fn(model.encoder, base.pipeline, plan.max_tokens)
