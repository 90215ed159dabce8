"""Tables 3.1-3.4 from our runs, in the paper's labels, and section 3.1's claims declared as data.

Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from xsent_lib.encoders.baselines import REFERENCE_ENCODERS
from xsent_lib.eval.suite import MLP_KINDS, SINGLE_KINDS, Suite
from xsent_lib.recipes.senteval.baselines import Baseline
from xsent_lib.results.claims import Claim, PaperCell, Weaker
from xsent_lib.results.paper import paper_table

PAPER_COLUMNS_33 = ("MR", "CR", "SUBJ", "MPQA", "SST-2", "SST-5", "TREC", "MRPC acc", "MRPC F1", "SICK-E")
PAPER_GROUP = "Representation learning (transfer)"
SUITE_TABLE_COLUMNS = ("task", "stands in for", "data", "N", "what", "C / output", "example", "label", "paper N",
                       "paper C")


def suite_table(suite: Suite, single: bool = True) -> pd.DataFrame:
    """Table 3.1 (``single=True``: single-sentence tasks) or 3.2 (pair tasks) for our suite, beside the paper's N and C.

    A suite without such tasks (e.g. SentEval's data holding MR alone) gives an empty table with the same columns.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    table_id = "table_3_1" if single else "table_3_2"
    paper = paper_table("thesis", table_id)
    c_col = "C" if single else "output classes"
    rows = []
    for t in suite.select(SINGLE_KINDS if single else ("pairs", "relatedness", "sts")):
        out = f"[{t.score_range[0]}, {t.score_range[1]}]" if t.n_classes is None else t.n_classes
        ref = {"STS'14": "STS14"}.get(t.paper, t.paper)  # Table 3.2 spells it without the apostrophe
        known = ref in paper.index
        rows.append({"task": t.name, "stands in for": t.paper or "-", "data": t.source, "N": t.n_items,
                     "what": t.description, "C / output": out, **t.example(),
                     "paper N": 1000 * float(paper.at[ref, "N (thousands)"]) if known else None,
                     "paper C": paper.at[ref, c_col] if known else None})
    return pd.DataFrame(rows, columns=list(SUITE_TABLE_COLUMNS)).set_index("task")


# --------------------------------------------------------------------------------------------- tables
def _paper_label(baseline: Baseline, suffix: str) -> str:
    if baseline.paper_row is None:
        return f"{baseline.name} {suffix}".strip()
    return f"{PAPER_GROUP} / {baseline.paper_row} {suffix}".strip()


def table_3_3_ours(baselines: Sequence[Baseline], suite: Suite, results: Mapping[str, Mapping[str, Any]]) -> dict:
    """Our Table 3.3: rows ``<model> LogReg`` / ``<model> MLP`` (the paper's labels where the model matches),
    columns the SentEval names our classifier tasks stand in for; accuracies (and MRPC F1) in percent. A model
    without classifier results gives no row (a suite may hold no such task).
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
            if row:
                rows[_paper_label(b, clf)] = row
    return rows


def table_3_4_ours(baselines: Sequence[Baseline], suite: Suite, results: Mapping[str, Mapping[str, Any]]) -> dict:
    """Our Table 3.4 (Pearson x100 as fractions; ``compare(..., scale=100)``): STS tasks give the paper's ``mean``
    over subsets under the paper's column, plus ``wmean``, ``all`` and every subset; relatedness and regression
    tasks give test Pearson. A model without such results gives no row: a suite without STS or relatedness tasks
    (e.g. SentEval's data holding MR alone) gives ``{}``.
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
        if row:
            rows[_paper_label(b, "" if b.paper_row is None else "BoW")] = row
    return rows


def _mean(row: Mapping[str, float], cols: Sequence[str]) -> float | None:
    vals = [row[c] for c in cols if row.get(c) is not None and np.isfinite(row[c])]
    return float(np.mean(vals)) if vals else None


_G = f"{PAPER_GROUP} / "


def _cell(table: str, row: str, column: str) -> PaperCell:
    return PaperCell("thesis", table, _G + row, column)


SENTEVAL_CLAIMS: tuple[Claim, ...] = (
    Claim("'the average of pretrained word embeddings which is a powerful baseline': within 5 points of the best "
          "sentence encoder (mean accuracy)", "best trained encoder minus bag", "<=", 5.0,
          (_cell("table_3_3", "SkipThought", "MR"), _cell("table_3_3", "GloVe LogReg", "MR")),
          note="'powerful' read as within 5 points; LogReg accuracy averaged over the classifier tasks both "
               "models ran; reference sub-suite first"),
    Claim("An MLP adds at most 2 points over logistic regression (mean over tasks; a reading of Table 3.3)",
          "largest MLP gain", "<=", 2.0,
          (_cell("table_3_3", "GloVe MLP", "MR"), _cell("table_3_3", "GloVe LogReg", "MR")),
          note="the largest mean gain over the models run with both classifiers"),
    Claim("'We do not observe any improvement over Logistic Regression for methods that already have a large "
          "embedding size'", "MLP gain of the largest embedding", "<=", 0.0,
          "no MLP gain for SkipThought, the largest embedding of Table 3.3 (4800 dimensions)",
          note="mean MLP gain of our largest embedding",
          weaker=Weaker("a gain of at most half a point (within classifier noise)", "MLP gain of the largest embedding",
                        "<=", 0.5)),
    Claim("Word vectors trained like fastText beat GloVe on every unsupervised STS column (Table 3.4)",
          "own skip-gram above GloVe BoW: STS columns", "==", "STS columns compared",
          (_cell("table_3_4", "fastText BoW", "STS'14"), _cell("table_3_4", "GloVe BoW", "STS'14")),
          note="Pearson of the STS columns both bags ran (the paper: 5 of 5)",
          weaker=Weaker("above on the mean over those columns", "own skip-gram minus GloVe BoW STS", ">", 0.0)),
    Claim("Cosine STS scores below a trained relatedness head on the same kind of pairs (a reading of Table 3.4)",
          "bag BoW STS", "<", "bag BoW relatedness",
          (_cell("table_3_4", "GloVe BoW", "STS'14"), _cell("table_3_4", "GloVe BoW", "SICK-R")),
          note="Pearson x100 of the GloVe bag, else our own skip-gram bag"),
    Claim("Every baseline beats content-free random vectors by a wide margin (>= 5 points)",
          "smallest lift over random vectors", ">=", 5.0, "(not in the thesis)"),
)


def senteval_numbers(t33: Mapping[str, Mapping[str, float]], t34: Mapping[str, Mapping[str, float]],
                     dims: Mapping[str, int], t33_reference: Mapping[str, Mapping[str, float]] | None = None,
                     trained: Sequence[str] = tuple(REFERENCE_ENCODERS)) -> dict[str, float | None]:
    """The numbers :data:`SENTEVAL_CLAIMS` test, from our tables (None: not measurable in this run).

    ``t33``/``t34`` are :func:`table_3_3_ours` / :func:`table_3_4_ours` outputs, ``dims`` the embedding size
    per model (:attr:`Baseline.key`), ``t33_reference`` the Table 3.3 rows on the reference sub-suite (where the
    ``trained`` sentence encoders and GloVe share the data).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    cols33 = [c for c in PAPER_COLUMNS_33 if c != "MRPC F1"]
    out: dict[str, float | None] = {c.lhs: None for c in SENTEVAL_CLAIMS}
    out.update({"bag BoW relatedness": None, "STS columns compared": None, "own skip-gram minus GloVe BoW STS": None})

    def model_of(label: str) -> str:
        return label.removeprefix(_G).rsplit(" ", 1)[0]

    # 1. bag of word vectors against the best trained sentence encoder
    logreg = {model_of(k): v for k, v in (t33_reference or t33).items() if k.endswith(" LogReg")}
    bag = "GloVe" if "GloVe" in logreg else ("fastText" if "fastText" in logreg else None)
    others = {k: v for k, v in logreg.items() if k in trained}
    if bag and others:
        cols = [c for c in logreg[bag] if c in cols33 and all(c in v for v in others.values())]
        best = max(others, key=lambda k: _mean(others[k], cols) or -np.inf)
        out["best trained encoder minus bag"] = _mean(others[best], cols) - _mean(logreg[bag], cols)
    # 2. MLP over LogReg, per model, from the reference sub-suite first: there the models share the data
    gains: dict[str, float] = {}
    for table in (t33_reference or {}, t33):
        for k, v in table.items():
            if k.endswith(" MLP") and k[:-4] + " LogReg" in table:
                lr = table[k[:-4] + " LogReg"]
                cols = [c for c in v if c in lr and c != "MRPC F1"]
                gains.setdefault(model_of(k), float(np.mean([v[c] - lr[c] for c in cols])))
    if gains:
        out["largest MLP gain"] = max(gains.values())
        sized = {m: d for m, d in gains.items() if m in dims}
        if len(sized) >= 2:
            out["MLP gain of the largest embedding"] = sized[max(sized, key=dims.get)]
    # 3. own skip-gram against GloVe on STS; 4. cosine STS against trained relatedness
    sts_cols = ["STS'12", "STS'13", "STS'14", "STS'15", "STS'16"]
    ours_ft, ours_gv = t34.get(_G + "fastText BoW", {}), t34.get(_G + "GloVe BoW", {})
    sts_ours = [c for c in sts_cols if c in ours_ft and c in ours_gv]
    if sts_ours:
        out["own skip-gram minus GloVe BoW STS"] = 100 * (_mean(ours_ft, sts_ours) - _mean(ours_gv, sts_ours))
        out["own skip-gram above GloVe BoW: STS columns"] = float(sum(ours_ft[c] > ours_gv[c] for c in sts_ours))
        out["STS columns compared"] = float(len(sts_ours))
    for row in (ours_gv, ours_ft):
        if row and "SICK-R" in row and any(c in row for c in sts_cols):
            out["bag BoW STS"] = 100 * _mean(row, [c for c in sts_cols if c in row])
            out["bag BoW relatedness"] = 100 * row["SICK-R"]
            break
    # 5. the floor: content-free vectors against every other baseline
    floor = {k: v for k, v in t33.items() if k.startswith("Random sentence vectors LogReg")}
    if floor:
        f = next(iter(floor.values()))
        bags = {model_of(k): v for k, v in t33.items() if k.endswith(" LogReg") and "Random" not in k}
        cols = [c for c in f if c in PAPER_COLUMNS_33 and c != "MRPC F1"]
        if bags and cols:
            out["smallest lift over random vectors"] = min(_mean(v, cols) - _mean(f, cols) for v in bags.values())
    return out
