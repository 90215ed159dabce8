"""The X-BiLSTM pipeline of XNLI (thesis section 4.2.4): an English NLI model, frozen; one target
encoder per language aligned to it on bitext; zero-shot accuracy through the English classifier; and
the translation baselines and the frozen reference row scored the same way.

The English side is trained with Adam as in the paper
(:func:`~xsent_lib.train.xnli.train_english_nli`) or is the average of fixed word vectors (X-CBOW:
only the classifier learns); the target encoder starts as a copy of the English one, with its lookup
table at the English vectors of each word's translation (:func:`target_words`), and is aligned with
L_align (:func:`~xsent_lib.train.alignment.align_encoder`). :func:`x_bilstm_max` runs the whole
pipeline in one call for a chapter that only needs the row.
Book: chapter 6 (XNLI and aligned encoders).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

from xsent_lib.base.runtime import seed_everything
from xsent_lib.base.threads import single_thread
from xsent_lib.data.formats import NLIData
from xsent_lib.data.formats.vectors import WordVectors
from xsent_lib.data.nli_corpus import NLICorpus
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.word_setup import WordSetup, build_word_setup
from xsent_lib.data.xnli import Translate, XNLIBenchmark
from xsent_lib.data.xnli_languages import is_synthetic
from xsent_lib.encoders import BagOfVectorsEncoder, NLIClassifier, NLIModel, build_encoder
from xsent_lib.encoders.baselines import reference_encoder
from xsent_lib.eval.xnli import pair_accuracy, translate_test_accuracies, vectors_pair_accuracy
from xsent_lib.text import BOS_TOKEN, EOS_TOKEN, TextPipeline, WordTokenizer
from xsent_lib.train.alignment import (
    AlignConfig,
    AlignRun,
    align_encoder,
    target_encoder,
    translated_embeddings,
)
from xsent_lib.train.nli import NLIRun, small_on_cpu
from xsent_lib.train.xnli import FrozenVectorsRun, train_english_nli, train_on_vectors

#: the languages each shipped reference encoder was trained on (USE-multilingual v3: 16 languages;
#: multilingual-e5-small: about 100, every real XNLI language: ``None``)
REFERENCE_LANGUAGES: dict[str, frozenset[str] | None] = {
    "USE": frozenset(
        {"ar", "zh", "en", "fr", "de", "it", "ja", "ko", "nl", "pl", "pt", "es", "th", "tr", "ru"}
    ),
    "mE5-small": None,
}


def english_words(bench: XNLIBenchmark, vectors: WordVectors | None, seed: int) -> WordSetup:
    """English vocabulary and word vectors (GloVe fixed when given, else random and trained),
    chapter 3's way.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return build_word_setup(
        bench.sentences("en"),
        vectors,
        dim=50,
        seed=seed,
        source="GloVe 6B" if vectors is not None else "",
    )


def english_model(
    name: str, words: WordSetup, *, width: int, seed: int
) -> tuple[NLIModel, TextPipeline]:
    """A fresh English NLI model and the pipeline it reads: ``"bilstm-max"`` / ``"bilstm-last"``
    (``width`` units per direction, on ``words``' vectors, fixed when pretrained) or ``"cbow"``
    (X-CBOW: the average of the fixed vectors, nothing to train below the classifier); XNLI's
    classifier on top (128 hidden units, dropout 0.1; P3 names no activation, we keep chapter 3's
    tanh).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    seed_everything(seed)
    if name == "cbow":
        pipeline = words.bow_pipeline
        encoder = BagOfVectorsEncoder(
            len(pipeline.vocab), words.dim, embeddings=words.weights, freeze=True, pipeline=pipeline
        )
    else:
        pipeline = words.pipeline
        encoder = build_encoder(
            name,
            len(pipeline.vocab),
            word_dim=words.dim,
            embeddings=words.weights,
            freeze_embeddings=words.frozen,
            pipeline=pipeline,
            hidden_dim=width,
        )
    return NLIModel(encoder, NLIClassifier(encoder.output_dim, 128, dropout=0.1)), pipeline


def train_english(
    name: str,
    bench: XNLIBenchmark,
    words: WordSetup,
    *,
    width: int,
    epochs: int,
    device: str | torch.device,
    seed: int,
) -> NLIRun:
    """The frozen English side, trained on English NLI with Adam as in P3
    (:func:`train_english_nli`); for ``"cbow"`` only the classifier learns.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    model, pipeline = english_model(name, words, width=width, seed=seed)
    corpus = NLICorpus(bench.train, bench.dev["en"], bench.test["en"], bench.source)
    return train_english_nli(
        name, model, pipeline, corpus, epochs=epochs, width=width, device=device, seed=seed
    )


