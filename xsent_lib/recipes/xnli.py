"""The XNLI recipe (thesis section 4.2, Conneau et al. 2018c): the chapter's plan, sizes and claims.

English encoders are trained on NLI with Adam as in the paper (:mod:`xsent_lib.train.xnli`, on chapter 3's
batches and loss) or pretrained (X-CBOW),
then frozen; one target encoder per language is aligned to them on bitext (:mod:`xsent_lib.train.alignment`)
and scored zero-shot with the English classifier (:mod:`xsent_lib.eval.xnli`); translate-train and
translate-test use the benchmark's translator. Data come from :mod:`xsent_lib.data.xnli`.
Book: chapter 6 (XNLI and aligned encoders).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from xsent_lib.base.runtime import seed_everything
from xsent_lib.base.threads import single_thread
from xsent_lib.data.formats import NLIData
from xsent_lib.data.formats.vectors import WordVectors
from xsent_lib.data.nli_corpus import NLICorpus
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.synthetic.typology import typology
from xsent_lib.data.word_setup import WordSetup, build_word_setup
from xsent_lib.data.word_mt import ApertiumTranslator, apertium_available, apertium_pairs, freedict_translator
from xsent_lib.data.xnli import XNLIBenchmark, add_real_text_language, real_xnli, synthetic_xnli, typological_distance
from xsent_lib.encoders import BagOfVectorsEncoder, NLIClassifier, NLIModel, build_encoder
from xsent_lib.encoders.baselines import REFERENCE_ENCODERS, reference_encoder
from xsent_lib.eval.xnli import (pair_accuracy, rank_correlation, translate_test_accuracies, vectors_pair_accuracy,
                                 with_average)
from xsent_lib.results.claims import Claim, PaperCell, check_claims
from xsent_lib.text import BOS_TOKEN, EOS_TOKEN, TextPipeline, WordTokenizer
from xsent_lib.train.alignment import AlignConfig, AlignRun, align_encoder, target_encoder, translated_embeddings
from xsent_lib.train.nli import NLIRun, small_on_cpu
from xsent_lib.train.xnli import FrozenVectorsRun, train_english_nli, train_on_vectors

# Which XNLI language column each invented language of the world stands beside (closest typology; a stand-in,
# not a translation of that language): Romance-like -> fr, Germanic-like -> de, Turkic-like (SOV, suffixes)
# -> tr, Celtic-like (VSO) -> ar (VSO), Japonic-like (SOV, postpositions, case particles) -> hi.
PAPER_COLUMN: dict[str, str] = {"en": "en", "xa": "fr", "xe": "de", "xd": "tr", "xc": "ar", "xb": "hi"}
ROWS = {"tt": "TRANSLATE TRAIN / BiLSTM-max", "ttest": "TRANSLATE TEST / BiLSTM-max",
        "x-max": "XNLI multilingual sentence encoders (in-domain) / X-BiLSTM-max",
        "x-last": "XNLI multilingual sentence encoders (in-domain) / X-BiLSTM-last",
        "x-cbow": "Pretrained multilingual sentence encoders (transfer learning) / X-CBOW"}
# The same rows as labelled in the thesis's Table 4.10 (same numbers as XNLI's Table 4).
THESIS_ROWS = {ROWS["tt"]: "Machine translation baselines (TRANSLATE TRAIN) / BiLSTM-max",
               ROWS["ttest"]: "Machine translation baselines (TRANSLATE TEST) / BiLSTM-max",
               ROWS["x-max"]: "Evaluation of XNLI multilingual sentence encoders (in-domain) / X-BiLSTM-max",
               ROWS["x-last"]: "Evaluation of XNLI multilingual sentence encoders (in-domain) / X-BiLSTM-last",
               ROWS["x-cbow"]: "Evaluation of pretrained multilingual sentence encoders (transfer learning) / X-CBOW"}
# Display labels of the Table 4 rows (the paper's section names shortened; both MT sections use BiLSTM-max).
SHORT_ROWS = {ROWS["tt"]: "TRANSLATE TRAIN, BiLSTM-max", ROWS["ttest"]: "TRANSLATE TEST, BiLSTM-max",
              ROWS["x-max"]: "X-BiLSTM-max", ROWS["x-last"]: "X-BiLSTM-last", ROWS["x-cbow"]: "X-CBOW"}
# Our rows without a counterpart in the paper (Table 4 labels), and the translation function each row used.
# The offline MT systems of the real-text languages (row key suffix -> display name): each language's NLI side,
# translate-test and translate-train use one of them (:func:`mt_system`).
MT_SYSTEMS = {"freedict": "FreeDict word-by-word", "apertium": "Apertium"}
EXTRA_ROWS = {"ttest-wbw": "TRANSLATE TEST, word-by-word (ours)",
              **{f"ttest-{key}": f"TRANSLATE TEST, {name} (ours)" for key, name in MT_SYSTEMS.items()},
              **{f"tt-{key}": f"TRANSLATE TRAIN, {name} (ours)" for key, name in MT_SYSTEMS.items()},
              **{f"ref-{name}": f"{name}, frozen + XNLI classifier (ours)" for name in REFERENCE_ENCODERS}}
ROW_TRANSLATION = {"ttest": "the synthetic world's exact translator", "tt": "the synthetic world's exact translator",
                   "ttest-wbw": "word by word with the world's gold lexicon (FreeDict-style)",
                   **{f"{row}-freedict": "FreeDict word by word (cached freedict lexicons)" for row in ("ttest", "tt")},
                   **{f"{row}-apertium": "Apertium (installed system package)" for row in ("ttest", "tt")}}
# The bitext of each real-text language (nlp-corpus: real English, AWS-translated target side; LibreOffice help:
# professional human translations), and the languages each shipped encoder was trained on
# (USE-multilingual v3: 16 languages; multilingual-e5-small: about 100, every real XNLI language).
REAL_BITEXT = {"fr": "nlp-en-fr", "de": "nlp-en-de", "es": "lohelp-en-es"}
REFERENCE_LANGUAGES: dict[str, frozenset[str] | None] = {
    "USE": frozenset({"ar", "zh", "en", "fr", "de", "it", "ja", "ko", "nl", "pl", "pt", "es", "th", "tr", "ru"}),
    "mE5-small": None}
ABLATION_ROWS = {"ft = 1, λ = 0.25": "ft = 1, λ = 0.25 [default]", "ft = 1, λ = 0": "ft = 1, λ = 0.0 (no negatives)",
                 "ft = 1, λ = 0.5": "ft = 1, λ = 0.5", "ft = 0, λ = 0.25": "ft = 0, λ = 0.25"}


@dataclass(frozen=True)
class XNLIPlan:
    """Sizes of one profile: languages, data, English training, alignment, ablation, translate-train, curve.

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
        """The plan as plain values, for metrics.json. Book: chapter 6 (XNLI and aligned encoders)."""
        return asdict(self)


