"""The kinds of language an XNLI-shaped benchmark holds, and the real-text languages added to it.

A benchmark's target languages are *invented* (the synthetic world's, :func:`is_synthetic`), XNLI's
own (read from ``data_dir``) or *real-text*: real bitext for alignment and an NLI side
machine-translated from the English pairs by the best offline system (:func:`add_real_languages`:
Apertium where it is installed with the pair, else FreeDict word by word), coded ``"fr-mt"``
(:func:`real_code`) as a reminder that its test set is not XNLI's. :class:`LanguageGroups` tells
them apart the same way in every mode.
Book: chapter 6 (XNLI and aligned encoders).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from xsent_lib.data.synthetic.typology import typology
from xsent_lib.data.word_mt import (
    ApertiumTranslator,
    apertium_available,
    apertium_pairs,
    freedict_translator,
)
from xsent_lib.data.xnli import XNLIBenchmark, add_real_text_language

#: the offline MT systems of the real-text languages (row key suffix -> display name)
MT_SYSTEMS = {"freedict": "FreeDict word-by-word", "apertium": "Apertium"}
#: the cached bitext of each real-text language (nlp-corpus: real English, AWS-translated target
#: side; : LibreOffice help: professional human translations)
REAL_BITEXT = {"fr": "nlp-en-fr", "de": "nlp-en-de", "es": "lohelp-en-es"}


def real_code(lang: str) -> str:
    """The benchmark's code for real-text language ``lang`` whose NLI side is machine-translated:
    ``"fr-mt"``.

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


#: the XNLI language column each invented language of the synthetic world stands beside in the
#: thesis's tables (closest typology; a stand-in, not a translation of that language): Romance-like
#: -> fr, Germanic-like -> de, Turkic-like (SOV, suffixes) -> tr, Celtic-like (VSO) -> ar (VSO),
#: Japonic-like (SOV, postpositions, case particles) -> hi. Chapters 6 and 10 use it.
PAPER_COLUMN: dict[str, str] = {"en": "en", "xa": "fr", "xe": "de", "xd": "tr", "xc": "ar",
                                "xb": "hi"}

@dataclass(frozen=True)
class LanguageGroups:
    """The target languages of a benchmark by kind: ``averaged`` are the columns of the main table
    and its averages (the invented languages, or XNLI's languages when the real XNLI is read);
    ``invented`` are the synthetic world's languages (none with the real XNLI); ``real_text`` are
    the real-text languages (real bitext, machine-translated NLI side), shown outside the average.
    Book: chapter 6 (XNLI and aligned encoders).
    """

    averaged: tuple[str, ...]
    invented: tuple[str, ...]
    real_text: tuple[str, ...]


def language_groups(bench: XNLIBenchmark) -> LanguageGroups:
    """Which target languages of ``bench`` are invented (:func:`is_synthetic`), real-text (added by
    :func:`~xsent_lib.data.xnli.add_real_text_language`, whose system ``translated_by`` names) or
    averaged.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    targets = [lang for lang in bench.languages if lang != "en"]
    real_text = tuple(lang for lang in targets if lang in bench.translated_by)
    return LanguageGroups(
        tuple(lang for lang in targets if lang not in real_text),
        tuple(lang for lang in targets if is_synthetic(lang)),
        real_text,
    )


def mt_system(bench: XNLIBenchmark, lang: str) -> str | None:
    """The key in :data:`MT_SYSTEMS` of the system that translated real-text language ``lang``'s NLI
    side (``None`` for a language no system translated).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    name = bench.translated_by.get(lang)
    if name is None:
        return None
    key = next((key for key in MT_SYSTEMS if name.lower().startswith(key)), None)
    if key is None:
        raise ValueError(
            f"{lang}: no row for the MT system {name!r}; known systems: {list(MT_SYSTEMS)}."
        )
    return key


def mt_systems(bench: XNLIBenchmark, languages: Sequence[str]) -> dict[str, list[str]]:
    """``languages`` grouped by the system that translated them (:func:`mt_system`), systems in use
    only.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    out: dict[str, list[str]] = {}
    for lang in languages:
        key = mt_system(bench, lang)
        if key is None:
            raise ValueError(
                f"{lang!r} was not machine-translated by any system; real-text languages have one."
            )
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
    """Whether Apertium is installed, which real-text languages of ``bench`` it translated, and
    which FreeDict word by word translated instead (Debian packages no English-French or
    English-German Apertium pair).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    systems = mt_systems(bench, language_groups(bench).real_text)
    pairs = apertium_pairs()
    state = (
        f"Apertium is installed with the directions {', '.join(pairs) or 'none'}"
        if apertium_available()
        else "Apertium is not installed on this machine (`which apertium` finds nothing)"
    )
    used, rest = systems.get("apertium", []), systems.get("freedict", [])
    return (
        f"{state}. Real-text languages translated by Apertium: {', '.join(used) or 'none'}; "
        f"by FreeDict word by word: {', '.join(rest) or 'none'}. Debian's Apertium has "
        "English-Spanish, -Catalan, "
        "-Galician and a few other pairs, but no English-French or English-German one."
    )


def add_real_languages(
    bench: XNLIBenchmark,
    languages: Sequence[str],
    *,
    seed: int,
    n_parallel: int,
    n_parallel_dev: int,
    n_choice_bitext: int,
    cache_dir: str | Path | None = None,
    apertium: bool = True,
) -> tuple[XNLIBenchmark, list[str]]:
    """``bench`` plus each of ``languages`` as a real-text language (:func:`real_code`): the cached
    bitext of :data:`REAL_BITEXT` for alignment, and the English dev/test pairs machine-translated
    by the best offline system: Apertium where it is installed with the pair (and ``apertium``),
    else FreeDict word by word (:func:`~xsent_lib.data.word_mt.freedict_translator`, translations
    chosen on the first ``n_choice_bitext`` bitext pairs). The FreeDict ``lang -> en`` table gives
    the initial word vectors either way. A bitext with fewer than ``n_parallel`` usable pairs gives
    all it has (the note says how many). A language whose data are not cached is skipped with a
    note. Returns the benchmark and the notes.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    from xsent_lib.data.corpora import load_bitext

    notes = []
    for lang in languages:
        if lang not in REAL_BITEXT:
            raise ValueError(f"no real bitext is known for {lang!r}; known: {sorted(REAL_BITEXT)}.")
        try:
            en, other = load_bitext(REAL_BITEXT[lang], cache_dir=cache_dir)
            freedict = freedict_translator(
                lang, (en[:n_choice_bitext], other[:n_choice_bitext]), cache_dir=cache_dir
            )
        except FileNotFoundError as err:
            notes.append(f"{real_code(lang)} not added: {err}")
            continue
        system = apertium_for(lang) if apertium else None
        translator = freedict if system is None else system
        bench = add_real_text_language(
            bench,
            lang,
            (en, other),
            translator,
            system=translator.name,
            n_parallel=n_parallel,
            n_parallel_dev=n_parallel_dev,
            seed=seed,
            code=real_code(lang),
            bitext_name=REAL_BITEXT[lang],
            lexicon=list(freedict.tables[(lang, "en")].items()),
            allow_fewer=True,
        )
    return bench, notes
