"""Tables 3.1-3.4 from our runs, in the paper's labels, and section 3.1's claims declared as data.

Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from xsent_lib.encoders.baselines import REFERENCE_ENCODERS
from xsent_lib.eval.suite import MLP_KINDS, SINGLE_KINDS, Suite
from xsent_lib.recipes.senteval.baselines import Baseline
from xsent_lib.results.claims import Absent, Claim, ClaimSet, PaperCell, Weaker
from xsent_lib.results.paper import paper_table

PAPER_COLUMNS_33 = ("MR", "CR", "SUBJ", "MPQA", "SST-2", "SST-5", "TREC", "MRPC acc", "MRPC F1",
                    "SICK-E")
PAPER_GROUP = "Representation learning (transfer)"
SUITE_TABLE_COLUMNS = ("task", "stands in for", "data", "N", "what", "C / output", "example",
                       "label", "paper N", "paper C")


def suite_table(suite: Suite, single: bool = True) -> pd.DataFrame:
    """Table 3.1 (``single=True``: single-sentence tasks) or 3.2 (pair tasks) for our suite, beside
    the paper's N and C.

    A suite without such tasks (e.g. SentEval's data holding MR alone) gives an empty table with the
    same columns.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    table_id = "table_3_1" if single else "table_3_2"
    paper = paper_table("thesis", table_id)
    c_col = "C" if single else "output classes"
    rows = []
    for t in suite.select(SINGLE_KINDS if single else ("pairs", "relatedness", "sts")):
        out = f"[{t.score_range[0]}, {t.score_range[1]}]" if t.n_classes is None else t.n_classes
        ref = {"STS'14": "STS14"}.get(t.paper,
                                      t.paper)  # Table 3.2 spells it without the apostrophe
        known = ref in paper.index
        rows.append({"task": t.name, "stands in for": t.paper or "-", "data": t.source,
                     "N": t.n_items,
                     "what": t.description, "C / output": out, **t.example(),
                     "paper N": 1000 * float(paper.at[ref, "N (thousands)"]) if known else None,
                     "paper C": paper.at[ref, c_col] if known else None})
    return pd.DataFrame(rows, columns=list(SUITE_TABLE_COLUMNS)).set_index("task")


# ---------------------------------------------------------------------------------------------
# tables
def _paper_label(baseline: Baseline, suffix: str) -> str:
    if baseline.paper_row is None:
        return f"{baseline.name} {suffix}".strip()
    return f"{PAPER_GROUP} / {baseline.paper_row} {suffix}".strip()


def table_3_3_ours(baselines: Sequence[Baseline], suite: Suite,
                   results: Mapping[str, Mapping[str, Any]]) -> dict:
    """Our Table 3.3: rows ``<model> LogReg`` / ``<model> MLP`` (the paper's labels where the model
    matches), columns the SentEval names our classifier tasks stand in for; accuracies (and MRPC F1)
    in percent. A model without classifier results gives no row (a suite may hold no such task).

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


def table_3_4_ours(baselines: Sequence[Baseline], suite: Suite,
                   results: Mapping[str, Mapping[str, Any]]) -> dict:
    """Our Table 3.4 (Pearson x100 as fractions; ``compare(..., scale=100)``): STS tasks give the
    paper's ``mean`` over subsets under the paper's column, plus ``wmean``, ``all`` and every
    subset; relatedness and regression tasks give test Pearson. A model without such results gives
    no row: a suite without STS or relatedness tasks (e.g. SentEval's data holding MR alone) gives
    ``{}``.

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
                row[f"{t.name} wmean"] = r["wmean"]["pearson"]
                row[f"{t.name} all"] = r["all"]["pearson"]
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


Number = float | Absent


@dataclass(frozen=True)
class SentEvalClaimNumbers:
    """The numbers :data:`CLAIMS` compare, from our tables (:func:`senteval_numbers`) or the
    thesis's (:func:`paper_numbers`): accuracy points and Pearson x 100;
    :class:`~xsent_lib.results.claims.Absent` where the tables lack what a number needs (no
    reference encoder in the profile, no GloVe, no MLP row).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    best_trained_minus_bag: Number
    largest_mlp_gain: Number
    mlp_gain_largest_embedding: Number
    own_above_glove_sts_columns: Number
    sts_columns_compared: Number
    own_minus_glove_sts: Number
    bag_sts: Number
    bag_relatedness: Number
    smallest_lift_over_random: Number


_BASELINES = "thesis §3.1.4 (Baselines), Table 3.3"
_QUOTE_T34 = ("Table 3.4: Evaluation of sentence representations on the semantic textual "
              "similarity benchmarks.")

CLAIMS: tuple[Claim, ...] = (
    Claim("'the average of pretrained word embeddings which is a powerful baseline': within 5 "
          "points of the best sentence encoder (mean "
          "accuracy)", "best_trained_minus_bag", "<=", 5.0,
          (_cell("table_3_3", "SkipThought", "MR"), _cell("table_3_3", "GloVe LogReg", "MR")),
          note="'powerful' read as within 5 points; LogReg accuracy averaged over the classifier "
               "tasks both models ran; reference sub-suite first",
          id="ch02.bag_is_powerful",
          where="thesis, introduction (Monolingual Sentence Representations)",
          quote="We show that it significantly outperforms previous approaches, including the "
                "average of pretrained word embeddings which is a powerful baseline, in particular "
                "for classification benchmarks."),
    Claim("An MLP adds at most 2 points over logistic regression (mean over tasks; a reading of "
          "Table 3.3)",
          "largest_mlp_gain", "<=", 2.0,
          (_cell("table_3_3", "GloVe MLP", "MR"), _cell("table_3_3", "GloVe LogReg", "MR")),
          note="the largest mean gain over the models run with both classifiers",
          id="ch02.mlp_small_gain", where=_BASELINES,
          quote="For GloVe and fastText bag-of-words representations, we report the results for "
                "Logistic Regression and Multi-Layer Perceptron (MLP)."),
    Claim("'We do not observe any improvement over Logistic Regression for methods that already "
          "have a large embedding size'", "mlp_gain_largest_embedding", "<=", 0.0,
          "no MLP gain for SkipThought, the largest embedding of Table 3.3 (4800 dimensions)",
          note="mean MLP gain of our largest embedding",
          weaker=Weaker("a gain of at most half a point (within classifier noise)",
                        "mlp_gain_largest_embedding", "<=", 0.5,
                        id="ch02.mlp_no_gain_large_half_point"),
          id="ch02.mlp_no_gain_large", where=_BASELINES,
          quote="We do not observe any improvement over Logistic Regression for methods that "
                "already have a large embedding size (4800 for SkipThought)."),
    Claim("Word vectors trained like fastText beat GloVe on every unsupervised STS column (a "
          "reading of Table 3.4)", "own_above_glove_sts_columns", "==", "sts_columns_compared",
          (_cell("table_3_4", "fastText BoW", "STS'14"), _cell("table_3_4", "GloVe BoW", "STS'14")),
          note="Pearson of the STS columns both bags ran (the paper: 5 of 5)",
          weaker=Weaker("above on the mean over those columns", "own_minus_glove_sts", ">", 0.0,
                        id="ch02.fasttext_beats_glove_sts_mean"),
          id="ch02.fasttext_beats_glove_sts",
          where="thesis §3.1.4, Table 3.4 (the table's numbers)",
          quote=_QUOTE_T34),
    Claim("Cosine STS scores below a trained relatedness head on the same kind of pairs (a reading "
          "of Table 3.4)", "bag_sts", "<", "bag_relatedness",
          (_cell("table_3_4", "GloVe BoW", "STS'14"), _cell("table_3_4", "GloVe BoW", "SICK-R")),
          note="Pearson x100 of the GloVe bag, else our own skip-gram bag",
          id="ch02.cosine_below_trained_head",
          where="thesis §3.1.4, Table 3.4 (the table's numbers)",
          quote=_QUOTE_T34),
)


def senteval_numbers(t33: Mapping[str, Mapping[str, float]], t34: Mapping[str, Mapping[str, float]],
                     dims: Mapping[str, int],
                     t33_reference: Mapping[str, Mapping[str, float]] | None = None,
                     trained: Sequence[str] = tuple(REFERENCE_ENCODERS)) -> SentEvalClaimNumbers:
    """The numbers :data:`CLAIMS` test, from our tables (Absent: what a number needs is not in
    them).

    ``t33``/``t34`` are :func:`table_3_3_ours` / :func:`table_3_4_ours` outputs, ``dims`` the
    embedding size per model (:attr:`Baseline.key`), ``t33_reference`` the Table 3.3 rows on the
    reference sub-suite (where the ``trained`` sentence encoders and GloVe share the data).
    ``smallest_lift_over_random`` (every bag against content-free random vectors) is ours, not the
    thesis's: the chapter shows it beside the claims.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    cols33 = [c for c in PAPER_COLUMNS_33 if c != "MRPC F1"]
    out: dict[str, Number] = {
        "best_trained_minus_bag": Absent("no trained sentence encoder beside a bag of vectors"),
        "largest_mlp_gain": Absent("no model ran with both classifiers"),
        "mlp_gain_largest_embedding": Absent("fewer than two models of known size ran with both "
                                             "classifiers"),
        **dict.fromkeys(("own_above_glove_sts_columns", "sts_columns_compared",
                         "own_minus_glove_sts"),
                        Absent("no STS column with both the GloVe and our own skip-gram bag")),
        **dict.fromkeys(("bag_sts", "bag_relatedness"),
                        Absent("no bag with both STS and SICK-R columns")),
        "smallest_lift_over_random": Absent("no random sentence vectors row")}

    def model_of(label: str) -> str:
        return label.removeprefix(_G).rsplit(" ", 1)[0]

    # 1. bag of word vectors against the best trained sentence encoder
    logreg = {model_of(k): v for k, v in (t33_reference or t33).items() if k.endswith(" LogReg")}
    bag = "GloVe" if "GloVe" in logreg else ("fastText" if "fastText" in logreg else None)
    others = {k: v for k, v in logreg.items() if k in trained}
    if bag and others:
        cols = [c for c in logreg[bag] if c in cols33 and all(c in v for v in others.values())]
        best = max(others, key=lambda k: _mean(others[k], cols) or -np.inf)
        out["best_trained_minus_bag"] = _diff(_mean(others[best], cols), _mean(logreg[bag], cols))
    # 2. MLP over LogReg, per model, from the reference sub-suite first: there the models share the
    # data
    gains: dict[str, float] = {}
    for table in (t33_reference or {}, t33):
        for k, v in table.items():
            if k.endswith(" MLP") and k[:-4] + " LogReg" in table:
                lr = table[k[:-4] + " LogReg"]
                cols = [c for c in v if c in lr and c != "MRPC F1"]
                gains.setdefault(model_of(k), float(np.mean([v[c] - lr[c] for c in cols])))
    if gains:
        out["largest_mlp_gain"] = max(gains.values())
        sized = {m: d for m, d in gains.items() if m in dims}
        if len(sized) >= 2:
            out["mlp_gain_largest_embedding"] = sized[max(sized, key=dims.get)]
    # 3. own skip-gram against GloVe on STS; 4. cosine STS against trained relatedness
    sts_cols = ["STS'12", "STS'13", "STS'14", "STS'15", "STS'16"]
    ours_ft, ours_gv = t34.get(_G + "fastText BoW", {}), t34.get(_G + "GloVe BoW", {})
    sts_ours = [c for c in sts_cols if c in ours_ft and c in ours_gv]
    if sts_ours:
        out["own_minus_glove_sts"] = 100 * _diff(_mean(ours_ft, sts_ours), _mean(ours_gv, sts_ours))
        out["own_above_glove_sts_columns"] = float(sum(ours_ft[c] > ours_gv[c] for c in sts_ours))
        out["sts_columns_compared"] = float(len(sts_ours))
    for row in (ours_gv, ours_ft):
        if row and "SICK-R" in row and any(c in row for c in sts_cols):
            out["bag_sts"] = 100 * _diff(_mean(row, [c for c in sts_cols if c in row]), 0.0)
            out["bag_relatedness"] = 100 * row["SICK-R"]
            break
    # 5. the floor: content-free vectors against every other baseline
    floor = {k: v for k, v in t33.items() if k.startswith("Random sentence vectors LogReg")}
    if floor:
        f = next(iter(floor.values()))
        bags = {model_of(k): v for k, v in t33.items()
                if k.endswith(" LogReg") and "Random" not in k}
        cols = [c for c in f if c in PAPER_COLUMNS_33 and c != "MRPC F1"]
        if bags and cols:
            out["smallest_lift_over_random"] = min(_diff(_mean(v, cols),
                                                         _mean(f, cols)) for v in bags.values())
    return SentEvalClaimNumbers(**out)


def _diff(a: float | None, b: float | None) -> float:
    """``a - b``; NaN when a mean had no finite value (the method gave none: the claim then
    fails)."""
    return float("nan") if a is None or b is None else a - b


def paper_numbers() -> SentEvalClaimNumbers:
    """The same numbers from the thesis's stored Tables 3.3 and 3.4 (SkipThought the trained
    encoder, the fastText bag in our skip-gram bag's place); the thesis prints no MLP row for
    SkipThought, its largest embedding, and no random-vector row: Absent.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    t33, t34 = paper_table("thesis", "table_3_3"), paper_table("thesis", "table_3_4")

    def rows(frame: pd.DataFrame, labels: dict[str, str], scale: float = 1.0) -> dict[str,
                                                                                      dict[str,
                                                                                           float]]:
        return {_G + ours: {c: float(v) / scale for c,
                            v in frame.loc[_G + row].items() if np.isfinite(v)}
                for ours, row in labels.items()}

    table33 = rows(t33,
                   {f"{m} {c}": f"{m} {c}" for m in ("GloVe", "fastText") for c in ("LogReg",
                                                                                    "MLP")}
                   | {"SkipThought LogReg": "SkipThought"})
    table34 = rows(t34, {"GloVe BoW": "GloVe BoW", "fastText BoW": "fastText BoW"}, scale=100.0)
    numbers = senteval_numbers(table33, table34, {"GloVe": 300, "fastText": 300},
                               trained=("SkipThought",))
    return replace(numbers, mlp_gain_largest_embedding=Absent(
        "the paper's Table 3.3 has no MLP row for SkipThought (4800 dimensions)"))


CLAIM_SET = ClaimSet("02_senteval", CLAIMS, paper_numbers)
