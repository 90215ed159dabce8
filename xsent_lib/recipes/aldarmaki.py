"""The Aldarmaki & Diab (2019) recipe: joint training vs representation transfer vs sentence mapping, with
alignment curves over the size of the bitext.

Data: the synthetic world (chapter 1) with English and two invented languages standing in for the paper's
Spanish (``xa``, Romance-like) and German (``xe``, Germanic-like): monolingual text per language, a
multi-parallel bitext (prefixes of it give the curve's sizes), a multi-parallel test set for translation
retrieval, and XNLI-shaped NLI pairs (exact translations) for joint InferSent and for cross-lingual
classification transfer, our stand-in for the paper's CLDC. Models: chapter 3's BiLSTM-max (InferSent, on
NLI) and an SDAE (BiLSTM-max + LSTM decoder, :mod:`xsent_lib.train.joint`), each made cross-lingual three
ways (joint, transfer, mapping), SIF word-vector baselines, and two rows beyond the paper (InfoNCE on the
bitext, distillation from a shipped multilingual teacher).
Book: chapter 7 (Joint vs transfer vs mapping).
"""
from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch

from xsent_lib.align.procrustes import RankDeficientMapWarning
from xsent_lib.base.runtime import seed_everything
from xsent_lib.base.threads import single_thread
from xsent_lib.data.formats import NLIData
from xsent_lib.data.held_out_bitext import RealBitextData, curve_sizes
from xsent_lib.data.language_setup import LanguageSetup, language_setup, random_setups, shared_setup
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.xnli import XNLIBenchmark, synthetic_xnli
from xsent_lib.encoders import LSTMDecoder, build_encoder
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.encoders.sif import sif_encoder
from xsent_lib.eval.alignment_curves import (
    Encode,
    crossover,
    gap_at,
    mean_at,
    pair_retrieval,
    record_sizes,
    reference_lines,
    score,
    shared_english,
    size_lines,
    spread_line,
)
from xsent_lib.eval.word_maps import gold_lexicon_maps
from xsent_lib.results.claims import Claim, PaperCell, check_claims
from xsent_lib.text import TextPipeline, Vocab
from xsent_lib.train.bitext_frameworks import (
    BitextFrameworks,
    PivotFamily,
    curve_record,
    encode_with,
    frameworks_at,
)
from xsent_lib.train.joint import JointConfig, JointRun, infersent_run, sdae_decoder, sdae_encoder
from xsent_lib.train.transfer import StudentConfig

# SMOKE and BOOK train for a few hundred steps only: Adam at 3e-3 (not its default 1e-3) gets the small models
# much further in that budget (English NLI test accuracy 72 vs 56 after 94 steps in the book profile).
# Which of the paper's languages each invented language stands beside (closest typology; not a translation).
PAPER_LANGUAGE: dict[str, str] = {"en": "en", "xa": "es", "xe": "de"}
FAMILIES: dict[str, tuple[str, ...]] = {
    "SDAE": ("joint SDAE/NMT", "SDAE transfer", "SDAE mapping"),
    "InferSent": ("joint InferSent", "InferSent transfer", "InferSent mapping"),
    "SIF": ("SIF static dictionary", "SIF mapping"),
    "beyond": ("InfoNCE (shared BiLSTM)", "distillation"),
}
TEACHER_ROW = "teacher"
DATA_NAME = "synthetic world: en + xa ('es' stand-in) + xe ('de' stand-in)"