SMOKE = XNLIPlan(("xa", "xd"), 900, 150, 150, 400, 100, 16, 2, AlignConfig(epochs=1, eval_every=3, batch_size=32),
                 ("bilstm-max",), ("xa",), ("xa",), "xd", (100, 400), (0,), glove=False, real_languages=("fr",),
                 n_real_parallel=400, n_choice_bitext=5000, reference=("USE",), n_reference_train=300,
                 n_reference_dev=100)
BOOK = XNLIPlan(("xa", "xb", "xc", "xd", "xe"), 5000, 1000, 1000, 3000, 300, 64, 4,
                AlignConfig(epochs=4, eval_every=24), ("bilstm-max", "bilstm-last"), ("xa", "xd"), ("xa", "xd"),
                "xd", (300, 1000, 3000), (0, 1), glove=True, real_languages=("fr", "de"), n_real_parallel=3000,
                reference=("USE",), n_reference_train=5000)
FULL = XNLIPlan(("fr", "es", "de", "el", "bg", "ru", "tr", "ar", "vi", "th", "zh", "hi", "sw", "ur"), 392_702,
                2490, 5010, 500_000, 2000, 512, 10, AlignConfig(epochs=5, eval_every=2000, batch_size=128),
                ("bilstm-max", "bilstm-last"), ("fr", "ru", "zh"), ("fr", "ru", "zh"), "fr",
                (10_000, 100_000, 500_000), (0, 1, 2), glove=True, real_languages=("fr", "de", "es"),
                n_real_parallel=50_000, n_choice_bitext=50_000, reference=("USE", "mE5-small"), n_reference_train=50_000,
                n_reference_dev=2000)
SYNTHETIC_FULL = replace(BOOK, n_train=50_000, n_parallel=50_000, width=256, nli_epochs=5,
                         curve_sizes=(1000, 5000, 50_000), curve_seeds=(0, 1, 2), real_languages=("fr", "de", "es"),
                         n_real_parallel=50_000,
                         n_choice_bitext=50_000, reference=("USE", "mE5-small"), n_reference_train=20_000,
                         n_reference_dev=1000)


