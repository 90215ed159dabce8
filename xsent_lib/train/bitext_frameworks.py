"""Aldarmaki & Diab's frameworks that use bitext, built and scored at one size of the bitext: joint
SDAE/NMT, and representation transfer and sentence mapping onto each family's English pivot; beyond
the paper, InfoNCE on the bitext and distillation of a teacher, each training one encoder shared by
all languages.

The result is one curve record per system: ``{"system", "family", "n", "seed", "seconds",
**scores}``, with ``n = None`` for a system that uses no bitext. A system's scores come from the
caller's ``score``, which reads it as :data:`EncoderPairs`: per target language, the encoder of the
English side and the encoder of that language (a sentence map prepares the English side of each
language with that map's own English mean).
Book: chapter 7 (Joint vs transfer vs mapping).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import torch

from xsent_lib.align.procrustes import Encode, SentenceMapping, mapped_encoders
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.encoders.decoder import LSTMDecoder
from xsent_lib.text import TextPipeline, Vocab
from xsent_lib.train.alignment import target_encoder
from xsent_lib.train.joint import JointConfig, LanguageEncoders, joint_sdae
from xsent_lib.train.transfer import (
    StudentConfig,
    contrastive_encoder,
    pca_targets,
    regress_encoder,
)

Bitext = Mapping[str, tuple[Sequence[str], Sequence[str]]]
EncoderPairs = dict[str, tuple[Encode, Encode]]


def curve_record(system: str, family: str, n: int | None, seed: int, scores: Mapping[str, Any],
                 seconds: float) -> dict[str, Any]:
    """One point of an alignment curve: ``system`` of ``family`` at ``n`` bitext pairs (``None``: no
    bitext) and ``seed``, its ``scores`` and the ``seconds`` it took. Book: chapter 7 (Joint vs
    transfer vs mapping).
    """
    return {"system": system, "family": family, "n": n, "seed": seed, "seconds": seconds, **scores}


def encode_with(encoder: SentenceEncoder, device: str | torch.device) -> Encode:
    """``sentences -> vectors`` with ``encoder`` on ``device`` (batches of 256).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    return lambda sentences: encoder.encode(list(sentences), batch_size=256, device=device)


def english_teacher_vectors(teacher: Encode, bitext: Bitext,
                            n: int | None = None) -> dict[str, np.ndarray]:
    """A teacher's vectors of the English side of each bitext's first ``n`` pairs (all by default),
    each distinct sentence encoded once (bitexts may share their English side): the targets of
    distillation, computed once for every seed. Book: chapter 7 (Joint vs transfer vs mapping: real
    bitext).
    """
    sides = {lang: list(pair[0][:n]) for lang, pair in bitext.items()}
    unique = list(dict.fromkeys(s for side in sides.values() for s in side))
    if not unique:
        raise ValueError("no English sentence to encode; pass a bitext with pairs.")
    vecs = np.asarray(teacher(unique), np.float32)
    row = {s: i for i, s in enumerate(unique)}
    return {lang: vecs[[row[s] for s in side]] for lang, side in sides.items()}


@dataclass(frozen=True)
class PivotFamily:
    """One family of the curves: ``english`` encodes English (the pivot), ``targets[lang]`` a target
    language with an encoder trained without bitext; sentence mapping aligns each target onto
    ``english``. With ``pivot`` (the English encoder itself) representation transfer also trains a
    copy of it per target language.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """

    english: Encode
    targets: Mapping[str, Encode]
    pivot: SentenceEncoder | None = None


@dataclass(frozen=True)
class BitextFrameworks:
    """What the frameworks of one seed share at every bitext size: the ``targets`` paired with
    English, ``bitext[lang] = (english, lang)`` (each size reads prefixes), the pivot ``families``
    (by name), the text pipeline and starting lookup table of ``"en"``, each target and ``"shared"``
    (the encoder of InfoNCE and distillation) in ``tables``, ``build(pipeline, table)`` for a fresh
    encoder, ``joint_decoder(bitext)`` for the vocabulary and fresh decoder of joint SDAE/NMT, whose
    English auto-encoding reads ``joint_english``, the optimisation of the joint runs and the
    students, and the ``teacher``'s vectors of each bitext's English side (``None``: no
    distillation). ``multi_parallel``: every target's English side is the same sentences (encoded
    once; distillation reads it once). Book: chapter 7 (Joint vs transfer vs mapping).
    """

    targets: Sequence[str]
    bitext: Bitext
    families: Mapping[str, PivotFamily]
    tables: Mapping[str, tuple[TextPipeline, np.ndarray]]
    build: Callable[[TextPipeline, np.ndarray], SentenceEncoder]
    joint_decoder: Callable[[Bitext], tuple[Vocab, LSTMDecoder]]
    joint_english: Sequence[str]
    joint: JointConfig
    student: StudentConfig
    multi_parallel: bool
    teacher: Mapping[str, np.ndarray] | None = None
    seed: int = 0
    device: str | torch.device = "cpu"

    def __post_init__(self) -> None:
        missing = {"en", "shared", *self.targets} - set(self.tables)
        if missing or not self.targets or set(self.targets) - set(self.bitext):
            raise ValueError("need bitext for every target and tables for 'en', 'shared' and every "
                             f"target (missing tables: {sorted(missing)}).")


