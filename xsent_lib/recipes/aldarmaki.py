"""The Aldarmaki & Diab (2019) recipe: joint training vs representation transfer vs sentence
mapping, with alignment curves over the size of the bitext.

Data: the synthetic world (chapter 1) with English and two invented languages standing in for the
paper's Spanish (``xa``, Romance-like) and German (``xe``, Germanic-like)
(:mod:`xsent_lib.data.alignment_world`), and real English-French / English-German bitext for a
second set of curves. Models: chapter 3's BiLSTM-max (InferSent, on NLI) and an SDAE (BiLSTM-max +
LSTM decoder), each made cross-lingual three ways (joint, transfer, mapping), SIF word-vector
baselines, and two rows beyond the paper (InfoNCE on the bitext, distillation from a shipped
multilingual teacher); the runs are :mod:`xsent_lib.eval.alignment_runs`. This module holds the
plans, the claims and the sentences that report them.
Book: chapter 7 (Joint vs transfer vs mapping).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from xsent_lib.data.alignment_world import AldarmakiData, alignment_world
from xsent_lib.data.held_out_bitext import RealBitextData, curve_sizes
from xsent_lib.eval.alignment_curves import record_sizes, reference_lines, size_lines, spread_line
from xsent_lib.eval.alignment_runs import TEACHER_ROW
from xsent_lib.results.claims import Absent, Claim, ClaimSet, PaperCell, Weaker
from xsent_lib.results.curve_numbers import AldarmakiClaimNumbers, RealClaimNumbers
from xsent_lib.results.paper import paper_table
from xsent_lib.train.joint import JointConfig
from xsent_lib.train.transfer import StudentConfig

# SMOKE and BOOK train for a few hundred steps only: Adam at 3e-3 (not its default 1e-3) gets the
# small models much further in that budget (English NLI test accuracy 72 vs 56 after 94 steps in the
# book profile).
#: which of the paper's languages each invented language stands beside (closest typology; not a
#: translation)
PAPER_LANGUAGE: dict[str, str] = {"en": "en", "xa": "es", "xe": "de"}
FAMILIES: dict[str, tuple[str, ...]] = {
    "SDAE": ("joint SDAE/NMT", "SDAE transfer", "SDAE mapping"),
    "InferSent": ("joint InferSent", "InferSent transfer", "InferSent mapping"),
    "SIF": ("SIF static dictionary", "SIF mapping"),
    "beyond": ("InfoNCE (shared BiLSTM)", "distillation"),
}
DATA_NAME = "synthetic world: en + xa ('es' stand-in) + xe ('de' stand-in)"


@dataclass(frozen=True, kw_only=True)
class AldarmakiPlan:
    """Sizes of one profile: target languages, the curve's bitext sizes and seeds, data sizes
    (monolingual sentences per language, the English share of joint SDAE/NMT, NLI pairs, retrieval
    test sentences, classification pairs per split), model sizes (BiLSTM units per direction, word
    and decoder dimensions) and the optimisation of pivots, joint runs and students; ``teacher``
    names a shipped reference encoder (``None``: no distillation rows).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """

    languages: tuple[str, ...]
    sizes: tuple[int, ...]
    seeds: tuple[int, ...]
    n_mono: int
    n_mono_joint: int
    n_nli: int
    n_test: int
    n_cls: int
    width: int
    word_dim: int
    decoder_dim: int
    pivot: JointConfig
    joint: JointConfig
    student: StudentConfig
    teacher: str | None

    def summary(self) -> dict[str, Any]:
        """The plan as plain values, for metrics.json.
        Book: chapter 7 (Joint vs transfer vs mapping).
        """
        return asdict(self)

    @property
    def stop_note(self) -> str:
        """What the curve covers, for the figures.
        Book: chapter 7 (Joint vs transfer vs mapping).
        """
        return (f"bitext doubling from {self.sizes[0]:,} to {self.sizes[-1]:,} pairs (the paper: "
                f"1k to 1M); {len(self.seeds)} seed(s), band = min to max")


SMOKE = AldarmakiPlan(
    languages=("xa", "xe"), sizes=(250, 500), seeds=(0, 1), n_mono=400, n_mono_joint=200, n_nli=400,
    n_test=150, n_cls=150, width=16, word_dim=16, decoder_dim=32,
    pivot=JointConfig(lr=3e-3, batch_size=64, epochs=2, min_steps=8, max_steps=40),
    joint=JointConfig(lr=3e-3, batch_size=64, epochs=1, min_steps=8, max_steps=40),
    student=StudentConfig(lr=3e-3, batch_size=64, epochs=2, min_steps=8, max_steps=40),
    teacher=None)
BOOK = AldarmakiPlan(
    languages=("xa", "xe"), sizes=(1000, 2000, 4000), seeds=(0, 1, 2), n_mono=2000,
    n_mono_joint=1000, n_nli=2000, n_test=400, n_cls=400, width=32, word_dim=32, decoder_dim=64,
    pivot=JointConfig(lr=3e-3, batch_size=64, epochs=3, min_steps=20, max_steps=400),
    joint=JointConfig(lr=3e-3, batch_size=64, epochs=1.5, min_steps=20, max_steps=400),
    student=StudentConfig(lr=3e-3, batch_size=64, epochs=2, min_steps=20, max_steps=400),
    teacher="USE")
#: gpu: the curve two doublings further, 4x the data, wider models, longer optimisation
GPU = replace(BOOK, sizes=(1000, 2000, 4000, 8000, 16_000), n_mono=8000, n_mono_joint=4000,
              n_nli=8000, n_test=1000, n_cls=1000, width=64, word_dim=64, decoder_dim=128,
              pivot=replace(BOOK.pivot, max_steps=1500), joint=replace(BOOK.joint, max_steps=1500),
              student=replace(BOOK.student, max_steps=1500))
FULL = AldarmakiPlan(
    languages=("xa", "xe"), sizes=tuple(1000 * 2**k for k in range(8)), seeds=(0, 1, 2),
    n_mono=50_000, n_mono_joint=20_000, n_nli=50_000, n_test=2000, n_cls=2000, width=256,
    word_dim=64, decoder_dim=512,
    pivot=JointConfig(batch_size=128, epochs=5, max_steps=50_000),
    joint=JointConfig(batch_size=128, epochs=5, max_steps=50_000),
    student=StudentConfig(batch_size=128, epochs=5, max_steps=50_000), teacher="USE")
PLANS = {"smoke": SMOKE, "book": BOOK, "gpu": GPU, "full": FULL}
#: what :func:`work` counts
WORK_UNIT = "optimisation steps x width^2 of the curve's models (pivot, joint, student)"


def work(plan: AldarmakiPlan) -> float:
    """The curve's training in :data:`WORK_UNIT`: at each size and seed the pivot, joint and student
    runs, each at most its ``max_steps``.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    steps = plan.pivot.max_steps + plan.joint.max_steps + plan.student.max_steps
    return float(len(plan.sizes) * len(plan.seeds) * steps * plan.width ** 2)



