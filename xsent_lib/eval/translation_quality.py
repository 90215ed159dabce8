"""How good the translators and dictionaries of an XNLI run are (thesis Table 4.9 / XNLI Table 3):
corpus BLEU of each translation function on held-out parallel text, both directions, and the
word-translation P@1 of the dictionary that initialises the target lookup tables.

BLEU is sacreBLEU's corpus BLEU (:func:`~xsent_lib.eval.bleu.corpus_bleu`) on lower-cased word
tokens (:class:`~xsent_lib.text.WordTokenizer`, the same on both sides). P@1 counts a test source
word as right when the dictionary's one translation is among the gold translations of that word; a
word the dictionary lacks counts as wrong.
Book: chapter 6 (XNLI and aligned encoders).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.word_mt import apertium_available
from xsent_lib.data.xnli import XNLIBenchmark, word_by_word_translator
from xsent_lib.data.xnli_languages import REAL_BITEXT, is_synthetic
from xsent_lib.eval.bleu import corpus_bleu
from xsent_lib.text import WordTokenizer

Translate = Callable[[list[str], str, str], list[str]]
_TOKENIZER = WordTokenizer()


@dataclass(frozen=True)
class TranslatorScore:
    """One translator on one language: BLEU into English (``xx_en``) and out of it (``en_xx``), on
    ``text``.

    Book: chapter 6 (XNLI and aligned encoders).
    """

    translator: str
    language: str
    xx_en: float
    en_xx: float
    text: str
    n_sentences: int


def _tokens(texts: Sequence[str]) -> list[str]:
    return [" ".join(toks) for toks in _TOKENIZER.tokenize_batch(list(texts))]


def translation_bleu(
    translate: Translate,
    english: Sequence[str],
    other: Sequence[str],
    lang: str,
    *,
    name: str,
    text: str,
) -> TranslatorScore:
    """BLEU of ``translate`` on line-aligned ``english`` / ``other`` (language ``lang``, as the
    translator and the benchmark call it, e.g. ``"fr-mt"``): ``other`` into English against
    ``english``, and the reverse.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    if len(english) != len(other) or not english:
        raise ValueError(
            f"need line-aligned, non-empty sides; got {len(english)} and {len(other)} sentences."
        )
    into = translate(list(other), lang, "en")
    out = translate(list(english), "en", lang)
    return TranslatorScore(
        name,
        lang,
        corpus_bleu(_tokens(into), _tokens(english)),
        corpus_bleu(_tokens(out), _tokens(other)),
        text,
        len(english),
    )


def dictionary_p_at_1(table: Mapping[str, str], gold: Sequence[tuple[str, str]]) -> float:
    """Word-translation P@1 (percent) of ``table`` (source word -> its one translation) on the
    ``gold`` (source, target) test pairs, every distinct source word once.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    answers: dict[str, set[str]] = {}
    for src, tgt in gold:
        answers.setdefault(src.lower(), set()).add(tgt.lower())
    if not answers:
        raise ValueError("no gold pairs to score the dictionary on.")
    hits = sum(table.get(src, "").lower() in ok for src, ok in answers.items())
    return 100.0 * hits / len(answers)


def held_out(
    pairs: tuple[Sequence[str], Sequence[str]], seen: set[str]
) -> tuple[list[str], list[str]]:
    """The pairs of ``pairs`` (English, other) whose English side is not in ``seen`` (e.g. the
    bitext window that chose a dictionary's translations).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    kept = [(a, b) for a, b in zip(*pairs) if a not in seen]
    return [a for a, _ in kept], [b for _, b in kept]


@dataclass(frozen=True)
class TranslationQuality:
    """Table 4.9's material: BLEU of the translator each language's TRANSLATE TEST used (``main``),
    of the other translators (``extra``: label -> scores), the P@1 of the dictionary that
    initialised each lookup table (``p_at_1``), and what could not be scored (``notes``).
    Book: chapter 6 (XNLI and aligned encoders).
    """

    main: list[TranslatorScore]
    extra: dict[str, list[TranslatorScore]]
    p_at_1: dict[str, float]
    notes: list[str]


def translation_quality(
    bench: XNLIBenchmark,
    world: SyntheticWorld | None,
    *,
    n_choice_bitext: int,
    cache_dir: str | Path | None = None,
) -> TranslationQuality:
    """Score an XNLI run's translators (thesis Table 4.9). Invented languages: the world's exact
    translator and word by word with the gold lexicon, on the NLI test pairs (the text TRANSLATE
    TEST reads; the exact translator knows no other); P@1 of the gold lexicon on its test half.
    Real-text languages: the system that made the test set, on the held-out bitext pairs outside the
    first ``n_choice_bitext`` raw pairs (they chose FreeDict's translations; the test set itself
    would be circular); P@1 of the FreeDict table that initialised the lookup table, on FreeDict's
    test pairs (chapter 5's gold).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    from xsent_lib.data.corpora import load_bitext
    from xsent_lib.data.word_dictionaries import freedict_pairs

    invented = [lang for lang in bench.languages if lang != "en" and is_synthetic(lang)]
    main, wbw, p_at_1, notes = [], [], {}, []
    en_test = bench.test["en"]
    en_text = [*en_test.premises, *en_test.hypotheses]
    if world is not None and invented and bench.translate is not None:
        gold = word_by_word_translator(world, invented)
        for lang in invented:
            other = [*bench.test[lang].premises, *bench.test[lang].hypotheses]
            text = "the synthetic NLI test pairs"
            main.append(
                translation_bleu(bench.translate, en_text, other, lang, name="exact", text=text)
            )
            wbw.append(translation_bleu(gold, en_text, other, lang, name="word by word", text=text))
            lex = world.lexicon(lang, "en", inflected=True)
            table = dict(
                reversed([*lex.train, *lex.test])
            )  # the first listed translation, as word by word
            p_at_1[lang] = dictionary_p_at_1(table, lex.test)
    for code in [lang for lang in bench.languages if lang in bench.translated_by]:
        lang = code[: -len("-mt")]
        en, other = load_bitext(REAL_BITEXT[lang], cache_dir=cache_dir)
        pairs = held_out(bench.parallel_dev[code], set(en[:n_choice_bitext]))
        main.append(
            translation_bleu(
                bench.translate,
                *pairs,
                code,
                name=bench.translated_by[code],
                text=f"{len(pairs[0])} held-out {REAL_BITEXT[lang]} pairs",
            )
        )
        _, test, _ = freedict_pairs(lang, "en", cache_dir=cache_dir)
        p_at_1[code] = dictionary_p_at_1(dict(bench.init_lexicon[code]), test)
    if not apertium_available():
        notes.append(
            "Apertium: no row, it is not installed on this machine (`which apertium` finds nothing)"
        )
    return TranslationQuality(main, {"word by word": wbw} if wbw else {}, p_at_1, notes)
