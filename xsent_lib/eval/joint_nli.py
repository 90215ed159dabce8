"""A joint NLI model (one encoder per language, one shared classifier) read across languages: its
NLI accuracy with premise and hypothesis in the same or in different languages, and its nearest
neighbours (Aldarmaki & Diab's Tables 1-2).

Book: chapter 7 (Joint vs transfer vs mapping).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

from xsent_lib.data.xnli import XNLIBenchmark
from xsent_lib.eval.alignment_curves import nearest_neighbours
from xsent_lib.train.joint import JointRun


def nli_accuracy_table(joint: JointRun, bench: XNLIBenchmark, languages: Sequence[str],
                       columns: Mapping[str, str] | None = None,
                       device: str | torch.device = "cpu") -> dict[str, float]:
    """The joint model's NLI test accuracy (``bench.test``, percent) with premise and hypothesis in
    the same language (one entry per language, named ``columns.get(lang, lang)``) and in different
    languages (``cross-lingual``: the average over all ordered pairs of ``languages``); the test
    sets translate each other, so the first language's labels serve all.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    if len(languages) < 2:
        raise ValueError("need at least two languages for the cross-lingual accuracy, got "
                         f"{list(languages)}.")
    columns = columns or {}
    out: dict[str, float] = {}
    cross = []
    vecs = {lang: (joint.encoders[lang].encode(list(bench.test[lang].premises), device=device),
                   joint.encoders[lang].encode(list(bench.test[lang].hypotheses), device=device))
            for lang in languages}
    labels = np.asarray(bench.test[languages[0]].labels)
    clf = joint.head.eval()
    with torch.no_grad():
        for a in languages:
            for b in languages:
                logits = clf(torch.from_numpy(vecs[a][0]), torch.from_numpy(vecs[b][1]))
                acc = 100.0 * float((logits.argmax(1).numpy() == labels).mean())
                if a == b:
                    out[columns.get(a, a)] = acc
                else:
                    cross.append(acc)
    out["cross-lingual"] = float(np.mean(cross))
    return out


def neighbour_tables(joint: JointRun, bench: XNLIBenchmark, languages: Sequence[str],
                     queries: Sequence[int] = (0, 1), k: int = 3, device: str | torch.device = "cpu"
                     ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Tables 1-2 from a joint model: for the English test hypotheses ``queries`` of ``bench``, the
    ``k`` nearest hypotheses in each of ``languages`` (English first; Table 1: the query's own
    language English, and its translation's neighbours in each other language = monolingual; Table
    2: the English query against the other languages' hypotheses = cross-lingual), non-English
    neighbours shown through their exact English translations (``bench.translate``).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    if languages[0] != "en" or bench.translate is None:
        raise ValueError("need English first in languages and a benchmark that translates "
                         "into English.")
    hyps = {lang: list(bench.test[lang].hypotheses) for lang in languages}
    vecs = {lang: joint.encoders[lang].encode(hyps[lang], device=device) for lang in languages}
    gloss = lambda lang, s: s if lang == "en" else bench.translate([s], lang, "en")[0]  # noqa: E731
    mono, cross = [], []
    for q in queries:
        for lang in languages:
            idx = [j for j in nearest_neighbours(vecs[lang][[q]], vecs[lang], k + 1)[0]
                   if j != q][:k]
            mono.append({"query": hyps["en"][q], "language": lang,
                         **{f"NN{i + 1}": gloss(lang, hyps[lang][j]) for i, j in enumerate(idx)}})
            if lang != "en":
                cidx = nearest_neighbours(vecs["en"][[q]], vecs[lang], k)[0]
                cross.append({"query": hyps["en"][q], "language": lang,
                              **{f"NN{i + 1}": gloss(lang, hyps[lang][j]) for i,
                                 j in enumerate(cidx)},
                              "translation found": bool(q in cidx)})
    return mono, cross
