"""Claim numbers from alignment-curve records (chapter 7): the typed records of the synthetic and
the real-bitext claims and how they are computed from the records (a system's mean over seeds at
one bitext size, the best or worst of several, the joint-versus-transfer numbers both sets
compare), each :class:`~xsent_lib.results.claims.Absent` where the run has no record to give it.
Book: chapter 7 (Joint vs transfer vs mapping).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from xsent_lib.eval.alignment_curves import crossover, gap_at, mean_at, record_sizes
from xsent_lib.results.claims import Absent

Records = Sequence[Mapping[str, Any]]
Number = float | Absent


def mean_or_absent(records: Records, system: str, n: int | None,
                   metric: str = "retrieval_avg") -> float | Absent:
    """The mean over seeds of ``metric`` for ``system`` at ``n`` pairs (rows without bitext match
    any size), or :class:`Absent` when the run has no such record (no bitext size, a system this
    profile does not build).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    if n is None:
        return Absent("the run has no bitext size")
    value = mean_at(records, system, n, metric)
    # rounded to 1e-9 so that two systems with the same scores compare equal whatever the order of
    # the summation (a claim must not turn on floating-point noise)
    return Absent(f"no {system} record at {n:,} pairs") if value is None else round(value, 9)


def pick_present(values: Sequence[float | Absent],
                 pick: Callable[[Sequence[float]], float] = max) -> float | Absent:
    """``pick`` (``max`` or ``min``) of ``values``. The best of several (``max``) needs one of them;
    the worst (``min``, a claim about *every* system) needs all of them, else it is the first
    :class:`Absent`.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    present = [v for v in values if not isinstance(v, Absent)]
    missing = [v for v in values if isinstance(v, Absent)]
    if not present or (pick is min and missing):
        return missing[0]
    return float(pick(present))


def joint_transfer_numbers(records: Records) -> tuple[int | None, int | None, dict[str, Number]]:
    """``(fewest, most, numbers)``: the fewest and the most pairs run (``None`` without sizes) and
    the SDAE numbers both sets of claims compare: joint SDAE/NMT at the fewest pairs, the best and
    the worst of SDAE transfer and mapping there, the joint-minus-transfer gaps at the fewest and
    the most pairs, whether joint training reaches transfer at some size (1.0 / 0.0) and where, and
    transfer and mapping at the most pairs.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    sizes = record_sizes(records)
    lo, hi = (sizes[0], sizes[-1]) if sizes else (None, None)
    trend = Absent("one bitext size only: no trend") if len(sizes) < 2 else None

    def gap(n: int | None) -> float | Absent:
        value = gap_at(records, "joint SDAE/NMT", "SDAE transfer", n)
        if value is None:
            return Absent(f"no joint SDAE/NMT or SDAE transfer record at {n} pairs")
        return round(value, 9)

    first = crossover(records, "joint SDAE/NMT", "SDAE transfer")
    small = (mean_or_absent(records, "SDAE transfer", lo),
             mean_or_absent(records, "SDAE mapping", lo))
    return lo, hi, {
        "joint_sdae_fewest": mean_or_absent(records, "joint SDAE/NMT", lo),
        "best_sdae_transfer_mapping_fewest": pick_present(small),
        "worst_sdae_transfer_mapping_fewest": pick_present(small, min),
        "gap_joint_transfer_fewest": gap(lo), "gap_joint_transfer_most": trend or gap(hi),
        "crossover_found": trend or float(first is not None),
        "crossover_pairs": (Absent("no crossover within the sizes run") if first is None
                            else float(first)),
        "sdae_transfer_most": mean_or_absent(records, "SDAE transfer", hi),
        "sdae_mapping_most": mean_or_absent(records, "SDAE mapping", hi)}


Number = float | Absent


@dataclass(frozen=True)
class AldarmakiClaimNumbers:
    """The numbers chapter 7's claims compare on the synthetic world (means over seeds; retrieval
    P@1 over six directions, ``cls_*`` the classification-transfer accuracy): the SDAE family at the
    fewest and the most pairs, the weakest of the other Figure 5 systems at the fewest pairs, the
    joint-minus-transfer gap and the crossover, the InferSent family and the word-vector baselines,
    mapping's time over transfer's, the joint InferSent model's NLI accuracies and gaps, and the
    classification comparisons.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """

    joint_sdae_fewest: Number
    best_sdae_transfer_mapping_fewest: Number
    worst_sdae_transfer_mapping_fewest: Number
    worst_other_fewest: Number
    gap_joint_transfer_fewest: Number
    gap_joint_transfer_most: Number
    crossover_found: Number
    crossover_pairs: Number
    sdae_transfer_most: Number
    sdae_mapping_most: Number
    joint_infersent: Number
    infersent_transfer_most: Number
    infersent_mapping_most: Number
    sif_mapping_most: Number
    sif_static: Number
    best_word_baseline_most: Number
    mapping_over_transfer_seconds: Number
    nli_en: Number
    nli_en_gap: Number
    nli_worst_gap: Number
    cls_sdae_transfer_fewest: Number
    cls_joint_sdae_fewest: Number
    cls_min_transfer_minus_joint: Number
    cls_sif_mapping_most: Number
    cls_best_neural_most: Number


