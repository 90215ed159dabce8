"""Scoring word-translation maps: P@k on a setting, accuracy by frequency, word-by-word translation.

Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

from xsent_lib.align.adversarial import AdversarialConfig
from xsent_lib.align.pipeline import criterion_of, supervised_map, unsupervised_align
from xsent_lib.align.procrustes import apply_map, procrustes
from xsent_lib.align.setting import (
    WordTranslationSetting,
    gold_lexicon_setting,
    shared_identity_pairs,
)
from xsent_lib.align.vecmap import VecMapConfig, vecmap_unsupervised
from xsent_lib.base.threads import single_thread
from xsent_lib.data.word_spaces import LanguageSpace
from xsent_lib.eval.crosslingual import word_translation
from xsent_lib.eval.hubness import RETRIEVAL_METHODS, top1_targets
from xsent_lib.text.tokenizers import word_tokens

if TYPE_CHECKING:
    from xsent_lib.data.synthetic import SyntheticWorld


def evaluate_map(setting: WordTranslationSetting, W: np.ndarray,
                 methods: tuple[str, ...] = RETRIEVAL_METHODS,
                 ks: tuple[int, ...] = (1, 5, 10)) -> dict:
    """P@k (percent) of the test source words against the whole target vocabulary, per retrieval
    method.

    Book: chapter 5 (Word translation without parallel data).
    """
    return word_translation(apply_map(setting.src.vectors, W), setting.tgt.vectors, setting.test,
                            methods, ks)


def gold_lexicon_maps(world: SyntheticWorld, spaces: Mapping[str, LanguageSpace],
                      target: str = "en") -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """Smith et al.'s static-dictionary alignment of every other space of ``spaces`` onto
    ``spaces[target]``: orthogonal Procrustes on the world's gold lexicon
    (:func:`~xsent_lib.align.setting.gold_lexicon_setting`,
    :func:`~xsent_lib.align.pipeline.supervised_map`), and each map's word-translation P@1 (nearest
    neighbour, :func:`evaluate_map`) on the lexicon's held-out concepts. Returns ``(maps, p1)``
    keyed by language.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    settings = {lang: gold_lexicon_setting(world, space, spaces[target]) for lang,
                space in spaces.items() if lang != target}
    maps = {lang: supervised_map(setting) for lang, setting in settings.items()}
    return maps, {lang: evaluate_map(settings[lang], maps[lang], ("nn",), (1,))["nn"]["p@1"]
                  for lang in maps}


@dataclass(frozen=True)
class P1Monitor:
    """``monitor(W) -> {"p@1 <method>": test P@1}`` on ``setting``: a picklable monitor (it travels
    to worker processes with its run, :func:`~xsent_lib.base.parallel.parallel_map`).

    Book: chapter 5 (Word translation without parallel data).
    """
    setting: WordTranslationSetting
    methods: tuple[str, ...] = ("nn", "csls")

    def __call__(self, W: np.ndarray) -> dict:
        res = evaluate_map(self.setting, W, methods=self.methods, ks=(1,))
        return {f"p@1 {m}": res[m]["p@1"] for m in self.methods}


def p1_monitor(setting: WordTranslationSetting, methods: tuple[str, ...] = ("nn", "csls")
               ) -> Callable[[np.ndarray], dict]:
    """``monitor(W) -> {"p@1 <method>": test P@1}`` for the pipeline's records (display only; a
    :class:`P1Monitor`).

    Book: chapter 5 (Word translation without parallel data).
    """
    return P1Monitor(setting, tuple(methods))


def _rank(n: int) -> str:
    """``5000`` -> ``"5k"``, ``2500`` -> ``"2.5k"``, ``300`` -> ``"300"``."""
    return f"{n / 1000:g}k" if n >= 1000 else str(int(n))


def accuracy_by_frequency(a: LanguageSpace, b: LanguageSpace, *, bucket_edges: Sequence[int],
                          train_fraction: float = 0.5, seed: int = 0,
                          methods: tuple[str, ...] = ("nn", "csls"), k_csls: int = 10) -> dict:
    """Align two spaces of the same language and report P@1 per frequency bucket (identity is
    correct).

    The words both spaces share are split at random (``seed``) into a training half, which fits
    orthogonal Procrustes on identity pairs, and a test half, whose words are retrieved among all of
    ``b`` and grouped by their rank in ``a`` into ``[edge_k, edge_{k+1})`` buckets. The thesis
    aligns these spaces without supervision; a supervised map isolates how alignable the spaces are
    from how good the aligner is. Returns ``{"buckets": [labels], method: [P@1 per bucket], "n":
    [counts]}``.
    Book: chapter 5 (Word translation without parallel data).
    """
    edges = np.asarray(bucket_edges)
    if edges.ndim != 1 or len(edges) < 2 or np.any(np.diff(edges) <= 0):
        raise ValueError("bucket_edges must be increasing with at least 2 entries, got "
                         f"{bucket_edges}.")
    if a.dim != b.dim:
        raise ValueError(f"the two spaces must have the same dimension, got {a.dim} and {b.dim}.")
    if not 0.0 < train_fraction < 1.0:
        raise ValueError(f"train_fraction must be in (0, 1), got {train_fraction}.")
    pairs = shared_identity_pairs(a, b)
    pairs = pairs[pairs[:, 0] < edges[-1]]
    in_train = np.random.default_rng(seed).random(len(pairs)) < train_fraction
    train, test = pairs[in_train], pairs[~in_train]
    if len(train) < a.dim or len(test) == 0:
        raise ValueError(f"only {len(pairs)} shared words below rank {edges[-1]}: too few to "
                         "fit and test.")
    W = procrustes(a.vectors[train[:, 0]], b.vectors[train[:, 1]])
    mapped = apply_map(a.vectors, W)
    bucket = np.searchsorted(edges, test[:, 0], side="right") - 1
    out: dict = {"buckets": [f"{_rank(lo)}-{_rank(hi)}" for lo, hi in zip(edges[:-1], edges[1:])],
                 "n": np.bincount(bucket, minlength=len(edges) - 1).tolist()}
    for m in methods:
        hit = top1_targets(mapped, b.vectors, m, queries=test[:, 0], k_csls=k_csls) == test[:, 1]
        sums = np.bincount(bucket, weights=hit, minlength=len(edges) - 1)
        out[m] = (100.0 * sums / np.maximum(out["n"], 1)).tolist()
    return out


