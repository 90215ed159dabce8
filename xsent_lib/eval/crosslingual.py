"""Cross-lingual evaluation: word translation, sentence translation retrieval, zero-shot transfer
(XNLI).

Word translation (MUSE protocol): every source word of a test dictionary is a query against the
whole target vocabulary; P@k counts a hit when any gold translation is among the first k, with
nearest neighbour (``nn``), inverted softmax (``isf``, beta 30) or CSLS (``csls``, k=10). Sentence
retrieval: P@k in both directions with ``nn``, ``csls`` or ``margin`` (ratio, k=4). XNLI: a
classifier trained on English pair features is tested on every language (zero-shot), on test sets
translated into English (translate-test), or per language on a translated training set
(translate-train).
Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

import numpy as np

from xsent_lib.base.neighbors import (
    csls_knn,
    inverted_softmax_knn,
    knn,
    l2_normalize,
    margin_knn,
)
from xsent_lib.base.runtime import DeviceLike
from xsent_lib.eval.protocols import one_hot, split_select
from xsent_lib.eval.transfer import pair_features

WORD_METHODS = ("nn", "isf", "csls")
SENTENCE_METHODS = ("nn", "csls", "margin")
Translate = Callable[[list[str], str, str], list[str]]


def _retrieve(method: str, src: np.ndarray, tgt: np.ndarray, queries: np.ndarray, topk: int,
              k_csls: int, beta: float, k_margin: int, device: DeviceLike) -> np.ndarray:
    if method == "nn":
        return knn(src[queries], tgt, topk, device=device)[1]
    if method == "csls":
        return csls_knn(src, tgt, k_csls, topk, queries=queries, device=device)[1]
    if method == "isf":
        return inverted_softmax_knn(src, tgt, beta, topk, queries=queries, device=device)[1]
    if method == "margin":
        return margin_knn(src, tgt, k_margin, "ratio", topk=topk, device=device)[1][queries]
    raise ValueError(f"unknown retrieval method {method!r}.")


def _precision_at(found: np.ndarray, hits_fn: Callable[[np.ndarray], np.ndarray],
                  ks: tuple[int, ...]) -> dict:
    hit = hits_fn(found)  # (n_q, topk) bool
    return {f"p@{k}": 100 * float(hit[:, :k].any(1).mean()) for k in ks}


def word_translation(
    src: np.ndarray, tgt: np.ndarray, pairs: Any, methods: tuple[str, ...] = WORD_METHODS,
    ks: tuple[int, ...] = (1, 5, 10), k_csls: int = 10, beta: float = 30.0, *,
    device: DeviceLike = None,
) -> dict:
    """P@k (percent) of translating each dictionary source word against all target words.

    ``pairs`` is an ``(n, 2)`` array of (source row, target row) or a
    :class:`~xsent_lib.data.formats.dictionaries.DictionaryIndices`; a source with several
    translations is one query, right when any of them is retrieved. Embeddings are L2-normalised
    first. The searches run on ``device`` (``None``: the chapter's; a GPU keeps both vocabularies
    resident for CSLS's three passes).
    Book: chapter 5 (Word translation without parallel data).
    """
    pairs = np.asarray(getattr(pairs, "pairs", pairs), dtype=np.int64)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or len(pairs) == 0:
        raise ValueError("pairs must be a non-empty (n, 2) array of (source row, target row).")
    src, tgt = l2_normalize(src), l2_normalize(tgt)
    if pairs[:, 0].max() >= len(src) or pairs[:, 1].max() >= len(tgt) or pairs.min() < 0:
        raise ValueError("pairs index rows outside the embedding matrices.")
    bad = set(methods) - set(WORD_METHODS)
    if bad:
        raise ValueError(f"unknown methods {sorted(bad)}; choose from {WORD_METHODS}.")
    queries = np.unique(pairs[:, 0])
    gold_keys = np.unique(pairs[:, 0] * len(tgt) + pairs[:, 1])
    topk = max(ks)

    def hits(found: np.ndarray) -> np.ndarray:
        return np.isin(queries[:, None] * len(tgt) + found, gold_keys)

    out = {m: _precision_at(_retrieve(m, src, tgt, queries, topk, k_csls, beta, 4, device), hits,
                            ks) for m in methods}
    out["n_queries"] = int(queries.size)
    return out


def sentence_retrieval(
    src: np.ndarray, tgt: np.ndarray, gold: np.ndarray | None = None,
    methods: tuple[str, ...] = SENTENCE_METHODS, ks: tuple[int, ...] = (1, 5, 10),
    k_csls: int = 10, k_margin: int = 4, *, device: DeviceLike = None,
) -> dict:
    """Translation retrieval P@k (percent): ``src_to_tgt`` for every source, ``tgt_to_src`` when
    aligned 1:1.

    ``gold[i]`` is the target row of source ``i`` (default: the same row). The reverse direction is
    evaluated only when every source has a distinct gold target and both sides have equal size. The
    searches run on ``device`` (``None``: the chapter's).
    Book: chapter 5 (Word translation without parallel data).
    """
    src, tgt = l2_normalize(src), l2_normalize(tgt)
    gold = np.arange(len(src)) if gold is None else np.asarray(gold, dtype=np.int64)
    if gold.shape != (len(src),) or gold.min() < 0 or gold.max() >= len(tgt):
        raise ValueError("gold must give one target row per source row.")
    bad = set(methods) - set(SENTENCE_METHODS)
    if bad:
        raise ValueError(f"unknown methods {sorted(bad)}; choose from {SENTENCE_METHODS}.")
    topk = min(max(ks), len(tgt))
    q = np.arange(len(src))
    args = (topk, k_csls, 30.0, k_margin, device)
    out = {"src_to_tgt": {m: _precision_at(_retrieve(m, src, tgt, q, *args),
                                           lambda f: f == gold[:, None], ks) for m in methods}}
    if len(src) == len(tgt) and np.unique(gold).size == len(gold):
        inv = np.empty_like(gold)
        inv[gold] = q
        out["tgt_to_src"] = {
            m: _precision_at(_retrieve(m, tgt, src, q, *args),
                             lambda f: f == inv[:, None], ks) for m in methods}
    out["n_queries"] = int(len(src))
    return out


class SentenceRetrievalTask:
    """Parallel sentences (source i translates target i, or ``gold``); P@k both ways with NN / CSLS
    / margin.

    Book: chapter 5 (Word translation without parallel data).
    """

    def __init__(self, source: list[str], target: list[str], name: str = "retrieval",
                 gold: np.ndarray | None = None,
                 methods: tuple[str, ...] = SENTENCE_METHODS) -> None:
        if not source or not target:
            raise ValueError("source and target sentence lists must be non-empty.")
        self.source, self.target, self.name = source, target, name
        self.gold, self.methods = gold, methods

    def sentences(self) -> list[str]:
        """Both sides.

        Book: chapter 5 (Word translation without parallel data).
        """
        return [*self.source, *self.target]

    def run(self, ev) -> dict:
        """Encode both sides and run :func:`sentence_retrieval`.

        Book: chapter 5 (Word translation without parallel data).
        """
        return sentence_retrieval(ev.encode(list(self.source)), ev.encode(list(self.target)),
                                  self.gold, self.methods)


XNLI_MODES = ("zero-shot", "translate-test", "translate-train")


class CrossLingualTransferTask:
    """Train on English, test on every language: XNLI (pairs) or document classification (single
    texts).

    ``train`` / ``dev['en']`` are English; ``test`` (and optionally ``dev``) map a language code to
    data. Pair data has ``premises`` / ``hypotheses`` / ``labels`` (XNLI's ``NLIData``) or ``first``
    / ``second``; single-text data has ``sentences`` / ``labels``. ``mode``: ``zero-shot``;
    ``translate-test`` (each test set is passed through ``translate(texts, lang, "en")`` and scored
    by the English model); ``translate-train`` (the English training and dev sets go through
    ``translate(texts, "en", lang)`` and one classifier per language is trained). The classifier is
    P3's: one hidden layer of 128 units, dropout 0.1, Adam (P3 does not name the activation; we use
    SentEval's Sigmoid); the L2 value is chosen on the English dev set (``select_on="en"``) or, as
    P3 did for its X-BiLSTMs (not strictly zero-shot), on each language's dev set
    (``select_on="target"``).
    Book: chapter 6 (XNLI and aligned encoders).
    """

    def __init__(self, train: Any, dev: dict, test: dict, name: str = "XNLI",
                 mode: str = "zero-shot",
                 translate: Translate | None = None, select_on: str = "en",
                 features: str = "full") -> None:
        if mode not in XNLI_MODES:
            raise ValueError(f"mode must be one of {XNLI_MODES}, got {mode!r}.")
        if mode != "zero-shot" and not callable(translate):
            raise ValueError(f"mode {mode!r} needs translate(texts, src_lang, tgt_lang) "
                             "-> list[str].")
        if select_on not in ("en", "target"):
            raise ValueError(f"select_on must be 'en' or 'target', got {select_on!r}.")
        if "en" not in dev:
            raise ValueError("dev must contain the English dev set under 'en'.")
        if select_on == "target" and set(test) - set(dev):
            raise ValueError("select_on='target' needs a dev set for every test language; missing "
                             f"{sorted(set(test) - set(dev))}.")
        self.train, self.dev, self.test, self.name, self.mode = train, dev, test, name, mode
        self.translate, self.select_on, self.features = translate, select_on, features
        self.pairs = hasattr(train, "premises") or hasattr(train, "first")

    def _texts(self, data: Any) -> tuple[list[str], ...]:
        if hasattr(data, "premises"):
            return list(data.premises), list(data.hypotheses)
        if hasattr(data, "first"):
            return list(data.first), list(data.second)
        return (list(data.sentences),)

    def sentences(self) -> list[str]:
        """Every original text (translations are made during ``run``).

        Book: chapter 6 (XNLI and aligned encoders).
        """
        parts = [self.train, *self.dev.values(), *self.test.values()]
        return [s for d in parts for side in self._texts(d) for s in side]

    def _features(self, ev, texts: tuple[list[str], ...]) -> np.ndarray:
        if self.pairs:
            return pair_features(ev.encode(texts[0]), ev.encode(texts[1]), self.features)
        return ev.encode(texts[0])

    def _translated(self, data: Any, src: str, tgt: str) -> tuple[list[str], ...]:
        out = []
        for side in self._texts(data):
            moved = self.translate(side, src, tgt)
            if not isinstance(moved, list) or len(moved) != len(side):
                raise ValueError(f"translate must return a list of {len(side)} strings "
                                 f"({src}->{tgt}).")
            out.append(moved)
        return tuple(out)

    def run(self, ev) -> dict:
        """Train, select and test as the mode says; accuracy (percent) per language plus their
        average.

        Book: chapter 6 (XNLI and aligned encoders).
        """
        cfg = ev.classifier_config()
        cfg = replace(cfg, nhid=(128,), dropout=(0.1,), solver="adam")
        labels = lambda d: np.asarray(d.labels)  # noqa: E731
        n_classes = int(
            max(labels(self.train).max(), *(labels(d).max() for d in self.test.values()))) + 1
        y_tr = one_hot(labels(self.train), n_classes)
        per_lang = {}
        if self.mode == "translate-train":
            for lang, data in self.test.items():
                tr = self._texts(self.train) if lang == "en" \
                    else self._translated(self.train, "en", lang)
                dv_data = self.dev.get(lang, self.dev["en"])
                dv = self._texts(dv_data) if lang in self.dev \
                    else self._translated(dv_data, "en", lang)
                res = split_select(self._features(ev, tr), y_tr, self._features(ev, dv),
                                   one_hot(labels(dv_data), n_classes),
                                   self._features(ev, self._texts(data)), cfg)
                per_lang[lang] = 100 * float((res["test_probs"].argmax(-1) == labels(data)).mean())
        else:
            x_tr = self._features(ev, self._texts(self.train))
            langs = list(self.test)
            tests = [self._texts(self.test[lang]) if (self.mode == "zero-shot" or lang == "en")
                     else self._translated(self.test[lang], lang, "en") for lang in langs]
            dev_sets = {lang: self.dev[lang]
                        for lang in (langs if self.select_on == "target" else ["en"])}
            x_te = np.vstack([self._features(ev, t) for t in tests])
            for dlang, dv in dev_sets.items():
                res = split_select(x_tr, y_tr, self._features(ev, self._texts(dv)),
                                   one_hot(labels(dv), n_classes), x_te, cfg)
                pred = np.split(res["test_probs"].argmax(-1),
                                np.cumsum([len(labels(self.test[lg])) for lg in langs])[:-1])
                for lang, p in zip(langs, pred):
                    if self.select_on == "en" or lang == dlang:
                        per_lang[lang] = 100 * float((p == labels(self.test[lang])).mean())
        return {"acc": per_lang, "avg": float(np.mean(list(per_lang.values()))), "mode": self.mode,
                "select_on": self.select_on}