@dataclass(frozen=True)
class AldarmakiPlan:
    """Sizes of one profile: target languages, data sizes, the curve's bitext sizes and seeds, model sizes and
    the optimisation of pivots, joint runs and students; ``teacher`` names a shipped reference encoder
    (``None``: no distillation rows). Book: chapter 7 (Joint vs transfer vs mapping).
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
        """The plan as plain values, for metrics.json. Book: chapter 7 (Joint vs transfer vs mapping)."""
        return asdict(self)

    @property
    def stop_note(self) -> str:
        """What the curve covers, for the figures. Book: chapter 7 (Joint vs transfer vs mapping)."""
        return (f"bitext doubling from {self.sizes[0]:,} to {self.sizes[-1]:,} pairs (the paper: 1k to 1M); "
                f"{len(self.seeds)} seed(s), band = min to max")


SMOKE = AldarmakiPlan(("xa", "xe"), (250, 500), (0, 1), 400, 200, 400, 150, 150, 16, 16, 32,
                      JointConfig(lr=3e-3, batch_size=64, epochs=2, min_steps=8, max_steps=40),
                      JointConfig(lr=3e-3, batch_size=64, epochs=1, min_steps=8, max_steps=40),
                      StudentConfig(lr=3e-3, batch_size=64, epochs=2, min_steps=8, max_steps=40), None)
BOOK = AldarmakiPlan(("xa", "xe"), (1000, 2000, 4000), (0, 1, 2), 2000, 1000, 2000, 400, 400, 32, 32, 64,
                     JointConfig(lr=3e-3, batch_size=64, epochs=3, min_steps=20, max_steps=400),
                     JointConfig(lr=3e-3, batch_size=64, epochs=1.5, min_steps=20, max_steps=400),
                     StudentConfig(lr=3e-3, batch_size=64, epochs=2, min_steps=20, max_steps=400), "USE")
FULL = AldarmakiPlan(("xa", "xe"), tuple(1000 * 2**k for k in range(8)), (0, 1, 2), 50_000, 20_000, 50_000, 2000,
                     2000, 256, 64, 512, JointConfig(batch_size=128, epochs=5, max_steps=50_000),
                     JointConfig(batch_size=128, epochs=5, max_steps=50_000),
                     StudentConfig(batch_size=128, epochs=5, max_steps=50_000), "USE")


@dataclass
class AldarmakiData:
    """Everything the chapter reads, all from one synthetic world: ``mono[lang]`` monolingual sentences,
    ``parallel[lang] = (english, lang)`` (multi-parallel; the curve uses prefixes), ``test[lang]`` the
    multi-parallel retrieval test set, ``nli[lang]`` the NLI training pairs in every language (exact
    translations), and the XNLI-shaped ``bench`` whose dev / test pairs train and test classification transfer.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """

    world: SyntheticWorld
    languages: list[str]
    mono: dict[str, list[str]]
    parallel: dict[str, tuple[list[str], list[str]]]
    test: dict[str, list[str]]
    nli: dict[str, NLIData]
    bench: XNLIBenchmark

    def sizes(self) -> list[dict[str, Any]]:
        """One row per language with the size of each part. Book: chapter 7 (Joint vs transfer vs mapping)."""
        return [{"language": lang, "paper's": PAPER_LANGUAGE.get(lang, lang), "monolingual": len(self.mono[lang]),
                 "bitext with en": len(self.parallel[lang][0]) if lang != "en" else 0,
                 "retrieval test": len(self.test[lang]), "NLI train": len(self.nli[lang]),
                 "classification train / test": f"{len(self.bench.dev[lang])} / {len(self.bench.test[lang])}"}
                for lang in self.languages]


def build_data(plan: AldarmakiPlan, world_seed: int) -> AldarmakiData:
    """The chapter's data at ``plan``'s sizes from the world of ``world_seed``.

    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    world = SyntheticWorld(world_seed)
    langs = ["en", *plan.languages]
    bench = synthetic_xnli(world, plan.languages, plan.n_nli, plan.n_cls, plan.n_cls, max(plan.sizes), 50)
    nli = {"en": bench.train}
    for lang in plan.languages:
        nli[lang] = NLIData(bench.translate(list(bench.train.premises), "en", lang),
                            bench.translate(list(bench.train.hypotheses), "en", lang), np.asarray(bench.train.labels))
    test = {"en": world.parallel(plan.n_test, "en", plan.languages[0], "test").src}
    for lang in plan.languages:
        test[lang] = world.parallel(plan.n_test, "en", lang, "test").tgt
    mono = {lang: world.sentences(plan.n_mono, lang) for lang in langs}
    return AldarmakiData(world, langs, mono, dict(bench.parallel), test, nli, bench)


# ------------------------------------------------------------------------------------------------ models
def language_setups(data: AldarmakiData, plan: AldarmakiPlan, seed: int) -> dict[str, LanguageSetup]:
    """Pipelines, CBOW vectors and lookup tables for every language (:func:`language_setup`) over all the text
    its encoders read. Book: chapter 7 (Joint vs transfer vs mapping).
    """
    def texts(lang: str) -> list[str]:
        return [*data.mono[lang], *data.test[lang], *data.nli[lang].premises, *data.nli[lang].hypotheses,
                *data.bench.dev[lang].premises, *data.bench.dev[lang].hypotheses, *data.bench.test[lang].premises,
                *data.bench.test[lang].hypotheses,
                *(data.parallel[lang][1] if lang != "en" else data.parallel[data.languages[1]][0])]

    return {lang: language_setup(lang, texts(lang), data.mono[lang], plan.word_dim, seed) for lang in data.languages}


