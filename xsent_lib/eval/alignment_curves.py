"""Scores of a cross-lingual sentence space in every language direction: translation retrieval P@1
and cross-lingual classification transfer, the two measures of Aldarmaki & Diab's alignment curves;
the curves' records (one system at one bitext size and seed) and the tables read from them.

A record is ``{"system", "family", "n", "seed", "seconds", <metric>: value or {direction: value}}``;
``n`` is ``None`` for a system that uses no bitext (it stands for every size).
Book: chapter 7 (Joint vs transfer vs mapping).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from xsent_lib.base.neighbors import knn
from xsent_lib.data.formats import NLIData
from xsent_lib.data.held_out_bitext import distinct_pairs
from xsent_lib.eval.crosslingual import sentence_retrieval
from xsent_lib.eval.transfer import pair_features

Encode = Callable[[list[str]], np.ndarray]
Vectors = dict[str, np.ndarray]
#: the bitexts of the teacher's real-bitext ceiling (:func:`teacher_on_real_bitext`), names in the
#: data cache
REAL_BITEXTS: tuple[str, ...] = ("nlp-en-de", "bible-en-es")


def direction(a: str, b: str) -> str:
    """The label of direction ``a`` -> ``b``, e.g. ``"en→xa"``.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    return f"{a}→{b}"


def retrieval_directions(vectors: Mapping[str, np.ndarray]) -> dict[str, float]:
    """P@1 (percent) of translation retrieval by cosine nearest neighbour for every ordered pair of
    languages.

    ``vectors[lang]`` holds the vectors of one multi-parallel test set (row ``i`` of every language
    renders the same sentence).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    langs = list(vectors)
    if len(langs) < 2:
        raise ValueError(f"need vectors for at least two languages, got {langs}.")
    sizes = {lang: np.asarray(v).shape for lang, v in vectors.items()}
    if len({s[0] for s in sizes.values()}) != 1 or any(len(s) != 2 for s in sizes.values()):
        raise ValueError("every language needs one row per test sentence (same count), got "
                         f"shapes {sizes}.")
    out = {}
    for i, a in enumerate(langs):
        for b in langs[i + 1:]:
            res = sentence_retrieval(vectors[a], vectors[b], methods=("nn",), ks=(1,))
            out[direction(a, b)] = float(res["src_to_tgt"]["nn"]["p@1"])
            out[direction(b, a)] = float(res["tgt_to_src"]["nn"]["p@1"])
    return out


def classification_directions(train: Mapping[str, tuple[np.ndarray, np.ndarray]],
                              test: Mapping[str, tuple[np.ndarray, np.ndarray]], *, c: float = 1.0,
                              seed: int = 0) -> dict[str, float]:
    """Cross-lingual classification transfer: a logistic regression trained on ``train[a] =
    (features, labels)`` is tested on ``test[b]`` for every pair of different languages; accuracy in
    percent per ``"a→b"``.

    The paper's CLDC protocol (train on one language, test on the others) with a linear classifier
    instead of its (unspecified) MLP, on standardised features (mean and scale of the training
    language).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    if not train or not test:
        raise ValueError("train and test must each map at least one language to "
                         "(features, labels).")
    out = {}
    for a, (xa, ya) in train.items():
        xa, ya = np.asarray(xa), np.asarray(ya)
        if xa.ndim != 2 or len(xa) != len(ya) or len(np.unique(ya)) < 2:
            raise ValueError(f"train[{a!r}] needs a 2-D feature matrix and one label per row, with "
                             "two classes at least.")
        clf = make_pipeline(StandardScaler(),
                            LogisticRegression(C=c, max_iter=1000, random_state=seed)).fit(xa, ya)
        for b, (xb, yb) in test.items():
            if b != a:
                out[direction(a, b)] = 100.0 * float(
                    (clf.predict(np.asarray(xb)) == np.asarray(yb)).mean())
    return out