def build_data(plan: AldarmakiPlan, world_seed: int) -> AldarmakiData:
    """The chapter's data at ``plan``'s sizes from the world of ``world_seed`` (the bitext as long
    as the curve's largest size).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    return alignment_world(world_seed, languages=plan.languages, n_nli=plan.n_nli, n_cls=plan.n_cls,
                           n_test=plan.n_test, n_mono=plan.n_mono, n_parallel=max(plan.sizes),
                           paper_language=PAPER_LANGUAGE)


# ------------------------------------------------------------------------------------ real bitext
#: the real bitexts of the real-bitext curves: target language -> the data cache's name (English on
#: the left), read by :func:`xsent_lib.data.held_out_bitext.load_real_bitext` when data_dir holds no
#: Europarl
REAL_CURVE_BITEXTS: dict[str, str] = {"fr": "nlp-en-fr", "de": "nlp-en-de"}
#: the real-bitext systems, named as on the synthetic curves so the same styles and claims apply
REAL_SYSTEMS: tuple[str, ...] = ("joint SDAE/NMT", "SDAE transfer", "SDAE mapping",
                                 "InfoNCE (shared BiLSTM)", "distillation")


@dataclass(frozen=True, kw_only=True)
class RealPlan:
    """Sizes of the real-bitext curves of one profile: the target ``languages`` (each paired with
    English), the curve's bitext ``sizes`` (``None``: doubling from 1k to the most the bitext
    allows), ``seeds``, the held-out test pairs per language, the monolingual sentences for the
    SDAEs (``n_mono``: the English pivot and the target encoders that mapping aligns;
    ``n_mono_joint``: the English auto-encoding share of joint SDAE/NMT), ``max_pairs`` read per
    bitext (``None``: all), sentence truncation, vocabulary caps, model sizes and the optimisation
    of the SDAEs, the joint runs and the students; ``teacher`` for distillation (``None``: none).
    Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """

    languages: tuple[str, ...]
    sizes: tuple[int, ...] | None
    seeds: tuple[int, ...]
    n_test: int
    n_mono: int
    n_mono_joint: int
    max_pairs: int | None
    max_len: int
    vocab_size: int
    width: int
    word_dim: int
    decoder_dim: int
    pivot: JointConfig
    joint: JointConfig
    student: StudentConfig
    teacher: str | None

    def __post_init__(self) -> None:
        if not self.languages or "en" in self.languages:
            raise ValueError("languages are the targets paired with English (not 'en'), got "
                             f"{self.languages}.")
        if self.sizes is not None and (not self.sizes or list(self.sizes) != sorted(set(self.sizes))
                                       or self.sizes[0] < 2):
            raise ValueError(f"sizes must be increasing pair counts >= 2 (or None), got "
                             f"{self.sizes}.")
        if (self.n_test < 2 or self.n_mono < 2 or self.n_mono_joint < 1 or self.max_len < 2
                or self.vocab_size < 10):
            raise ValueError("need n_test, n_mono >= 2, n_mono_joint >= 1, max_len >= 2 and "
                             "vocab_size >= 10.")

    def summary(self) -> dict[str, Any]:
        """The plan as plain values, for metrics.json.

        Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
        """
        return asdict(self)

    def curve_sizes(self, available: int) -> list[int]:
        """The sizes this plan runs when ``available`` training pairs exist (:func:`curve_sizes`;
        ``sizes=None``: 1k doubling).
        Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
        """
        return curve_sizes(available, self.sizes)


REAL_SMOKE = RealPlan(
    languages=("fr", "de"), sizes=(100, 200), seeds=(0, 1, 2), n_test=60, n_mono=150,
    n_mono_joint=50, max_pairs=400, max_len=12, vocab_size=600, width=8, word_dim=16,
    decoder_dim=16,
    pivot=JointConfig(lr=3e-3, batch_size=32, epochs=1, min_steps=3, max_steps=6),
    joint=JointConfig(lr=3e-3, batch_size=32, epochs=1, min_steps=3, max_steps=6),
    student=StudentConfig(lr=3e-3, batch_size=32, epochs=1, min_steps=3, max_steps=6),
    teacher=None)
# book: three sizes, three seeds, tiny models and few steps: the whole real-bitext run costs about a
# minute of CPU
REAL_BOOK = RealPlan(
    languages=("fr", "de"), sizes=(1000, 2000, 4000), seeds=(0, 1, 2), n_test=300, n_mono=1000,
    n_mono_joint=300, max_pairs=5300, max_len=16, vocab_size=3000, width=16, word_dim=32,
    decoder_dim=32,
    pivot=JointConfig(lr=3e-3, batch_size=64, epochs=1, min_steps=10, max_steps=16),
    joint=JointConfig(lr=3e-3, batch_size=64, epochs=0.25, min_steps=8, max_steps=24),
    student=StudentConfig(lr=3e-3, batch_size=64, epochs=0.5, min_steps=8, max_steps=24),
    teacher="USE")
REAL_FULL = RealPlan(
    languages=("fr", "de"), sizes=None, seeds=(0, 1, 2), n_test=2000, n_mono=20_000,
    n_mono_joint=20_000, max_pairs=None, max_len=30, vocab_size=30_000, width=256, word_dim=64,
    decoder_dim=512, pivot=JointConfig(batch_size=128, epochs=5, max_steps=20_000),
    joint=JointConfig(batch_size=128, epochs=5, max_steps=50_000),
    student=StudentConfig(batch_size=128, epochs=5, max_steps=50_000), teacher="USE")


def real_stop_note(plan: RealPlan, records: Sequence[Mapping[str, Any]],
                   data: RealBitextData) -> str:
    """What the real-bitext curves cover, for their figures: sizes, seeds, the models' reduced
    scale.
    Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """
    sizes = record_sizes(records)
    if not sizes:
        raise ValueError("no record has a bitext size; run run_real_seed first.")
    steps = (f"at most {plan.student.max_steps} student / {plan.joint.max_steps} joint / "
             f"{plan.pivot.max_steps} SDAE steps")
    seeds = len({r["seed"] for r in records if r["n"] is not None})
    return (f"real bitext ({'; '.join(data.source.values())}); pairs doubling from {sizes[0]:,} to "
            f"{sizes[-1]:,}; {seeds} seeds, band = min to max; shrunk models: {2 * plan.width}-d "
            f"BiLSTM, {plan.max_len} tokens, {plan.vocab_size:,} words, {steps}; test: "
            f"{plan.n_test} held-out pairs per language")


# ---------------------------------------------------------------------------------- paper numbers
def paper_numbers() -> AldarmakiClaimNumbers:
    """The same numbers from the paper: only the joint InferSent NLI accuracies are printed
    (Sec. 4.3 prose); the retrieval results are Figures 5-7 without numbers and the CLDC table is
    missing from our copy.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    nli = paper_table("aldarmaki2019", "prose_4_3_nli_accuracy").loc["joint InferSent"]
    figs = Absent("the paper's Figures 5-7 print no numbers")
    cldc = Absent("the paper's CLDC table is missing from our copy")
    gaps = [float(nli[k] - nli["cross-lingual"]) for k in ("en", "de", "es")]
    fields = {f: figs for f in AldarmakiClaimNumbers.__dataclass_fields__}
    fields |= {f: cldc for f in fields if f.startswith("cls_")}
    return AldarmakiClaimNumbers(**fields | {
        "mapping_over_transfer_seconds": Absent("the paper reports no timings"),
        "nli_en": float(nli["en"]), "nli_en_gap": gaps[0], "nli_worst_gap": max(gaps)})