def shared_texts(data: AldarmakiData) -> list[str]:
    """Every language's text, the pipeline of the shared students (InfoNCE, distillation; :func:`shared_setup`).

    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    texts = [s for lang in data.languages for s in (*data.mono[lang], *data.test[lang], *data.parallel.get(
        lang, ([], []))[1], *data.bench.dev[lang].premises, *data.bench.dev[lang].hypotheses,
        *data.bench.test[lang].premises, *data.bench.test[lang].hypotheses)]
    return texts + list(data.parallel[data.languages[1]][0])


def new_encoder(pipeline: TextPipeline, weights: np.ndarray, plan: AldarmakiPlan | RealPlan,
                seed: int) -> SentenceEncoder:
    """A fresh BiLSTM-max (``plan.width`` units per direction) over the trainable lookup table ``weights``.

    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    seed_everything(seed)
    return build_encoder("bilstm-max", len(pipeline.vocab), word_dim=plan.word_dim, embeddings=weights,
                         freeze_embeddings=False, pipeline=pipeline, hidden_dim=plan.width)


def _sdae(encoder: SentenceEncoder, texts: Sequence[str], plan: AldarmakiPlan | RealPlan, seed: int,
          device: str | torch.device, max_vocab: int | None = None) -> SentenceEncoder:
    return sdae_encoder(encoder, texts, plan.pivot, embed_dim=plan.word_dim, hidden_dim=plan.decoder_dim,
                        max_vocab=max_vocab, device=device, seed=seed)


def _joint_decoder(texts: Sequence[str], plan: AldarmakiPlan | RealPlan, seed: int,
                   max_vocab: int | None = None) -> tuple[Vocab, LSTMDecoder]:
    return sdae_decoder(texts, 2 * plan.width, embed_dim=plan.word_dim, hidden_dim=plan.decoder_dim, seed=seed,
                        max_vocab=max_vocab)


# ------------------------------------------------------------------------------------------------ scoring
def _score(encoders: Mapping[str, Encode], data: AldarmakiData, seed: int) -> dict[str, Any]:
    return score(encoders, data.test, data.bench.dev, data.bench.test, seed)


def _bag_fn(encoder: Any, W: np.ndarray | None = None) -> Encode:
    def fn(sents: list[str]) -> np.ndarray:
        v = encoder.encode(list(sents))
        return v if W is None else v @ W.T
    return fn


# ------------------------------------------------------------------------------------------------ the run
@dataclass
class SeedRun:
    """What one seed produced: the curve records, the joint InferSent run (for Tables 1-2 and NLI accuracy)
    and the seconds each system took to build. Book: chapter 7 (Joint vs transfer vs mapping).
    """

    records: list[dict[str, Any]]
    joint_nli: JointRun
    seconds: dict[str, float]


