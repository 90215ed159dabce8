"""The probing recipe (thesis section 3.3, Conneau et al. 2018): the plan of chapter 4.

Ten probing sets, three encoders trained in several ways, MLP and logistic-regression probes,
baselines, downstream scores and their Spearman correlations. The methods live in the library:
probing sets in :mod:`xsent_lib.data.probing_sets`, the encoders in
:mod:`xsent_lib.encoders.probing`, their training data and settings in
:mod:`xsent_lib.train.probing`, their training and downstream scores in
:mod:`xsent_lib.eval.probing_study`, probes in :mod:`xsent_lib.eval.probing`, correlations in
:mod:`xsent_lib.eval.stats`. This module holds the sizes of each profile (:data:`PLANS`), the
thesis's table labels and the claims of section 3.3 declared as data in :mod:`.claims`
(:data:`CLAIM_SET`), with the numbers they compare as one typed record
(:class:`ProbingClaimNumbers`). Accuracies are in percent, as the thesis prints them.
Book: chapter 4 (Probing).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from xsent_lib.recipes.probing.claims import (
    AE,
    BASELINES,
    BOV_ROWS,
    CHANCE_ROW,
    CLAIM_SET,
    CLAIMS,
    MAJORITY_ROW,
    NLI,
    NMT,
    S2T,
    TABLE_3_11_COLUMNS,
    TABLE_3_11_ROWS,
    TABLE_3_13_PAPER,
    U_MAX,
    ProbingClaimNumbers,
    claim_numbers,
    paper_numbers,
)
from xsent_lib.train.probing import TrainSettings


# --------------------------------------------------------------------------------- the plan
@dataclass(frozen=True, kw_only=True)
class ProbingPlan:
    """The sizes of one profile: probing sets, training data, encoders, downstream suite.

    ``real_data``: GloVe and real downstream sentences when cached (else skip-gram vectors and
    synthetic tasks); ``paper_data``: whether the plan is meant for the papers' data (the chapter
    reads ``data_dir`` at every profile; its sizes follow ``ch.data.limit``). The full plan trains
    2-layer BiLSTMs (``settings.lstm_layers``) on the real corpora of
    :data:`xsent_lib.train.probing.REAL_TRAINING_DATA`.
    Book: chapter 4 (Probing).
    """

    probe_sizes: tuple[int, int, int]  # (train, dev, test) of every probing task but WC
    wc_sizes: tuple[int, int, int]
    wc_classes: int | None  # WC target words kept (None: all of the world's)
    n_train: int  # examples per training task
    n_eval: int  # dev and test examples per training task
    settings: TrainSettings
    dims: dict[str, int]  # sentence-vector size per encoder
    tasks: tuple[str, ...]  # training tasks of every encoder
    extra_nmt: tuple[str, ...]  # BiLSTM-max only, for Figure 3.10
    size_dims: tuple[int, ...]  # besides dims["bilstm-max"], for Figure 3.12
    curve_sizes: tuple[int, int, int]  # probing sets of the curves
    downstream_single: int | None  # examples per single-sentence downstream task (None: all)
    downstream_pairs: tuple[int, int, int]  # NLI and STS downstream pairs
    brown_sizes: tuple[int, int, int] | None  # Brown probing sets (None: skipped)
    baseline_mode: str
    real_data: bool
    paper_data: bool = False


PLANS: dict[str, ProbingPlan] = {
    "smoke": ProbingPlan(
        probe_sizes=(90, 30, 45), wc_sizes=(150, 40, 60), wc_classes=15, n_train=128, n_eval=24,
        settings=TrainSettings(epochs=1, batch_size=32, decoder_dim=16, conv_layers=2,
                               curve_points=2,
                               probe_mode="smoke"),
        dims={"bilstm-last": 16, "bilstm-max": 16, "gated-convnet": 16},
        tasks=("autoencoder", "nmt-fr"),
        extra_nmt=(), size_dims=(8,), curve_sizes=(40, 20, 30), downstream_single=100,
        downstream_pairs=(60, 20, 30), brown_sizes=None, baseline_mode="fast", real_data=False),
    "book": ProbingPlan(
        probe_sizes=(800, 200, 400), wc_sizes=(1600, 400, 400), wc_classes=100, n_train=4800,
        n_eval=300,
        settings=TrainSettings(epochs=2, batch_size=64, decoder_dim=128, conv_layers=4,
                               curve_points=3),
        dims={"bilstm-last": 256, "bilstm-max": 256, "gated-convnet": 128},
        tasks=("autoencoder", "nmt-fr", "seq2tree", "skipthought", "nli"),
        extra_nmt=("nmt-de", "nmt-fi"),
        size_dims=(64, 128), curve_sizes=(600, 200, 300), downstream_single=500,
        downstream_pairs=(400, 150, 300), brown_sizes=(1200, 200, 400), baseline_mode="fast",
        real_data=True),
    "full": ProbingPlan(
        probe_sizes=(100_000, 10_000, 10_000), wc_sizes=(100_000, 10_000, 10_000), wc_classes=None,
        n_train=500_000, n_eval=10_000,
        settings=TrainSettings(epochs=10, batch_size=64, decoder_dim=512, decoder_layers=2,
                               conv_layers=8,
                               lstm_layers=2, curve_points=10, probe_mode="full"),
        dims={"bilstm-last": 1024, "bilstm-max": 1024, "gated-convnet": 512},
        tasks=("autoencoder", "nmt-fr", "nmt-de", "nmt-fi", "seq2tree", "skipthought", "nli"),
        extra_nmt=(),
        size_dims=(256, 512, 2048, 4096), curve_sizes=(10_000, 2000, 2000), downstream_single=None,
        downstream_pairs=(5000, 1000, 2000), brown_sizes=(20_000, 2000, 2000), baseline_mode="full",
        real_data=True, paper_data=True),
}
#: gpu: book's tasks with 4x the training examples, wider encoders and larger probing sets
PLANS["gpu"] = replace(
    PLANS["book"], probe_sizes=(3000, 500, 1000), wc_sizes=(6000, 1000, 1000), n_train=20_000,
    settings=replace(PLANS["book"].settings, epochs=3, decoder_dim=256),
    dims={"bilstm-last": 512, "bilstm-max": 512, "gated-convnet": 256}, size_dims=(128, 256),
    curve_sizes=(2000, 500, 1000), downstream_single=2000, brown_sizes=(4000, 500, 1000))
PLANS = {name: PLANS[name] for name in ("smoke", "book", "gpu", "full")}
#: what :func:`work` counts
WORK_UNIT = "training examples x epochs x sentence-vector size^2, summed over the encoders"


def work(plan: ProbingPlan) -> float:
    """The plan's encoder training in :data:`WORK_UNIT`: each encoder on each task, BiLSTM-max on
    the extra NMT pairs and at the sizes of Figure 3.12 (on NLI and NMT-fr).
    Book: chapter 4 (Probing).
    """
    runs = len(plan.tasks) * sum(d ** 2 for d in plan.dims.values())
    runs += len(plan.extra_nmt) * plan.dims["bilstm-max"] ** 2
    runs += 2 * sum(d ** 2 for d in plan.size_dims)
    return float(plan.n_train * plan.settings.epochs * runs)


__all__ = ["AE", "BASELINES", "BOV_ROWS", "CHANCE_ROW", "CLAIMS", "CLAIM_SET", "MAJORITY_ROW",
           "NLI", "NMT", "PLANS",
           "ProbingClaimNumbers", "ProbingPlan", "S2T", "TABLE_3_11_COLUMNS", "TABLE_3_11_ROWS",
           "TABLE_3_13_PAPER",
           "U_MAX", "WORK_UNIT", "claim_numbers", "paper_numbers", "work"]
