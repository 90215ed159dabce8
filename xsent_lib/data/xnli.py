"""XNLI-shaped benchmarks: English NLI training pairs, the same dev/test pairs in every language,
bitext.

Two builders return the same :class:`XNLIBenchmark`:

* :func:`synthetic_xnli` draws everything from the synthetic world: the English training pairs, dev
  and test pairs rendered in each requested language from the *same* logical forms (so labels are
  exact in every language and the sets are translations of each other, as XNLI's), parallel
  sentences for alignment drawn from another stream of the same world, and the world's exact
  translations for translate-train and translate-test.
* :func:`real_xnli` reads XNLI 1.0 (dev/test) and XNLI-MT 1.0 (MultiNLI train and its machine
  translations) from ``data_dir`` with the loaders of :mod:`xsent_lib.data.formats`; the bitext for
  alignment is the MultiNLI training premises paired with their XNLI-MT translations
  (machine-translated: said in ``notes``).

:func:`typological_distance` counts the typology features in which two languages of the world
differ, and :func:`word_by_word_translator` is a FreeDict-style word-for-word translator built from
the world's gold lexicon (no reordering, no morphology), a deliberately imperfect machine
translation.
Book: chapter 6 (XNLI and aligned encoders).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from xsent_lib.data.formats import NLIData, load_xnli, load_xnli_mt
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.synthetic.datasets import NLISet
from xsent_lib.data.synthetic.typology import Typology, typology

Translate = Callable[[list[str], str, str], list[str]]
# The typology features compared by typological_distance (word order counts double: it moves every
# clause).
DISTANCE_FEATURES: tuple[tuple[str, int], ...] = (
    ("order", 2), ("adjective", 1), ("relative", 1), ("adposition", 1), ("articles", 1),
    ("negation", 1),
    ("future", 1), ("cases", 1), ("agreement", 1), ("adjective_agreement", 1))


def _feature(t: Typology, name: str) -> object:
    value = getattr(t, name)
    return any(value) if isinstance(value, tuple) else value


def typological_distance(a: str, b: str) -> int:
    """Weighted count of the :data:`DISTANCE_FEATURES` in which languages ``a`` and ``b`` differ (0
    = same).

    Basic word order weighs 2, every other feature 1; morphology counts as present/absent (case
    marking, verb agreement, adjective agreement).

    Book: chapter 6 (XNLI and aligned encoders).
    """
    ta, tb = typology(a), typology(b)
    return int(sum(w for name, w in DISTANCE_FEATURES if _feature(ta, name) != _feature(tb, name)))


class DictTranslator:
    """Exact translation by lookup: ``translate(texts, src, tgt)`` returns the stored translation of
    each text.

    Built from sentences known to render the same logical form in two languages; a text it was not
    given raises a ``KeyError`` that names the pair (a translator must never silently pass a
    sentence through).
    Book: chapter 6 (XNLI and aligned encoders).
    """

    def __init__(self) -> None:
        self.tables: dict[tuple[str, str], dict[str, str]] = {}

    def add(self, src: str, tgt: str, src_texts: Sequence[str], tgt_texts: Sequence[str]) -> None:
        """Record that ``src_texts[i]`` (language ``src``) translates to ``tgt_texts[i]`` (language
        ``tgt``).

        Book: chapter 6 (XNLI and aligned encoders).
        """
        if len(src_texts) != len(tgt_texts):
            raise ValueError(f"{src}->{tgt}: {len(src_texts)} source texts but {len(tgt_texts)} "
                             "translations.")
        self.tables.setdefault((src, tgt), {}).update(zip(src_texts, tgt_texts))

    def __call__(self, texts: list[str], src: str, tgt: str) -> list[str]:
        if src == tgt:
            return list(texts)
        if (src, tgt) not in self.tables:
            raise KeyError(f"no translations {src}->{tgt}; the translator knows "
                           f"{sorted(self.tables)}.")
        table = self.tables[(src, tgt)]
        missing = [t for t in texts if t not in table]
        if missing:
            raise KeyError(f"{len(missing)} of {len(texts)} texts have no stored {src}->{tgt} "
                           f"translation, e.g. {missing[0]!r}.")
        return [table[t] for t in texts]


@dataclass
class XNLIBenchmark:
    """An XNLI-shaped benchmark.

    ``train`` is English NLI; ``dev`` / ``test`` map a language code to pairs that translate the
    English ones (``"en"`` included); ``parallel`` / ``parallel_dev`` map a target language to
    ``(english, target)`` sentence lists for alignment. ``translate`` (or ``None``) translates texts
    between English and the languages (``translate_kind`` says how: exact or machine);
    ``machine_translated`` marks the languages whose NLI or bitext side was produced by MT rather
    than by the world or human translators, ``translated_by`` names the system that made a
    machine-translated language's NLI side and ``mt_coverage`` how much of it the system really
    translated; ``init_lexicon`` gives (target word, English word) pairs for the initial word
    vectors of a real language (the synthetic ones use the world's gold lexicon).
    Book: chapter 6 (XNLI and aligned encoders).
    """

    train: NLIData
    dev: dict[str, NLIData]
    test: dict[str, NLIData]
    parallel: dict[str, tuple[list[str], list[str]]]
    parallel_dev: dict[str, tuple[list[str], list[str]]]
    source: str
    translate: Translate | None = None
    translate_kind: str = ""
    machine_translated: dict[str, bool] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    translated_by: dict[str, str] = field(default_factory=dict)
    init_lexicon: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    mt_coverage: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def languages(self) -> list[str]:
        """The test languages, English first. Book: chapter 6 (XNLI and aligned encoders)."""
        return ["en"] + [lang for lang in self.test if lang != "en"]

    def sentences(self, lang: str) -> list[str]:
        """Every text of ``lang`` the benchmark holds (NLI sides and bitext side), for vocabularies.

        Book: chapter 6 (XNLI and aligned encoders).
        """
        sets = ([self.train] if lang == "en" else []) + [d[lang] for d in (self.dev, self.test)
                                                         if lang in d]
        out = [s for d in sets for s in (*d.premises, *d.hypotheses)]
        for bitext in (self.parallel, self.parallel_dev):
            for tgt, (en, other) in bitext.items():
                out += en if lang == "en" else (other if lang == tgt else [])
        return out

    def sizes(self) -> list[dict[str, object]]:
        """One row per language: pairs per split and parallel sentences (XNLI Table 1's counts,
        ours).

        Book: chapter 6 (XNLI and aligned encoders).
        """
        return [{"language": lang, "train": len(self.train) if lang == "en" else 0,
                 "dev": len(self.dev.get(lang, ())), "test": len(self.test.get(lang, ())),
                 "parallel": len(self.parallel.get(lang, ((),))[0]),
                 "parallel dev": len(self.parallel_dev.get(lang, ((),))[0]),
                 "machine translated": bool(self.machine_translated.get(lang, False))}
                for lang in self.languages]


def nli_data(nli: NLISet) -> NLIData:
    """The synthetic world's :class:`NLISet` as the loaders' :class:`NLIData` (language recorded per
    pair).

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return NLIData(list(nli.premise), list(nli.hypothesis), np.asarray(nli.label, np.int64),
                   languages=[nli.lang] * len(nli))


def synthetic_xnli(world: SyntheticWorld, langs: Sequence[str], n_train: int, n_dev: int,
                   n_test: int,
                   n_parallel: int, n_parallel_dev: int = 500) -> XNLIBenchmark:
    """An XNLI-shaped benchmark from the synthetic world for the target languages ``langs`` (English
    added).

    Dev/test pairs in every language render the same forms as the English ones (labels exact); the
    bitext (``n_parallel`` train and ``n_parallel_dev`` dev sentences per language, from the world's
    ``parallel`` stream, never from the NLI forms) is multi-parallel across languages. ``translate``
    is exact: it knows every NLI sentence in both directions, the English training set included (for
    translate-train).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    if not isinstance(world, SyntheticWorld):
        raise TypeError(f"world must be a SyntheticWorld, got {type(world).__name__}.")
    targets = [lang for lang in dict.fromkeys(langs) if lang != "en"]
    if not targets:
        raise ValueError("langs must name at least one language other than English; got "
                         f"{list(langs)}.")
    for lang in targets:
        world.typology(lang)
    for name, n in (("n_train", n_train), ("n_dev", n_dev), ("n_test", n_test),
                    ("n_parallel", n_parallel),
                    ("n_parallel_dev", n_parallel_dev)):
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
            raise ValueError(f"{name} must be a positive integer, got {n!r}.")
    translator = DictTranslator()
    train_en = world.nli(n_train, "train", "en")
    splits: dict[str, dict[str, NLIData]] = {"dev": {}, "test": {}}
    for split, n in (("dev", n_dev), ("test", n_test)):
        en = world.nli(n, split, "en")
        splits[split]["en"] = nli_data(en)
        for lang in targets:
            other = world.nli(n, split, lang)
            splits[split][lang] = nli_data(other)
            for a, b in ((other.premise, en.premise), (other.hypothesis, en.hypothesis)):
                translator.add(lang, "en", a, b)
                translator.add("en", lang, b, a)
    for lang in targets:
        train_other = world.nli(n_train, "train", lang)
        for a, b in ((train_en.premise, train_other.premise),
                     (train_en.hypothesis, train_other.hypothesis)):
            translator.add("en", lang, a, b)
    parallel, parallel_dev = {}, {}
    for lang in targets:
        pc = world.parallel(n_parallel, "en", lang, "train")
        parallel[lang] = (list(pc.src), list(pc.tgt))
        pd_ = world.parallel(n_parallel_dev, "en", lang, "dev")
        parallel_dev[lang] = (list(pd_.src), list(pd_.tgt))
    return XNLIBenchmark(nli_data(train_en), splits["dev"], splits["test"], parallel, parallel_dev,
                         source=f"synthetic world (seed {world.seed})", translate=translator,
                         translate_kind="exact (the world renders the same logical form in both "
                                        "languages)",
                         machine_translated={lang: False for lang in ["en", *targets]})


def word_by_word_translator(world: SyntheticWorld, langs: Sequence[str]) -> Translate:
    """A word-for-word translator into and out of English built from the world's gold inflected
    lexicon.

    Each word is replaced by its first listed translation and kept in place; words without an entry
    (function words, punctuation) pass through unchanged. Like FreeDict word-by-word MT, it keeps
    the source's word order and loses morphology the lexicon does not pair.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    tables: dict[tuple[str, str], dict[str, str]] = {}
    for lang in langs:
        if lang == "en":
            continue
        for src, tgt in ((lang, "en"), ("en", lang)):
            lex = world.lexicon(src, tgt, inflected=True)
            table: dict[str, str] = {}
            for a, b in (*lex.train, *lex.test):
                table.setdefault(a, b)
            tables[(src, tgt)] = table

    def translate(texts: list[str], src: str, tgt: str) -> list[str]:
        if src == tgt:
            return list(texts)
        if (src, tgt) not in tables:
            raise KeyError(f"no word-by-word dictionary {src}->{tgt}; it has {sorted(tables)}.")
        table = tables[(src, tgt)]
        return [" ".join(table.get(w, w) for w in t.split()) for t in texts]

    return translate


def real_xnli(data_dir: str | Path, langs: Sequence[str], max_train: int | None = None,
              max_parallel: int | None = None, n_parallel_dev: int = 500) -> XNLIBenchmark:
    """XNLI 1.0 dev/test for ``langs`` (English added) and XNLI-MT 1.0 from ``data_dir``, in the
    same shape.

    English training pairs: ``XNLI-MT-1.0/multinli/multinli.train.en.tsv`` (MultiNLI train). Bitext
    for a target language: the English training premises (deduplicated) paired line by line with
    their XNLI-MT translations, the last ``n_parallel_dev`` pairs held out; this bitext is
    machine-translated (the paper used UN, Europarl, OpenSubtitles, which are not in this layout),
    and translate-train uses the same files. Missing files raise ``FileNotFoundError`` with the
    download hint of the loaders.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    targets = [lang for lang in dict.fromkeys(langs) if lang != "en"]
    if not targets:
        raise ValueError("langs must name at least one language other than English; got "
                         f"{list(langs)}.")
    train = load_xnli_mt(data_dir, "en", max_train)
    dev = {lang: load_xnli(data_dir, "dev", lang) for lang in ["en", *targets]}
    test = {lang: load_xnli(data_dir, "test", lang) for lang in ["en", *targets]}
    translator = DictTranslator()
    parallel, parallel_dev = {}, {}
    for lang in targets:
        other = load_xnli_mt(data_dir, lang, max_train)
        if len(other) != len(train):
            raise ValueError(f"XNLI-MT train files for en ({len(train)} pairs) and {lang} "
                             f"({len(other)}) are not line-aligned; use the files of one XNLI-MT "
                             "release.")
        for a, b in ((train.premises, other.premises), (train.hypotheses, other.hypotheses)):
            translator.add("en", lang, a, b)
        pairs = list(dict.fromkeys(zip(train.premises, other.premises)))
        if max_parallel is not None:
            pairs = pairs[: max_parallel + n_parallel_dev]
        held = min(n_parallel_dev, max(2, len(pairs) // 5))
        if len(pairs) - held < 2:
            raise ValueError(f"{lang}: only {len(pairs)} distinct premises; alignment needs at "
                             "least 4.")
        parallel[lang] = ([p[0] for p in pairs[:-held]], [p[1] for p in pairs[:-held]])
        parallel_dev[lang] = ([p[0] for p in pairs[-held:]], [p[1] for p in pairs[-held:]])
    notes = ["bitext = MultiNLI train premises and their XNLI-MT machine translations (the paper: "
             "UN, Europarl, OpenSubtitles, IIT Bombay)",
             "translate-train uses XNLI-MT; translate-test needs test-set translations, which this "
             "layout lacks"]
    return XNLIBenchmark(train, dev, test, parallel, parallel_dev,
                         source=f"XNLI 1.0 + XNLI-MT 1.0 from {data_dir}",
                         translate=translator,
                         translate_kind="XNLI-MT machine translation (en->xx only)",
                         machine_translated={"en": False, **{lang: True for lang in targets}},
                         notes=notes)


class RoutedTranslator:
    """One ``translate(texts, src, tgt)`` over several systems: pairs involving a routed language go
    to its system (under the language code the system knows), every other pair to ``fallback``.

    Book: chapter 6 (XNLI and aligned encoders).
    """

    def __init__(self, fallback: Translate | None,
                 routes: dict[str, tuple[Translate, str]] | None = None) -> None:
        self.fallback, self.routes = fallback, dict(routes or {})

    def add(self, code: str, translate: Translate, system_code: str) -> None:
        """Send every pair involving ``code`` to ``translate``, which calls that language
        ``system_code``.

        Book: chapter 6 (XNLI and aligned encoders).
        """
        self.routes[code] = (translate, system_code)

    def __call__(self, texts: list[str], src: str, tgt: str) -> list[str]:
        for code, (translate, name) in self.routes.items():
            if code in (src, tgt):
                return translate(texts, name if src == code else src, name if tgt == code else tgt)
        if self.fallback is None:
            raise KeyError(f"no translator for {src}->{tgt}; routed languages: "
                           f"{sorted(self.routes)}.")
        return self.fallback(texts, src, tgt)


def add_real_text_language(bench: XNLIBenchmark, lang: str,
                           bitext: tuple[Sequence[str], Sequence[str]],
                           translator: Translate, *, system: str, n_parallel: int,
                           n_parallel_dev: int = 300,
                           seed: int = 0, min_words: int = 3, max_words: int = 30,
                           code: str | None = None,
                           bitext_name: str = "", lexicon: Sequence[tuple[str, str]] | None = None,
                           allow_fewer: bool = False) -> XNLIBenchmark:
    """``bench`` plus a real language ``lang`` under the code ``code`` (default ``"<lang>-mt"``):
    real bitext for alignment, and an NLI side machine-translated from the English dev/test pairs,
    labelled as such (as XNLI-MT is).

    The bitext pairs (English, ``lang``) whose English side has ``min_words`` to ``max_words`` words
    are shuffled with ``seed``; the next ``n_parallel_dev`` are held out, and the first
    ``n_parallel`` train the alignment (with ``allow_fewer``, all the others when fewer are left;
    else too few raise ``ValueError``). ``translator`` (``translate(texts, "en", lang)``, named
    ``system``) makes the dev/test pairs, keeps the labels, and is routed for translate-train /
    translate-test; a translator with ``coverage`` and ``tables``
    (:class:`~xsent_lib.data.word_mt.WordByWordTranslator`) also records its coverage on the English
    test set and supplies the initial-vector lexicon (its ``lang -> en`` table); ``lexicon``
    (``(lang word, English word)`` pairs) supplies it instead, e.g. for Apertium, which has no
    table. Returns a new benchmark; ``bench`` is unchanged.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    code = code or f"{lang}-mt"
    if code in bench.test:
        raise ValueError(f"the benchmark already has a language {code!r}.")
    src, tgt = (list(x) for x in bitext)
    if len(src) != len(tgt):
        raise ValueError(f"the bitext sides differ in length: {len(src)} vs {len(tgt)}.")
    if n_parallel < 2 or n_parallel_dev < 2:
        raise ValueError(f"n_parallel and n_parallel_dev must be >= 2, got {n_parallel}, "
                         f"{n_parallel_dev}.")
    keep = [i for i, s in enumerate(src) if min_words <= len(s.split()) <= max_words
            and tgt[i].strip()]
    if allow_fewer and len(keep) - n_parallel_dev >= 2:
        n_parallel = min(n_parallel, len(keep) - n_parallel_dev)
    if len(keep) < n_parallel + n_parallel_dev:
        raise ValueError(f"only {len(keep)} bitext pairs have {min_words}-{max_words} English "
                         f"words; {n_parallel} + {n_parallel_dev} were asked for.")
    order = np.random.default_rng(seed).permutation(len(keep))
    chosen = [keep[i] for i in order[: n_parallel + n_parallel_dev]]
    train_idx, dev_idx = chosen[:n_parallel], chosen[n_parallel:]

    def moved(data: NLIData) -> NLIData:
        p, h = translator(list(data.premises), "en",
                          lang), translator(list(data.hypotheses), "en", lang)
        if len(p) != len(data) or len(h) != len(data):
            raise ValueError(f"the translator returned {len(p)}/{len(h)} texts for {len(data)} "
                             "pairs.")
        return NLIData(p, h, np.asarray(data.labels), languages=[code] * len(data))

    old = bench.translate
    routed = RoutedTranslator(old.fallback,
                              old.routes) if isinstance(old,
                                                        RoutedTranslator) else RoutedTranslator(old)
    routed.add(code, translator, lang)
    coverage, init = dict(bench.mt_coverage), dict(bench.init_lexicon)
    if hasattr(translator, "coverage"):
        en_test = bench.test["en"]
        coverage[code] = translator.coverage([*en_test.premises, *en_test.hypotheses], "en", lang)
    if lexicon is not None:
        init[code] = sorted(lexicon)
    elif hasattr(translator, "tables") and (lang, "en") in translator.tables:
        init[code] = sorted(translator.tables[(lang, "en")].items())
    where = f" ({bitext_name})" if bitext_name else ""
    notes = [*bench.notes, f"{code}: the bitext{where} is real text ({n_parallel} + "
                           f"{n_parallel_dev} pairs); its NLI "
             f"dev/test pairs are the English ones machine-translated by {system} (labels kept, as "
             "in XNLI-MT)"]
    if code in coverage:
        c = coverage[code]
        notes.append(f"{code}: {system} translated {100 * c['direct']:.0f}% of the English test "
                     f"words directly, {100 * c['stem']:.0f}% through a stem and passed "
                     f"{100 * c['passed']:.0f}% through untranslated")
    return replace(bench, dev={**bench.dev, code: moved(bench.dev["en"])},
                   test={**bench.test, code: moved(bench.test["en"])},
                   parallel={**bench.parallel, code: ([src[i] for i in train_idx],
                                                      [tgt[i] for i in train_idx])},
                   parallel_dev={**bench.parallel_dev,
                                 code: ([src[i] for i in dev_idx], [tgt[i] for i in dev_idx])},
                   translate=routed, machine_translated={**bench.machine_translated, code: True},
                   translated_by={**bench.translated_by, code: system}, init_lexicon=init,
                   mt_coverage=coverage,
                   notes=notes)
