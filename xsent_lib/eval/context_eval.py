"""What chapter 9 measures after every round: XNLI-style accuracy with frozen features and an MLP
trained on English (the paper's Table 1 protocol), help-module classification from one language to
another (Table 2's), and the precision of mined pairs on a held-out gold alignment (ours: the paper
has no gold alignment).
Book: chapter 9 (Multilingual embeddings from monolingual text).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from xsent_lib.base.threads import single_thread
from xsent_lib.data.formats import NLIData
from xsent_lib.data.monodocs import MonoDocs
from xsent_lib.data.xnli import XNLIBenchmark
from xsent_lib.eval.frozen_mlp import frozen_mlp_transfer, wang_pair_features
from xsent_lib.train.context import gold_pair_precision

#: ``texts -> vectors``
Encode = Callable[[Sequence[str]], np.ndarray]


def xnli_accuracy(encode: Encode, bench: XNLIBenchmark, hidden: Sequence[int],
                  seed: int) -> dict[str, float]:
    """Table 1 protocol: frozen ``[u, v, u*v, |u-v|]``, MLP on English train, early stop on English
    dev, test all. Runs on one torch thread: the small MLP is several times faster without thread
    hand-offs.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    def feats(d: NLIData) -> np.ndarray:
        return wang_pair_features(encode(list(d.premises)), encode(list(d.hypotheses)))

    with single_thread():
        tests = {lang: (feats(d), np.asarray(d.labels)) for lang, d in bench.test.items()}
        return frozen_mlp_transfer(feats(bench.train), np.asarray(bench.train.labels),
                                   feats(bench.dev["en"]), np.asarray(bench.dev["en"].labels),
                                   tests, hidden=hidden, seed=seed)


def classification_accuracy(encode: Encode, docs: MonoDocs, hidden: Sequence[int],
                            seed: int) -> dict[str, float]:
    """Table 2 protocol: help-module classification trained on one language, tested on another
    (``"en-es"`` = train English, test Spanish), on held-out pages; the MLP runs on one torch
    thread.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    out = {}
    vec = {lang: (encode(tr), y, encode(te), yt) for lang, (tr, y, te, yt) in docs.labelled.items()}
    for a in docs.langs:
        xa, ya, _, _ = vec[a]
        n_dev = len(xa) // 5
        tests = {b: (vec[b][2], vec[b][3]) for b in docs.langs}
        with single_thread():
            acc = frozen_mlp_transfer(xa[n_dev:], ya[n_dev:], xa[:n_dev], ya[:n_dev], tests,
                                      hidden=hidden, seed=seed)
        out.update({f"{a}-{b}": v for b, v in acc.items()})
    return out


def gold_precisions(encode: Encode, docs: MonoDocs, n_keep: int) -> dict[str, float]:
    """Mined-pair precision (percent) on each held-out gold alignment.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    out = {}
    for (a, b), (sa, sb) in docs.gold.items():
        out[f"{a}-{b}"] = gold_pair_precision(encode(sa), encode(sb), n_keep=min(n_keep, len(sa)))
    return out