def run_seed(data: AldarmakiData, plan: AldarmakiPlan, seed: int, *, teacher: Encode | None = None,
             device: str | torch.device = "cpu", log: Callable[[str], None] = print) -> SeedRun:
    """Every framework and baseline for one seed: the English pivots and the monolingual target encoders (SDAE and
    InferSent), joint InferSent and the SIF static dictionary (no bitext), then at each of ``plan.sizes`` the
    frameworks that use bitext (:func:`~xsent_lib.train.bitext_frameworks.frameworks_at`; SIF mapping too).
    Records as :func:`~xsent_lib.train.bitext_frameworks.curve_record` makes them (``n = None``: no bitext).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    targets = list(plan.languages)
    setups = language_setups(data, plan, seed)
    enc = lambda lang: new_encoder(setups[lang].pipeline, setups[lang].weights, plan, seed)  # noqa: E731
    secs: dict[str, float] = {}
    fn = lambda e: encode_with(e, device)  # noqa: E731
    with single_thread(True), warnings.catch_warnings():
        # a max-pooled encoder with dead units has a rank-deficient cross-covariance; the map is still the
        # best rotation on the directions the vectors use (the warning would repeat for every fit)
        warnings.simplefilter("ignore", RankDeficientMapWarning)
        # --- monolingual models: the English pivots and the target encoders that mapping aligns
        t0 = time.perf_counter()
        pivot_nli = infersent_run({"en": enc("en")}, {"en": data.nli["en"]}, plan.pivot, device=device,
                                  seed=seed).encoders["en"]
        secs["English InferSent"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        pivot_sdae = _sdae(enc("en"), data.mono["en"], plan, seed, device)
        secs["English SDAE"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        mono_nli = {lang: infersent_run({lang: enc(lang)}, {lang: data.nli[lang]}, plan.pivot, device=device,
                                   seed=seed).encoders[lang]
                    for lang in targets}
        secs["target InferSent (for mapping)"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        mono_sdae = {lang: _sdae(enc(lang), data.mono[lang], plan, seed, device) for lang in targets}
        secs["target SDAE (for mapping)"] = time.perf_counter() - t0
        log(f"seed {seed}: pivots and monolingual encoders in {sum(secs.values()):.0f} s")
        # --- joint InferSent: no bitext, one point per seed
        t0 = time.perf_counter()
        joint = infersent_run({lang: enc(lang) for lang in data.languages}, data.nli, plan.pivot, device=device,
                              seed=seed)
        secs["joint InferSent"] = time.perf_counter() - t0
        records = [curve_record("joint InferSent", "InferSent", None, seed,
                                _score({lang: fn(joint.encoders[lang]) for lang in data.languages}, data, seed),
                                secs["joint InferSent"])]
        # --- SIF with a static dictionary: no bitext either
        spaces = {lang: s.space for lang, s in setups.items()}
        t0 = time.perf_counter()
        sif = {lang: sif_encoder(spaces[lang], data.mono[lang]) for lang in data.languages}
        static, word_p1 = gold_lexicon_maps(data.world, spaces)
        static_fns = {lang: _bag_fn(sif[lang], static.get(lang)) for lang in data.languages}
        records.append(curve_record("SIF static dictionary", "SIF", None, seed, _score(static_fns, data, seed),
                                    time.perf_counter() - t0) | {"word P@1": word_p1})
        # --- the frameworks that use bitext, at every size
        shared = shared_setup(setups, shared_texts(data))
        teacher_en = teacher(list(data.parallel[targets[0]][0])) if teacher is not None else None
        families = {"SDAE": PivotFamily(fn(pivot_sdae), {lang: fn(e) for lang, e in mono_sdae.items()}, pivot_sdae),
                    "InferSent": PivotFamily(fn(pivot_nli), {lang: fn(e) for lang, e in mono_nli.items()}, pivot_nli),
                    "SIF": PivotFamily(_bag_fn(sif["en"]), {lang: _bag_fn(sif[lang]) for lang in targets})}
        tables = {lang: (s.pipeline, s.weights) for lang, s in setups.items()} | {"shared": (shared.pipeline,
                                                                                           shared.weights)}
        fw = BitextFrameworks(targets, {lang: data.parallel[lang] for lang in targets}, families, tables,
                              lambda pipeline, weights: new_encoder(pipeline, weights, plan, seed),
                              lambda _: _joint_decoder(data.mono["en"], plan, seed),
                              data.mono["en"][:plan.n_mono_joint], plan.joint, plan.student, multi_parallel=True,
                              teacher=None if teacher_en is None else {targets[0]: teacher_en}, seed=seed,
                              device=device)
        for n in plan.sizes:
            records += frameworks_at(fw, n, lambda pairs: _score(shared_english(pairs), data, seed))
            log(f"seed {seed}: {n:>6,} pairs done")
    return SeedRun(records, joint, secs)


def teacher_record(teacher: Encode, name: str, data: AldarmakiData | RealBitextData) -> dict[str, Any]:
    """The shipped teacher itself on the same test sets, the synthetic world's or the real bitext's (a ceiling
    where it can read the languages). Book: chapter 7 (Joint vs transfer vs mapping).
    """
    t0 = time.perf_counter()
    scores = (pair_retrieval({lang: (teacher, teacher) for lang in data.languages}, data.test)
              if isinstance(data, RealBitextData) else _score({lang: teacher for lang in data.languages}, data, 0))
    return curve_record(f"{TEACHER_ROW} {name}", "beyond", None, 0, scores, time.perf_counter() - t0)


# ------------------------------------------------------------------------------------------------ claims
def _sdae_numbers(records: Sequence[Mapping[str, Any]]
                  ) -> tuple[Callable[..., float | None], int | None, int | None, dict[str, float | None]]:
    """``(at, fewest, most, numbers)``: ``at(system, n, metric)`` the mean over seeds (``None`` without sizes), the
    fewest and the most pairs run, and the numbers both sets of claims compare: the SDAE family at the fewest and
    the most pairs, the joint-minus-transfer gap and the first size where joint training reaches transfer.
    """
    sizes = record_sizes(records)
    lo, hi = (sizes[0], sizes[-1]) if sizes else (None, None)
    at = lambda s, n, m="retrieval_avg": mean_at(records, s, n, m) if n is not None else None  # noqa: E731
    gap = lambda n: gap_at(records, "joint SDAE/NMT", "SDAE transfer", n)  # noqa: E731
    first = crossover(records, "joint SDAE/NMT", "SDAE transfer")
    best_small = [v for v in (at("SDAE transfer", lo), at("SDAE mapping", lo)) if v is not None]
    return at, lo, hi, {
        "best of SDAE transfer/mapping at fewest pairs": max(best_small) if best_small else None,
        "joint SDAE/NMT at fewest pairs": at("joint SDAE/NMT", lo),
        "gap joint - transfer at fewest pairs": gap(lo),
        "gap joint - transfer at most pairs": gap(hi) if len(sizes) > 1 else None,
        "joint >= transfer somewhere (1 = yes)": None if len(sizes) < 2 else float(first is not None),
        "crossover pairs": None if first is None else float(first),
        "SDAE transfer at most pairs": at("SDAE transfer", hi),
    }


def claim_numbers(records: Sequence[Mapping[str, Any]]) -> dict[str, float | None]:
    """The numbers the claims compare, from the curve records (means over seeds).

    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    at, lo, hi, out = _sdae_numbers(records)
    seconds = lambda s: float(np.mean([r["seconds"] for r in records if r["system"] == s])) if any(  # noqa: E731
        r["system"] == s for r in records) else None
    tr_hi, map_hi = at("InferSent transfer", hi), at("InferSent mapping", hi)
    s_tr, s_map = out["SDAE transfer at most pairs"], at("SDAE mapping", hi)
    return out | {
        "InferSent transfer at fewest pairs": at("InferSent transfer", lo),
        "joint InferSent": at("joint InferSent", lo),
        "SIF mapping at fewest pairs": at("SIF mapping", lo),
        "InferSent transfer at most pairs": tr_hi, "InferSent mapping at most pairs": map_hi,
        "SDAE mapping at most pairs": s_map,
        "mapping / transfer at most pairs (best family)": (
            max(map_hi / tr_hi if tr_hi else 0.0, s_map / s_tr if s_tr else 0.0)
            if None not in (tr_hi, map_hi, s_tr, s_map) else None),
        "seconds mapping / transfer": (seconds("InferSent mapping") / seconds("InferSent transfer")
                                       if seconds("InferSent mapping") is not None and seconds("InferSent transfer") else None),
        "SIF mapping at most pairs": at("SIF mapping", hi), "SIF static dictionary": at("SIF static dictionary", lo),
        "cls: SDAE transfer at fewest pairs": at("SDAE transfer", lo, "cls_avg"),
        "cls: joint SDAE/NMT at fewest pairs": at("joint SDAE/NMT", lo, "cls_avg"),
        "cls: SIF mapping at most pairs": at("SIF mapping", hi, "cls_avg"),
        "cls: best neural at most pairs": max([v for s in (*FAMILIES["SDAE"], *FAMILIES["InferSent"])
                                               if (v := at(s, hi, "cls_avg")) is not None], default=None),
        "distillation at fewest pairs": at("distillation", lo),
    }


