"""The SentEval recipe (thesis section 3.1): an offline transfer suite, the baseline encoders, Tables 3.1-3.4.

SentEval's data cannot be downloaded here, so the suite is assembled from what the registries ship and from
the synthetic world, each task standing in for one SentEval task (its ``paper`` name):

* single sentences: Rotten Tomatoes fresh/rotten (MR), UCI review sentences (CR), critic snippets vs plot
  summaries (SUBJ), NYT editorial snippets (MPQA), VADER movie snippets binned like SST (SST-2, SST-5), and the
  VADER mean rating itself as a regression task (no SentEval counterpart);
* pairs, from the synthetic world: NLI (SICK-E), paraphrase detection (MRPC), trained relatedness (SICK-R) and
  unsupervised STS by cosine (STS'14), with per-subset numbers.

When a corpus is not cached (and always in the smoke profile) synthetic single-sentence tasks with exact labels
stand in. With SentEval's own data in ``data_dir``, :func:`senteval_suite` builds the real suite instead.
Baselines: content-free random sentence vectors (the chance floor), bags of random / GloVe / our own word
vectors, SIF on GloVe, and the shipped multilingual encoders USE and mE5-small as today's reference points.
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from xsent_lib.recipes.senteval.suite import (
    CV_FRACTIONS,
    KINDS,
    MLP_KINDS,
    PAPER_COLUMNS_33,
    PAPER_GROUP,
    PARAPHRASE_MIN_SCORE,
    PROTOCOLS,
    SINGLE_KINDS,
    SST_CUTS,
    SST_FRACTIONS,
    STS_LENGTH_BINS,
    SentenceRegressionTask,
    Suite,
    SuiteSizes,
    SuiteTask,
    VADER_RANGE,
    as_cross_validation,
    offline_suite,
    real_single_tasks,
    senteval_suite,
    sst_classes,
    stratified_order,
    stratified_split,
    subsample_suite,
    suite_table,
    synthetic_pair_tasks,
    synthetic_single_tasks,
)
from xsent_lib.recipes.senteval.baselines import (
    Baseline,
    CachedEncoder,
    OWN_SOURCES,
    REFERENCE_ENCODERS,
    RandomSentenceEncoder,
    bag_baselines,
    bag_encoder,
    classifier_configs,
    encoding_speed,
    evaluate_baseline,
    own_word_vectors,
    random_bag_encoder,
    reference_baselines,
    reference_encoder,
    run_baselines,
    sif_prepare,
    sts_points,
    word_counts,
)
from xsent_lib.recipes.senteval.tables import (
    senteval_claims,
    table_3_3_ours,
    table_3_4_ours,
)

__all__ = [
    "Baseline",
    "CV_FRACTIONS",
    "CachedEncoder",
    "KINDS",
    "MLP_KINDS",
    "OWN_SOURCES",
    "PAPER_COLUMNS_33",
    "PAPER_GROUP",
    "PARAPHRASE_MIN_SCORE",
    "PROTOCOLS",
    "REFERENCE_ENCODERS",
    "RandomSentenceEncoder",
    "SINGLE_KINDS",
    "SST_CUTS",
    "SST_FRACTIONS",
    "STS_LENGTH_BINS",
    "SentenceRegressionTask",
    "Suite",
    "SuiteSizes",
    "SuiteTask",
    "VADER_RANGE",
    "as_cross_validation",
    "bag_baselines",
    "bag_encoder",
    "classifier_configs",
    "encoding_speed",
    "evaluate_baseline",
    "offline_suite",
    "own_word_vectors",
    "random_bag_encoder",
    "real_single_tasks",
    "reference_baselines",
    "reference_encoder",
    "run_baselines",
    "senteval_claims",
    "senteval_suite",
    "sif_prepare",
    "sst_classes",
    "stratified_order",
    "stratified_split",
    "sts_points",
    "subsample_suite",
    "suite_table",
    "synthetic_pair_tasks",
    "synthetic_single_tasks",
    "table_3_3_ours",
    "table_3_4_ours",
    "word_counts",
]