def target_words(
    lang: str,
    english: NLIRun,
    words: WordSetup,
    bench: XNLIBenchmark,
    world: SyntheticWorld | None,
    seed: int,
) -> WordSetup:
    """The target language's vocabulary (from its bitext and NLI sides) and initial vectors: the
    English vector of each word's translation in ``bench.init_lexicon`` (a real-text language: the
    FreeDict table that also made its NLI side) or in the world's gold lexicon (synthetic; all
    concepts, inflected forms), random for the other words and for every word of a real language
    without a lexicon (full XNLI).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    bag = isinstance(english.encoder, BagOfVectorsEncoder)
    eos = (None, None) if bag else (BOS_TOKEN, EOS_TOKEN)
    pipeline = TextPipeline.fit(bench.sentences(lang), WordTokenizer(), bos=eos[0], eos=eos[1])
    pairs: list[tuple[str, str]] = []
    source = "random"
    if lang in bench.init_lexicon:
        pairs = list(bench.init_lexicon[lang])
        source = (
            f"English vectors of the {bench.translated_by.get(lang, 'dictionary')} translations"
        )
    elif world is not None and is_synthetic(lang):
        lex = world.lexicon(lang, "en", inflected=True)
        pairs = [*lex.train, *lex.test]
        source = "English vectors of gold-lexicon translations"
    src_pipeline = words.bow_pipeline if bag else words.pipeline
    weights, coverage = translated_embeddings(english.encoder, src_pipeline, pipeline, pairs, seed)
    return WordSetup(
        pipeline,
        TextPipeline(pipeline.tokenizer, pipeline.vocab),
        weights,
        False,
        source if pairs else "random",
        coverage,
    )


def align_language(
    english: NLIRun,
    lang: str,
    words: WordSetup,
    bench: XNLIBenchmark,
    world: SyntheticWorld | None,
    config: AlignConfig,
    *,
    n_parallel: int | None = None,
    curve: bool = False,
    device: str | torch.device = "auto",
    seed: int = 0,
) -> AlignRun:
    """Align a target-language copy of ``english``'s encoder for ``lang`` on (the first
    ``n_parallel`` pairs of) the bitext, with the epochs scaled up so that a smaller bitext gets as
    many steps as the whole one; with ``curve``, target dev accuracy is sampled every
    ``config.eval_every`` steps for Figure 2.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    tw = target_words(lang, english, words, bench, world, seed)
    target = target_encoder(english.encoder, tw.pipeline, tw.weights, fine_tune=config.fine_tune)
    en, tgt = bench.parallel[lang]
    n = len(en) if n_parallel is None else min(n_parallel, len(en))
    if n < len(
        en
    ):  # fewer sentences, as many steps: the curve then measures data, not training time
        config = replace(config, epochs=max(1, round(config.epochs * len(en) / n)))
    evaluate = None
    if curve:

        def evaluate(enc):
            return pair_accuracy(english.model.classifier, enc, bench.dev[lang], device=device)
    else:
        config = replace(config, eval_every=None)
    with single_thread(small_on_cpu(english.width, device)):
        return align_encoder(
            english.encoder,
            target,
            (en[:n], tgt[:n]),
            bench.parallel_dev[lang],
            config,
            evaluate=evaluate,
            init_coverage=tw.coverage,
            device=device,
            seed=seed,
        )