def mean_over(scores: Mapping[str, float], directions: list[str] | None = None) -> float:
    """Average of ``scores`` over ``directions`` (all by default).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    keys = list(scores) if directions is None else directions
    if not keys:
        raise ValueError("no direction to average over.")
    return float(np.mean([scores[k] for k in keys]))


def nearest_neighbours(queries: np.ndarray, pool: np.ndarray, k: int = 3,
                       exclude_same_row: bool = False) -> np.ndarray:
    """Row indices of the ``k`` nearest ``pool`` rows by cosine for each query
    (``exclude_same_row``: a query never returns its own row, for a query set that is the pool
    itself).
    Book: chapter 7 (Joint vs transfer vs mapping: Tables 1-2).
    """
    queries, pool = np.asarray(queries, np.float32), np.asarray(pool, np.float32)
    extra = 1 if exclude_same_row else 0
    _, idx = knn(queries, pool, min(k + extra, len(pool)), use_faiss=False)
    if not exclude_same_row:
        return idx[:, :k]
    return np.stack([[j for j in row if j != i][:k] for i, row in enumerate(idx)])


def encode_all(encoders: Mapping[str, Encode], retrieval: Mapping[str, Sequence[str]],
               cls_train: Mapping[str, NLIData],
               cls_test: Mapping[str, NLIData]) -> tuple[Vectors, Vectors, Vectors]:
    """Vectors of the multi-parallel retrieval test set ``retrieval[lang]``, and the pair features
    (:func:`~xsent_lib.eval.transfer.pair_features`) of the classification sets ``cls_train[lang]``
    and ``cls_test[lang]``, per language of ``retrieval``, with ``encoders[lang](sentences)``.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    langs = list(retrieval)
    ret = {lang: encoders[lang](list(retrieval[lang])) for lang in langs}
    feats_train, feats_test = {}, {}
    for lang in langs:
        for store, d in ((feats_train, cls_train[lang]), (feats_test, cls_test[lang])):
            store[lang] = pair_features(encoders[lang](list(d.premises)),
                                        encoders[lang](list(d.hypotheses)))
    return ret, feats_train, feats_test


def score(encoders: Mapping[str, Encode], retrieval: Mapping[str, Sequence[str]],
          cls_train: Mapping[str, NLIData],
          cls_test: Mapping[str, NLIData], seed: int = 0) -> dict[str, Any]:
    """Retrieval P@1 in every direction (:func:`retrieval_directions`) and classification transfer
    in every direction (:func:`classification_directions`, ``seed``), with their averages, on the
    sets of :func:`encode_all`.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    ret, ftr, fte = encode_all(encoders, retrieval, cls_train, cls_test)
    directions = retrieval_directions(ret)
    cls = classification_directions({lang: (ftr[lang], np.asarray(cls_train[lang].labels))
                                     for lang in ret},
                                    {lang: (fte[lang], np.asarray(cls_test[lang].labels))
                                     for lang in ret}, seed=seed)
    return {"retrieval": directions, "retrieval_avg": mean_over(directions), "cls": cls,
            "cls_avg": mean_over(cls)}


def shared_english(pairs: Mapping[str, tuple[Encode, Encode]]) -> dict[str, Encode]:
    """Per-language encoders for a multi-parallel test (:func:`score`) from per-pair ones
    (``pairs[lang] = (English encoder, target encoder)``): English through the first pair's English
    encoder, which every pair shares when the bitexts share their English side, each target through
    its own.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    if not pairs:
        raise ValueError("need the encoders of at least one English-target pair.")
    return {"en": next(iter(pairs.values()))[0], **{lang: pair[1] for lang, pair in pairs.items()}}


def pair_retrieval(encoders: Mapping[str, tuple[Encode, Encode]],
                   test: Mapping[str, tuple[Sequence[str], Sequence[str]]]) -> dict[str, Any]:
    """Translation retrieval P@1 in both directions of every English-target pair, each on its own
    test pairs ``test[lang] = (english, lang)`` (the bitexts need not share their English side),
    with ``encoders[lang] = (English encoder, target encoder)``, and the average.
    Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """
    out: dict[str, float] = {}
    for lang, (english, other) in test.items():
        encode_en, encode_other = encoders[lang]
        out.update(
            retrieval_directions({"en": encode_en(list(english)), lang: encode_other(list(other))}))
    return {"retrieval": out, "retrieval_avg": mean_over(out)}


def teacher_on_real_bitext(teacher: Encode, n: int = 300,
                           names: Sequence[str] = REAL_BITEXTS) -> dict[str, Any]:
    """A shipped encoder's translation-retrieval P@1 on real bitext from the data cache (the first
    ``n`` pairs with distinct sides of each corpus, both directions): the ceiling that invented
    languages cannot show, since it was never trained on them. A corpus missing from the cache is
    listed under ``"missing"``.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    from xsent_lib.data.corpora import load_bitext

    out: dict[str, Any] = {"scores": {}, "pairs": {}, "missing": []}
    for name in names:
        try:
            src, tgt = load_bitext(name, max_pairs=4 * n)
        except (FileNotFoundError, KeyError, ValueError) as err:
            out["missing"].append(f"{name}: {err}")
            continue
        pairs = distinct_pairs(src, tgt)[:n]
        langs = name.split("-")[-2:]
        out["scores"].update(retrieval_directions({langs[0]: teacher([p[0] for p in pairs]),
                                                   langs[1]: teacher([p[1] for p in pairs])}))
        out["pairs"][name] = len(pairs)
    return out


def record_sizes(records: Sequence[Mapping[str, Any]]) -> list[int]:
    """The bitext sizes of ``records``, increasing (rows without bitext have none).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    return sorted({r["n"] for r in records if r["n"] is not None})