def real_code(lang: str) -> str:
    """The benchmark's code for real-text language ``lang`` whose NLI side is machine-translated: ``"fr-mt"``.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return f"{lang}-mt"


def is_synthetic(lang: str) -> bool:
    """Whether ``lang`` is one of the synthetic world's languages (English included).

    Book: chapter 6 (XNLI and aligned encoders).
    """
    try:
        typology(lang)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class LanguageGroups:
    """The target languages of a benchmark by kind, the same way in every mode: ``averaged`` are the columns of
    the main table and its averages (the invented languages, or XNLI's languages when the real XNLI is read);
    ``invented`` are the synthetic world's languages (none with the real XNLI); ``real_text`` are the
    real-text languages (real bitext, machine-translated NLI side), shown outside the average.
    Book: chapter 6 (XNLI and aligned encoders).
    """

    averaged: tuple[str, ...]
    invented: tuple[str, ...]
    real_text: tuple[str, ...]


def language_groups(bench: XNLIBenchmark) -> LanguageGroups:
    """Which target languages of ``bench`` are invented (:func:`is_synthetic`), real-text (added by
    :func:`~xsent_lib.data.xnli.add_real_text_language`, whose system ``translated_by`` names) or averaged.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    targets = [lang for lang in bench.languages if lang != "en"]
    real_text = tuple(lang for lang in targets if lang in bench.translated_by)
    return LanguageGroups(tuple(lang for lang in targets if lang not in real_text),
                          tuple(lang for lang in targets if is_synthetic(lang)), real_text)


def mt_system(bench: XNLIBenchmark, lang: str) -> str | None:
    """The key in :data:`MT_SYSTEMS` of the system that translated real-text language ``lang``'s NLI side
    (``None`` for a language no system translated). Book: chapter 6 (XNLI and aligned encoders).
    """
    name = bench.translated_by.get(lang)
    if name is None:
        return None
    key = next((key for key in MT_SYSTEMS if name.lower().startswith(key)), None)
    if key is None:
        raise ValueError(f"{lang}: no row for the MT system {name!r}; known systems: {list(MT_SYSTEMS)}.")
    return key


def mt_systems(bench: XNLIBenchmark, languages: Sequence[str]) -> dict[str, list[str]]:
    """``languages`` grouped by the system that translated them (:func:`mt_system`), systems in use only.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    out: dict[str, list[str]] = {}
    for lang in languages:
        key = mt_system(bench, lang)
        if key is None:
            raise ValueError(f"{lang!r} was not machine-translated by any system; real-text languages have one.")
        out.setdefault(key, []).append(lang)
    return out


def apertium_for(lang: str) -> ApertiumTranslator | None:
    """Apertium between English and ``lang`` when both directions are installed here, else ``None``.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    try:
        return ApertiumTranslator(lang)
    except FileNotFoundError:
        return None


def apertium_note(bench: XNLIBenchmark) -> str:
    """Whether Apertium is installed, which real-text languages of ``bench`` it translated, and which FreeDict
    word by word translated instead (Debian packages no English-French or English-German Apertium pair).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    systems = mt_systems(bench, language_groups(bench).real_text)
    pairs = apertium_pairs()
    state = (f"Apertium is installed with the directions {', '.join(pairs) or 'none'}" if apertium_available()
             else "Apertium is not installed on this machine (`which apertium` finds nothing)")
    used, rest = systems.get("apertium", []), systems.get("freedict", [])
    return (f"{state}. Real-text languages translated by Apertium: {', '.join(used) or 'none'}; by FreeDict word by "
            f"word: {', '.join(rest) or 'none'}. Debian's Apertium has English-Spanish, -Catalan, -Galician and a few "
            "other pairs, but no English-French or English-German one.")


def add_real_languages(bench: XNLIBenchmark, plan: XNLIPlan, seed: int, cache_dir: str | Path | None = None,
                       apertium: bool = True) -> tuple[XNLIBenchmark, list[str]]:
    """``bench`` plus each of ``plan.real_languages`` as a real-text language (:func:`real_code`): the cached
    bitext of :data:`REAL_BITEXT` for alignment, and the English dev/test pairs machine-translated by the best
    offline system: Apertium where it is installed with the pair (and ``apertium``), else FreeDict word by
    word (:func:`~xsent_lib.data.word_mt.freedict_translator`, translations chosen on the first
    ``plan.n_choice_bitext`` bitext pairs). The FreeDict ``lang -> en`` table gives the initial word vectors
    either way. A bitext with fewer than ``plan.n_real_parallel`` usable pairs gives all it has (the note says
    how many; the LibreOffice help has about 21k). A language whose data are not cached is skipped with a note. Returns the benchmark and the notes.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    from xsent_lib.data.corpora import load_bitext

    notes = []
    for lang in plan.real_languages:
        if lang not in REAL_BITEXT:
            raise ValueError(f"no real bitext is known for {lang!r}; known: {sorted(REAL_BITEXT)}.")
        try:
            en, other = load_bitext(REAL_BITEXT[lang], cache_dir=cache_dir)
            freedict = freedict_translator(lang, (en[: plan.n_choice_bitext], other[: plan.n_choice_bitext]),
                                           cache_dir=cache_dir)
        except FileNotFoundError as err:
            notes.append(f"{real_code(lang)} not added: {err}")
            continue
        system = apertium_for(lang) if apertium else None
        translator = freedict if system is None else system
        bench = add_real_text_language(bench, lang, (en, other), translator, system=translator.name,
                                       n_parallel=plan.n_real_parallel, n_parallel_dev=plan.n_parallel_dev, seed=seed,
                                       code=real_code(lang), bitext_name=REAL_BITEXT[lang],
                                       lexicon=list(freedict.tables[(lang, "en")].items()), allow_fewer=True)
    return bench, notes


def benchmark(plan: XNLIPlan, seed: int, data_dir: str | Path | None = None,
              real: bool = False) -> tuple[XNLIBenchmark, XNLIPlan, SyntheticWorld | None]:
    """The chapter's data: XNLI 1.0 + XNLI-MT from ``data_dir`` when ``real`` (any profile), else the
    synthetic world's XNLI-shaped set at ``plan``'s sizes (the full plan falls back to :data:`SYNTHETIC_FULL`).
    Real data keep the plan's languages that have an XNLI-MT training file (the others are noted); a smoke or
    book plan, which names the world's invented languages, takes the full plan's XNLI languages instead, at most
    as many as it has, at its own sizes.
    Returns the benchmark, the plan actually used and the world (``None`` for real data).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    if real:
        if data_dir is None:
            raise ValueError("real XNLI needs data_dir (the folder holding XNLI-1.0/ and XNLI-MT-1.0/).")
        mt = Path(data_dir) / "XNLI-MT-1.0" / "multinli"
        # a smoke / book plan names the world's invented languages: real data take XNLI's, as many as the plan has
        shape = FULL if all(lang.startswith("x") for lang in plan.languages) else plan
        requested = shape.languages
        langs = tuple(lang for lang in requested if (mt / f"multinli.train.{lang}.tsv").is_file())
        langs = langs[: len(plan.languages)]
        if not langs:
            raise FileNotFoundError(f"no XNLI-MT training file for {list(requested)} under {mt}.")
        plan = replace(plan, languages=langs,
                       ablation_languages=tuple(x for x in shape.ablation_languages if x in langs) or langs[:1],
                       translate_train_languages=tuple(x for x in shape.translate_train_languages if x in langs)
                       or langs[:1],
                       curve_language=shape.curve_language if shape.curve_language in langs else langs[0])
        bench = real_xnli(data_dir, langs, max_train=plan.n_train, max_parallel=plan.n_parallel,
                          n_parallel_dev=plan.n_parallel_dev)
        missing = [lang for lang in requested if lang not in langs and not (mt / f"multinli.train.{lang}.tsv").is_file()]
        if missing:
            bench.notes.append(f"languages without XNLI-MT files in data_dir, skipped: {missing}")
        return bench, plan, None
    if plan is FULL:
        plan = SYNTHETIC_FULL
    world = SyntheticWorld(seed)
    return synthetic_xnli(world, plan.languages, plan.n_train, plan.n_dev, plan.n_test, plan.n_parallel,
                          plan.n_parallel_dev), plan, world


def english_words(bench: XNLIBenchmark, vectors: WordVectors | None, seed: int) -> WordSetup:
    """English vocabulary and word vectors (GloVe fixed when given, else random and trained), chapter 3's way.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return build_word_setup(bench.sentences("en"), vectors, dim=50, seed=seed,
                            source="GloVe 6B" if vectors is not None else "")


