"""Evaluate any sentence encoder: SentEval-style transfer, STS, probing, retrieval, and
cross-lingual tasks.

Plug an encoder in through SentEval's ``prepare(params, samples)`` / ``batcher(params, batch)`` or
:func:`batcher_from_encoder`, wrap data containers in task classes, and run
``Evaluation(...).eval(tasks)``; or give SentEval's task names and ``params['task_path']``
(``SE(params, batcher, prepare).eval(['MR', 'STS14'])``, a SentEval script unchanged but for its
import).
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from xsent_lib.eval.bitext import (
    BUCCTask,
    bucc_evaluate,
    f1_at_threshold,
    mine_bitext,
    select_threshold,
)
from xsent_lib.eval.classifier import BatchedClassifier, BatchedLogReg, ClassifierConfig
from xsent_lib.eval.crosslingual import (
    CrossLingualTransferTask,
    SentenceRetrievalTask,
    sentence_retrieval,
    word_translation,
)
from xsent_lib.eval.engine import (
    SE,
    Evaluation,
    Params,
    batcher_from_encoder,
    batcher_from_function,
    senteval_layout,
)
from xsent_lib.eval.probing import ProbingTask, probing_baselines
from xsent_lib.eval.protocols import cv_then_test, nested_cv, split_select, stratified_folds
from xsent_lib.eval.retrieval import RankingTask, ranking_metrics
from xsent_lib.eval.sts import STSTask, sts_aggregates
from xsent_lib.eval.transfer import (
    PairClassificationTask,
    RelatednessTask,
    TransferTask,
    compare_relatedness_encodings,
    pair_features,
    senteval_relatedness_targets,
    transfer_aggregates,
)

__all__ = [
    "BUCCTask", "CrossLingualTransferTask", "RankingTask", "SentenceRetrievalTask", "bucc_evaluate",
    "f1_at_threshold", "mine_bitext", "ranking_metrics", "select_threshold", "sentence_retrieval",
    "word_translation",
    "BatchedClassifier", "BatchedLogReg", "ClassifierConfig", "Evaluation",
    "PairClassificationTask", "Params",
    "ProbingTask", "RelatednessTask", "SE", "STSTask", "TransferTask", "batcher_from_encoder",
    "batcher_from_function",
    "cv_then_test", "nested_cv", "pair_features", "probing_baselines", "split_select",
    "stratified_folds",
    "senteval_layout", "sts_aggregates", "transfer_aggregates", "compare_relatedness_encodings",
    "senteval_relatedness_targets",
]