def zero_shot_accuracy(
    english: NLIRun, run: AlignRun, data: NLIData, device: str | torch.device = "auto"
) -> float:
    """Zero-shot accuracy (percent) of an aligned target encoder with the English classifier.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return pair_accuracy(english.model.classifier, run.encoder, data, device=device)


def x_bilstm_max(
    bench: XNLIBenchmark,
    world: SyntheticWorld | None,
    *,
    width: int,
    epochs: int,
    align: AlignConfig,
    device: str | torch.device,
    seed: int,
) -> dict[str, float]:
    """X-BiLSTM-max in one call: an English BiLSTM-max NLI model (``width`` units per direction,
    random 50-d word vectors trained with it, ``epochs`` epochs of Adam), frozen; one target encoder
    per target language of ``bench`` aligned to it on the whole bitext with ``align`` (its lookup
    table started from the English vectors of gold-lexicon translations when ``world`` is given);
    test accuracy per language (English: the English model's), through the English classifier.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    words = english_words(bench, None, seed)
    english = train_english(
        "bilstm-max", bench, words, width=width, epochs=epochs, device=device, seed=seed
    )
    accs = {"en": english.test_acc}
    for lang in bench.languages[1:]:
        run = align_language(english, lang, words, bench, world, align, device=device, seed=seed)
        accs[lang] = zero_shot_accuracy(english, run, bench.test[lang], device)
    return accs


def translate_train(
    lang: str,
    english: NLIRun,
    words: WordSetup,
    bench: XNLIBenchmark,
    world: SyntheticWorld | None,
    *,
    width: int,
    epochs: int,
    device: str | torch.device,
    seed: int,
) -> NLIRun:
    """TRANSLATE TRAIN: the English training pairs translated into ``lang`` by the benchmark's
    translator, and a BiLSTM-max trained on them from scratch like the English one (target vectors
    initialised as for alignment, then trained with the model).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    if bench.translate is None:
        raise ValueError("translate-train needs a translator; this benchmark has none.")
    moved = NLIData(
        bench.translate(list(bench.train.premises), "en", lang),
        bench.translate(list(bench.train.hypotheses), "en", lang),
        np.asarray(bench.train.labels),
    )
    tw = target_words(lang, english, words, bench, world, seed)
    model, pipeline = english_model("bilstm-max", tw, width=width, seed=seed)
    corpus = NLICorpus(
        moved, bench.dev[lang], bench.test[lang], f"{bench.source}, translated into {lang}"
    )
    return train_english_nli(
        "bilstm-max", model, pipeline, corpus, epochs=epochs, width=width, device=device, seed=seed
    )


def translate_test(
    english: NLIRun,
    bench: XNLIBenchmark,
    translate: Translate | None,
    device: str | torch.device = "auto",
    languages: Sequence[str] | None = None,
) -> dict[str, float] | None:
    """TRANSLATE TEST: every test set (of ``languages``, English always included) translated into
    English and read by the English model (``None`` when the translator cannot translate the test
    sets, e.g. XNLI-MT's train-only translations, or no language is left).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    if translate is None:
        return None
    sets = {
        lang: data
        for lang, data in bench.test.items()
        if lang == "en" or languages is None or lang in languages
    }
    probe = next((lang for lang in sets if lang != "en"), None)
    if probe is None:
        return None
    try:
        translate(sets[probe].premises[:1], probe, "en")
    except KeyError:
        return None
    return translate_test_accuracies(
        english.model.classifier, english.encoder, sets, translate, device=device
    )


def reference_row(
    name: str,
    bench: XNLIBenchmark,
    *,
    n_train: int,
    n_dev: int,
    device: str | torch.device = "auto",
    seed: int = 0,
    cache_dir: str | Path | None = None,
) -> tuple[FrozenVectorsRun, dict[str, float | None], list[str]]:
    """The strong reference row: shipped multilingual encoder ``name`` (``"USE"`` or
    ``"mE5-small"``, from the data cache), frozen, with XNLI's classifier trained on its vectors of
    the first ``n_train`` English pairs (``n_dev`` dev pairs;
    :func:`~xsent_lib.train.xnli.train_on_vectors`), then scored zero-shot on every test language
    the encoder was trained on. The synthetic world's invented languages (and real languages outside
    :data:`REFERENCE_LANGUAGES`) get ``None``: not testable, the encoder has never seen them.
    Returns the run, the accuracies and the languages left out.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    if name not in REFERENCE_LANGUAGES:
        raise ValueError(f"unknown reference encoder {name!r}; known: {list(REFERENCE_LANGUAGES)}.")
    if n_train < 1:
        raise ValueError(
            "n_train (plan.n_reference_train) must be >= 1 to train the reference row's classifier."
        )
    encoder = reference_encoder(name, cache_dir=cache_dir)

    def head(d: NLIData, m: int) -> NLIData:
        return NLIData(list(d.premises[:m]), list(d.hypotheses[:m]), np.asarray(d.labels[:m]))

    corpus = NLICorpus(
        head(bench.train, n_train), head(bench.dev["en"], n_dev), bench.test["en"], bench.source
    )
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