def english_model(name: str, words: WordSetup, plan: XNLIPlan, seed: int) -> tuple[NLIModel, TextPipeline]:
    """A fresh English NLI model and the pipeline it reads: ``"bilstm-max"`` / ``"bilstm-last"`` (``plan.width``
    units per direction, on ``words``' vectors, fixed when pretrained) or ``"cbow"`` (X-CBOW: the average of the
    fixed vectors, nothing to train below the classifier); XNLI's classifier on top (128 hidden units, dropout
    0.1; P3 names no activation, we keep chapter 3's tanh).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    seed_everything(seed)
    if name == "cbow":
        pipeline = words.bow_pipeline
        encoder = BagOfVectorsEncoder(len(pipeline.vocab), words.dim, embeddings=words.weights, freeze=True,
                                      pipeline=pipeline)
    else:
        pipeline = words.pipeline
        encoder = build_encoder(name, len(pipeline.vocab), word_dim=words.dim, embeddings=words.weights,
                                freeze_embeddings=words.frozen, pipeline=pipeline, hidden_dim=plan.width)
    return NLIModel(encoder, NLIClassifier(encoder.output_dim, 128, dropout=0.1)), pipeline


def train_english(name: str, bench: XNLIBenchmark, words: WordSetup, plan: XNLIPlan, *, device: str | torch.device,
                  seed: int) -> NLIRun:
    """The frozen English side, trained on English NLI with Adam as in P3 (:func:`train_english_nli`); for
    ``"cbow"`` only the classifier learns. Book: chapter 6 (XNLI and aligned encoders).
    """
    model, pipeline = english_model(name, words, plan, seed)
    corpus = NLICorpus(bench.train, bench.dev["en"], bench.test["en"], bench.source)
    return train_english_nli(name, model, pipeline, corpus, epochs=plan.nli_epochs, width=plan.width, device=device,
                             seed=seed)


def target_words(lang: str, english: NLIRun, words: WordSetup, bench: XNLIBenchmark,
                 world: SyntheticWorld | None, seed: int) -> WordSetup:
    """The target language's vocabulary (from its bitext and NLI sides) and initial vectors: the English vector
    of each word's translation in ``bench.init_lexicon`` (a real-text language: the FreeDict table that also
    made its NLI side) or in the world's gold lexicon (synthetic; all concepts, inflected forms), random for
    the other words and for every word of a real language without a lexicon (full XNLI).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    bag = isinstance(english.encoder, BagOfVectorsEncoder)
    eos = (None, None) if bag else (BOS_TOKEN, EOS_TOKEN)
    pipeline = TextPipeline.fit(bench.sentences(lang), WordTokenizer(), bos=eos[0], eos=eos[1])
    pairs: list[tuple[str, str]] = []
    source = "random"
    if lang in bench.init_lexicon:
        pairs = list(bench.init_lexicon[lang])
        source = f"English vectors of the {bench.translated_by.get(lang, 'dictionary')} translations"
    elif world is not None and is_synthetic(lang):
        lex = world.lexicon(lang, "en", inflected=True)
        pairs = [*lex.train, *lex.test]
        source = "English vectors of gold-lexicon translations"
    src_pipeline = words.bow_pipeline if bag else words.pipeline
    weights, coverage = translated_embeddings(english.encoder, src_pipeline, pipeline, pairs, seed)
    return WordSetup(pipeline, TextPipeline(pipeline.tokenizer, pipeline.vocab), weights, False,
                     source if pairs else "random", coverage)


def align_language(english: NLIRun, lang: str, words: WordSetup, bench: XNLIBenchmark, world: SyntheticWorld | None,
                   config: AlignConfig, *, n_parallel: int | None = None, curve: bool = False,
                   device: str | torch.device = "auto", seed: int = 0) -> AlignRun:
    """Align a target-language copy of ``english``'s encoder for ``lang`` on (the first ``n_parallel`` pairs of)
    the bitext, with the epochs scaled up so that a smaller bitext gets as many steps as the whole one; with
    ``curve``, target dev accuracy is sampled along training for Figure 2.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    tw = target_words(lang, english, words, bench, world, seed)
    target = target_encoder(english.encoder, tw.pipeline, tw.weights, fine_tune=config.fine_tune)
    en, tgt = bench.parallel[lang]
    n = len(en) if n_parallel is None else min(n_parallel, len(en))
    if n < len(en):  # fewer sentences, as many steps: the curve then measures data, not training time
        config = replace(config, epochs=max(1, round(config.epochs * len(en) / n)))
    evaluate = (lambda enc: pair_accuracy(english.model.classifier, enc, bench.dev[lang], device=device)) if curve else None
    if not curve:
        config = replace(config, eval_every=None)
    with single_thread(small_on_cpu(english.width, device)):
        return align_encoder(english.encoder, target, (en[:n], tgt[:n]), bench.parallel_dev[lang], config,
                             evaluate=evaluate, init_coverage=tw.coverage, device=device, seed=seed)


def zero_shot_accuracy(english: NLIRun, run: AlignRun, data: NLIData, device: str | torch.device = "auto") -> float:
    """Zero-shot accuracy (percent) of an aligned target encoder with the English classifier.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return pair_accuracy(english.model.classifier, run.encoder, data, device=device)


