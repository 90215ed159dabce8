"""Chapter 7's runs: every framework that makes an English sentence encoder cross-lingual (joint
training, representation transfer, sentence mapping), the word-vector baselines and the rows beyond
the paper, trained for one seed and scored at every bitext size of the alignment curve, on the
synthetic world and on real bitext.
Book: chapter 7 (Joint vs transfer vs mapping).
"""
from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import torch

from xsent_lib.align.procrustes import RankDeficientMapWarning
from xsent_lib.base.runtime import seed_everything
from xsent_lib.base.threads import single_thread
from xsent_lib.data.alignment_world import AldarmakiData
from xsent_lib.data.held_out_bitext import RealBitextData
from xsent_lib.data.language_setup import LanguageSetup, language_setup, random_setups, shared_setup
from xsent_lib.encoders import LSTMDecoder, build_encoder
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.encoders.sif import sif_encoder
from xsent_lib.eval.alignment_curves import Encode, pair_retrieval, score, shared_english
from xsent_lib.eval.word_maps import gold_lexicon_maps
from xsent_lib.text import TextPipeline, Vocab
from xsent_lib.train.bitext_frameworks import (
    Bitext,
    BitextFrameworks,
    PivotFamily,
    curve_record,
    encode_with,
    frameworks_at,
)
from xsent_lib.train.joint import JointConfig, JointRun, infersent_run, sdae_decoder, sdae_encoder
from xsent_lib.train.transfer import StudentConfig

#: the name of the shipped teacher's own row on the curves
TEACHER_ROW = "teacher"


class CurvePlan(Protocol):
    """What a run reads from a chapter's plan: the target languages, the models' sizes (BiLSTM units
    per direction, word and decoder dimensions), the optimisation of the pivots / monolingual
    encoders, the joint runs and the students, and the English sentences joint SDAE/NMT
    auto-encodes.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """

    @property
    def languages(self) -> tuple[str, ...]: ...
    @property
    def width(self) -> int: ...
    @property
    def word_dim(self) -> int: ...
    @property
    def decoder_dim(self) -> int: ...
    @property
    def n_mono_joint(self) -> int: ...
    @property
    def pivot(self) -> JointConfig: ...
    @property
    def joint(self) -> JointConfig: ...
    @property
    def student(self) -> StudentConfig: ...


class SyntheticCurvePlan(CurvePlan, Protocol):
    """A :class:`CurvePlan` with the curve's bitext ``sizes`` (the synthetic world's run).

    Book: chapter 7 (Joint vs transfer vs mapping).
    """

    @property
    def sizes(self) -> tuple[int, ...]: ...


class RealCurvePlan(CurvePlan, Protocol):
    """A :class:`CurvePlan` for real bitext: monolingual sentences per SDAE, the vocabulary cap and
    the curve's sizes for a bitext of a given length.
    Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """

    @property
    def n_mono(self) -> int: ...
    @property
    def vocab_size(self) -> int: ...
    def curve_sizes(self, available: int) -> list[int]: ...


def language_setups(data: AldarmakiData, plan: CurvePlan, seed: int) -> dict[str, LanguageSetup]:
    """Pipelines, CBOW vectors and lookup tables for every language (:func:`language_setup`) over
    all the text its encoders read.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    def texts(lang: str) -> list[str]:
        return [*data.mono[lang], *data.test[lang], *data.nli[lang].premises,
                *data.nli[lang].hypotheses, *data.bench.dev[lang].premises,
                *data.bench.dev[lang].hypotheses, *data.bench.test[lang].premises,
                *data.bench.test[lang].hypotheses,
                *(data.parallel[lang][1] if lang != "en" else data.parallel[data.languages[1]][0])]

    return {lang: language_setup(lang, texts(lang), data.mono[lang], plan.word_dim, seed)
            for lang in data.languages}


def shared_texts(data: AldarmakiData) -> list[str]:
    """Every language's text, the pipeline of the shared students (InfoNCE, distillation;
    :func:`shared_setup`).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    texts = [s for lang in data.languages for s in (
        *data.mono[lang], *data.test[lang], *data.parallel.get(lang, ([], []))[1],
        *data.bench.dev[lang].premises, *data.bench.dev[lang].hypotheses,
        *data.bench.test[lang].premises, *data.bench.test[lang].hypotheses)]
    return texts + list(data.parallel[data.languages[1]][0])