def frameworks_at(fw: BitextFrameworks, n: int,
                  score: Callable[[EncoderPairs], dict[str, Any]], *,
                  keep: dict[str, dict[str, SentenceEncoder]] | None = None
                  ) -> list[dict[str, Any]]:
    """The curve records of every framework trained on the first ``n`` pairs of ``fw.bitext``: joint
    SDAE/NMT, then per family transfer (L1 onto the pivot's vectors; families with a pivot) and
    sentence mapping, InfoNCE and, with a teacher, distillation (cosine onto the teacher's English
    vectors, reduced by PCA to the student's size, for both sides). ``seconds`` is a system's
    training time only, scoring excluded, the same for every system; the pivot's English vectors,
    which transfer and mapping both fit to, are computed before either is timed. ``keep`` (a dict)
    receives each system that is a sentence encoder per language, ``{system: {lang: encoder}}``
    (all but the mappings, which are a target encoder and a linear map).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    targets, seed, device = list(fw.targets), fw.seed, fw.device
    if fw.teacher is not None and any(len(fw.teacher[t]) < n
                                      for t in (targets[:1] if fw.multi_parallel else targets)):
        raise ValueError(f"teacher vectors must cover the first {n} English sentences of every "
                         "bitext.")
    par = {lang: (list(fw.bitext[lang][0][:n]), list(fw.bitext[lang][1][:n])) for lang in targets}
    records: list[dict[str, Any]] = []

    def add(system: str, family: str, pairs: EncoderPairs, start: float) -> None:
        fitted = time.perf_counter()
        records.append(curve_record(system, family, n, seed, score(pairs), fitted - start))

    def shared_space(encoder: SentenceEncoder) -> EncoderPairs:
        encode = encode_with(encoder, device)
        return {lang: (encode, encode) for lang in targets}

    t0 = time.perf_counter()
    fresh = LanguageEncoders({lang: fw.build(*fw.tables[lang]) for lang in ("en", *targets)})
    vocab, decoder = fw.joint_decoder(par)
    joint = joint_sdae(fresh, decoder, vocab, fw.joint_english, par, fw.joint, device=device,
                       seed=seed).encoders
    if keep is not None:
        keep["joint SDAE/NMT"] = {lang: joint[lang] for lang in ("en", *targets)}
    add("joint SDAE/NMT", "SDAE",
        {lang: (encode_with(joint["en"], device), encode_with(joint[lang], device))
                                   for lang in targets}, t0)
    for name, family in fw.families.items():
        english = {lang: family.english(par[targets[0] if fw.multi_parallel else lang][0])
                   for lang in (targets[:1] if fw.multi_parallel else targets)}

        def english_vectors(lang: str) -> np.ndarray:
            return english[targets[0] if fw.multi_parallel else lang]

        t0 = time.perf_counter()
        if family.pivot is not None:
            students = {}
            for lang in targets:
                student = target_encoder(family.pivot, *fw.tables[lang], fine_tune=True)
                students[lang] = regress_encoder(student, par[lang][1], english_vectors(lang),
                                                 fw.student, device=device, seed=seed).encoder
            add(f"{name} transfer", name,
                {lang: (family.english, encode_with(students[lang], device))
                                           for lang in targets}, t0)
            if keep is not None:
                keep[f"{name} transfer"] = {"en": family.pivot, **students}
            t0 = time.perf_counter()
        maps = {lang: SentenceMapping().fit(family.targets[lang](par[lang][1]),
                                            english_vectors(lang))
                for lang in targets}
        add(f"{name} mapping", name, mapped_encoders(family.english, family.targets, maps), t0)
    t0 = time.perf_counter()
    pairs = ([s for lang in targets for s in par[lang][0]],
             [s for lang in targets for s in par[lang][1]])
    nce = contrastive_encoder(fw.build(*fw.tables["shared"]), pairs, fw.student, device=device,
                              seed=seed).encoder
    add("InfoNCE (shared BiLSTM)", "beyond", shared_space(nce), t0)
    if keep is not None:
        keep["InfoNCE (shared BiLSTM)"] = dict.fromkeys(("en", *targets), nce)
    if fw.teacher is not None:
        t0 = time.perf_counter()
        student = fw.build(*fw.tables["shared"])
        if fw.multi_parallel:
            goal = pca_targets(fw.teacher[targets[0]][:n], student.output_dim)
            texts = [*par[targets[0]][0], *(s for lang in targets for s in par[lang][1])]
            goals = [goal] * (1 + len(targets))
        else:
            texts, goals = [], []
            for lang in targets:
                goal = pca_targets(fw.teacher[lang][:n], student.output_dim)
                texts += [*par[lang][0], *par[lang][1]]
                goals += [goal, goal]
        dist = regress_encoder(student, texts, np.vstack(goals), replace(fw.student, loss="cosine"),
                               device=device, seed=seed).encoder
        add("distillation", "beyond", shared_space(dist), t0)
        if keep is not None:
            keep["distillation"] = dict.fromkeys(("en", *targets), dist)
    return records