def real_paper_numbers() -> RealClaimNumbers:
    """The paper has no real-bitext numbers of ours to compare: its curves are figures without
    numbers.
    Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """
    figs = Absent("the paper's Figures 5-7 print no numbers")
    return RealClaimNumbers(**{f: figs for f in RealClaimNumbers.__dataclass_fields__})


# ----------------------------------------------------------------------------------------- claims
_FIG5 = ("With small amounts of parallel text, all models outperformed the joint SDAE/NMT, "
         "particularly the word based FastText models.")
_CROSS = ("With less than 100K parallel sentences, the joint SDAE/NMT model yielded poor "
          "performance compared to all models, but with 100K and more data, the model quickly "
          "exceeded the performance of all others by a large margin.")
_WORSE = ("With smaller amounts of parallel text, representation transfer worked reasonably well "
          "across all models, whereas sentence mapping was generally worse.")
_NLI = PaperCell("aldarmaki2019", "prose_4_3_nli_accuracy", "joint InferSent", "en")
_NLI_X = PaperCell("aldarmaki2019", "prose_4_3_nli_accuracy", "joint InferSent", "cross-lingual")
_CLDC = ("With large enough parallel corpora, the performance of SDAE/NMT exceeded the transfer "
         "model, but with smaller data, SDAE transfer model achieved consistently higher "
         "performance.")
