"""Fine-tuning a pretrained XLM for cross-lingual classification (XNLI), zero-shot or
translate-train.

XLM feeds the first hidden state of the last layer to a randomly initialised linear classifier and
fine-tunes all parameters. A premise-hypothesis pair is one input row
``</s> premise </s> hypothesis </s>`` with continuous positions and the language embedding of its
language. Zero-shot: train on English pairs (English language id), keep the epoch with the best
*English* dev accuracy, then read every other language's test set with that language's id.
Translate-train: the same on the training pairs translated into the target language.
Book: chapter 10 (Cross-lingual language models, XLM: fine-tuning on XNLI).
"""
from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from xsent_lib.base.runtime import pick_device, seed_everything
from xsent_lib.data.formats import NLIData
from xsent_lib.encoders.transformer import TransformerSentenceEncoder
from xsent_lib.text import EOS_TOKEN
from xsent_lib.text.batching import pad_batch
from xsent_lib.train.history import History
from xsent_lib.train.loop import fit


class XLMClassifier(nn.Module):
    """A pretrained Transformer and a linear layer on its first last-layer state (XLM's XNLI
    classifier).

    Book: chapter 10 (Cross-lingual language models, XLM: fine-tuning on XNLI).
    """

    def __init__(self, encoder: TransformerSentenceEncoder, n_classes: int = 3,
                 dropout: float = 0.1) -> None:
        super().__init__()
        if not isinstance(encoder, TransformerSentenceEncoder):
            raise TypeError("encoder must be a TransformerSentenceEncoder, got "
                            f"{type(encoder).__name__}.")
        self.encoder = encoder
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(encoder.d_model, n_classes)

    def forward(self, token_ids: torch.Tensor, lengths: torch.Tensor,
                langs: torch.Tensor) -> torch.Tensor:
        """Class logits ``[B, n_classes]`` of pair rows. Book: chapter 10 (XLM: fine-tuning on
        XNLI)."""
        hidden = self.encoder.hidden_states(token_ids, lengths, langs=langs)
        return self.head(self.dropout(hidden[:, 0]))


