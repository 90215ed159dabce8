"""The claims of thesis section 3.3 declared as data, the thesis's table labels they read, and the
typed record of the numbers they compare, from a run's tables (:func:`claim_numbers`) or the
thesis's own (:func:`paper_numbers`).

Book: chapter 4 (Probing: discussion).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from xsent_lib.data.synthetic import PROBING_TASKS
from xsent_lib.eval.probing import LOGREG_ONLY
from xsent_lib.eval.probing_study import ENCODERS, row_label
from xsent_lib.eval.stats import CorrelationResult
from xsent_lib.results.claims import Absent, Claim, ClaimSet, PaperCell, Weaker
from xsent_lib.results.paper import paper_table

TABLE_3_11_ROWS: dict[str, str] = {"gated-convnet": "Gated ConvNet", "bilstm-last": "BiLSTM-last",
                                   "bilstm-max": "BiLSTM-max"}
TABLE_3_11_COLUMNS: dict[str, str] = {"nmt-fr": "En-Fr", "nmt-de": "En-De", "nmt-fi": "En-Fi",
                                      "seq2tree": "Seq2Tree", "nli": "NLI"}
# Baseline rows, by the thesis's labels (group / name); BoV is spelled differently per table.
BASELINES = "Baseline representations"
MAJORITY_ROW = f"{BASELINES} / Majority vote"
CHANCE_ROW = f"{BASELINES} / Chance"
BOV_ROWS: dict[str, str] = {"table_3_10": f"{BASELINES} / BoV-fastText",
                            "table_3_12": f"{BASELINES} / BoV fastText",
                            "table_3_13": f"{BASELINES} / BoV fastText"}
TABLE_3_13_PAPER: tuple[str, ...] = ("MR", "CR", "SUBJ", "MPQA", "SST-2", "SST-5", "TREC", "MRPC",
                                     "SICK-E",
                                     "SICK-R", "STSB")  # the thesis's eleven columns, in its order



# --------------------------------------------------------------------------------- claims
U_MAX, AE, S2T, NMT, NLI = (row_label("bilstm-max", t)
                            for t in ("untrained", "autoencoder", "seq2tree", "nmt-fr", "nli"))
SEQ2TREE_TASKS = ("TopConst", "Tense", "SubjNum", "ObjNum",
                  "TreeDepth")  # the thesis's tasks for Seq2Tree
BOV_RANDOM_TASKS = ("BShift", "SOMO", "CoordInv")  # where the thesis finds BoV "performs randomly"
MLP_GAIN_TASKS = ("TreeDepth", "SOMO", "CoordInv")  # where it finds the MLP > 3 points above LogReg
# points from the majority vote that still read as "random" (the paper's BoV: at most 4.8)
CHANCE_MARGIN = 5.0
_MAIN = "thesis §3.3.4, Table 3.10"
_QUOTE_BOV = "BoV's good WC and SentLen performance was already established by Adi et al. (2017)."
_SIZE_AND_DOWNSTREAM = "thesis §3.3.6 (Downstream task results)"


def _cells(rows: Sequence[str], columns: Sequence[str],
           table: str = "table_3_10") -> list[PaperCell]:
    return [PaperCell("thesis", table, r, c) for r in rows for c in columns]


Number = float | Absent


@dataclass(frozen=True)
class ProbingClaimNumbers:
    """The numbers :data:`CLAIMS` compare (accuracies in percent, shares in [0, 1]), from this run's
    tables or the thesis's (:func:`paper_numbers`); :class:`~xsent_lib.results.claims.Absent` where
    what a number needs is not there (a training task the profile skips, a figure the thesis prints
    without its numbers).

    Book: chapter 4 (Probing: discussion).
    """

    wc_untrained_max_over_majority: Number
    somo_untrained_max_minus_majority: Number
    sentlen_bov_over_majority: Number
    wc_bov_over_majority: Number
    bshift_bov_distance_from_majority: Number
    bov_largest_distance_from_majority: Number
    bshift_trained_max_minus_bov: Number
    max_minus_last_smallest_mean: Number
    max_beats_last_share: Number
    sentlen_autoencoder_minus_best_other: Number
    wc_autoencoder_max: Number
    wc_untrained_max: Number
    seq2tree_best_tasks: Number
    seq2tree_tasks_compared: Number
    seq2tree_smallest_gain_over_untrained: Number
    nmt_beats_nli_share: Number
    mlp_gain_mean: Number
    mlp_gain_smallest_on_hard_tasks: Number
    wc_rise_nmt: Number
    wc_rise_nmt_and_skipthought: Number
    sentlen_nmt_last_minus_peak: Number
    nli_size_gain: Number
    nmt_size_gain: Number
    wc_positive_significant_share: Number
    sentlen_negative_significant_share: Number
    sentlen_negative_share: Number
    downstream_mean_nli: Number
    downstream_mean_best_other_training: Number
    downstream_mean_untrained_max: Number
    downstream_mean_best_other_untrained: Number


# Section 3.3's claims in the thesis's words, each one test of the numbers above: the strict test at
# the thesis's threshold ("all", "every", "only"), and where our run can only support less, a weaker
# form with its own id and threshold, shown beside it.
CLAIMS: tuple[Claim, ...] = (
    Claim("'BiLSTM-max already achieves very good performance without any training': WC",
          "wc_untrained_max_over_majority", ">", 5, _cells([U_MAX, MAJORITY_ROW], ["WC"]),
          note="'very good' read as more than 5 x the majority vote (the paper: 88.8 against 0.5)",
          id="ch04.untrained_max_wc", where=_MAIN,
          quote="Perhaps most interestingly, BiLSTM-max already achieves very good performance "
                "without any training (Untrained row in Table 3.10)."),
    Claim("'BiLSTM-max already achieves very good performance without any training': SOMO, "
          "'where BoV fails'",
          "somo_untrained_max_minus_majority", ">", CHANCE_MARGIN,
          _cells([U_MAX, MAJORITY_ROW], ["SOMO"]),
          note=f"more than {CHANCE_MARGIN:g} points above the majority vote (the paper: 73.3 "
               "against 50)",
          id="ch04.untrained_max_somo", where=_MAIN,
          quote="However, good performance in a task such as SOMO, where BoV fails and positional "
                "information alone should not help (the intruder is randomly distributed across "
                "the sentence), suggests that other architectural biases are at work."),
    Claim("'BoV's good WC and SentLen performance': SentLen", "sentlen_bov_over_majority", ">", 2,
          _cells([BOV_ROWS["table_3_10"], MAJORITY_ROW], ["SentLen"]),
          note="'good' read as more than twice the majority vote (the paper: 66.6 against 20)",
          id="ch04.bov_sentlen", where=_MAIN,
          quote=_QUOTE_BOV),
    Claim("'BoV's good WC and SentLen performance': WC", "wc_bov_over_majority", ">", 10,
          _cells([BOV_ROWS["table_3_10"], MAJORITY_ROW], ["WC"]),
          note="'good' read as more than 10 x the majority vote (the paper: 91.6 against 0.5)",
          id="ch04.bov_wc", where=_MAIN,
          quote=_QUOTE_BOV),
    Claim("'word-order-unaware BoV performs randomly in BShift and in the more sophisticated "
          "semantic tasks SOMO and "
          "CoordInv'", "bov_largest_distance_from_majority", "<", CHANCE_MARGIN,
          _cells([BOV_ROWS["table_3_10"], MAJORITY_ROW], list(BOV_RANDOM_TASKS)),
          note=f"'randomly' read as within {CHANCE_MARGIN:g} points of the majority vote on "
               "each of the three",
          weaker=Weaker(f"within {CHANCE_MARGIN:g} points on BShift (word order) alone",
                        "bshift_bov_distance_from_majority", "<", CHANCE_MARGIN,
                        id="ch04.bov_random_bshift"),
          id="ch04.bov_random", where=_MAIN,
          quote="Not surprisingly, word-order-unaware BoV performs randomly in BShift and in the "
                "more sophisticated semantic tasks SOMO and CoordInv."),
    Claim("'proper encoding architectures clearly outperform BoV': BShift",
          "bshift_trained_max_minus_bov",
          ">", CHANCE_MARGIN, _cells([S2T, BOV_ROWS["table_3_10"]], ["BShift"]),
          note=f"more than {CHANCE_MARGIN:g} points; trained: NMT En-Fr and Seq2Tree",
          id="ch04.encoders_beat_bov", where=_MAIN,
          quote="Comfortingly, proper encoding architectures clearly outperform BoV."),
    Claim("BiLSTM-max outperforms BiLSTM-last in the probing tasks, for every training (restated: "
          "the thesis's 'only in SentLen' does not hold in its own Table "
          "3.10)", "max_minus_last_smallest_mean", ">", 0,
          "BiLSTM-max above BiLSTM-last on the mean of the nine tasks for each of the eight "
          "trainings, but on 64 of the 72 (training, task) pairs only (Table 3.10)",
          note="mean over the probing tasks but SentLen of BiLSTM-max minus BiLSTM-last, smallest "
               "over the trainings",
          weaker=Weaker("on more than half of the (training, task) pairs, SentLen left out",
                        "max_beats_last_share", ">", 0.5, id="ch04.max_beats_last_most_pairs"),
          id="ch04.max_beats_last", where=_MAIN,
          quote="We also replicate the finding of section 3.2 that BiLSTM-max outperforms "
                "BiLSTM-last both in the downstream tasks (see below) and in the probing tasks "
                "(Table 3.10)."),
    Claim("'AutoEncoder training leads, unsurprisingly, to a model excelling at SentLen'",
          "sentlen_autoencoder_minus_best_other", ">=", 0, _cells([AE], ["SentLen"]),
          note="the auto-encoder's SentLen at least every other BiLSTM-max training's",
          id="ch04.autoencoder_sentlen", where=_MAIN,
          quote="AutoEncoder training leads, unsurprisingly, to a model excelling at SentLen, but "
                "it attains low performance in the WC prediction task."),
    Claim("'but it attains low performance in the WC prediction task'", "wc_autoencoder_max", "<",
          "wc_untrained_max", _cells([AE, U_MAX], ["WC"]), note="below the untrained encoder",
          id="ch04.autoencoder_low_wc", where=_MAIN,
          quote="AutoEncoder training leads, unsurprisingly, to a model excelling at SentLen, but "
                "it attains low performance in the WC prediction task."),
    Claim("'its [Seq2Tree's] high performance on TopConst, Tense, SubjNum, ObjNum and TreeDepth'",
          "seq2tree_best_tasks", "==", "seq2tree_tasks_compared",
          _cells([S2T], list(SEQ2TREE_TASKS)),
          note="Seq2Tree the best BiLSTM-max training on each of the five",
          weaker=Weaker("above the untrained encoder on each of the five",
                        "seq2tree_smallest_gain_over_untrained", ">", 0,
                        id="ch04.seq2tree_above_untrained"),
          id="ch04.seq2tree_syntax", where=_MAIN,
          quote="Thus, its high performance on TopConst, Tense, SubjNum, ObjNum and TreeDepth is "
                "probably an artifact."),
    Claim("'NMT training leads to encoders that are more linguistically aware than those trained "
          "on the NLI data set ... the one task where NLI clearly outperforms NMT is "
          "WC'", "nmt_beats_nli_share", "==", 1.0,
          "NMT above NLI on 9 of 10 (Table 3.10)", note="BiLSTM-max, WC left out",
          weaker=Weaker("on more than half of the nine", "nmt_beats_nli_share", ">", 0.5,
                        id="ch04.nmt_beats_nli_most"),
          id="ch04.nmt_beats_nli", where=_MAIN,
          quote="NMT training leads to encoders that are more linguistically aware than those "
                "trained on the NLI data set, despite the fact that we confirm the finding of "
                "section 3.2 that NLI is best for downstream tasks."),
    Claim("'the tasks where the improvement from logistic regression to MLP is relatively large "
          "(>3%) are ... (TreeDepth, SOMO, CoordInv)'", "mlp_gain_smallest_on_hard_tasks", ">", 3.0,
          "BiLSTM-max NMT En-Fr (Tables 3.10, 3.12)", note="BiLSTM-max NMT En-Fr (else untrained)",
          weaker=Weaker("the MLP gains on average over the tasks (WC left out)", "mlp_gain_mean",
                        ">", 0,
                        id="ch04.mlp_gain_mean"),
          id="ch04.mlp_gain_hard_tasks",
          where="thesis §3.3.6 (Logistic regression results), Tables 3.10, 3.12",
          quote="Interestingly, if we focus on a good model-training combination, such as "
                "BiLSTM-max trained on French NMT, the tasks where the improvement from logistic "
                "regression to MLP is relatively large (>3%) are those arguably requiring the most "
                "nuanced linguistic knowledge (TreeDepth, SOMO, CoordInv)."),
    Claim("'For both NMT and SkipThought, WC performance keeps increasing with epochs'",
          "wc_rise_nmt_and_skipthought", ">", 0, "Figure 3.10",
          note="last point minus the first after step 0, every NMT and SkipThought curve",
          weaker=Weaker("for the NMT curves alone", "wc_rise_nmt", ">", 0, id="ch04.wc_rises_nmt"),
          id="ch04.wc_rises_in_training", where="thesis §3.3.4, Figure 3.10",
          quote="For both NMT and SkipThought, WC performance keeps increasing with epochs."),
    Claim("'SentLen performance is actually decreasing'", "sentlen_nmt_last_minus_peak", "<", 0,
          "Figure 3.10", note="last point minus the peak, largest over the NMT runs",
          id="ch04.sentlen_falls_in_training", where="thesis §3.3.4, Figure 3.10",
          quote="Most strikingly, SentLen performance is actually decreasing, suggesting again "
                "that, as a model captures deeper linguistic properties, it will tend to forget "
                "about this superficial feature."),
    Claim("'increasing the embedding dimension ... is beneficial ... for probing tasks in the case "
          "of NLI. However, it does not seem to boost the performance of the NMT En-Fr encoder'",
          "nli_size_gain", ">", 0, "Figure 3.12", also=(("nmt_size_gain", "<=", 0),),
          note="mean gain over the probing tasks, smallest to largest embedding",
          weaker=Weaker("size helps the NLI encoder more than the NMT one", "nli_size_gain", ">",
                        "nmt_size_gain",
                        id="ch04.size_helps_nli_more"),
          id="ch04.size_helps_nli", where=f"{_SIZE_AND_DOWNSTREAM}, Figure 3.12",
          quote="As they observed for downstream tasks, increasing the embedding dimension while "
                "adding capacity to the model is beneficial (see Figure 3.12) also for probing "
                "tasks in the case of NLI. However, it does not seem to boost the performance of "
                "the NMT En-Fr encoder."),
    Claim("'WC is significantly positively correlated with all downstream tasks'",
          "wc_positive_significant_share", "==", 1.0, "with all of them (Figure 3.11)",
          weaker=Weaker("with more than half of them", "wc_positive_significant_share", ">", 0.5,
                        id="ch04.wc_correlates_most"),
          id="ch04.wc_correlates_all", where="thesis §3.3.4, Figure 3.11",
          quote="Strikingly, WC is significantly positively correlated with all downstream tasks."),
    Claim("'there is a significant negative correlation between SentLen and most downstream tasks'",
          "sentlen_negative_significant_share", ">", 0.5, "negative for most (Figure 3.11)",
          note="'most' read as more than half",
          weaker=Weaker("negative (significant or not) for more than half",
                        "sentlen_negative_share", ">", 0.5,
                        id="ch04.sentlen_negative_sign"),
          id="ch04.sentlen_negative", where="thesis §3.3.4, Figure 3.11",
          quote="Conversely, there is a significant negative correlation between SentLen and most "
                "downstream tasks."),
    Claim("'we also confirm Conneau et al.'s finding that NLI is the best source task for "
          "pre-training' (Table "
          "3.13)", "downstream_mean_nli", ">", "downstream_mean_best_other_training",
          _cells([NLI, NMT], ["MR", "SICK-E"], "table_3_13"),
          note="mean over Table 3.13's columns the run has (correlations x 100)",
          id="ch04.nli_best_downstream", where=f"{_SIZE_AND_DOWNSTREAM}, Table 3.13",
          quote="Interestingly, we also confirm Conneau et al.'s finding that NLI is the best "
                "source task for pre-training, despite the fact that, as we saw in the main text "
                "(Table 2 there), NMT pre-training leads to models that are capturing more "
                "linguistic properties."),
    Claim("'BiLSTM-max is already effective without training, and more so than the alternative "
          "architectures' (Table "
          "3.13)", "downstream_mean_untrained_max", ">", "downstream_mean_best_other_untrained",
          _cells([U_MAX, row_label("bilstm-last", "untrained")], ["MR", "SICK-E"], "table_3_13"),
          note="mean over Table 3.13's columns the run has (correlations x 100)",
          id="ch04.untrained_max_downstream", where=f"{_SIZE_AND_DOWNSTREAM}, Table 3.13",
          quote="As for the probing tasks, we again notice that BiLSTM-max is already effective "
                "without training, and more so than the alternative architectures."),
)


def _share(wins: Sequence[bool]) -> float:
    return float(np.mean(wins)) if len(wins) else float("nan")


def _or_absent(ready: bool, value: Any, what: str) -> Number:
    return float(value) if ready else Absent(f"no {what} in these tables")


def claim_numbers(mlp: Mapping[str, Mapping[str, float]], logreg: Mapping[str, Mapping[str, float]],
                  curves: Mapping[str, Mapping[str, Any]],
                  sizes: Mapping[str, Mapping[int, Mapping[str, float]]],
                  correlation: CorrelationResult | None,
                  downstream: Mapping[str, Mapping[str, float]] | None = None,
                  ) -> ProbingClaimNumbers:
    """The numbers :data:`CLAIMS` compare, from Tables 3.10 / 3.12 (``mlp`` / ``logreg``: row
    label -> ``{task: accuracy}``), the curves, ``sizes`` (row -> ``{dim: {task: acc}}``), the
    correlations and Table 3.13 (``downstream``: row label -> ``{column: score}``); ``Absent`` where
    the tables lack the rows, curves or encoders a number needs (a training task the profile skips).

    Book: chapter 4 (Probing: discussion).
    """
    nan = float("nan")

    def get(row: str, task: str, table: Mapping[str, Mapping[str, float]] = mlp) -> float:
        return float(table.get(row, {}).get(task, nan))

    def ratio(row: str, task: str) -> float:
        chance = get(MAJORITY_ROW, task)
        return get(row, task) / chance if chance > 0 else nan

    def rows(*labels: str) -> bool:
        return all(r in mlp for r in labels)

    bov, majority = BOV_ROWS["table_3_10"], MAJORITY_ROW
    tasks = [t for t in PROBING_TASKS if t in mlp.get(MAJORITY_ROW, {})]
    trained = [get(r,
                   "BShift") for r in mlp if r.endswith(("Seq2Tree",
                                                         "NMT En-Fr")) and "BiLSTM-max" in r]
    pairs = [(r,
              r.replace("BiLSTM-max",
                        "BiLSTM-last")) for r in mlp if r.startswith("BiLSTM-max encoder")]
    pairs = [(a, b) for a, b in pairs if b in mlp]
    others = [get(r, "SentLen") for r in mlp if r.startswith("BiLSTM-max encoder") and r != AE]
    row = NMT if NMT in mlp and NMT in logreg else U_MAX
    gains = [get(row, t) - get(row, t, logreg) for t in tasks if t not in LOGREG_ONLY]
    big_gains = [get(row, t) - get(row, t, logreg) for t in MLP_GAIN_TASKS if t in tasks]
    nmt_curves = [c["probing"] for k, c in curves.items() if "NMT" in k]
    wc_curves = [c["probing"] for k, c in curves.items() if "NMT" in k or "SkipThought" in k]
    size_gain = {}
    if len(sizes) == 2 and all(len(s) >= 2 for s in sizes.values()):
        for k, by_dim in sizes.items():
            lo, hi = min(by_dim), max(by_dim)
            size_gain["NLI" if k.endswith("NLI") else "NMT" if "NMT" in k else k] = float(
                np.mean([by_dim[hi][t] - by_dim[lo][t] for t in by_dim[lo]]))
    max_rows = [r for r in mlp if r.startswith("BiLSTM-max encoder") and r != S2T]
    s2t_tasks = [t for t in SEQ2TREE_TASKS if t in tasks] if S2T in mlp and max_rows else []

    def wc_rise(curve_set: Sequence[Mapping[str, Sequence[float]]]) -> float:
        return min([p["WC"][-1] - p["WC"][1] for p in curve_set if len(p.get("WC", ())) > 2],
                   default=nan)

    def max_minus_last(task_list: Sequence[str]) -> float:
        return min(float(np.mean([get(a, t) - get(b, t) for t in task_list])) for a, b in pairs)

    no_sentlen = [t for t in tasks if t != "SentLen"]
    corr = _correlation_numbers(correlation)
    return ProbingClaimNumbers(
        wc_untrained_max_over_majority=_or_absent(rows(U_MAX, majority), ratio(U_MAX, "WC"),
                                                  "untrained BiLSTM-max"),
        somo_untrained_max_minus_majority=_or_absent(rows(U_MAX, majority), get(U_MAX, "SOMO")
                                                     - get(majority, "SOMO"),
                                                     "untrained BiLSTM-max"),
        sentlen_bov_over_majority=_or_absent(rows(bov, majority), ratio(bov, "SentLen"),
                                             "bag of vectors"),
        wc_bov_over_majority=_or_absent(rows(bov, majority), ratio(bov, "WC"), "bag of vectors"),
        bshift_bov_distance_from_majority=_or_absent(rows(bov, majority), abs(
            get(bov, "BShift") - get(majority, "BShift")), "bag of vectors"),
        bov_largest_distance_from_majority=_or_absent(rows(bov, majority), np.max(
            [abs(get(bov, t) - get(majority, t)) for t in BOV_RANDOM_TASKS]), "bag of vectors"),
        bshift_trained_max_minus_bov=_or_absent(bool(trained) and rows(bov),
                                                max(trained, default=nan)
                                                - get(bov, "BShift"), "NMT or Seq2Tree BiLSTM-max"),
        max_minus_last_smallest_mean=_or_absent(bool(pairs and no_sentlen),
                                                max_minus_last(no_sentlen)
                                                if pairs and no_sentlen else nan,
                                                "BiLSTM-last row"),
        max_beats_last_share=_or_absent(bool(pairs and no_sentlen), _share(
            [get(a, t) > get(b, t) for a, b in pairs for t in no_sentlen]), "BiLSTM-last row"),
        sentlen_autoencoder_minus_best_other=_or_absent(rows(AE) and bool(others),
                                                        get(AE, "SentLen")
                                                        - float(np.max(others or nan)),
                                                        "auto-encoder"),
        wc_autoencoder_max=_or_absent(rows(AE), get(AE, "WC"), "auto-encoder"),
        wc_untrained_max=_or_absent(rows(U_MAX), get(U_MAX, "WC"), "untrained BiLSTM-max"),
        seq2tree_best_tasks=_or_absent(bool(s2t_tasks), sum(
            get(S2T, t) > max(get(r, t) for r in max_rows) for t in s2t_tasks), "Seq2Tree encoder"),
        seq2tree_tasks_compared=_or_absent(bool(s2t_tasks), len(s2t_tasks), "Seq2Tree encoder"),
        seq2tree_smallest_gain_over_untrained=_or_absent(rows(S2T, U_MAX), np.min(
            [get(S2T, t) - get(U_MAX, t) for t in SEQ2TREE_TASKS]), "Seq2Tree encoder"),
        nmt_beats_nli_share=_or_absent(rows(NMT, NLI),
                                       _share([get(NMT, t) > get(NLI, t) for t in tasks
                                                               if t != "WC"]),
                                                               "NLI or NMT encoder"),
        mlp_gain_mean=_or_absent(bool(gains), np.mean(gains) if gains else nan,
                                 "logistic-regression table"),
        mlp_gain_smallest_on_hard_tasks=_or_absent(
            len(big_gains) == len(MLP_GAIN_TASKS), np.min(big_gains) if big_gains else nan,
            "MLP gains"),
        wc_rise_nmt=_or_absent(bool(nmt_curves), wc_rise(nmt_curves), "NMT curve (Figure 3.10)"),
        wc_rise_nmt_and_skipthought=_or_absent(len(wc_curves) > len(nmt_curves), wc_rise(wc_curves),
                                               "SkipThought curve (Figure 3.10)"),
        sentlen_nmt_last_minus_peak=_or_absent(any("SentLen" in p for p in nmt_curves), max(
            [p["SentLen"][-1] - max(p["SentLen"][1:] or p["SentLen"]) for p in nmt_curves
             if "SentLen" in p],
            default=nan), "NMT curve (Figure 3.10)"),
        nli_size_gain=_or_absent("NLI" in size_gain, size_gain.get("NLI", nan),
                                 "NLI size sweep (Figure 3.12)"),
        nmt_size_gain=_or_absent("NMT" in size_gain, size_gain.get("NMT", nan),
                                 "NMT size sweep (Figure 3.12)"),
        **corr, **_downstream_numbers(downstream or {}))


def _correlation_numbers(correlation: CorrelationResult | None) -> dict[str, Number]:
    """Figure 3.11's claim numbers: shares of downstream tasks WC / SentLen correlate with, by
    sign."""
    out: dict[str, Number] = dict.fromkeys(
        ("wc_positive_significant_share", "sentlen_negative_significant_share",
         "sentlen_negative_share"),
        Absent("no correlation matrix (Figure 3.11) in these tables"))
    if correlation is None:
        return out
    sig, block = correlation.significant, correlation.block
    if "WC" in sig.index:
        out["wc_positive_significant_share"] = float(
            ((block.loc["WC"] > 0) & sig.loc["WC"]).sum() / sig.shape[1])
    if "SentLen" in sig.index:
        out["sentlen_negative_significant_share"] = float(
            ((block.loc["SentLen"] < 0) & sig.loc["SentLen"]).sum() / sig.shape[1])
        out["sentlen_negative_share"] = float((block.loc["SentLen"] < 0).sum() / sig.shape[1])
    return out


def _downstream_numbers(table: Mapping[str, Mapping[str, float]]) -> dict[str, Number]:
    """Table 3.13's claim numbers: mean score per row over the columns every row compared has."""

    def mean(rows: Sequence[str]) -> dict[str, float]:
        cols = [c for c in TABLE_3_13_PAPER
                if all(c in table[r] and np.isfinite(table[r][c]) for r in rows)]
        return {r: float(np.mean([table[r][c] for c in cols])) for r in rows} if cols else {}

    out: dict[str, Number] = {
        **dict.fromkeys(("downstream_mean_nli", "downstream_mean_best_other_training"),
                        Absent("no downstream scores of BiLSTM-max trained on NLI and on "
                               "another task")),
        **dict.fromkeys(("downstream_mean_untrained_max", "downstream_mean_best_other_untrained"),
                        Absent("no downstream scores of two untrained encoders"))}
    max_rows = [r for r in table if r.startswith("BiLSTM-max encoder") and "(" not in r]
    if NLI in max_rows and len(max_rows) > 1:
        m = mean(max_rows)
        out["downstream_mean_nli"] = m.get(NLI, float("nan"))
        out["downstream_mean_best_other_training"] = max((v for r, v in m.items() if r != NLI),
                                                         default=float("nan"))
    untrained = [row_label(a, "untrained") for a in ENCODERS if row_label(a, "untrained") in table]
    if U_MAX in untrained and len(untrained) > 1:
        m = mean(untrained)
        out["downstream_mean_untrained_max"] = m.get(U_MAX, float("nan"))
        out["downstream_mean_best_other_untrained"] = max((v for r, v in m.items() if r != U_MAX),
                                                          default=float("nan"))
    return out


def _rows_of(table_id: str) -> dict[str, dict[str, float]]:
    frame = paper_table("thesis", table_id)
    return {r: {c: float(v) for c,
                v in frame.loc[r].items() if np.isfinite(v)} for r in frame.index}


def paper_numbers() -> ProbingClaimNumbers:
    """The same numbers from the thesis's stored Tables 3.10, 3.12 and 3.13; the figures' numbers
    (3.10-3.12) are not stored: Absent.

    Book: chapter 4 (Probing: discussion).
    """
    numbers = claim_numbers(_rows_of("table_3_10"), _rows_of("table_3_12"), {}, {}, None,
                            downstream=_rows_of("table_3_13"))
    figure = "the paper's tables do not report Figure 3.1{}'s numbers (a plot)"
    return replace(numbers, **{f: Absent(figure.format(n)) for n, fields in (
        (0, ("wc_rise_nmt", "wc_rise_nmt_and_skipthought", "sentlen_nmt_last_minus_peak")),
        (1,
         ("wc_positive_significant_share", "sentlen_negative_significant_share",
          "sentlen_negative_share")),
        (2, ("nli_size_gain", "nmt_size_gain"))) for f in fields})


CLAIM_SET = ClaimSet("04_probing", CLAIMS, paper_numbers)