def translate_train(lang: str, english: NLIRun, words: WordSetup, bench: XNLIBenchmark, world: SyntheticWorld | None,
                    plan: XNLIPlan, *, device: str | torch.device, seed: int) -> NLIRun:
    """TRANSLATE TRAIN: the English training pairs translated into ``lang`` by the benchmark's translator, and a
    BiLSTM-max trained on them from scratch like the English one (target vectors initialised as for alignment,
    then trained with the model).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    if bench.translate is None:
        raise ValueError("translate-train needs a translator; this benchmark has none.")
    moved = NLIData(bench.translate(list(bench.train.premises), "en", lang),
                    bench.translate(list(bench.train.hypotheses), "en", lang), np.asarray(bench.train.labels))
    tw = target_words(lang, english, words, bench, world, seed)
    model, pipeline = english_model("bilstm-max", tw, plan, seed)
    corpus = NLICorpus(moved, bench.dev[lang], bench.test[lang], f"{bench.source}, translated into {lang}")
    return train_english_nli("bilstm-max", model, pipeline, corpus, epochs=plan.nli_epochs, width=plan.width,
                             device=device, seed=seed)


def translate_test(english: NLIRun, bench: XNLIBenchmark, translate: Any, device: str | torch.device = "auto",
                   languages: Sequence[str] | None = None) -> dict[str, float] | None:
    """TRANSLATE TEST: every test set (of ``languages``, English always included) translated into English and
    read by the English model (``None`` when the translator cannot translate the test sets, e.g. XNLI-MT's
    train-only translations, or no language is left). Book: chapter 6 (XNLI and aligned encoders).
    """
    if translate is None:
        return None
    sets = {lang: data for lang, data in bench.test.items() if lang == "en" or languages is None or lang in languages}
    probe = next((lang for lang in sets if lang != "en"), None)
    if probe is None:
        return None
    try:
        translate(sets[probe].premises[:1], probe, "en")
    except KeyError:
        return None
    return translate_test_accuracies(english.model.classifier, english.encoder, sets, translate, device=device)


def reference_row(name: str, bench: XNLIBenchmark, plan: XNLIPlan, *, device: str | torch.device = "auto",
                  seed: int = 0, cache_dir: str | Path | None = None
                  ) -> tuple[FrozenVectorsRun, dict[str, float | None], list[str]]:
    """The strong reference row: shipped multilingual encoder ``name`` (``"USE"`` or ``"mE5-small"``, from the
    data cache), frozen, with XNLI's classifier trained on its vectors of the first ``plan.n_reference_train``
    English pairs (:func:`~xsent_lib.train.xnli.train_on_vectors`), then scored zero-shot on every test
    language the encoder was trained on. The synthetic world's invented languages (and real languages outside
    :data:`REFERENCE_LANGUAGES`) get ``None``: not testable, the encoder has never seen them. Returns the run,
    the accuracies and the languages left out. Book: chapter 6 (XNLI and aligned encoders).
    """
    if name not in REFERENCE_LANGUAGES:
        raise ValueError(f"unknown reference encoder {name!r}; known: {list(REFERENCE_LANGUAGES)}.")
    if plan.n_reference_train < 1:
        raise ValueError("plan.n_reference_train must be >= 1 to train the reference row's classifier.")
    encoder = reference_encoder(name, cache_dir=cache_dir)
    n, k = plan.n_reference_train, plan.n_reference_dev
    head = lambda d, m: NLIData(list(d.premises[:m]), list(d.hypotheses[:m]), np.asarray(d.labels[:m]))  # noqa: E731
    corpus = NLICorpus(head(bench.train, n), head(bench.dev["en"], k), bench.test["en"], bench.source)
    run = train_on_vectors(name, encoder.encode, corpus, epochs=10, device=device, seed=seed)
    known = REFERENCE_LANGUAGES[name]
    accs: dict[str, float | None] = {"en": run.test_acc}
    left_out = []
    for code, data in bench.test.items():
        if code == "en":
            continue
        lang = code[: -len("-mt")] if code.endswith("-mt") else code
        if is_synthetic(code) or (known is not None and lang not in known):
            accs[code] = None
            left_out.append(code)
        else:
            accs[code] = vectors_pair_accuracy(run.classifier, encoder.encode, data, device=device)
    return run, accs, left_out


# ----------------------------------------------------------------------------------------------- tables
def paper_row(accuracies: Mapping[str, float | None]) -> dict[str, float | None]:
    """Our per-language accuracies keyed by the paper's columns (:data:`PAPER_COLUMN`; real codes stay).

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return {PAPER_COLUMN.get(lang, lang): value for lang, value in accuracies.items()}


def label_columns(frame: pd.DataFrame, languages: Sequence[str]) -> pd.DataFrame:
    """Relabel a side-by-side table's paper columns with the language of ours under each, e.g. ``"fr | xa"``.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    ours = {PAPER_COLUMN.get(lang, lang): lang for lang in languages}
    names = {c: f"{c} | {ours[c]}" if c in ours and ours[c] != c else c for c in frame.columns.get_level_values(0)}
    return frame.rename(columns=names, level=0)


def table_1_counts(bench: XNLIBenchmark) -> dict[str, dict[str, float | None]]:
    """XNLI's size per language (the paper states 7,500 dev + test pairs in each of its 15 languages, Sec. 1),
    ours keyed by the paper's columns (:func:`paper_row`): dev + test pairs of every test language.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    return {"dev + test pairs": paper_row({lang: len(bench.dev.get(lang, ())) + len(bench.test[lang])
                                           for lang in bench.languages})}


def ablation_settings(default: AlignConfig) -> list[AlignConfig]:
    """The paper's ablation around ``default`` (lambda 0 and 0.5, frozen lookup table) plus the ranking loss.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return [default, replace(default, lam=0.0), replace(default, lam=0.5), replace(default, fine_tune=False),
            replace(default, loss="rank")]


def table_4_ours(rows: Mapping[str, Mapping[str, float | None]], languages: Sequence[str],
                 extra: Sequence[str] = ()) -> dict[str, dict]:
    """Table 4 (thesis 4.10): each of our rows (keys of :data:`ROWS` or :data:`EXTRA_ROWS`) with its average
    over ``languages``; the ``extra`` columns (real-text languages) are shown after it, outside the average.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    out = {}
    for key, acc in rows.items():
        label = ROWS.get(key) or EXTRA_ROWS.get(key)
        if label is None:
            raise KeyError(f"row {key!r} has no Table 4 label; known: {sorted({**ROWS, **EXTRA_ROWS})}.")
        row = paper_row(with_average({lang: acc.get(lang) for lang in languages}, languages))
        out[label] = {**row, **{code: acc.get(code) for code in extra}}
    return out