def claim_numbers(records: Sequence[Mapping[str, Any]],
                  nli: Mapping[str, float] | None = None) -> AldarmakiClaimNumbers:
    """The numbers the claims compare, from the curve records and the joint model's NLI accuracies
    (:func:`xsent_lib.eval.joint_nli.nli_accuracy_table`; ``None``: not measured, the NLI claims are
    not testable).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    lo, hi, c = joint_transfer_numbers(records)
    at = lambda s, n, m="retrieval_avg": mean_or_absent(records, s, n, m)  # noqa: E731
    secs = lambda s: [r["seconds"] for r in records if r["system"] == s]  # noqa: E731
    s_map, s_tr = secs("InferSent mapping"), secs("InferSent transfer")
    no_nli = Absent("no NLI accuracy of the joint InferSent model given")
    gaps = [nli[k] - nli["cross-lingual"] for k in nli if k != "cross-lingual"] if nli else []
    cls_gaps = [g for n in record_sizes(records)
                if (g := gap_at(records, "SDAE transfer", "joint SDAE/NMT", n, "cls_avg"))
                is not None]
    others = ("SDAE transfer", "SDAE mapping", "SIF static dictionary", "SIF mapping")
    neural = ("joint SDAE/NMT", *others[:2], "joint InferSent", "InferSent transfer",
              "InferSent mapping")
    return AldarmakiClaimNumbers(
        **c, worst_other_fewest=pick_present([at(s, lo) for s in others], min),
        joint_infersent=at("joint InferSent", lo),
        infersent_transfer_most=at("InferSent transfer", hi),
        infersent_mapping_most=at("InferSent mapping", hi), sif_mapping_most=at("SIF mapping", hi),
        sif_static=at("SIF static dictionary", lo),
        best_word_baseline_most=pick_present([at("SIF mapping", hi),
                                              at("SIF static dictionary", lo)]),
        mapping_over_transfer_seconds=(float(np.mean(s_map) / np.mean(s_tr)) if s_map and s_tr
                                       else Absent("no InferSent mapping or transfer record")),
        nli_en=nli["en"] if nli else no_nli,
        nli_en_gap=nli["en"] - nli["cross-lingual"] if nli else no_nli,
        nli_worst_gap=max(gaps) if gaps else no_nli,
        cls_sdae_transfer_fewest=at("SDAE transfer", lo, "cls_avg"),
        cls_joint_sdae_fewest=at("joint SDAE/NMT", lo, "cls_avg"),
        cls_min_transfer_minus_joint=(round(min(cls_gaps), 9) if cls_gaps else Absent(
            "no classification record of SDAE transfer and joint SDAE/NMT")),
        cls_sif_mapping_most=at("SIF mapping", hi, "cls_avg"),
        cls_best_neural_most=pick_present([at(s, hi, "cls_avg") for s in neural]))


@dataclass(frozen=True)
class RealClaimNumbers:
    """The numbers of the real-bitext claims (means over seeds of retrieval P@1, four directions):
    the SDAE family at the fewest and the most pairs, the joint-minus-transfer gaps and the
    crossover, InfoNCE and the best trained system at the most pairs, and five times chance
    (``500 / n_test``).
    Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """

    joint_sdae_fewest: Number
    best_sdae_transfer_mapping_fewest: Number
    worst_sdae_transfer_mapping_fewest: Number
    gap_joint_transfer_fewest: Number
    gap_joint_transfer_most: Number
    crossover_found: Number
    crossover_pairs: Number
    sdae_transfer_most: Number
    sdae_mapping_most: Number
    infonce_most: Number
    best_trained_most: Number
    five_x_chance: Number


def real_claim_numbers(records: Sequence[Mapping[str, Any]], n_test: int | None = None, *,
                       systems: Sequence[str]) -> RealClaimNumbers:
    """The real-bitext claim numbers from the curve records; ``n_test`` (held-out pairs per
    language) gives chance, :class:`Absent` without it; ``systems``: the trained systems the best
    one is picked from.
    Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """
    if n_test is not None and n_test < 1:
        raise ValueError(f"n_test must be the number of test pairs (>= 1), got {n_test}.")
    _, hi, c = joint_transfer_numbers(records)
    return RealClaimNumbers(
        **c, infonce_most=mean_or_absent(records, "InfoNCE (shared BiLSTM)", hi),
        best_trained_most=pick_present([mean_or_absent(records, s, hi) for s in systems]),
        five_x_chance=Absent("n_test not given") if n_test is None else 500.0 / n_test)