def aldarmaki_claims(numbers: Mapping[str, float | None], nli: Mapping[str, float] | None = None) -> list[dict[str, Any]]:
    """The paper's claims checked on ``numbers`` (:func:`claim_numbers`) and the joint model's NLI accuracies
    (:func:`xsent_lib.eval.joint_nli.nli_accuracy_table`); rows for the claims table. Book: chapter 7 (Joint vs transfer vs mapping).
    """
    nli = dict(nli or {})
    ours = dict(numbers)
    ours["joint InferSent NLI en"] = nli.get("en")
    ours["joint InferSent NLI cross-lingual"] = nli.get("cross-lingual")
    ours["en - cross-lingual NLI gap"] = (nli["en"] - nli["cross-lingual"]) if {"en", "cross-lingual"} <= set(nli) else None
    prose = PaperCell("aldarmaki2019", "prose_4_3_nli_accuracy", "joint InferSent", "cross-lingual")
    claims = [
        Claim("with little parallel data, transfer or mapping beats joint training (SDAE family)",
              "best of SDAE transfer/mapping at fewest pairs", ">", "joint SDAE/NMT at fewest pairs",
              "Fig. 5/7 (prose): joint SDAE/NMT poor below ~100k pairs; 'all models beat joint' at small sizes"),
        Claim("joint training catches up as the bitext grows (the joint-minus-transfer gap narrows)",
              "gap joint - transfer at most pairs", ">", "gap joint - transfer at fewest pairs",
              "Fig. 7 (prose): joint SDAE/NMT overtakes InferSent transfer at ~500k pairs",
              note="needs two sizes or more"),
        Claim("joint training overtakes transfer within our range of sizes (crossover found)",
              "joint >= transfer somewhere (1 = yes)", "==", 1.0,
              "crossover near 100k-500k pairs in the paper; our range ends far below",
              note="0 = no crossover up to the largest size run"),
        Claim("joint InferSent (no bitext) aligns worse than InferSent transfer",
              "joint InferSent", "<", "InferSent transfer at most pairs",
              "'the joint InferSent model did not learn to align' (Sec. 4, prose)"),
        Claim("joint InferSent learns NLI: English accuracy at least 10 points above chance (33.3)",
              "joint InferSent NLI en", ">", 43.3, PaperCell("aldarmaki2019", "prose_4_3_nli_accuracy",
                                                          "joint InferSent", "en"),
              note="a precondition: below it, the cross-lingual gap below says little"),
        Claim("joint InferSent classifies across languages almost as well as within English (gap under 5 points)",
              "en - cross-lingual NLI gap", "<", 5.0, [prose, PaperCell("aldarmaki2019", "prose_4_3_nli_accuracy",
                                                                       "joint InferSent", "en")],
              note="the paper: ~83 en vs ~79 cross-lingual, a 4-point gap"),
        Claim("mapping is a strong baseline: at least 80% of transfer's retrieval P@1 at the largest size",
              "mapping / transfer at most pairs (best family)", ">=", 0.8,
              "Fig. 6 (prose): InferSent mapping beats the word baselines from ~20k pairs",
              note="80% is our threshold; the paper gives no number"),
        Claim("mapping is cheap: fitting it takes under a tenth of transfer's training time",
              "seconds mapping / transfer", "<", 0.1, "a closed-form SVD (Sec. 3.5)",
              timed=True),
        Claim("with little data the word-vector baseline (SIF mapping) beats joint SDAE/NMT",
              "SIF mapping at fewest pairs", ">", "joint SDAE/NMT at fewest pairs",
              "Fig. 5 (prose): 'especially the FastText models' at small sizes"),
        Claim("SIF sentence mapping beats the SIF static-dictionary alignment",
              "SIF mapping at most pairs", ">", "SIF static dictionary",
              "Fig. 5 (prose): FastText sentence mapping generally better than the static dictionary"),
        Claim("classification transfer: with little data SDAE transfer beats joint SDAE/NMT",
              "cls: SDAE transfer at fewest pairs", ">", "cls: joint SDAE/NMT at fewest pairs",
              "CLDC (Sec. 4.4 prose; table missing from our copy)"),
        Claim("classification transfer: the word-vector baseline (SIF mapping) is the highest",
              "cls: SIF mapping at most pairs", ">=", "cls: best neural at most pairs",
              "CLDC (Sec. 4.4 prose): 'FastText is highest'"),
    ]
    return check_claims(claims, ours)