def pair_rows(encoder: TransformerSentenceEncoder, premises: Sequence[str],
              hypotheses: Sequence[str], max_len: int | None = None) -> list[np.ndarray]:
    """``</s> premise </s> hypothesis </s>`` id rows through the encoder's pipeline, each side cut
    to fit.

    Book: chapter 10 (Cross-lingual language models, XLM: fine-tuning on XNLI).
    """
    if encoder.pipeline is None:
        raise ValueError("the encoder has no pipeline; build it with build_xlm(corpus, ...).")
    if len(premises) != len(hypotheses):
        raise ValueError(f"{len(premises)} premises but {len(hypotheses)} hypotheses.")
    eos = encoder.pipeline.vocab.stoi[EOS_TOKEN]
    limit = max_len or encoder.max_len
    side = max(2, (limit - 1) // 2)
    cut = lambda x: x if len(x) <= side else np.append(x[: side - 1], eos)  # noqa: E731
    p = encoder.pipeline.encode(list(premises))
    h = encoder.pipeline.encode(list(hypotheses))
    return [np.concatenate([[eos], cut(a), cut(b)]) for a, b in zip(p, h)]


def _tensors(encoder: TransformerSentenceEncoder, data: NLIData, lang_id: int, max_len: int | None):
    rows = pair_rows(encoder, data.premises, data.hypotheses, max_len)
    ids, lengths = pad_batch(rows)
    return ids, lengths, torch.full((len(rows),), int(lang_id), dtype=torch.long), torch.as_tensor(
        np.asarray(data.labels), dtype=torch.long)


def xnli_batches(encoder: TransformerSentenceEncoder, data: NLIData, lang_id: int,
                 batch_size: int = 32, seed: int = 0,
                 max_len: int | None = None) -> Callable[[int], list[tuple[torch.Tensor, ...]]]:
    """``epoch -> batches`` of ``(ids, lengths, langs, labels)``, reshuffled per epoch with its own
    seed.

    Book: chapter 10 (Cross-lingual language models, XLM: fine-tuning on XNLI).
    """
    if len(data) < 1:
        raise ValueError("no NLI pairs to batch.")
    rows = pair_rows(encoder, data.premises, data.hypotheses, max_len)
    labels = np.asarray(data.labels, dtype=np.int64)

    def batches(epoch: int) -> list[tuple[torch.Tensor, ...]]:
        order = np.random.default_rng(seed * 7919 + epoch).permutation(len(rows))
        out = []
        for i in range(0, len(order), batch_size):
            idx = order[i:i + batch_size]
            ids, lengths = pad_batch([rows[j] for j in idx])
            out.append((ids, lengths, torch.full((len(idx),), int(lang_id), dtype=torch.long),
                        torch.as_tensor(labels[idx])))
        return out

    return batches


def _step_loss(model: XLMClassifier, batch: tuple[torch.Tensor, ...]) -> torch.Tensor:
    ids, lengths, langs, labels = batch
    return nn.functional.cross_entropy(model(ids, lengths, langs), labels)


@torch.no_grad()
def xlm_accuracy(model: XLMClassifier, data: NLIData, lang_id: int, *,
                 device: str | torch.device = "auto", batch_size: int = 256,
                 max_len: int | None = None) -> float:
    """Accuracy (percent) of a fine-tuned classifier on ``data``, read with language id ``lang_id``.

    Book: chapter 10 (Cross-lingual language models, XLM: fine-tuning on XNLI).
    """
    if len(data) < 1:
        raise ValueError("no NLI pairs to score.")
    dev = pick_device(device)
    was = model.training
    model.to(dev).eval()
    ids, lengths, langs, labels = _tensors(model.encoder, data, lang_id, max_len)
    correct = 0
    try:
        for i in range(0, len(labels), batch_size):
            width = int(lengths[i:i + batch_size].max())
            logits = model(ids[i:i + batch_size, :width].to(dev), lengths[i:i + batch_size].to(dev),
                           langs[i:i + batch_size].to(dev))
            correct += int((logits.argmax(-1).cpu() == labels[i:i + batch_size]).sum())
    finally:
        model.train(was)
    return 100.0 * correct / len(labels)


@dataclass(frozen=True)
class FinetuneConfig:
    """Fine-tuning settings: Adam ``lr`` (XLM samples it between 5e-4 and 2e-4), ``batch_size`` (8
    or 16 in XLM), ``epochs`` (XLM: "epochs" of 20,000 samples), classifier ``dropout``, row
    ``max_len``. ``freeze_embeddings`` keeps the token, position and language embeddings as
    pretrained (XLM fine-tunes everything: False).

    Book: chapter 10 (Cross-lingual language models, XLM: fine-tuning on XNLI).
    """

    epochs: int = 3
    lr: float = 3e-4
    batch_size: int = 32
    dropout: float = 0.1
    max_len: int | None = None
    clip_norm: float | None = 1.0
    freeze_embeddings: bool = False

    def summary(self) -> dict[str, Any]:
        """Plain values for metrics.json. Book: chapter 10 (XLM)."""
        return asdict(self)


@dataclass
class FinetuneRun:
    """A fine-tuned classifier, its history, the dev accuracy it was selected on, and seconds.

    Book: chapter 10 (Cross-lingual language models, XLM: fine-tuning on XNLI).
    """

    model: XLMClassifier
    history: History
    dev_acc: float
    seconds: float

    def summary(self) -> dict[str, Any]:
        """Plain values for metrics.json. Book: chapter 10 (XLM)."""
        return {"dev_acc": self.dev_acc, "best_epoch": self.history.best_epoch,
                "seconds": self.seconds, "train_loss": self.history.train_loss,
                "dev": self.history.dev}


def finetune_xnli(encoder: TransformerSentenceEncoder, train: NLIData, dev: NLIData, *,
                  lang_id: int, dev_lang_id: int | None = None,
                  config: FinetuneConfig = FinetuneConfig(), device: str | torch.device = "auto",
                  seed: int = 0) -> FinetuneRun:
    """Fine-tune a *copy* of ``encoder`` plus a fresh linear head on ``train`` (read with
    ``lang_id``).

    All parameters are trained (as in XLM; ``config.freeze_embeddings`` keeps the embeddings) with
    Adam; the epoch with the best ``dev`` accuracy (read with ``dev_lang_id``, default ``lang_id``)
    is kept. For zero-shot transfer pass English train and English dev: no target-language label is
    used. The pretrained ``encoder`` is left untouched.
    Book: chapter 10 (Cross-lingual language models, XLM: fine-tuning on XNLI).
    """
    if not isinstance(encoder, TransformerSentenceEncoder):
        raise TypeError("encoder must be a TransformerSentenceEncoder, got "
                        f"{type(encoder).__name__}.")
    if encoder.n_langs and not 0 <= lang_id < encoder.n_langs:
        raise ValueError(f"lang_id must be in [0, {encoder.n_langs}), got {lang_id}.")
    seed_everything(seed)
    model = XLMClassifier(copy.deepcopy(encoder), dropout=config.dropout)
    if config.freeze_embeddings:
        for module in (model.encoder.token_embedding, model.encoder.position_embedding,
                       model.encoder.language_embedding):
            if module is not None:
                module.requires_grad_(False)
    dev_lang = lang_id if dev_lang_id is None else dev_lang_id
    start = time.perf_counter()
    history = fit(model, _step_loss,
                  xnli_batches(model.encoder, train, lang_id, config.batch_size, seed,
                                                  config.max_len),
                  optimizer="adam", lr=config.lr, epochs=config.epochs, device=device, seed=seed,
                  clip_norm=config.clip_norm, progress=False,
                  dev_fn=lambda m: xlm_accuracy(m, dev, dev_lang, device=device,
                                                max_len=config.max_len))
    return FinetuneRun(model, history, float(history.best_dev), time.perf_counter() - start)