def row_translations(rows: Mapping[str, Mapping[str, float | None]], bench: XNLIBenchmark) -> list[dict[str, Any]]:
    """Which translation function (or none) each row of the run used, and on which languages.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    out = []
    for key, acc in rows.items():
        langs = [lang for lang, v in acc.items() if lang != "en" and v is not None]
        label = row_name(key)
        if key.startswith("ref-"):
            how = "none (zero-shot: one shipped multilingual encoder for every language, English classifier)"
        else:
            how = ROW_TRANSLATION.get(key, "none (zero-shot: one aligned encoder per language, English classifier)")
        if key.rsplit("-", 1)[-1] in MT_SYSTEMS:
            how = "; ".join(sorted({bench.translated_by.get(lang, how) for lang in langs})) or how
        out.append({"row": label, "translation": how, "languages": ", ".join(langs)})
    return out


def thesis_labels(table: Mapping[str, Any]) -> dict[str, Any]:
    """Our Table 4 keyed by the thesis's Table 4.10 row labels (rows it does not have keep their label).

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return {THESIS_ROWS.get(row, row): values for row, values in table.items()}


def table_5_ours(ablation: Mapping[str, Mapping[str, float]]) -> dict[str, dict]:
    """Table 5 (thesis 4.11): accuracy per ablation setting (``AlignConfig.label()``) and language.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return {ABLATION_ROWS.get(label, f"{label} (ours)"): paper_row(acc) for label, acc in ablation.items()}


def distance_rows(rows: Mapping[str, Mapping[str, float | None]], methods: Mapping[str, str]) -> list[dict[str, Any]]:
    """(language, typological distance from English, accuracy, method) for every synthetic target language of
    each row (real-text languages have no distance in the world).

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return [{"language": lang, "distance": typological_distance("en", lang), "acc": acc, "method": name}
            for key, name in methods.items() for lang, acc in rows.get(key, {}).items()
            if lang != "en" and acc is not None and is_synthetic(lang)]