def translation_lexicon(src: LanguageSpace, tgt: LanguageSpace, W: np.ndarray, method: str = "csls",
                        k_csls: int = 10) -> np.ndarray:
    """The target row chosen for every source word (NN or CSLS over the whole target vocabulary).

    Book: chapter 5 (Word translation without parallel data).
    """
    if method not in ("nn", "csls"):
        raise ValueError(f"method must be 'nn' or 'csls', got {method!r}.")
    return top1_targets(apply_map(src.vectors, W), tgt.vectors, method, k_csls=k_csls)


def fully_known(sentences: Sequence[str], space: LanguageSpace) -> np.ndarray:
    """Whether every word token of each sentence is in the vocabulary (and the sentence has one).

    Book: chapter 5 (Word translation without parallel data).
    """
    return np.array([bool(toks) and all(t in space.word2id for t in toks)
                     for toks in map(word_tokens, sentences)], dtype=bool)


def word_by_word(sentences: Sequence[str], src: LanguageSpace, tgt: LanguageSpace,
                 lexicon: np.ndarray) -> list[str]:
    """Translate each word token through ``lexicon`` (a target row per source row); unknown words
    are copied.

    Output is lower-cased word tokens joined by spaces, as in the thesis' Esperanto experiment.
    Book: chapter 5 (Word translation without parallel data).
    """
    lexicon = np.asarray(lexicon)
    if lexicon.shape != (len(src),):
        raise ValueError(f"lexicon must give one target row per source word ({len(src)}), got "
                         f"{lexicon.shape}.")
    out_words = np.asarray(tgt.words, dtype=object)[lexicon]
    lookup = src.word2id.get
    return [" ".join(out_words[i] if (i := lookup(t)) is not None else t for t in word_tokens(s))
            for s in sentences]


def compare_aligners(setting: WordTranslationSetting, adv_config: AdversarialConfig,
                     vecmap_config: VecMapConfig,
                     *, n_restarts: int = 2, refine_iters: int = 2, max_rank: int = 10_000,
                     seed: int = 0,
                     device: str | torch.device = "cpu", adversarial: bool = True) -> dict:
    """Test P@1 (CSLS, percent) of the supervised and the unsupervised maps of one setting, and
    their criteria.

    ``Procrustes`` (the training pairs), ``Adv`` / ``Adv - Refine`` (:func:`unsupervised_align`,
    restarts from random rotations), ``VecMap`` (:func:`vecmap_unsupervised`), and ``unsupervised
    (criterion)``: the one of the two unsupervised maps with the higher unsupervised criterion, a
    choice made without any dictionary. ``criterion <method>`` holds each map's criterion (on
    ``adv_config.criterion_words`` words); ``seconds <method>`` the time each took.
    ``adversarial=False`` skips MUSE's pipeline (no ``Adv`` keys; the criterion's pick is then
    VecMap).
    Book: chapter 5 (Word translation without parallel data).
    """
    import time

    def p1(W: np.ndarray) -> float:
        return float(evaluate_map(setting, W, methods=("csls",), ks=(1,))["csls"]["p@1"])

    def crit(W: np.ndarray) -> float:
        return criterion_of(setting, W, n_words=adv_config.criterion_words)

    t0 = time.time()
    maps = {"Procrustes": supervised_map(setting)}
    t1 = time.time()
    if adversarial:
        u = unsupervised_align(setting, adv_config, n_restarts=n_restarts, seed=seed, device=device,
                               init="random", refine_iters=refine_iters, max_rank=max_rank)
        maps["Adv"], maps["Adv - Refine"] = u.W_adversarial, u.W
    t2 = time.time()
    with single_thread(True, blas=True):
        maps["VecMap"] = vecmap_unsupervised(setting.src.vectors, setting.tgt.vectors,
                                             vecmap_config, seed=seed).W
    t3 = time.time()
    out: dict = {"pair": setting.name, "seed": seed, "src words": len(setting.src),
                 "tgt words": len(setting.tgt),
                 "test words": int(np.unique(setting.test[:, 0]).size)}
    out |= {m: p1(W) for m, W in maps.items()}
    out |= {f"criterion {m}": crit(W) for m, W in maps.items()}
    pick = max((m for m in ("Adv - Refine", "VecMap") if m in maps),
               key=lambda m: out[f"criterion {m}"])
    out["unsupervised (criterion)"], out["criterion picks"] = out[pick], pick
    out |= {"seconds Procrustes": t1 - t0, "seconds VecMap": t3 - t2}
    if adversarial:
        out["seconds Adv - Refine"] = t2 - t1
    return out