_AD = "Aldarmaki & Diab"
CLAIMS: tuple[Claim, ...] = (
    Claim("with little parallel data every other Figure 5 model beats joint SDAE/NMT (SDAE "
          "transfer and mapping, both SIF baselines)", "worst_other_fewest", ">",
          "joint_sdae_fewest", "Fig. 5 (prose only)",
          note="the weakest of the four at the fewest pairs",
          weaker=Weaker("the best of SDAE transfer and mapping beats it",
                        "best_sdae_transfer_mapping_fewest", ">", "joint_sdae_fewest",
                        id="ch07.small_bitext_best_beats_joint"),
          id="ch07.small_bitext_all_beat_joint", where=f"{_AD} §4.1, Fig. 5", quote=_FIG5),
    Claim("joint SDAE/NMT overtakes transfer within our range of sizes (crossover found)",
          "crossover_found", "==", 1.0,
          "crossover near 100k-500k pairs in the paper; our range ends far below",
          note="1 = joint reaches transfer at some size run",
          weaker=Weaker("the joint-minus-transfer gap narrows from the fewest to the most pairs",
                        "gap_joint_transfer_most", ">", "gap_joint_transfer_fewest",
                        id="ch07.joint_gap_narrows"),
          id="ch07.joint_overtakes_transfer", where=f"{_AD} §4.1, Fig. 5 and §4.2, Fig. 7",
          quote=_CROSS),
    Claim("joint InferSent (no bitext) aligns worse than InferSent transfer", "joint_infersent",
          "<", "infersent_transfer_most", "Fig. 6 (prose only)", id="ch07.joint_infersent_no_align",
          where=f"{_AD} §4.1, Fig. 6",
          quote="The joint model did not learn to align the cross-lingual sentences."),
    Claim("joint InferSent learns NLI: English accuracy at least 10 points above chance (33.3)",
          "nli_en", ">", 43.3, _NLI,
          note="a precondition: below it, the cross-lingual gap below says little",
          id="ch07.joint_nli_learns", where=f"{_AD} §4.3 (prose)",
          quote="The monolingual accuracies were around 83%, 79%, and 79% for English, German, and "
                "Spanish, respectively."),
    Claim("joint InferSent classifies across languages almost as well as within each language "
          "(every language's gap under 5 points)", "nli_worst_gap", "<", 5.0, [_NLI, _NLI_X],
          note="the largest of the monolingual-minus-cross-lingual gaps; the paper: 4, 0 and 0",
          weaker=Weaker("English only", "nli_en_gap", "<", 5.0, id="ch07.joint_nli_comparable_en"),
          id="ch07.joint_nli_comparable", where=f"{_AD} §4.3 (prose)",
          quote="The cross-lingual inference classification performance was comparable to the "
                "monolingual case for each language."),
    Claim("sentence mapping is below transfer at the largest size, in both families (InferSent, "
          "SDAE)", "infersent_mapping_most", "<", "infersent_transfer_most",
          "conclusion (prose only)", also=(("sdae_mapping_most", "<", "sdae_transfer_most"),),
          id="ch07.mapping_below_transfer", where=f"{_AD} §5", quote=_WORSE),
    Claim("InferSent sentence mapping beats the word-based baselines (SIF mapping and the static "
          "dictionary)", "infersent_mapping_most", ">", "best_word_baseline_most",
          "Fig. 6 (prose): from about 20k pairs",
          note="at the largest size run; the paper sees it from about 20k pairs",
          id="ch07.mapping_beats_word_baselines", where=f"{_AD} §4.1, Fig. 6",
          quote="Sentence mapping also performed better than the word-based baselines with "
                "additional parallel data ( 20K)."),
    Claim("mapping is cheap: fitting it takes under a tenth of transfer's training time",
          "mapping_over_transfer_seconds", "<", 0.1,
          "a closed-form SVD applied after training (Sec. 3.5)",
          note="the paper gives no timing; a tenth is our threshold", timed=True,
          id="ch07.mapping_cheap", where=f"{_AD} §3.5",
          quote="After training, we apply the learned transformation post-hoc on newly generated "
                "sentence embeddings."),
    Claim("sentence mapping beats the static-dictionary baseline (SDAE mapping and SIF mapping)",
          "sdae_mapping_most", ">", "sif_static", "Fig. 5 (prose only)",
          also=(("sif_mapping_most", ">", "sif_static"),), note="at the largest size run",
          weaker=Weaker("SIF (fastText) sentence mapping only", "sif_mapping_most", ">",
                        "sif_static", id="ch07.sif_mapping_beats_static"),
          id="ch07.sentence_mapping_beats_static", where=f"{_AD} §4.1, Fig. 5",
          quote="Sentence mapping performed on average better than the static dictionary baseline, "
                "but FastText sentence mapping was generally better."),
    Claim("classification transfer: with smaller data SDAE transfer beats joint SDAE/NMT at every "
          "size run", "cls_min_transfer_minus_joint", ">", 0.0,
          "CLDC (Sec. 4.4 prose; table missing from our copy)",
          note="every size we run is below the paper's 'large enough'",
          weaker=Weaker("at the fewest pairs only", "cls_sdae_transfer_fewest", ">",
                        "cls_joint_sdae_fewest", id="ch07.cls_transfer_beats_joint_fewest"),
          id="ch07.cls_transfer_beats_joint", where=f"{_AD} §4.4 (prose)", quote=_CLDC),
    Claim("classification transfer: the word-vector baseline (SIF mapping) is the highest",
          "cls_sif_mapping_most", ">=", "cls_best_neural_most",
          "CLDC (Sec. 4.4 prose): 'FastText is highest'", note="at the largest size run",
          id="ch07.cls_fasttext_highest", where=f"{_AD} §4.4 (prose)",
          quote="The highest accuracy was achieved using FastText vectors, followed by InferSent "
                "transfer and sentence mapping models."),
)
CLAIM_SET = ClaimSet("07_aldarmaki", CLAIMS, paper_numbers)

