"""The XNLI recipe (thesis section 4.2, Conneau et al. 2018c): the chapter's plan, its calls and its
claims.

English encoders are trained on NLI with Adam as in the paper, or pretrained (X-CBOW), then frozen;
one target encoder per language is aligned to them on bitext and scored zero-shot with the English
classifier (:mod:`xsent_lib.eval.xbilstm`); translate-train and translate-test use the benchmark's
translator. Data come from :mod:`xsent_lib.data.xnli` and :mod:`xsent_lib.data.xnli_languages`, the
translators' quality from :mod:`xsent_lib.eval.translation_quality`, tables and sentences from
:mod:`xsent_lib.results.xnli_tables`.
Book: chapter 6 (XNLI and aligned encoders).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

import torch

from xsent_lib.data import xnli_languages as xl
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.word_setup import WordSetup
from xsent_lib.data.xnli import XNLIBenchmark, real_xnli, synthetic_xnli
from xsent_lib.eval import xbilstm
from xsent_lib.results.claims import Absent, Claim, ClaimSet, PaperCell, Weaker
from xsent_lib.results.paper import paper_table
from xsent_lib.results.xnli_claims import XnliClaimNumbers, claim_numbers
from xsent_lib.results.xnli_tables import ABLATION_ROWS, ROWS, THESIS_ROWS
from xsent_lib.train.alignment import AlignConfig
from xsent_lib.train.nli import NLIRun
from xsent_lib.train.xnli import FrozenVectorsRun


@dataclass(frozen=True, kw_only=True)
class XNLIPlan:
    """Sizes of one profile. ``languages``: the target languages; ``n_train`` / ``n_dev`` /
    ``n_test``: NLI pairs; ``n_parallel`` / ``n_parallel_dev``: bitext pairs per language for
    alignment / its selection; ``width`` (units per direction) and ``nli_epochs``: the English
    BiLSTMs; ``align``: the alignment setting; ``encoders``: the English BiLSTMs trained (X-CBOW
    always is); ``ablation_languages``, ``translate_train_languages``; the bitext curve
    (``curve_language``, ``curve_sizes``, ``curve_seeds``); ``glove``: fixed GloVe vectors (else
    random, trained); real-text languages (``real_languages``, ``n_real_parallel`` bitext pairs, the
    first ``n_choice_bitext`` raw pairs choose FreeDict's translations); the frozen reference rows
    (``reference``, classifier on ``n_reference_train`` / ``n_reference_dev`` English pairs).
    Book: chapter 6 (XNLI and aligned encoders).
    """

    languages: tuple[str, ...]
    n_train: int
    n_dev: int
    n_test: int
    n_parallel: int
    n_parallel_dev: int
    width: int
    nli_epochs: int
    align: AlignConfig
    encoders: tuple[str, ...]
    ablation_languages: tuple[str, ...]
    translate_train_languages: tuple[str, ...]
    curve_language: str
    curve_sizes: tuple[int, ...]
    curve_seeds: tuple[int, ...]
    glove: bool
    real_languages: tuple[str, ...] = ()
    n_real_parallel: int = 0
    n_choice_bitext: int = 20_000
    reference: tuple[str, ...] = ()
    n_reference_train: int = 0
    n_reference_dev: int = 300

    def summary(self) -> dict[str, Any]:
        """The plan as plain values, for metrics.json.
        Book: chapter 6 (XNLI and aligned encoders)."""
        return asdict(self)


SMOKE = XNLIPlan(
    languages=("xa", "xd"), n_train=900, n_dev=150, n_test=150, n_parallel=400, n_parallel_dev=100,
    width=16, nli_epochs=2, align=AlignConfig(epochs=1, eval_every=3, batch_size=32),
    encoders=("bilstm-max",), ablation_languages=("xa",), translate_train_languages=("xa",),
    curve_language="xd", curve_sizes=(100, 400), curve_seeds=(0,), glove=False,
    real_languages=("fr",), n_real_parallel=400, n_choice_bitext=5000, reference=("USE",),
    n_reference_train=300, n_reference_dev=100)
BOOK = XNLIPlan(
    languages=("xa", "xb", "xc", "xd", "xe"), n_train=5000, n_dev=1000, n_test=1000,
    n_parallel=3000, n_parallel_dev=300, width=64, nli_epochs=4,
    align=AlignConfig(epochs=4, eval_every=24),
    encoders=("bilstm-max", "bilstm-last"), ablation_languages=("xa", "xd"),
    translate_train_languages=("xa", "xd"), curve_language="xd", curve_sizes=(300, 1000, 3000),
    curve_seeds=(0, 1), glove=True, real_languages=("fr", "de"), n_real_parallel=3000,
    reference=("USE",), n_reference_train=5000)
#: gpu: book's languages with 4x the NLI pairs, 3x the bitext, 4x the width, a longer bitext curve
GPU = replace(BOOK, n_train=20_000, n_parallel=10_000, width=256, nli_epochs=5,
              align=AlignConfig(epochs=5, eval_every=80), curve_sizes=(300, 1000, 3000, 10_000),
              curve_seeds=(0, 1, 2), n_real_parallel=10_000)
FULL = XNLIPlan(
    languages=("fr", "es", "de", "el", "bg", "ru", "tr", "ar", "vi", "th", "zh", "hi", "sw", "ur"),
    n_train=392_702, n_dev=2490, n_test=5010, n_parallel=500_000, n_parallel_dev=2000, width=512,
    nli_epochs=10, align=AlignConfig(epochs=5, eval_every=2000, batch_size=128),
    encoders=("bilstm-max", "bilstm-last"), ablation_languages=("fr", "ru", "zh"),
    translate_train_languages=("fr", "ru", "zh"), curve_language="fr",
    curve_sizes=(10_000, 100_000, 500_000), curve_seeds=(0, 1, 2), glove=True,
    real_languages=("fr", "de", "es"), n_real_parallel=50_000, n_choice_bitext=50_000,
    reference=("USE", "mE5-small"), n_reference_train=50_000, n_reference_dev=2000)
#: the full profile on the synthetic world (no XNLI in data_dir): the book's languages, larger
SYNTHETIC_FULL = replace(
    BOOK, n_train=50_000, n_parallel=50_000, width=256, nli_epochs=5,
    curve_sizes=(1000, 5000, 50_000), curve_seeds=(0, 1, 2), real_languages=("fr", "de", "es"),
    n_real_parallel=50_000, n_choice_bitext=50_000, reference=("USE", "mE5-small"),
    n_reference_train=20_000, n_reference_dev=1000)
PLANS = {"smoke": SMOKE, "book": BOOK, "gpu": GPU, "full": FULL}
#: what :func:`work` counts
WORK_UNIT = "examples x epochs x width^2 of the BiLSTMs (NLI training and alignment)"


def work(plan: XNLIPlan) -> float:
    """The plan's BiLSTM training in :data:`WORK_UNIT`: the English encoders on NLI, their alignment
    to every language, and the bitext curve's alignments (seeds x sizes).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    nli = plan.n_train * plan.nli_epochs * len(plan.encoders)
    align = plan.align.epochs * (plan.n_parallel * len(plan.languages)
                                 + sum(plan.curve_sizes) * len(plan.curve_seeds))
    return float((nli + align) * plan.width ** 2)



def benchmark(plan: XNLIPlan, seed: int, data_dir: str | Path | None = None,
              real: bool = False) -> tuple[XNLIBenchmark, XNLIPlan, SyntheticWorld | None]:
    """The chapter's data: XNLI 1.0 + XNLI-MT from ``data_dir`` when ``real`` (any profile), else
    the synthetic world's XNLI-shaped set at ``plan``'s sizes (the full plan falls back to
    :data:`SYNTHETIC_FULL`). Real data keep the plan's languages that have an XNLI-MT training file
    (the others are noted); a smoke or book plan, which names the world's invented languages, takes
    the full plan's XNLI languages instead, at most as many as it has, at its own sizes. Returns the
    benchmark, the plan actually used and the world (``None`` for real data).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    if real:
        if data_dir is None:
            raise ValueError("real XNLI needs data_dir (the folder holding XNLI-1.0/ and "
                             "XNLI-MT-1.0/).")
        mt = Path(data_dir) / "XNLI-MT-1.0" / "multinli"
        # a smoke / book plan names the world's invented languages: real data take XNLI's, as many
        # as it has
        shape = FULL if all(lang.startswith("x") for lang in plan.languages) else plan
        requested = shape.languages
        langs = tuple(lang for lang in requested if (mt / f"multinli.train.{lang}.tsv").is_file())
        langs = langs[: len(plan.languages)]
        if not langs:
            raise FileNotFoundError(f"no XNLI-MT training file for {list(requested)} under {mt}.")
        plan = replace(
            plan, languages=langs,
            ablation_languages=tuple(x for x in shape.ablation_languages if x in langs)
            or langs[:1],
            translate_train_languages=tuple(x for x in shape.translate_train_languages
                                            if x in langs) or langs[:1],
            curve_language=shape.curve_language if shape.curve_language in langs else langs[0])
        bench = real_xnli(data_dir, langs, max_train=plan.n_train, max_parallel=plan.n_parallel,
                          n_parallel_dev=plan.n_parallel_dev)
        missing = [lang for lang in requested
                   if lang not in langs and not (mt / f"multinli.train.{lang}.tsv").is_file()]
        if missing:
            bench.notes.append(f"languages without XNLI-MT files in data_dir, skipped: {missing}")
        return bench, plan, None
    if plan is FULL:
        plan = SYNTHETIC_FULL
    world = SyntheticWorld(seed)
    bench = synthetic_xnli(world, plan.languages, plan.n_train, plan.n_dev, plan.n_test,
                           plan.n_parallel, plan.n_parallel_dev)
    return bench, plan, world


def add_real_languages(bench: XNLIBenchmark, plan: XNLIPlan, seed: int,
                       cache_dir: str | Path | None = None,
                       apertium: bool = True) -> tuple[XNLIBenchmark, list[str]]:
    """``bench`` plus the plan's real-text languages at its sizes
    (:func:`~xsent_lib.data.xnli_languages.add_real_languages`).

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return xl.add_real_languages(
        bench, plan.real_languages, seed=seed, n_parallel=plan.n_real_parallel,
        n_parallel_dev=plan.n_parallel_dev, n_choice_bitext=plan.n_choice_bitext,
        cache_dir=cache_dir, apertium=apertium)


def train_english(name: str, bench: XNLIBenchmark, words: WordSetup, plan: XNLIPlan, *,
                  device: str | torch.device, seed: int) -> NLIRun:
    """English model ``name`` at the plan's width and epochs (:func:`xbilstm.train_english`).

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return xbilstm.train_english(name, bench, words, width=plan.width, epochs=plan.nli_epochs,
                                 device=device, seed=seed)


def translate_train(lang: str, english: NLIRun, words: WordSetup, bench: XNLIBenchmark,
                    world: SyntheticWorld | None, plan: XNLIPlan, *, device: str | torch.device,
                    seed: int) -> NLIRun:
    """TRANSLATE TRAIN into ``lang`` at the plan's sizes (:func:`xbilstm.translate_train`).

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return xbilstm.translate_train(lang, english, words, bench, world, width=plan.width,
                                   epochs=plan.nli_epochs, device=device, seed=seed)


def reference_row(name: str, bench: XNLIBenchmark, plan: XNLIPlan, *,
                  device: str | torch.device = "auto", seed: int = 0
                  ) -> tuple[FrozenVectorsRun, dict[str, float | None], list[str]]:
    """The reference row of shipped encoder ``name`` at the plan's sizes
    (:func:`xbilstm.reference_row`).

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return xbilstm.reference_row(name, bench, n_train=plan.n_reference_train,
                                 n_dev=plan.n_reference_dev, device=device, seed=seed)


def ablation_settings(default: AlignConfig) -> list[AlignConfig]:
    """The paper's ablation around ``default`` (lambda 0 and 0.5, frozen lookup table) plus the
    ranking loss.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return [default, replace(default, lam=0.0), replace(default, lam=0.5),
            replace(default, fine_tune=False), replace(default, loss="rank")]


# ------------------------------------------------------------------------------------------ claims
_T410 = "thesis §4.2.5, Table 4.10"
_T411 = "thesis §4.2.5, Table 4.11"
_ANALYSIS = "thesis §4.2.5 (Analysis)"
_BEST = ("The best cross-lingual results in our evaluation are obtained by the TRANSLATE TEST "
         "approach for all cross-lingual directions.")
_COMPETITIVE = ("When using our alignment process, our method is competitive with the TRANSLATE "
                "TRAIN baseline, suggesting that it might be possible to encode similarity between "
                "languages directly in the embedding spaces generated by the encoders.")
_CBOW = ("Unsuprisingly, BiLSTM results are better than the pretrained CBOW approach for all "
         "languages.")
_LARGER = ("These production systems have been trained on much larger training data than the "
           "ones used for the alignment loss (section 4.2.5), which can partly explain the "
           "superiority of this method over the baseline.")
_REAL = "ours: real bitext, test set machine-translated by the system named in the data notes"


def _row(key: str) -> str:
    return THESIS_ROWS[ROWS[key]]


def _c(table: str, key_or_row: str, cols: Sequence[str]) -> list[PaperCell]:
    row = _row(key_or_row) if key_or_row in ROWS else key_or_row
    return [PaperCell("thesis", table, row, c) for c in cols]


CLAIMS: tuple[Claim, ...] = (
    Claim("TRANSLATE TEST is the best row in every target language", "ttest_lead_min", ">", 0.0,
          _c("table_4_10", "ttest", ("vi",)) + _c("table_4_10", "x-max", ("vi",)),
          note="the lead over the best of TRANSLATE TRAIN, X-BiLSTM-max/-last and X-CBOW, "
               "smallest language",
          weaker=Weaker("above X-BiLSTM-max on the mean", "ttest_avg", ">", "x_max_avg",
                        id="ch06.translate_test_best_mean"),
          id="ch06.translate_test_best", quote=_BEST, where=f"{_ANALYSIS}, Table 4.10"),
    Claim("X-BiLSTM-max beats TRANSLATE TEST with a word-by-word translator (our row)",
          "x_max_avg", ">", "ttest_wbw_avg", "not in the paper (its MT is real MT, Table 4.9)",
          id="ch06.wbw_below_encoder", where=_ANALYSIS,
          quote="Within the translation approaches, as expected, we observe that cross-lingual "
                "performance depends on the quality of the translation system."),
    Claim("X-BiLSTM-max is at least X-BiLSTM-last in every target language", "max_minus_last_min",
          ">=", 0.0, _c("table_4_10", "x-max", ("tr",)) + _c("table_4_10", "x-last", ("tr",)),
          note="ties allowed: the paper's own tr column is a tie",
          weaker=Weaker("above on the mean", "x_max_avg", ">", "x_last_avg",
                        id="ch06.max_beats_last_mean"),
          id="ch06.max_beats_last", where=_T410,
          quote="Interestingly, the two points difference in accuracy between X-BiLSTM-last "
                "and X-BiLSTM-max is maintained across languages, which suggests that having a "
                "stronger encoder in English also positively impacts the transfer results on other "
                "languages."),
    Claim("X-BiLSTM-max beats X-CBOW in every target language", "max_minus_cbow_min", ">", 0.0,
          _c("table_4_10", "x-max", ("sw",)) + _c("table_4_10", "x-cbow", ("sw",)),
          weaker=Weaker("above on the mean", "x_max_avg", ">", "x_cbow_avg",
                        id="ch06.bilstm_beats_cbow_mean"),
          id="ch06.bilstm_beats_cbow", quote=_CBOW, where=_T410),
    Claim("TRANSLATE TEST beats TRANSLATE TRAIN in every language both score", "ttest_minus_tt_min",
          ">", 0.0, _c("table_4_10", "ttest", ("vi",)) + _c("table_4_10", "tt", ("vi",)),
          weaker=Weaker("above on the mean", "ttest_avg_tt", ">", "tt_avg",
                        id="ch06.translate_test_beats_train_mean"),
          id="ch06.translate_test_beats_train", where=_T410,
          quote="Within translation, TRANS-LATE TEST appears to perform consistently better than "
                "TRANSLATE TRAIN for all languages."),
    Claim("X-BiLSTM-max is competitive with TRANSLATE TRAIN: means within 1 point", "tt_gap_abs",
          "<=", 1.0, _c("table_4_10", "tt", ("de",)) + _c("table_4_10", "x-max", ("de",)),
          note="'competitive' read as |mean difference| <= 1 point over the languages both rows "
               "score; the paper does not say TRANSLATE TRAIN wins",
          id="ch06.translate_train_competitive", quote=_COMPETITIVE, where=_T410),
    Claim("the negative term is not critical but helps slightly: 0 <= gain <= 2 points in every "
          "language", "negatives_gain_min", ">=", 0.0,
          _c("table_4_11", "ft = 1, λ = 0.0 (no negatives)", ("zh",)),
          also=(("negatives_gain_max", "<=", 2.0),), note="'slight' read as at most 2 points",
          weaker=Weaker("lambda = 0.25 above lambda = 0 on the mean", "lam_default", ">",
                        "lam_zero", id="ch06.negatives_help_mean"),
          id="ch06.negatives_slight", where=_T411,
          quote="We also observe that the negative term is not critical to the performance of the "
                "model, but can lead to slight improvement in Chinese (up to 1.6%)."),
    Claim("too much weight on negatives hurts: lambda = 0.5 below 0.25 in every language",
          "half_drop_min", ">", 0.0, _c("table_4_11", "ft = 1, λ = 0.5", ("fr",)),
          weaker=Weaker("below on the mean", "lam_half", "<", "lam_default",
                        id="ch06.too_many_negatives_mean"),
          id="ch06.too_many_negatives", where="thesis §4.2.5 (Training details), Table 4.11",
          quote="For the alignment loss, setting  $\\lambda$  to 0.25 worked best in our "
                "experiments, and we found that the trade-off between the importance of the "
                "positive and the negative pairs was particularly important (see Table 4.11)."),
    Claim("fine-tuning the lookup table changes accuracy by at most 1 point in every language",
          "ft_gap_max", "<=", 1.0, _c("table_4_11", "ft = 0, λ = 0.25", ("fr",)),
          note="'does not significantly impact' read as |ft = 1 - ft = 0| <= 1 point",
          weaker=Weaker("the means within 1 point", "ft_gap_mean", "<=", 1.0,
                        id="ch06.finetune_lookup_mean"),
          id="ch06.finetune_lookup", where=_T411,
          quote="Fine-tuning the embeddings does not significantly impact the results, suggesting "
                "that the LSTM alone is ensuring alignment of parallel sentence embeddings."),
    Claim("the ranking loss gives very poor results: 5+ points below L_align in every language",
          "ranking_drop_min", ">=", 5.0, "'leads to very poor results' (text, no number)",
          note="'very poor' read as at least 5 points below the default setting",
          weaker=Weaker("below L_align on the mean", "ranking", "<", "lam_default",
                        id="ch06.ranking_poor_mean"),
          id="ch06.ranking_poor", where="thesis §4.2.4 (Multilingual Sentence Encoders)",
          quote="that pushes the sentence embeddings of a translation pair to be closer than the "
                "ones of negative pairs leads to very poor results in this particular case."),
    Claim("strong correlation of L_align and accuracy along training: r <= -0.7 in every language",
          "curve_r_max", "<=", -0.7, "Figure 4.5 (no numbers printed)",
          note="'strong' read as Pearson r <= -0.7 (a falling loss with a rising accuracy)",
          weaker=Weaker("negative on the mean", "curve_r_mean", "<", 0.0,
                        id="ch06.align_curve_mean"),
          id="ch06.align_curve", where=f"{_ANALYSIS}, Figure 4.5",
          quote="We observe a strong correlation between the alignment losses and XNLI "
                "accuracies."),
    Claim("accuracy falls with typological distance from English (our languages)",
          "distance_spearman", "<", 0.0,
          "not tested in the paper; its lowest languages (sw, ur) also have the least bitext",
          note="invented languages only", id="ch06.distance",
          where="thesis §4.2.4 (Translation-Based Approaches)",
          quote="Both approaches are limited by the quality of the translation system, which "
                "itself varies with the quantity of available training data and the similarity of "
                "the language pair involved."),
    Claim("every larger bitext gives higher accuracy", "parallel_step_min", ">", 0.0,
          "ur (64k pairs) overfits in Figure 4.5; sw (42k) and ur are the lowest columns",
          weaker=Weaker("the most bitext above the fewest", "parallel_gain", ">", 0.0,
                        id="ch06.more_bitext_ends"),
          id="ch06.more_bitext", where=f"{_ANALYSIS}, Figure 4.5",
          quote="We observe some over-fitting for Urdu, which can be explained by the small number "
                "of parallel sentences (64k) available for that language."),
    Claim("real-text languages: TRANSLATE TEST is the best row in every one", "real_ttest_lead_min",
          ">", 0.0, _c("table_4_10", "ttest", ("fr", "de")), note=_REAL,
          weaker=Weaker("above X-BiLSTM-max on the mean", "real_ttest", ">", "real_x_max",
                        id="ch06.real_translate_test_mean"),
          id="ch06.real_translate_test", quote=_BEST, where=f"{_ANALYSIS}, Table 4.10"),
    Claim("real-text languages: X-BiLSTM-max competitive with TRANSLATE TRAIN (means within 1 "
          "point)", "real_tt_gap_abs", "<=", 1.0, _c("table_4_10", "tt", ("fr", "de")), note=_REAL,
          id="ch06.real_translate_train_competitive", quote=_COMPETITIVE, where=_T410),
    Claim("real-text languages: X-BiLSTM-max beats X-CBOW in every one", "real_max_minus_cbow_min",
          ">", 0.0, _c("table_4_10", "x-cbow", ("fr", "de")), note=_REAL,
          weaker=Weaker("above on the mean", "real_x_max", ">", "real_x_cbow",
                        id="ch06.real_bilstm_beats_cbow_mean"),
          id="ch06.real_bilstm_beats_cbow", quote=_CBOW, where=_T410),
    Claim("real-text languages: a shipped multilingual encoder (frozen) beats every other row",
          "real_best_reference", ">", "real_best_other",
          "not in the paper (XNLI predates USE-multilingual and mE5)",
          note="the paper's argument for its MT baselines (more training data), applied to shipped "
               "encoders", id="ch06.real_reference_best", quote=_LARGER, where=_ANALYSIS),
    Claim("invented languages: a shipped multilingual encoder beats X-BiLSTM-max",
          "invented_best_reference", ">", "invented_x_max", "not in the paper",
          note="not testable by design: the shipped encoders never saw the invented languages",
          id="ch06.invented_reference", quote=_LARGER, where=_ANALYSIS),
)


def paper_numbers() -> XnliClaimNumbers:
    """The claim numbers of the thesis's own Tables 4.10 and 4.11 (its 14 target languages,
    English out); :class:`Absent` where its tables report nothing a claim compares.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    t410, t411 = paper_table("thesis", "table_4_10"), paper_table("thesis", "table_4_11")
    rows = {key: t410.loc[_row(key)].drop("en").astype(float).to_dict()
            for key in ROWS if key != "ttest-last"}
    ablation = {lab: t411.loc[row].astype(float).to_dict() for lab, row in ABLATION_ROWS.items()}
    ours = claim_numbers(rows, ablation, {}, [])
    tt_last = t410.loc[_row("tt").replace("max", "last")].drop("en").astype(float)
    lead = min(ours.ttest_lead_min, float((t410.loc[_row("ttest")].drop("en") - tt_last).min()))
    why = "the paper's tables do not report this"
    absent = {f.name: Absent(why) for f in fields(XnliClaimNumbers) if f.name.startswith(
        ("real_", "invented_", "curve_", "parallel_", "ranking", "distance", "ttest_wbw"))}
    return replace(ours, ttest_lead_min=lead, **absent)


CLAIM_SET = ClaimSet("06_xnli", CLAIMS, paper_numbers)