# ----------------------------------------------------------------------------------------------- claims
def claim_numbers(rows: Mapping[str, Mapping[str, float | None]], ablation: Mapping[str, Mapping[str, float]],
                  correlations: Mapping[str, float | None], parallel_curve: Sequence[Mapping[str, float]],
                  real_text: Sequence[str] = ()) -> dict[str, float | None]:
    """The numbers the claims compare, from the run's tables (averages over target languages, English out).

    Languages are told apart the same way in every mode (:class:`LanguageGroups`): the main averages run over
    every target except the ``real_text`` languages (real bitext, machine-translated NLI side), which have their
    own ``"real: ..."`` averages over all of them (``None`` when one of their cells is missing); the
    ``"invented: ..."`` numbers and the typological-distance correlation use the synthetic world's invented
    languages only (:func:`is_synthetic`), so a run on the real XNLI has none: not testable.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    real = list(dict.fromkeys(real_text))

    def main_mean(key: str) -> float | None:
        vals = [v for lang, v in rows.get(key, {}).items() if lang != "en" and lang not in real and v is not None]
        return float(np.mean(vals)) if vals else None

    def full_mean(acc: Mapping[str, float | None], langs: Sequence[str]) -> float | None:  # None if a cell is missing
        vals = [acc.get(lang) for lang in langs]
        return float(np.mean(vals)) if vals and all(v is not None for v in vals) else None

    def merged(row: str) -> dict[str, float | None]:  # one MT row over the real-text languages, whatever system
        return {lang: v for key in MT_SYSTEMS for lang, v in rows.get(f"{row}-{key}", {}).items()}

    x_max = rows.get("x-max", {})
    invented = [lang for lang in x_max if lang != "en" and is_synthetic(lang)]
    refs = [key for key in rows if key.startswith("ref-")]
    real_rows = {"x-max": x_max, "x-last": rows.get("x-last", {}), "x-cbow": rows.get("x-cbow", {}),
                 "ttest": merged("ttest"), "tt": merged("tt")}
    others = [v for v in (full_mean(acc, real) for acc in real_rows.values()) if v is not None]
    ref_real = [v for v in (full_mean(rows[key], real) for key in refs) if v is not None]
    ref_invented = [v for v in (full_mean(rows[key], invented) for key in refs) if v is not None]

    def abl(label: str) -> float | None:
        vals = list(ablation.get(label, {}).values())
        return float(np.mean(vals)) if vals else None

    dist = [(typological_distance("en", lang), x_max[lang]) for lang in invented if x_max[lang] is not None]
    ns = sorted({p["n"] for p in parallel_curve})
    at = lambda n: float(np.mean([p["acc"] for p in parallel_curve if p["n"] == n])) if ns else None  # noqa: E731
    curve_r = [r for r in correlations.values() if r is not None]
    return {"translate-test avg": main_mean("ttest"), "X-BiLSTM-max avg": main_mean("x-max"),
            "X-BiLSTM-last avg": main_mean("x-last"), "X-CBOW avg": main_mean("x-cbow"),
            "translate-test word-by-word avg": main_mean("ttest-wbw"),
            "translate-train avg (its languages)": main_mean("tt"),
            "X-BiLSTM-max avg (translate-train languages)": (
                float(np.mean([x_max[lang] for lang in rows.get("tt", {}) if lang != "en"])) if rows.get("tt") else None),
            "lam 0.25": abl("ft = 1, λ = 0.25"), "lam 0": abl("ft = 1, λ = 0"), "lam 0.5": abl("ft = 1, λ = 0.5"),
            "ft 0": abl("ft = 0, λ = 0.25"), "ranking": next((float(np.mean(list(v.values())))
                                                              for k, v in ablation.items() if k.startswith("ranking")), None),
            "spearman(distance, X-BiLSTM-max acc)": rank_correlation(*zip(*dist)) if len(dist) >= 3 else None,
            "mean r(L_align, accuracy) along training": float(np.mean(curve_r)) if curve_r else None,
            "acc at fewest parallel": at(ns[0]) if ns else None, "acc at most parallel": at(ns[-1]) if ns else None,
            "real: X-BiLSTM-max": full_mean(x_max, real), "real: X-CBOW": full_mean(real_rows["x-cbow"], real),
            "real: translate-test (its MT system)": full_mean(real_rows["ttest"], real),
            "real: translate-train (its MT system)": full_mean(real_rows["tt"], real),
            "real: best reference encoder": max(ref_real) if ref_real else None,
            "real: best other row": max(others) if others else None,
            "invented: X-BiLSTM-max": full_mean(x_max, invented),
            "invented: best reference encoder": max(ref_invented) if ref_invented else None}


def row_name(key: str) -> str:
    """The display label of row ``key`` (:data:`SHORT_ROWS` for the paper's rows, :data:`EXTRA_ROWS` for ours).

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return SHORT_ROWS.get(ROWS.get(key, ""), "") or EXTRA_ROWS.get(key, key)


def best_row_sentence(rows: Mapping[str, Mapping[str, float | None]], languages: Sequence[str]) -> str:
    """Which row has the highest mean over ``languages`` (rows with every cell; rows with only some of them are
    named as left out) and by how much it leads the next. Book: chapter 6 (XNLI and aligned encoders).
    """
    langs = [lang for lang in languages if lang != "en"]
    full = {key: float(np.mean([acc[lang] for lang in langs])) for key, acc in rows.items()
            if langs and all(acc.get(lang) is not None for lang in langs)}
    if not full:
        return f"no row has a cell for every one of {', '.join(langs) or 'no language'}: no best row."
    order = sorted(full, key=full.get, reverse=True)
    out = f"highest mean over {', '.join(langs)}: {row_name(order[0])} {full[order[0]]:.1f}"
    if len(order) > 1:
        out += f", {full[order[0]] - full[order[1]]:.1f} points above {row_name(order[1])} ({full[order[1]]:.1f})"
    partial = [row_name(key) for key, acc in rows.items()
               if key not in full and any(acc.get(lang) is not None for lang in langs)]
    return out + (f"; not every language scored, so left out: {', '.join(partial)}." if partial else ".")


def seed_noise_sentence(ablation: Mapping[str, Mapping[str, float]], parallel_curve: Sequence[Mapping[str, float]]) -> str:
    """The largest gap between two seeds at one bitext size (the bitext curve), beside the gaps between the
    ablation settings' mean accuracies: how many of those gaps are smaller than the seed spread.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    spreads = [max(a) - min(a) for n in {p["n"] for p in parallel_curve}
               if len(a := [p["acc"] for p in parallel_curve if p["n"] == n]) > 1]
    means = {label: float(np.mean(list(acc.values()))) for label, acc in ablation.items() if acc}
    if not spreads:
        return ("this run aligns every bitext size with one seed only, so it measures no seed spread: the gaps "
                "between ablation settings cannot be compared with what another seed moves.")
    spread = max(spreads)
    out = f"at one bitext size, another alignment seed moved test accuracy by up to {spread:.1f} points"
    labels = list(means)
    gaps = [abs(means[a] - means[b]) for i, a in enumerate(labels) for b in labels[i + 1:]]
    if gaps:
        small = sum(g < spread for g in gaps)
        out += (f"; {small} of the {len(gaps)} gaps between two ablation settings (mean dev accuracy, largest "
                f"{max(gaps):.1f}) are smaller than that")
    return out + "."


def run_summary(rows: Mapping[str, Mapping[str, float | None]],
                aligned: Mapping[str, Mapping[str, AlignRun]], parallel_curve: Sequence[Mapping[str, float]],
                real_text: Sequence[str] = (), ablation: Mapping[str, Mapping[str, float]] | None = None) -> list[str]:
    """Plain sentences stating what the run produced: averages and extremes over the main table's languages
    (every target but the ``real_text`` ones), the row with the highest average, every row on each real-text
    language, where alignment stopped, the seed spread and how the ablation's gaps compare with it.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    out = []
    averaged = sorted({lang for acc in rows.values() for lang in acc if lang != "en" and lang not in real_text})
    for key, name in (("x-max", "X-BiLSTM-max"), ("x-last", "X-BiLSTM-last"), ("x-cbow", "X-CBOW"),
                      ("ttest-wbw", "translate-test (word-by-word)"), ("tt", "translate-train")):
        accs = {lang: v for lang, v in rows.get(key, {}).items() if lang in averaged and v is not None}
        if accs:
            lo, hi = min(accs, key=accs.get), max(accs, key=accs.get)
            out.append(f"{name}: mean {np.mean(list(accs.values())):.1f} over {len(accs)} target languages "
                       f"(highest {hi} {accs[hi]:.1f}, lowest {lo} {accs[lo]:.1f}); English {rows[key].get('en', float('nan')):.1f}.")
    if averaged:
        best = best_row_sentence(rows, averaged)
        out.append(best[0].upper() + best[1:])
    for lang in real_text:
        cells = {row_name(k): acc[lang] for k, acc in rows.items() if acc.get(lang) is not None}
        if cells:
            best = max(cells, key=cells.get)
            out.append(f"{lang} (real-text bitext, machine-translated test): " + ", ".join(
                f"{k} {v:.1f}" for k, v in cells.items()) + f"; highest: {best}.")
    for name, runs in aligned.items():
        last = [lang for lang, run in runs.items() if run.history.best_epoch == len(run.history.epoch)]
        if last:
            out.append(f"{name}: the last alignment epoch was the best for {', '.join(last)} "
                       f"({len(last)} of {len(runs)} languages).")
    for n in sorted({p["n"] for p in parallel_curve}):
        accs = [p["acc"] for p in parallel_curve if p["n"] == n]
        if len(accs) > 1:
            out.append(f"{n} parallel sentences: accuracy {min(accs):.1f} to {max(accs):.1f} over {len(accs)} seeds.")
    if ablation is not None:
        noise = seed_noise_sentence(ablation, parallel_curve)
        out.append(noise[0].upper() + noise[1:])
    return out


def _cells(table: str, row: str, cols: Sequence[str]) -> list[PaperCell]:
    return [PaperCell("thesis", table, row, c) for c in cols]


def xnli_claims(numbers: Mapping[str, float | None]) -> list[dict[str, Any]]:
    """The section's claims checked on ``numbers`` (:func:`claim_numbers`); rows for the claims table.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    tt_max = "Machine translation baselines (TRANSLATE TEST) / BiLSTM-max"
    x_max = "Evaluation of XNLI multilingual sentence encoders (in-domain) / X-BiLSTM-max"
    x_last = "Evaluation of XNLI multilingual sentence encoders (in-domain) / X-BiLSTM-last"
    x_cbow = "Evaluation of pretrained multilingual sentence encoders (transfer learning) / X-CBOW"
    tt_train = "Machine translation baselines (TRANSLATE TRAIN) / BiLSTM-max"
    claims = [
        Claim("TRANSLATE TEST beats the aligned encoder (X-BiLSTM-max) on average", "translate-test avg", ">",
              "X-BiLSTM-max avg", _cells("table_4_10", tt_max, ("fr", "sw")) + _cells("table_4_10", x_max, ("fr", "sw")),
              note="ours: the translator is the benchmark's own (exact in the synthetic world)"),
        Claim("the aligned encoder beats translate-test with a word-by-word translator (our row)",
              "X-BiLSTM-max avg", ">", "translate-test word-by-word avg", "not in the paper"),
        Claim("X-BiLSTM-max beats X-BiLSTM-last", "X-BiLSTM-max avg", ">", "X-BiLSTM-last avg",
              _cells("table_4_10", x_max, ("fr",)) + _cells("table_4_10", x_last, ("fr",))),
        Claim("X-BiLSTM-max beats X-CBOW", "X-BiLSTM-max avg", ">", "X-CBOW avg",
              "avg 65.6 vs 58.3 (Table 4, derived)"),
        Claim("negatives help: lambda = 0.25 beats lambda = 0", "lam 0.25", ">", "lam 0",
              _cells("table_4_11", "ft = 1, λ = 0.25 [default]", ("zh",)) + _cells("table_4_11", "ft = 1, λ = 0.0 (no negatives)", ("zh",))),
        Claim("too much weight on negatives hurts: lambda = 0.5 below lambda = 0.25", "lam 0.5", "<", "lam 0.25",
              _cells("table_4_11", "ft = 1, λ = 0.5", ("fr",))),
        Claim("fine-tuning the target lookup table helps (slightly)", "lam 0.25", ">", "ft 0",
              _cells("table_4_11", "ft = 0, λ = 0.25", ("fr",))),
        Claim("the ranking loss does worse than L_align", "ranking", "<", "lam 0.25", "'leads to very poor results' (text)"),
        Claim("L_align and target accuracy move together along training (negative correlation)",
              "mean r(L_align, accuracy) along training", "<", 0.0, "Figure 2 (no numbers printed)"),
        Claim("accuracy falls with typological distance from English", "spearman(distance, X-BiLSTM-max acc)", "<", 0.0,
              "not tested in the paper; its lowest languages (sw, ur) also have the least bitext",
              note="synthetic languages only"),
        Claim("more parallel sentences give higher accuracy", "acc at most parallel", ">", "acc at fewest parallel",
              "ur (64k pairs) overfits in Figure 2; sw (42k) and ur are the lowest columns"),
        Claim("real-text languages: TRANSLATE TEST beats X-BiLSTM-max", "real: translate-test (its MT system)", ">",
              "real: X-BiLSTM-max", _cells("table_4_10", tt_max, ("fr", "de")) + _cells("table_4_10", x_max, ("fr", "de")),
              note="ours: the MT system that made the test set (FreeDict word by word, or Apertium), read back"),
        Claim("real-text languages: TRANSLATE TRAIN beats X-BiLSTM-max", "real: translate-train (its MT system)", ">",
              "real: X-BiLSTM-max", _cells("table_4_10", tt_train, ("fr", "de")),
              note="ours: train and test translated by the same MT system"),
        Claim("real-text languages: X-BiLSTM-max beats X-CBOW", "real: X-BiLSTM-max", ">", "real: X-CBOW",
              _cells("table_4_10", x_max, ("fr",)) + _cells("table_4_10", x_cbow, ("fr",))),
        Claim("real-text languages: a shipped multilingual encoder (frozen) beats every other row",
              "real: best reference encoder", ">", "real: best other row",
              "not in the paper (XNLI predates USE-multilingual and mE5)"),
        Claim("invented languages: a shipped multilingual encoder beats X-BiLSTM-max", "invented: best reference encoder",
              ">", "invented: X-BiLSTM-max", "not in the paper",
              note="not testable by design: the shipped encoders never saw the invented languages (and a run on "
                   "the real XNLI has none)"),
    ]
    return check_claims(claims, numbers)
