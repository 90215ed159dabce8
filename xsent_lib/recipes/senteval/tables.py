"""Tables 3.3 and 3.4 from our runs, in the paper's labels, and the section's claims checked on them.

Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from xsent_lib.recipes.senteval.baselines import REFERENCE_ENCODERS, Baseline
from xsent_lib.recipes.senteval.suite import MLP_KINDS, PAPER_COLUMNS_33, PAPER_GROUP, Suite
from xsent_lib.results.paper import paper_table


# --------------------------------------------------------------------------------------------- tables
def _paper_label(baseline: Baseline, suffix: str) -> str:
    if baseline.paper_row is None:
        return f"{baseline.name} {suffix}".strip()
    return f"{PAPER_GROUP} / {baseline.paper_row} {suffix}".strip()


def table_3_3_ours(baselines: Sequence[Baseline], suite: Suite, results: Mapping[str, Mapping[str, Any]]) -> dict:
    """Our Table 3.3: rows ``<model> LogReg`` / ``<model> MLP`` (the paper's labels where the model matches),
    columns the SentEval names our classifier tasks stand in for; accuracies (and MRPC F1) in percent.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    rows = {}
    for b in baselines:
        for clf in ("LogReg", "MLP"):
            res = results.get(b.name, {}).get(clf)
            if not res:
                continue
            row = {}
            for t in suite.select(MLP_KINDS):
                if t.name not in res:
                    continue
                col = t.paper or t.name
                if t.paper == "MRPC":
                    row["MRPC acc"], row["MRPC F1"] = res[t.name]["acc"], res[t.name]["f1"]
                else:
                    row[col] = res[t.name]["acc"]
            rows[_paper_label(b, clf)] = row
    return rows


def table_3_4_ours(baselines: Sequence[Baseline], suite: Suite, results: Mapping[str, Mapping[str, Any]]) -> dict:
    """Our Table 3.4 (Pearson x100 as fractions; ``compare(..., scale=100)``): STS tasks give the paper's ``mean``
    over subsets under the paper's column, plus ``wmean``, ``all`` and every subset; relatedness and regression
    tasks give test Pearson.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    rows = {}
    for b in baselines:
        res = results.get(b.name, {}).get("LogReg", {})
        row = {}
        for t in suite.select(("sts", "relatedness", "regression")):
            if t.name not in res:
                continue
            r, col = res[t.name], t.paper or t.name
            if t.kind == "sts":
                row[col] = r["mean"]["pearson"]
                row[f"{t.name} wmean"], row[f"{t.name} all"] = r["wmean"]["pearson"], r["all"]["pearson"]
                row.update({f"{t.name} / {k}": v["pearson"] for k, v in r["subsets"].items()})
            else:
                row[col] = r["pearson"]
        rows[_paper_label(b, "" if b.paper_row is None else "BoW")] = row
    return rows


def _mean(row: Mapping[str, float], cols: Sequence[str]) -> float | None:
    vals = [row[c] for c in cols if row.get(c) is not None and np.isfinite(row[c])]
    return float(np.mean(vals)) if vals else None


def _claim(claim: str, paper: str, ours: str, holds: bool | None) -> dict[str, Any]:
    return {"claim": claim, "paper": paper, "ours": ours, "holds": holds}


def senteval_claims(t33: Mapping[str, Mapping[str, float]], t34: Mapping[str, Mapping[str, float]],
                    dims: Mapping[str, int], t33_reference: Mapping[str, Mapping[str, float]] | None = None,
                    trained: Sequence[str] = tuple(REFERENCE_ENCODERS)) -> list[dict[str, Any]]:
    """Section 3.1's claims checked on our numbers: ``claim | paper | ours | holds`` (None: not measurable here).

    ``t33``/``t34`` are :func:`table_3_3_ours` / :func:`table_3_4_ours` outputs, ``dims`` the embedding size
    per model (:attr:`Baseline.key`), ``t33_reference`` the Table 3.3 rows on the reference sub-suite (where the
    ``trained`` sentence encoders and GloVe share the data). Tolerances are stated in the claim text.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    paper33, paper34 = paper_table("thesis", "table_3_3"), paper_table("thesis", "table_3_4")
    g = f"{PAPER_GROUP} / "
    cols33 = [c for c in PAPER_COLUMNS_33 if c != "MRPC F1"]
    claims = []

    def model_of(label: str) -> str:
        return label.removeprefix(g).rsplit(" ", 1)[0]

    # 1. bag of word vectors within a few points of the best sentence encoder
    st, gl = paper33.loc[g + "SkipThought"], paper33.loc[g + "GloVe LogReg"]
    common = [c for c in cols33 if pd.notna(st[c])]
    paper_gap = float(st[common].mean() - gl[common].mean())
    text = "A bag of word vectors is within 5 points of the best sentence encoder (mean accuracy)"
    logreg = {model_of(k): v for k, v in (t33_reference or t33).items() if k.endswith(" LogReg")}
    bag = "GloVe" if "GloVe" in logreg else ("fastText" if "fastText" in logreg else None)
    others = {k: v for k, v in logreg.items() if k in trained}
    if bag and others:
        cols = [c for c in logreg[bag] if c in cols33 and all(c in v for v in others.values())]
        best = max(others, key=lambda k: _mean(others[k], cols) or -np.inf)
        gap = _mean(others[best], cols) - _mean(logreg[bag], cols)
        claims.append(_claim(text, f"SkipThought - GloVe LogReg = {paper_gap:+.1f}",
                             f"{best} - {bag} BoW = {gap:+.1f} ({len(cols)} tasks)", bool(gap <= 5.0)))
    else:
        claims.append(_claim(text, f"SkipThought - GloVe LogReg = {paper_gap:+.1f}",
                             "no trained sentence encoder in this run", None))
    # 2. an MLP adds little over LogReg
    paper_gain = float((paper33.loc[g + "GloVe MLP", cols33] - paper33.loc[g + "GloVe LogReg", cols33]).mean())
    gains = {}  # per model, from the reference sub-suite first: there the models share the data
    for table in (t33_reference or {}, t33):
        for k, v in table.items():
            if k.endswith(" MLP") and k[:-4] + " LogReg" in table:
                lr = table[k[:-4] + " LogReg"]
                cols = [c for c in v if c in lr and c != "MRPC F1"]
                gains.setdefault(model_of(k), float(np.mean([v[c] - lr[c] for c in cols])))
    if gains:
        worst = max(gains.values())
        claims.append(_claim("An MLP adds at most 2 points over logistic regression (mean over tasks)",
                             f"GloVe MLP - LogReg = {paper_gain:+.1f}",
                             ", ".join(f"{m} {d:+.1f}" for m, d in gains.items()), bool(worst <= 2.0)))
        sized = {m: d for m, d in gains.items() if m in dims}
        if len(sized) >= 2:
            big, small = max(sized, key=dims.get), min(sized, key=dims.get)
            claims.append(_claim("For the largest embedding an MLP gains nothing over LogReg (at most +0.5 point)",
                                 "no MLP gain for SkipThought (4800-d)",
                                 f"{big} ({dims[big]}-d) {sized[big]:+.1f}; {small} ({dims[small]}-d) {sized[small]:+.1f}",
                                 bool(sized[big] <= 0.5)))
    # 3. fastText-style vectors beat GloVe on STS; 4. unsupervised STS is harder than trained relatedness
    sts_cols = ["STS'12", "STS'13", "STS'14", "STS'15", "STS'16"]
    ft, gv = paper34.loc[g + "fastText BoW", sts_cols].mean(), paper34.loc[g + "GloVe BoW", sts_cols].mean()
    ours_ft, ours_gv = t34.get(g + "fastText BoW", {}), t34.get(g + "GloVe BoW", {})
    sts_ours = [c for c in sts_cols if c in ours_ft and c in ours_gv]
    if sts_ours:
        d = 100 * (_mean(ours_ft, sts_ours) - _mean(ours_gv, sts_ours))
        claims.append(_claim("Word vectors trained like fastText beat GloVe on unsupervised STS",
                             f"fastText - GloVe BoW = {ft - gv:+.1f}", f"own skip-gram - GloVe BoW = {d:+.1f}",
                             bool(d > 0)))
    for label, row in ((g + "GloVe BoW", ours_gv), (g + "fastText BoW", ours_ft)):
        if row and "SICK-R" in row and any(c in row for c in sts_cols):
            p = paper34.loc[g + "GloVe BoW"]
            s = 100 * _mean(row, [c for c in sts_cols if c in row])
            claims.append(_claim("Cosine STS scores below a trained relatedness head on the same kind of pairs",
                                 f"GloVe BoW: STS'12-16 {p[sts_cols].mean():.1f} vs SICK-R {p['SICK-R']:.1f}",
                                 f"{label.removeprefix(g)}: STS {s:.1f} vs relatedness {100 * row['SICK-R']:.1f}",
                                 bool(s < 100 * row["SICK-R"])))
            break
    # 5. the floor: content-free vectors are at chance, bags far above
    floor = {k: v for k, v in t33.items() if k.startswith("Random sentence vectors LogReg")}
    if floor:
        f = next(iter(floor.values()))
        bags = {model_of(k): v for k, v in t33.items() if k.endswith(" LogReg") and "Random" not in k}
        cols = [c for c in f if c in PAPER_COLUMNS_33 and c != "MRPC F1"]
        if bags and cols:
            lift = min(_mean(v, cols) - _mean(f, cols) for v in bags.values())
            claims.append(_claim("Every baseline beats content-free random vectors by a wide margin (>= 5 points)",
                                 "(not in the thesis)", f"smallest lift over the floor {lift:+.1f}", bool(lift >= 5)))
    return claims