def curve_table(records: Sequence[Mapping[str, Any]],
                metric: str = "retrieval_avg") -> dict[str, dict[str, Any]]:
    """Mean (over seeds) of ``metric`` per system and bitext size; rows without bitext fill every
    size.

    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    sizes = record_sizes(records)
    systems = list(dict.fromkeys(r["system"] for r in records))
    out: dict[str, dict[str, Any]] = {}
    for system in systems:
        rows = [r for r in records if r["system"] == system]
        out[system] = {}
        for n in sizes:
            vals = [r[metric] for r in rows if r["n"] == n or r["n"] is None]
            out[system][f"{n:,}"] = float(np.mean(vals)) if vals else None
    return out


def mean_at(records: Sequence[Mapping[str, Any]], system: str, n: int | None,
            metric: str = "retrieval_avg") -> float | None:
    """Mean over seeds of ``metric`` for ``system`` at bitext size ``n`` (rows without bitext match
    any size).

    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    vals = [r[metric] for r in records if r["system"] == system and (r["n"] is None or r["n"] == n)]
    return float(np.mean(vals)) if vals else None


def size_lines(records: Sequence[Mapping[str, Any]], shown: Sequence[str] = ()) -> list[str]:
    """One sentence per bitext size of ``records``: the system with the best mean retrieval P@1
    (rows without bitext take part at every size) and the means of the ``shown`` systems that ran.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    sizes = record_sizes(records)
    systems = list(dict.fromkeys(r["system"] for r in records))
    out = []
    for n in sizes:
        means = {s: v for s in systems if (v := mean_at(records, s, n)) is not None}
        best = max(means, key=means.get)
        values = ", ".join(f"{s} {means[s]:.1f}" for s in shown if s in means)
        out.append(f"{n:,} pairs: best average retrieval P@1 {means[best]:.1f} ({best}); {values}.")
    return out


def spread_line(records: Sequence[Mapping[str, Any]]) -> str:
    """A sentence on how far seeds disagree: the largest and the median min-to-max spread of
    retrieval P@1 over the systems and sizes run with more than one seed ("" when none was).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    sizes = record_sizes(records)
    spreads = []
    for s in dict.fromkeys(r["system"] for r in records):
        for n in sizes:
            vals = [r["retrieval_avg"] for r in records if r["system"] == s and r["n"] == n]
            if len(vals) > 1:
                spreads.append((max(vals) - min(vals), s, n))
    if not spreads:
        return ""
    w, s, n = max(spreads)
    return (f"largest seed spread: {w:.1f} points ({s}, {n:,} pairs); median spread "
            f"{float(np.median([x[0] for x in spreads])):.1f} points.")


def reference_lines(records: Sequence[Mapping[str, Any]], prefix: str,
                    n_test: int | None = None) -> list[str]:
    """A sentence per reference row (a system whose name starts with ``prefix``, e.g. a shipped
    teacher): its mean retrieval P@1, chance (1 in ``n_test``) and how many of the systems trained
    on the data score higher at the largest size.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    sizes = record_sizes(records)
    if not sizes:
        return []
    systems = list(dict.fromkeys(r["system"] for r in records))
    trained = {s: v for s in systems if not s.startswith(prefix)
               and (v := mean_at(records, s, sizes[-1])) is not None}
    out = []
    for t in (s for s in systems if s.startswith(prefix)):
        v = mean_at(records, t, None)
        above = sum(x > v for x in trained.values())
        where = ("below every one of them" if above == len(trained) else "above every one of them"
                 if above == 0 else f"{above} of the {len(trained)} score higher")
        chance = f" (chance {100.0 / n_test:.1f})" if n_test else ""
        out.append(f"{t}: average retrieval P@1 {v:.1f}{chance}; against the {len(trained)} "
                   f"systems trained on this data at {sizes[-1]:,} pairs: {where}.")
    return out


def gap_at(records: Sequence[Mapping[str, Any]], a: str, b: str, n: int | None,
           metric: str = "retrieval_avg") -> float | None:
    """Mean ``metric`` of system ``a`` minus that of system ``b`` at ``n`` bitext pairs
    (:func:`mean_at`); ``None`` when ``n`` is ``None`` or either has no value there.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    if n is None:
        return None
    x, y = mean_at(records, a, n, metric), mean_at(records, b, n, metric)
    return None if x is None or y is None else x - y


def crossover(records: Sequence[Mapping[str, Any]], a: str, b: str,
              metric: str = "retrieval_avg") -> int | None:
    """The fewest bitext pairs at which system ``a`` reaches system ``b`` (:func:`gap_at` >= 0);
    ``None`` if it never does within the sizes run.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    return next((n for n in record_sizes(records)
                 if (g := gap_at(records, a, b, n, metric)) is not None and g >= 0),
                None)
