"""The SentEval recipe (thesis section 3.1): what chapter 2 runs per profile, its baselines, tables
and claims.

The method lives in the library: the suite and SentEval's tasks in :mod:`xsent_lib.eval.suite`, the
offline stand-ins in :mod:`xsent_lib.eval.offline_suite`, the baseline encoders in
:mod:`xsent_lib.encoders.baselines`, our own word vectors in :mod:`xsent_lib.data.word_setup`. This
package holds the plan per profile (:data:`PROFILES`), the baselines as the tables name them and how
they are run (:mod:`.baselines`), and Tables 3.1-3.4 with the section's claims declared as data
(:mod:`.tables`: :data:`CLAIM_SET`, checked on the typed record :class:`SentEvalClaimNumbers` of
:func:`senteval_numbers`).
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from dataclasses import dataclass

from xsent_lib.eval.suite import SuiteSizes
from xsent_lib.recipes.senteval.baselines import (
    Baseline,
    bag_baselines,
    classifier_configs,
    encoding_speed,
    evaluate_baseline,
    reference_baselines,
    run_baselines,
    sts_points,
)
from xsent_lib.recipes.senteval.tables import (
    CLAIM_SET,
    CLAIMS,
    PAPER_COLUMNS_33,
    PAPER_GROUP,
    SentEvalClaimNumbers,
    paper_numbers,
    senteval_numbers,
    suite_table,
    table_3_3_ours,
    table_3_4_ours,
)


@dataclass(frozen=True)
class SentEvalProfile:
    """What one profile of chapter 2 runs: the suite's sizes, SentEval's nested-CV protocol
    (``"senteval"``) or one stratified split (``"split"``), the classifier budget
    (``"fast"``/``"full"``), the reference encoders and the items per task they see (None: the whole
    suite).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    sizes: SuiteSizes
    protocol: str
    mode: str
    reference_encoders: tuple[str, ...]
    reference_items: int | None


PROFILES: dict[str, SentEvalProfile] = {
    "smoke": SentEvalProfile(SuiteSizes(single=300, nli=(300, 100, 100), sts=(300, 100, 200)),
                             "split", "fast",
                             (), None),
    "book": SentEvalProfile(SuiteSizes(single=3000, nli=(3000, 500, 1000), sts=(2000, 500, 1000)),
                            "split", "fast",
                            ("USE",), 1000),
    # gpu: more of each task and more items for the reference encoders (the MLP classifiers and the
    # encoders run on the GPU); SentEval's protocol stays full's
    "gpu": SentEvalProfile(SuiteSizes(single=10000, nli=(10000, 1000, 2000),
                                      sts=(5000, 1000, 2000)), "split", "fast", ("USE",), 3000),
    "full": SentEvalProfile(SuiteSizes(single=None, nli=(20000, 2000, 5000),
                                       sts=(10000, 2000, 5000)), "senteval",
                            "full", ("USE", "mE5-small"), None),
}

__all__ = [
    "Baseline",
    "CLAIMS",
    "CLAIM_SET",
    "PAPER_COLUMNS_33",
    "PAPER_GROUP",
    "PROFILES",
    "SentEvalClaimNumbers",
    "SentEvalProfile",
    "bag_baselines",
    "classifier_configs",
    "encoding_speed",
    "evaluate_baseline",
    "paper_numbers",
    "reference_baselines",
    "run_baselines",
    "senteval_numbers",
    "sts_points",
    "suite_table",
    "table_3_3_ours",
    "table_3_4_ours",
]