#: the claims on real bitext, with numbers of their own (:class:`RealClaimNumbers`)
REAL_CLAIMS: tuple[Claim, ...] = (
    Claim("real bitext: the best trained system retrieves at least five times better than chance",
          "best_trained_most", ">", "five_x_chance", "the paper's models are far above chance",
          note="a precondition: below it the comparisons below compare noise",
          id="ch07.real_above_chance", where=f"{_AD} §4.1, Fig. 6",
          quote="Overall, the transfer learning model worked well for InferSent resulting in high "
                "translation retrieval accuracies even with relatively small amounts of parallel "
                "text ( 5K sentences)."),
    Claim("real bitext: with little parallel data both SDAE transfer and SDAE mapping beat joint "
          "SDAE/NMT", "worst_sdae_transfer_mapping_fewest", ">", "joint_sdae_fewest",
          "Fig. 5 (prose only)",
          weaker=Weaker("the best of them beats it", "best_sdae_transfer_mapping_fewest", ">",
                        "joint_sdae_fewest", id="ch07.real_small_bitext_best_beats_joint"),
          id="ch07.real_small_bitext_all_beat_joint", where=f"{_AD} §4.1, Fig. 5", quote=_FIG5),
    Claim("real bitext: joint SDAE/NMT overtakes transfer within our range of sizes (crossover "
          "found)", "crossover_found", "==", 1.0, "crossover near 100k-500k pairs in the paper",
          note="1 = joint reaches transfer at some size run",
          weaker=Weaker("the joint-minus-transfer gap narrows", "gap_joint_transfer_most", ">",
                        "gap_joint_transfer_fewest", id="ch07.real_joint_gap_narrows"),
          id="ch07.real_joint_overtakes_transfer", where=f"{_AD} §4.1, Fig. 5", quote=_CROSS),
    Claim("real bitext: SDAE mapping is below SDAE transfer at the largest size",
          "sdae_mapping_most", "<", "sdae_transfer_most", "conclusion (prose only)",
          id="ch07.real_mapping_below_transfer", where=f"{_AD} §5", quote=_WORSE),
)
REAL_CLAIM_SET = ClaimSet("07_aldarmaki", REAL_CLAIMS, real_paper_numbers)


def summary_lines(records: Sequence[Mapping[str, Any]],
                  numbers: AldarmakiClaimNumbers | RealClaimNumbers,
                  n_test: int | None = None) -> list[str]:
    """Plain sentences stating what the run produced (best system per size, crossover, seed spread,
    and where each teacher row stands: against chance, 1 in ``n_test`` test sentences, and against
    the systems trained on this data at the largest size).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    sizes = record_sizes(records)
    cross = numbers.crossover_pairs
    crossing = (f"joint SDAE/NMT reaches SDAE transfer at {cross:,.0f} pairs."
                if not isinstance(cross, Absent) else
                f"no crossover: joint SDAE/NMT stays below SDAE transfer up to {sizes[-1]:,} pairs."
                if sizes else "")
    shown = ("joint SDAE/NMT", "SDAE transfer", "SDAE mapping", "InferSent transfer",
             "InferSent mapping")
    lines = [*size_lines(records, shown), crossing, spread_line(records),
             *reference_lines(records, TEACHER_ROW, n_test)]
    return [line for line in lines if line]