def summary_lines(records: Sequence[Mapping[str, Any]], numbers: Mapping[str, float | None],
                  n_test: int | None = None) -> list[str]:
    """Plain sentences stating what the run produced (best system per size, crossover, seed spread, and where
    each teacher row stands: against chance, 1 in ``n_test`` test sentences, and against the systems trained on
    this data at the largest size). Book: chapter 7 (Joint vs transfer vs mapping).
    """
    sizes = record_sizes(records)
    cross = numbers.get("crossover pairs")
    crossing = (f"joint SDAE/NMT reaches SDAE transfer at {cross:,.0f} pairs." if cross is not None else
                f"no crossover: joint SDAE/NMT stays below SDAE transfer up to {sizes[-1]:,} pairs." if sizes else "")
    shown = ("joint SDAE/NMT", "SDAE transfer", "SDAE mapping", "InferSent transfer", "InferSent mapping")
    lines = [*size_lines(records, shown), crossing, spread_line(records), *reference_lines(records, TEACHER_ROW, n_test)]
    return [line for line in lines if line]


# ------------------------------------------------------------------------------------------------ real bitext
#: the real bitexts of the real-bitext curves: target language -> the data cache's name (English on the left), read
#: by :func:`xsent_lib.data.held_out_bitext.load_real_bitext` when data_dir holds no Europarl
REAL_CURVE_BITEXTS: dict[str, str] = {"fr": "nlp-en-fr", "de": "nlp-en-de"}
#: the real-bitext systems, named as on the synthetic curves so the same styles and claims apply
REAL_SYSTEMS: tuple[str, ...] = ("joint SDAE/NMT", "SDAE transfer", "SDAE mapping", "InfoNCE (shared BiLSTM)",
                                 "distillation")


