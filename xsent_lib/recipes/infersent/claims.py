"""The claims of thesis section 3.2 (chapter 3) as data: :data:`CLAIMS` with ids and the thesis's
sentences, the typed record :class:`InferSentClaimNumbers` they read, :func:`infersent_numbers`
(from this run's tables) and :func:`paper_numbers` (from the thesis's), joined in :data:`CLAIM_SET`.

Book: chapter 3 (InferSent).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from xsent_lib.results.claims import Absent, Claim, ClaimSet, PaperCell, Weaker
from xsent_lib.results.paper import paper_table

from . import PAPER_ROWS

# the thesis's row labels of Tables 3.7 and 3.8 that the claims compare
_T37_TRAINED = "Supervised representation training / BiLSTM-Max (on SNLI)"
_T37_UNTRAINED = ("Unsupervised representation training (unordered sentences) / "
                  "BiLSTM-Max (untrained)")
_T37_BOW = "Unsupervised representation training (unordered sentences) / GloVe BOW"
_T38 = "Pre-trained sentence representations / "

# Table 3.7's ten columns, each with its headline number (MRPC: accuracy; STS14: Pearson).
TABLE_3_7_MAIN: tuple[str, ...] = ("MR", "CR", "SUBJ", "MPQA", "SST", "TREC", "MRPC acc", "SICK-R",
                                   "SICK-E",
                                   "STS14 Pearson")
# The architectures for which the thesis finds size "particularly" helpful (Figure 3.5's text).
SIZE_GAINERS: tuple[str, ...] = ("BiLSTM-Max", "HConvNet", "Inner-attention")


def _cell(table: str, row: str, column: str) -> PaperCell:
    return PaperCell("thesis", table, row, column)


def _paper_columns_above(better: str, worse: str) -> str:
    """On how many of Table 3.7's ten columns the stored row ``better`` is above ``worse``, and
    which are not."""
    t = paper_table("thesis", "table_3_7").loc[[better, worse], list(TABLE_3_7_MAIN)]
    above = [c for c in TABLE_3_7_MAIN if t.loc[better, c] > t.loc[worse, c]]
    rest = [c for c in TABLE_3_7_MAIN if c not in above]
    return (f"above on {len(above)}/{len(TABLE_3_7_MAIN)} columns of Table 3.7"
            + (f" (not on {', '.join(rest)})" if rest else " (SUBJ included)"))


def _mean_accuracy(name: str, ident: str) -> Weaker:
    return Weaker("above on the mean accuracy over the shared columns (correlations left out)",
                  "trained_mean_accuracy", ">", f"{name}_mean_accuracy", id=ident)


_ARCH = "thesis §3.2.4 (Architecture impact), Table 3.6"
_SIZE = "thesis §3.2.4 (Embedding size), Figure 3.5"
_VISUAL = "thesis §3.2.5, Figures 3.6-3.9"
_QUOTE_36 = ("Table 3.6: Performance of sentence encoder architectures on SNLI and (aggregated) "
             "transfer tasks.")
_QUOTE_SIZE = ("Since it is easier to linearly separate in high dimension, especially with "
               "logistic regression, it is not surprising that increased embedding sizes lead to "
               "increased performance for almost all models.")
_QUOTE_MAXPOOL = ("Without any training, the max-pooling is rather even across hidden states, "
                  "although it seems to focus consistently more on the first and last hidden "
                  "states. When trained, the model learns to focus on specific words that carry "
                  "most of the meaning of the sentence without any explicit attention mechanism.")
_QUOTE_UNSUPERVISED = ("As we show in our experiments, we are able to consistently outperform "
                       "unsupervised approaches, even if our models are trained on much less (but "
                       "human-annotated) data.")

Number = float | Absent


@dataclass(frozen=True)
class InferSentClaimNumbers:
    """The numbers :data:`CLAIMS` compare, from this run's tables (:func:`infersent_numbers`) or the
    thesis's (:func:`paper_numbers`): accuracies in percent, recalls in percent, shares of max-pool
    dimensions in percent; :class:`~xsent_lib.results.claims.Absent` where the tables lack what a
    number needs.

    Book: chapter 3 (InferSent: discussion).
    """

    bilstm_max_nli_test: Number
    best_other_nli_test: Number
    bilstm_max_transfer_micro: Number
    best_other_transfer_micro: Number
    bilstm_max_transfer_macro: Number
    best_other_transfer_macro: Number
    bilstm_mean_nli_test: Number
    bilstm_mean_transfer_micro: Number
    inner_attention_nli_test: Number
    inner_attention_transfer_micro: Number
    lowest_other_nli_test: Number
    sweep_micro_largest: Number
    sweep_micro_smallest: Number
    models_swept: Number
    models_swept_but_one: Number
    models_rising_with_size: Number
    mean_rise_size_gainers: Number
    mean_rise_other_four: Number
    table_3_7_columns_compared: Number
    columns_trained_above_untrained: Number
    columns_trained_above_bow: Number
    trained_mean_accuracy: Number
    untrained_mean_accuracy: Number
    bow_mean_accuracy: Number
    untrained_boundary_share: Number
    trained_boundary_share: Number
    untrained_content_share: Number
    trained_content_share: Number
    trained_caption_r1: Number
    bow_caption_r1: Number
    trained_image_r1: Number
    bow_image_r1: Number


CLAIMS: tuple[Claim, ...] = (
    Claim("'The BiLSTM-4096 with the max-pooling operation performs best on both SNLI and transfer "
          "tasks' (micro and macro)", "bilstm_max_nli_test", ">", "best_other_nli_test",
          (_cell("table_3_6", "BiLSTM-Max", "NLI test"), _cell("table_3_6", "HConvNet", "NLI test"),
           _cell("table_3_6", "BiLSTM-Max", "Transfer micro"),
           _cell("table_3_6", "BiLSTM-Mean", "Transfer micro")),
          also=(("bilstm_max_transfer_micro", ">", "best_other_transfer_micro"),
                ("bilstm_max_transfer_macro", ">", "best_other_transfer_macro")),
          id="ch03.bilstm_max_best", where=_ARCH,
          quote="The BiLSTM-4096 with the max-pooling operation performs best on both SNLI and "
                "transfer tasks."),
    Claim("BiLSTM-Mean has the lowest NLI test accuracy of the seven (a reading of Table 3.6; the "
          "text does not say it)", "bilstm_mean_nli_test", "<", "lowest_other_nli_test",
          (_cell("table_3_6", "BiLSTM-Mean", "NLI test"), _cell("table_3_6", "LSTM", "NLI test")),
          id="ch03.bilstm_mean_lowest_nli", where="thesis §3.2.4, Table 3.6 (the table's numbers)",
          quote=_QUOTE_36),
    Claim("'better performance on the training task does not necessarily translate in better "
          "results on the transfer tasks like when comparing inner-attention and "
          "BiLSTM-Mean'", "inner_attention_nli_test",
          ">", "bilstm_mean_nli_test",
          (_cell("table_3_6", "Inner-attention", "NLI test"),
           _cell("table_3_6", "BiLSTM-Mean", "NLI test"),
           _cell("table_3_6", "Inner-attention", "Transfer micro"),
           _cell("table_3_6", "BiLSTM-Mean", "Transfer micro")),
          note="inner-attention above on NLI, below on transfer (micro)",
          also=(("inner_attention_transfer_micro", "<", "bilstm_mean_transfer_micro"),),
          id="ch03.nli_not_transfer", where=_ARCH,
          quote="Table 3.6 also shows that better performance on the training task does not "
                "necessarily translate in better results on the transfer tasks like when comparing "
                "inner-attention and BiLSTM-Mean for instance."),
    Claim("'increased embedding sizes lead to increased performance for almost all models' "
          "(Figure 3.5)",
          "models_rising_with_size", ">=", "models_swept_but_one",
          "Figure 3.5: transfer (micro) rises with the embedding size for almost all of the seven",
          note="a model rises when its micro at its largest size is above its smallest; 'almost "
               "all' read as all but at most one of the models swept",
          weaker=Weaker("BiLSTM-Max's own curve rises (smallest to largest size)",
                        "sweep_micro_largest",
                        ">", "sweep_micro_smallest", id="ch03.size_helps_bilstm_max"),
          id="ch03.size_helps_almost_all", where=_SIZE, quote=_QUOTE_SIZE),
    Claim("'this is particularly true for some models (BiLSTM-Max, HConvNet, inner-att)' "
          "(Figure 3.5)",
          "mean_rise_size_gainers", ">", "mean_rise_other_four",
          "Figure 3.5: the three curves rise most",
          note="rise = micro at the largest size minus the smallest, averaged over each group",
          id="ch03.size_helps_three_most", where=_SIZE,
          quote="However, this is particularly true for some models (BiLSTM-Max, HConvNet, "
                "inner-att), which demonstrate unequal abilities to incorporate more information "
                "as the size grows."),
    Claim("'we are able to consistently outperform unsupervised approaches': BiLSTM-Max (on SNLI) "
          "above the GloVe bag of words on every column of Table "
          "3.7", "columns_trained_above_bow", "==",
          "table_3_7_columns_compared", _paper_columns_above(_T37_TRAINED, _T37_BOW),
          note="our columns are the stand-ins the run has (MRPC: accuracy, STS14: Pearson)",
          weaker=_mean_accuracy("bow", "ch03.beats_bow_mean"),
          id="ch03.beats_bow", where="thesis §3.2.2, Table 3.7", quote=_QUOTE_UNSUPERVISED),
    Claim("BiLSTM-Max (on SNLI) above the same encoder untrained on every column of Table 3.7 "
          "(SUBJ included)",
          "columns_trained_above_untrained", "==", "table_3_7_columns_compared",
          _paper_columns_above(_T37_TRAINED, _T37_UNTRAINED),
          note="our columns are the stand-ins the run has (MRPC: accuracy, STS14: Pearson)",
          weaker=_mean_accuracy("untrained", "ch03.beats_untrained_mean"),
          id="ch03.beats_untrained", where="thesis §3.2.2, Table 3.7 (the untrained row is an "
                                           "unsupervised baseline "
                                           "there)", quote=_QUOTE_UNSUPERVISED),
    Claim("'Without any training, the max-pooling is rather even across hidden states, although it "
          "seems to focus consistently more on the first and last hidden "
          "states'", "untrained_boundary_share", ">",
          "trained_boundary_share", "Figures 3.6, 3.8",
          note="share of dimensions won by <s> and </s>, untrained against trained",
          id="ch03.untrained_maxpool_boundaries", where=_VISUAL, quote=_QUOTE_MAXPOOL),
    Claim("'When trained, the model learns to focus on specific words that carry most of the "
          "meaning of the "
          "sentence'", "trained_content_share", ">", "untrained_content_share", "Figures 3.7, 3.9",
          note="share of dimensions won by content words, trained against untrained",
          id="ch03.trained_maxpool_content", where=_VISUAL, quote=_QUOTE_MAXPOOL),
    Claim("'Our approach pushes the results even further, from 37.9 to 42.4 on caption retrieval, "
          "and 30.6 to 33.2 on image retrieval' (R@1, over "
          "SkipThought)", "trained_caption_r1", ">", "bow_caption_r1",
          (_cell("table_3_8", _T38 + "BiLSTM-Max (on SNLI) + ResNet101 (113k)", "Caption R@1"),
           _cell("table_3_8", _T38 + "SkipThought + ResNet101 (113k)", "Caption R@1"),
           _cell("table_3_8", _T38 + "BiLSTM-Max (on SNLI) + ResNet101 (113k)", "Image R@1"),
           _cell("table_3_8", _T38 + "SkipThought + ResNet101 (113k)", "Image R@1")),
          note="no SkipThought here: the weaker pretrained baseline is the bag of word vectors",
          also=(("trained_image_r1", ">", "bow_image_r1"),),
          id="ch03.retrieval_beats_pretrained",
          where="thesis §3.2.4 (Image-caption retrieval), Table 3.8",
          quote="Our approach pushes the results even further, from 37.9 to 42.4 on caption "
                "retrieval, and 30.6 to 33.2 on image retrieval."),
)


def _rise(points: Sequence[Mapping[str, Any]]) -> float | None:
    """Micro at the largest embedding size minus micro at the smallest (None with fewer than two
    sizes)."""
    pts = sorted(points, key=lambda p: p["dim"])
    return float(pts[-1]["micro"] - pts[0]["micro"]) if len(pts) >= 2 else None


def _number(value: Any, why: str) -> Number:
    """``value`` as a float (NaN when the method gave None), or Absent(why) when ``why`` is not
    empty."""
    if why:
        return Absent(why)
    return float("nan") if value is None else float(value)


Sweep = Sequence[Mapping[str, Any]] | Mapping[str, Sequence[Mapping[str, Any]]]


def infersent_numbers(table36: Mapping[str, Mapping[str, float]],
                      table37: Mapping[str, Mapping[str, float]],
                      sweep: Sweep,
                      maxpool: Mapping[str, Mapping[str, float]] | None,
                      ranking: Mapping[str, Mapping[str, float]]) -> InferSentClaimNumbers:
    """The numbers :data:`CLAIMS` test, from this run's tables (Absent: what a number needs is not
    here).

    ``table36`` is :func:`table_3_6_ours`; ``table37`` maps ``"trained"``, ``"untrained"`` and
    ``"bow"`` to Table 3.7 rows; ``sweep`` is Figure 3.5: Table 3.6 row label ->
    :func:`size_sweep`'s points (or the points of BiLSTM-Max alone, which leaves the claims about
    the other curves not testable); ``maxpool`` maps ``"untrained"`` / ``"trained"`` to
    :func:`~xsent_lib.eval.maxpool.maxpool_summary` (None: not measured); ``ranking`` maps
    ``"trained"`` / ``"bow"`` to Table 3.8 rows. Columns of Table 3.7 are counted over
    :data:`TABLE_3_7_MAIN` where all three rows have a number; mean accuracies run over those
    columns, correlations excluded.
    Book: chapter 3 (InferSent: discussion).
    """
    if "BiLSTM-Max" not in table36:
        raise ValueError("table36 has no 'BiLSTM-Max' row; the claims are about it.")
    curves = dict(sweep) if isinstance(sweep, Mapping) else {"BiLSTM-Max": list(sweep)}
    out: dict[str, Number] = {}
    for key, column in (("nli_test", "NLI test"), ("transfer_micro", "Transfer micro"),
                        ("transfer_macro", "Transfer macro")):
        others = [v[column] for k, v in table36.items() if k != "BiLSTM-Max" and column in v]
        out[f"bilstm_max_{key}"] = _number(table36["BiLSTM-Max"].get(column), "")
        out[f"best_other_{key}"] = _number(max(others, default=None),
                                           "" if others else "no other encoder")
    for name, key in (("BiLSTM-Mean", "bilstm_mean"), ("Inner-attention", "inner_attention")):
        row = table36.get(name)
        why = "" if row is not None else f"no {name} encoder"
        out[f"{key}_nli_test"] = _number((row or {}).get("NLI test"), why)
        out[f"{key}_transfer_micro"] = _number((row or {}).get("Transfer micro"), why)
    others = [v["NLI test"] for k, v in table36.items() if k != "BiLSTM-Mean"]
    why = "" if "BiLSTM-Mean" in table36 else "no BiLSTM-Mean encoder"
    out["lowest_other_nli_test"] = _number(min(others, default=None), why)
    # Figure 3.5
    own = sorted(curves.get("BiLSTM-Max", []), key=lambda p: p["dim"])
    why = "" if len(own) >= 2 else "BiLSTM-Max was trained at fewer than two sizes (Figure 3.5)"
    out["sweep_micro_largest"] = _number(own[-1]["micro"] if own else None, why)
    out["sweep_micro_smallest"] = _number(own[0]["micro"] if own else None, why)
    rises = {k: r for k, r in ((k, _rise(v)) for k, v in curves.items()) if r is not None}
    why = "" if len(rises) == len(PAPER_ROWS) else "not all seven curves of Figure 3.5 were swept"
    gainers = [r for k, r in rises.items() if k in SIZE_GAINERS]
    rest = [r for k, r in rises.items() if k not in SIZE_GAINERS]
    out["models_swept"] = _number(len(rises), why)
    out["models_swept_but_one"] = _number(len(rises) - 1, why)
    out["models_rising_with_size"] = _number(sum(r > 0 for r in rises.values()), why)
    out["mean_rise_size_gainers"] = _number(np.mean(gainers) if gainers else None, why)
    out["mean_rise_other_four"] = _number(np.mean(rest) if rest else None, why)
    # Table 3.7
    rows = [table37[k] for k in ("trained", "untrained", "bow")]
    common = [c for c in TABLE_3_7_MAIN
              if all(c in r and r[c] is not None and np.isfinite(r[c]) for r in rows)]
    accs = [c for c in common if c not in ("SICK-R", "STS14 Pearson")]
    why = "" if common else "no Table 3.7 column has all three rows"
    out["table_3_7_columns_compared"] = _number(len(common), why)
    for k in ("untrained", "bow"):
        out[f"columns_trained_above_{k}"] = _number(
            sum(table37["trained"][c] > table37[k][c] for c in common), why)
    for k in ("trained", "untrained", "bow"):
        mean = np.mean([table37[k][c] for c in accs]) if accs else None
        out[f"{k}_mean_accuracy"] = _number(mean, "" if accs else "no accuracy column of Table 3.7")
    for k in ("untrained", "trained"):
        why = "" if maxpool is not None else "the paper prints Figures 3.6-3.9 without numbers"
        out[f"{k}_boundary_share"] = _number((maxpool or {}).get(k, {}).get("boundary"), why)
        out[f"{k}_content_share"] = _number((maxpool or {}).get(k, {}).get("content"), why)
    why = "" if "trained" in ranking and "bow" in ranking else "no ranking of both encoders"
    for k in ("trained", "bow"):
        for side in ("caption", "image"):
            out[f"{k}_{side}_r1"] = _number(ranking.get(k, {}).get(f"{side.title()} R@1"), why)
    return InferSentClaimNumbers(**out)


def paper_numbers() -> InferSentClaimNumbers:
    """The same numbers from the thesis's stored Tables 3.6, 3.7 and 3.8 (SkipThought + ResNet101 in
    the ``bow`` place of Table 3.8, the claim's own comparison); Figures 3.5-3.9 are not stored:
    Absent.

    Book: chapter 3 (InferSent: discussion).
    """
    t36 = paper_table("thesis", "table_3_6")
    t37 = paper_table("thesis", "table_3_7")
    t38 = paper_table("thesis", "table_3_8")
    table36 = {r: {c: float(t36.loc[r, c]) for c in t36.columns} for r in t36.index}
    table37 = {k: {c: float(t37.loc[row, c]) for c in TABLE_3_7_MAIN}
               for k, row in (("trained", _T37_TRAINED), ("untrained", _T37_UNTRAINED),
                              ("bow", _T37_BOW))}
    ranking = {k: {c: float(t38.loc[_T38 + row, c]) for c in ("Caption R@1", "Image R@1")}
               for k, row in (("trained", "BiLSTM-Max (on SNLI) + ResNet101 (113k)"),
                              ("bow", "SkipThought + ResNet101 (113k)"))}
    numbers = infersent_numbers(table36, table37, {}, None, ranking)
    figure = Absent("the paper's tables do not report Figure 3.5's numbers (a plot)")
    fields = ("sweep_micro_largest", "sweep_micro_smallest", "models_swept", "models_swept_but_one",
              "models_rising_with_size", "mean_rise_size_gainers", "mean_rise_other_four")
    return replace(numbers, **dict.fromkeys(fields, figure))


CLAIM_SET = ClaimSet("03_infersent", CLAIMS, paper_numbers)
