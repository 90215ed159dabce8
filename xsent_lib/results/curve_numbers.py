"""Claim numbers from alignment-curve records (chapter 7): a system's mean over seeds at one bitext size,
the best or worst of several, and the joint-versus-transfer numbers both the synthetic and the real-bitext
claims compare, each :class:`~xsent_lib.results.claims.Absent` where the run has no record to give it.
Book: chapter 7 (Joint vs transfer vs mapping).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from xsent_lib.eval.alignment_curves import crossover, gap_at, mean_at, record_sizes
from xsent_lib.results.claims import Absent

Records = Sequence[Mapping[str, Any]]


def mean_or_absent(records: Records, system: str, n: int | None,
                   metric: str = "retrieval_avg") -> float | Absent:
    """The mean over seeds of ``metric`` for ``system`` at ``n`` pairs (rows without bitext match any size),
    or :class:`Absent` when the run has no such record (no bitext size, a system this profile does not build).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    if n is None:
        return Absent("the run has no bitext size")
    value = mean_at(records, system, n, metric)
    return Absent(f"no {system} record at {n:,} pairs") if value is None else value


def pick_present(values: Sequence[float | Absent],
                 pick: Callable[[Sequence[float]], float] = max) -> float | Absent:
    """``pick`` (``max`` or ``min``) of ``values``. The best of several (``max``) needs one of them; the worst
    (``min``, a claim about *every* system) needs all of them, else it is the first :class:`Absent`.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    present = [v for v in values if not isinstance(v, Absent)]
    missing = [v for v in values if isinstance(v, Absent)]
    if not present or (pick is min and missing):
        return missing[0]
    return float(pick(present))


def joint_transfer_numbers(records: Records) -> tuple[int | None, int | None, dict[str, float | Absent]]:
    """``(fewest, most, numbers)``: the fewest and the most pairs run (``None`` without sizes) and the SDAE
    numbers both sets of claims compare: joint SDAE/NMT at the fewest pairs, the best and the worst of SDAE
    transfer and mapping there, the joint-minus-transfer gaps at the fewest and the most pairs, whether joint
    training reaches transfer at some size (1.0 / 0.0) and where, and transfer and mapping at the most pairs.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    sizes = record_sizes(records)
    lo, hi = (sizes[0], sizes[-1]) if sizes else (None, None)
    trend = Absent("one bitext size only: no trend") if len(sizes) < 2 else None

    def gap(n: int | None) -> float | Absent:
        value = gap_at(records, "joint SDAE/NMT", "SDAE transfer", n)
        return Absent(f"no joint SDAE/NMT or SDAE transfer record at {n} pairs") if value is None else value

    first = crossover(records, "joint SDAE/NMT", "SDAE transfer")
    small = (mean_or_absent(records, "SDAE transfer", lo), mean_or_absent(records, "SDAE mapping", lo))
    return lo, hi, {
        "joint_sdae_fewest": mean_or_absent(records, "joint SDAE/NMT", lo),
        "best_sdae_transfer_mapping_fewest": pick_present(small),
        "worst_sdae_transfer_mapping_fewest": pick_present(small, min),
        "gap_joint_transfer_fewest": gap(lo), "gap_joint_transfer_most": trend or gap(hi),
        "crossover_found": trend or float(first is not None),
        "crossover_pairs": Absent("no crossover within the sizes run") if first is None else float(first),
        "sdae_transfer_most": mean_or_absent(records, "SDAE transfer", hi),
        "sdae_mapping_most": mean_or_absent(records, "SDAE mapping", hi)}