def new_encoder(pipeline: TextPipeline, weights: np.ndarray, plan: CurvePlan,
                seed: int) -> SentenceEncoder:
    """A fresh BiLSTM-max (``plan.width`` units per direction) over the trainable lookup table
    ``weights``.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    seed_everything(seed)
    return build_encoder("bilstm-max", len(pipeline.vocab), word_dim=plan.word_dim,
                         embeddings=weights, freeze_embeddings=False, pipeline=pipeline,
                         hidden_dim=plan.width)


def _sdae(encoder: SentenceEncoder, texts: Sequence[str], plan: CurvePlan, seed: int,
          device: str | torch.device, max_vocab: int | None = None) -> SentenceEncoder:
    return sdae_encoder(encoder, texts, plan.pivot, embed_dim=plan.word_dim,
                        hidden_dim=plan.decoder_dim, max_vocab=max_vocab, device=device, seed=seed)


def _joint_decoder(texts: Sequence[str], plan: CurvePlan, seed: int,
                   max_vocab: int | None = None) -> tuple[Vocab, LSTMDecoder]:
    return sdae_decoder(texts, 2 * plan.width, embed_dim=plan.word_dim, hidden_dim=plan.decoder_dim,
                        seed=seed, max_vocab=max_vocab)


def _score(encoders: Mapping[str, Encode], data: AldarmakiData, seed: int) -> dict[str, Any]:
    return score(encoders, data.test, data.bench.dev, data.bench.test, seed)


def _bag_fn(encoder: Any, W: np.ndarray | None = None) -> Encode:
    def fn(sents: list[str]) -> np.ndarray:
        v = encoder.encode(list(sents))
        return v if W is None else v @ W.T
    return fn


@dataclass
class SeedRun:
    """What one seed produced: the curve records, the joint InferSent run (for Tables 1-2 and NLI
    accuracy), the seconds each system took to build and, at the largest bitext size, the systems
    that are sentence encoders (``{system: {lang: encoder}}``, for the leaderboard).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """

    records: list[dict[str, Any]]
    joint_nli: JointRun
    seconds: dict[str, float]
    bitext_encoders: dict[str, dict[str, SentenceEncoder]] = field(default_factory=dict)


def run_seed(data: AldarmakiData, plan: SyntheticCurvePlan, seed: int, *,
             teacher: Encode | None = None, device: str | torch.device = "cpu",
             log: Callable[[str], None] = print) -> SeedRun:
    """Every framework and baseline for one seed: the English pivots and the monolingual target
    encoders (SDAE and InferSent), joint InferSent and the SIF static dictionary (no bitext), then
    at each of ``plan.sizes`` the frameworks that use bitext
    (:func:`~xsent_lib.train.bitext_frameworks.frameworks_at`; SIF mapping too). Records as
    :func:`~xsent_lib.train.bitext_frameworks.curve_record` makes them (``n = None``: no bitext).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    targets = list(plan.languages)
    setups = language_setups(data, plan, seed)

    def enc(lang: str) -> SentenceEncoder:
        return new_encoder(setups[lang].pipeline, setups[lang].weights, plan, seed)

    secs: dict[str, float] = {}
    fn = lambda e: encode_with(e, device)  # noqa: E731
    with single_thread(True), warnings.catch_warnings():
        # a max-pooled encoder with dead units has a rank-deficient cross-covariance; the map is
        # still the best rotation on the directions the vectors use (the warning would repeat for
        # every fit)
        warnings.simplefilter("ignore", RankDeficientMapWarning)
        # --- monolingual models: the English pivots and the target encoders that mapping aligns
        t0 = time.perf_counter()
        pivot_nli = infersent_run({"en": enc("en")}, {"en": data.nli["en"]}, plan.pivot,
                                  device=device, seed=seed).encoders["en"]
        secs["English InferSent"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        pivot_sdae = _sdae(enc("en"), data.mono["en"], plan, seed, device)
        secs["English SDAE"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        mono_nli = {lang: infersent_run({lang: enc(lang)}, {lang: data.nli[lang]}, plan.pivot,
                                        device=device, seed=seed).encoders[lang]
                    for lang in targets}
        secs["target InferSent (for mapping)"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        mono_sdae = {lang: _sdae(enc(lang), data.mono[lang], plan, seed, device)
                     for lang in targets}
        secs["target SDAE (for mapping)"] = time.perf_counter() - t0
        log(f"seed {seed}: pivots and monolingual encoders in {sum(secs.values()):.0f} s")
        # --- joint InferSent: no bitext, one point per seed
        t0 = time.perf_counter()
        joint = infersent_run({lang: enc(lang) for lang in data.languages}, data.nli, plan.pivot,
                              device=device, seed=seed)
        secs["joint InferSent"] = time.perf_counter() - t0
        joint_fns = {lang: fn(joint.encoders[lang]) for lang in data.languages}
        records = [curve_record("joint InferSent", "InferSent", None, seed,
                                _score(joint_fns, data, seed), secs["joint InferSent"])]
        # --- SIF with a static dictionary: no bitext either
        spaces = {lang: s.space for lang, s in setups.items()}
        t0 = time.perf_counter()
        sif = {lang: sif_encoder(spaces[lang], data.mono[lang]) for lang in data.languages}
        static, word_p1 = gold_lexicon_maps(data.world, spaces)
        static_fns = {lang: _bag_fn(sif[lang], static.get(lang)) for lang in data.languages}
        records.append(curve_record("SIF static dictionary", "SIF", None, seed,
                                    _score(static_fns, data, seed), time.perf_counter() - t0)
                       | {"word P@1": word_p1})
        # --- the frameworks that use bitext, at every size
        shared = shared_setup(setups, shared_texts(data))
        teacher_en = teacher(list(data.parallel[targets[0]][0])) if teacher is not None else None
        families = {
            "SDAE": PivotFamily(fn(pivot_sdae), {lang: fn(e) for lang, e in mono_sdae.items()},
                                pivot_sdae),
            "InferSent": PivotFamily(fn(pivot_nli), {lang: fn(e) for lang, e in mono_nli.items()},
                                     pivot_nli),
            "SIF": PivotFamily(_bag_fn(sif["en"]), {lang: _bag_fn(sif[lang]) for lang in targets})}
        tables = ({lang: (s.pipeline, s.weights) for lang, s in setups.items()}
                  | {"shared": (shared.pipeline, shared.weights)})
        fw = BitextFrameworks(targets, {lang: data.parallel[lang] for lang in targets}, families,
                              tables, lambda pipe, weights: new_encoder(pipe, weights, plan, seed),
                              lambda _: _joint_decoder(data.mono["en"], plan, seed),
                              data.mono["en"][:plan.n_mono_joint], plan.joint, plan.student,
                              multi_parallel=True,
                              teacher=None if teacher_en is None else {targets[0]: teacher_en},
                              seed=seed, device=device)
        kept: dict[str, dict[str, SentenceEncoder]] = {}
        for n in plan.sizes:
            records += frameworks_at(fw, n, lambda pairs: _score(shared_english(pairs), data, seed),
                                     keep=kept if n == plan.sizes[-1] else None)
            log(f"seed {seed}: {n:>6,} pairs done")
    return SeedRun(records, joint, secs, kept)


def teacher_record(teacher: Encode, name: str,
                   data: AldarmakiData | RealBitextData) -> dict[str, Any]:
    """The shipped teacher itself on the same test sets, the synthetic world's or the real bitext's
    (a ceiling where it can read the languages).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    t0 = time.perf_counter()
    scores = (pair_retrieval({lang: (teacher, teacher) for lang in data.languages}, data.test)
              if isinstance(data, RealBitextData)
              else _score({lang: teacher for lang in data.languages}, data, 0))
    return curve_record(f"{TEACHER_ROW} {name}", "beyond", None, 0, scores,
                        time.perf_counter() - t0)


def run_real_seed(data: RealBitextData, plan: RealCurvePlan, seed: int, *,
                  teacher_vectors: Mapping[str, np.ndarray] | None = None,
                  device: str | torch.device = "cpu",
                  log: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """The real-bitext curve records of one seed: an English SDAE pivot (on the English side of the
    first bitext's training pool, unpaired), target SDAEs for mapping (each on its own side,
    unpaired), random starting lookup tables, and at every curve size the frameworks that use bitext
    (:func:`~xsent_lib.train.bitext_frameworks.frameworks_at`: joint SDAE/NMT, SDAE transfer, SDAE
    mapping, InfoNCE and, with ``teacher_vectors``
    (:func:`~xsent_lib.train.bitext_frameworks.english_teacher_vectors`), distillation), each scored
    by :func:`~xsent_lib.eval.alignment_curves.pair_retrieval`. Records as in :func:`run_seed`.
    Book: chapter 7 (Joint vs transfer vs mapping: real bitext).
    """
    langs = data.languages
    sizes = plan.curve_sizes(min(len(data.train[lang][0]) for lang in langs))
    en_mono = data.train[langs[0]][0][:plan.n_mono]
    texts = {"en": [s for lang in langs
                    for s in (*data.train[lang][0][:max(sizes)], *data.test[lang][0])]}
    texts |= {lang: [*data.train[lang][1][:max(sizes)], *data.test[lang][1]] for lang in langs}
    tables = random_setups(texts, plan.vocab_size, plan.word_dim, seed)
    build = lambda pipeline, weights: new_encoder(pipeline, weights, plan, seed)  # noqa: E731
    records: list[dict[str, Any]] = []
    with single_thread(True), warnings.catch_warnings():
        warnings.simplefilter("ignore", RankDeficientMapWarning)
        pivot = _sdae(build(*tables["en"]), en_mono, plan, seed, device, plan.vocab_size)
        mono = {lang: _sdae(build(*tables[lang]), data.train[lang][1][:plan.n_mono], plan, seed,
                            device, plan.vocab_size) for lang in langs}
        family = PivotFamily(encode_with(pivot, device),
                             {lang: encode_with(e, device) for lang, e in mono.items()}, pivot)

        def joint_decoder(par: Bitext) -> tuple[Vocab, LSTMDecoder]:
            english = [*en_mono, *(s for lang in langs for s in par[lang][0])]
            return _joint_decoder(english, plan, seed, plan.vocab_size)

        fw = BitextFrameworks(langs, data.train, {"SDAE": family}, tables, build, joint_decoder,
                              en_mono[:plan.n_mono_joint], plan.joint, plan.student,
                              multi_parallel=False, teacher=teacher_vectors, seed=seed,
                              device=device)
        for n in sizes:
            records += frameworks_at(fw, n, lambda pairs: pair_retrieval(pairs, data.test))
            log(f"real bitext, seed {seed}: {n:>6,} pairs done")
    return records