@dataclass(frozen=True)
class RealPlan:
    """Sizes of the real-bitext curves of one profile: the target ``languages`` (each paired with English), the
    curve's bitext ``sizes`` (``None``: doubling from 1k to the most the bitext allows), ``seeds``, the held-out
    test pairs per language, the monolingual sentences for the SDAEs (``n_mono``: the English pivot and the
    target encoders that mapping aligns; ``n_mono_joint``: the English auto-encoding share of joint SDAE/NMT),
    ``max_pairs`` read per bitext (``None``: all), sentence truncation, vocabulary caps, model sizes and the
    optimisation of the SDAEs, the joint runs and the students; ``teacher`` for distillation (``None``: none).
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
            raise ValueError(f"languages are the targets paired with English (not 'en'), got {self.languages}.")
        if self.sizes is not None and (not self.sizes or list(self.sizes) != sorted(set(self.sizes)) or self.sizes[0] < 2):
            raise ValueError(f"sizes must be increasing pair counts >= 2 (or None), got {self.sizes}.")
        if self.n_test < 2 or self.n_mono < 2 or self.n_mono_joint < 1 or self.max_len < 2 or self.vocab_size < 10:
            raise ValueError("need n_test, n_mono >= 2, n_mono_joint >= 1, max_len >= 2 and vocab_size >= 10.")

    def summary(self) -> dict[str, Any]:
        """The plan as plain values, for metrics.json. Book: chapter 7 (Joint vs transfer vs mapping: real bitext)."""
        return asdict(self)

    def curve_sizes(self, available: int) -> list[int]:
        """The sizes this plan runs when ``available`` training pairs exist (:func:`curve_sizes`; ``sizes=None``: 1k
        doubling). Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
        """
        return curve_sizes(available, self.sizes)


REAL_SMOKE = RealPlan(("fr", "de"), (100, 200), (0, 1, 2), 60, 150, 50, 400, 12, 600, 8, 16, 16,
                      JointConfig(lr=3e-3, batch_size=32, epochs=1, min_steps=3, max_steps=6),
                      JointConfig(lr=3e-3, batch_size=32, epochs=1, min_steps=3, max_steps=6),
                      StudentConfig(lr=3e-3, batch_size=32, epochs=1, min_steps=3, max_steps=6), None)
# book: three sizes, three seeds, tiny models and few steps: the whole real-bitext run costs about a minute of CPU
REAL_BOOK = RealPlan(("fr", "de"), (1000, 2000, 4000), (0, 1, 2), 300, 1000, 300, 5300, 16, 3000, 16, 32, 32,
                     JointConfig(lr=3e-3, batch_size=64, epochs=1, min_steps=10, max_steps=16),
                     JointConfig(lr=3e-3, batch_size=64, epochs=0.25, min_steps=8, max_steps=24),
                     StudentConfig(lr=3e-3, batch_size=64, epochs=0.5, min_steps=8, max_steps=24), "USE")
REAL_FULL = RealPlan(("fr", "de"), None, (0, 1, 2), 2000, 20_000, 20_000, None, 30, 30_000, 256, 64, 512,
                     JointConfig(batch_size=128, epochs=5, max_steps=20_000),
                     JointConfig(batch_size=128, epochs=5, max_steps=50_000),
                     StudentConfig(batch_size=128, epochs=5, max_steps=50_000), "USE")


def run_real_seed(data: RealBitextData, plan: RealPlan, seed: int, *,
                  teacher_vectors: Mapping[str, np.ndarray] | None = None, device: str | torch.device = "cpu",
                  log: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """The real-bitext curve records of one seed: an English SDAE pivot (on the English side of the first
    bitext's training pool, unpaired), target SDAEs for mapping (each on its own side, unpaired), random starting
    lookup tables, and at every curve size the frameworks that use bitext
    (:func:`~xsent_lib.train.bitext_frameworks.frameworks_at`: joint SDAE/NMT, SDAE transfer, SDAE mapping, InfoNCE
    and, with ``teacher_vectors``
    (:func:`~xsent_lib.train.bitext_frameworks.english_teacher_vectors`), distillation), each scored by
    :func:`~xsent_lib.eval.alignment_curves.pair_retrieval`. Records as in :func:`run_seed`.
    Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """
    langs = data.languages
    sizes = plan.curve_sizes(min(len(data.train[lang][0]) for lang in langs))
    en_mono = data.train[langs[0]][0][:plan.n_mono]
    texts = {"en": [s for lang in langs for s in (*data.train[lang][0][:max(sizes)], *data.test[lang][0])]}
    texts |= {lang: [*data.train[lang][1][:max(sizes)], *data.test[lang][1]] for lang in langs}
    tables = random_setups(texts, plan.vocab_size, plan.word_dim, seed)
    build = lambda pipeline, weights: new_encoder(pipeline, weights, plan, seed)  # noqa: E731
    records: list[dict[str, Any]] = []
    with single_thread(True), warnings.catch_warnings():
        warnings.simplefilter("ignore", RankDeficientMapWarning)
        pivot = _sdae(build(*tables["en"]), en_mono, plan, seed, device, plan.vocab_size)
        mono = {lang: _sdae(build(*tables[lang]), data.train[lang][1][:plan.n_mono], plan, seed, device,
                            plan.vocab_size) for lang in langs}
        family = PivotFamily(encode_with(pivot, device), {lang: encode_with(e, device) for lang, e in mono.items()},
                             pivot)
        joint_decoder = lambda par: _joint_decoder([*en_mono, *(s for lang in langs for s in par[lang][0])],  # noqa: E731
                                                   plan, seed, plan.vocab_size)
        fw = BitextFrameworks(langs, data.train, {"SDAE": family}, tables, build, joint_decoder,
                              en_mono[:plan.n_mono_joint], plan.joint, plan.student, multi_parallel=False,
                              teacher=teacher_vectors, seed=seed, device=device)
        for n in sizes:
            records += frameworks_at(fw, n, lambda pairs: pair_retrieval(pairs, data.test))
            log(f"real bitext, seed {seed}: {n:>6,} pairs done")
    return records


def real_stop_note(plan: RealPlan, records: Sequence[Mapping[str, Any]], data: RealBitextData) -> str:
    """What the real-bitext curves cover, for their figures: sizes, seeds, the models' reduced scale.

    Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """
    sizes = record_sizes(records)
    if not sizes:
        raise ValueError("no record has a bitext size; run run_real_seed first.")
    steps = f"at most {plan.student.max_steps} student / {plan.joint.max_steps} joint / {plan.pivot.max_steps} SDAE steps"
    return (f"real bitext ({'; '.join(data.source.values())}); pairs doubling from {sizes[0]:,} to {sizes[-1]:,}; "
            f"{len({r['seed'] for r in records if r['n'] is not None})} seeds, band = min to max; shrunk models: "
            f"{2 * plan.width}-d BiLSTM, {plan.max_len} tokens, {plan.vocab_size:,} words, {steps}; "
            f"test: {plan.n_test} held-out pairs per language")


def real_claim_numbers(records: Sequence[Mapping[str, Any]], n_test: int | None = None) -> dict[str, float | None]:
    """The numbers of the real-bitext claims (means over seeds of retrieval P@1, four directions): SDAE transfer,
    mapping and joint SDAE/NMT at the fewest and the most pairs, their gaps and the crossover size, the best
    trained system at the most pairs and five times chance (``100 / n_test``; ``None`` without ``n_test``);
    ``None`` where the run cannot say (e.g. one size only). Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """
    if n_test is not None and n_test < 1:
        raise ValueError(f"n_test must be the number of test pairs (>= 1), got {n_test}.")
    at, _, hi, out = _sdae_numbers(records)
    tr_hi, map_hi = out["SDAE transfer at most pairs"], at("SDAE mapping", hi)
    return out | {
        "SDAE mapping / transfer at most pairs": (map_hi / tr_hi) if tr_hi and map_hi is not None else None,
        "InfoNCE at most pairs": at("InfoNCE (shared BiLSTM)", hi),
        "best trained system at most pairs": max([v for s in REAL_SYSTEMS if (v := at(s, hi)) is not None], default=None),
        "5 x chance P@1": None if n_test is None else 500.0 / n_test,
    }


def real_claims(numbers: Mapping[str, float | None]) -> list[dict[str, Any]]:
    """The crossover and transfer-beats-joint claims on real bitext (:func:`real_claim_numbers`); a claim whose
    numbers the run cannot give is "not testable". Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """
    claims = [
        Claim("real bitext: the best trained system retrieves at least five times better than chance",
              "best trained system at most pairs", ">", "5 x chance P@1", "the paper's models are far above chance",
              note="a precondition: below it the comparisons below compare noise"),
        Claim("real bitext: with little parallel data, transfer or mapping beats joint training (SDAE family)",
              "best of SDAE transfer/mapping at fewest pairs", ">", "joint SDAE/NMT at fewest pairs",
              "Fig. 5/7 (prose): joint SDAE/NMT poor below ~100k pairs"),
        Claim("real bitext: the joint-minus-transfer gap narrows as the bitext grows",
              "gap joint - transfer at most pairs", ">", "gap joint - transfer at fewest pairs",
              "Fig. 7 (prose): joint SDAE/NMT overtakes transfer at ~100k-500k pairs", note="needs two sizes or more"),
        Claim("real bitext: joint training overtakes transfer within our range of sizes (crossover found)",
              "joint >= transfer somewhere (1 = yes)", "==", 1.0,
              "crossover near 100k-500k pairs in the paper", note="0 = no crossover up to the largest size run"),
        Claim("real bitext: mapping reaches at least 80% of transfer's retrieval P@1 at the largest size",
              "SDAE mapping / transfer at most pairs", ">=", 0.8,
              "Fig. 5 (prose): transfer second, mapping below it", note="80% is our threshold; the paper gives no number"),
    ]
    return check_claims(claims, dict(numbers))
