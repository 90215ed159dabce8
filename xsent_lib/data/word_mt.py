"""Offline machine translation for real text: word by word from bilingual dictionaries (FreeDict),
with a coverage report, and the Apertium rule-based system where it is installed.

FreeDict is always available from the data cache: translate-train / translate-test on real text
replace each word by a dictionary translation and keep the source word order, as cheap
dictionary-based MT does. Apertium (:class:`ApertiumTranslator`) is a real MT system (analysis,
lexical transfer, reordering rules, generation), but it is a system package (``apt-get install
apertium apertium-eng-spa``), absent from most machines, and Debian packages few English pairs
(eng-spa, eng-cat, en-gl, ...; no English-French or English-German): :func:`apertium_pairs` says
which directions are installed.

FreeDict choices: the cached FreeDict pairs are sorted alphabetically, so "the first listed
translation" would be an arbitrary one (``the -> au``). :func:`choose_translations` picks, for every
source word, the candidate that co-occurs with it most often in a bitext (Dice coefficient over
sentence pairs; ties and unseen words keep the alphabetical first). English words missing from the
dictionary are retried without a regular inflection suffix (``turtles -> turtle``, ``kicked ->
kick``, ``patiently -> patient``, see :func:`english_stems`); irregular forms (``wrote``) and words
of no entry pass through unchanged. :class:`WordByWordTranslator` counts each of those cases
(:meth:`WordByWordTranslator.coverage`), so a table row can say how much of its input was really
translated.
Book: chapter 6 (XNLI and aligned encoders).
"""
from __future__ import annotations

import os
import shutil
import subprocess
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence

from xsent_lib.text.tokenizers import WordTokenizer

Stemmer = Callable[[str], list[str]]
_TOKENIZER = WordTokenizer()
_VOWELS = set("aeiou")
#: two-letter codes -> the three-letter codes most Apertium pairs use (Debian: eng-spa, eng-cat,
#: hbs-eng, ...)
APERTIUM_CODES = {"en": "eng", "es": "spa", "ca": "cat", "fr": "fra", "de": "deu", "it": "ita",
                  "pt": "por",
                  "gl": "glg", "eu": "eus", "eo": "epo", "is": "isl", "ru": "rus", "bg": "bul"}
_APERTIUM_MISSING = ("Apertium is not installed (`which apertium` finds nothing): run `apt-get "
                     "install apertium apertium-eng-spa` (or another pair), or use FreeDict.")


def apertium_available() -> bool:
    """Whether the ``apertium`` program is on ``PATH`` (the rule-based MT the offline-data survey
    names).

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return shutil.which("apertium") is not None


def apertium_pairs() -> list[str]:
    """The translation directions (Apertium "modes", e.g. ``"eng-spa"``) installed here; ``[]``
    without Apertium.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    if not apertium_available():
        return []
    listed = subprocess.run(["apertium", "-l"], capture_output=True, text=True, check=False)
    return [line.strip() for line in listed.stdout.splitlines() if line.strip()]


def apertium_mode(src: str, tgt: str) -> str:
    """The installed Apertium direction that translates ``src`` into ``tgt`` (two- or three-letter
    codes: ``apertium_mode("en", "es") == "eng-spa"``). Raises ``FileNotFoundError`` naming the
    package to install when Apertium or the pair is missing.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    if not apertium_available():
        raise FileNotFoundError(_APERTIUM_MISSING)
    installed = apertium_pairs()
    names = [(a, b) for a in _apertium_codes(src) for b in _apertium_codes(tgt)]
    for a, b in names:
        if f"{a}-{b}" in installed:
            return f"{a}-{b}"
    a, b = names[0]
    raise FileNotFoundError(f"Apertium has no {src}->{tgt} direction installed (installed: "
                            f"{installed}); `apt-cache search apertium-{a}` lists the pair "
                            f"packages, e.g. apertium-{a}-{b}.")


def _apertium_codes(lang: str) -> list[str]:
    if not isinstance(lang, str) or not lang:
        raise ValueError(f"a language code must be a non-empty str, got {lang!r}.")
    return list(dict.fromkeys([APERTIUM_CODES.get(lang, lang), lang]))


def apertium_translate(texts: Sequence[str], mode: str) -> list[str]:
    """Translate ``texts`` with Apertium direction ``mode`` (e.g. ``"eng-spa"``) in one call of the
    ``apertium`` program: the texts go in one per paragraph (a blank line between two texts, so that
    no reordering rule moves a word from one text into the next) and come back one output per input,
    stripped. Unknown words pass through unmarked (``-u``); empty texts stay empty. Raises
    ``ValueError`` for a text with a line break, ``FileNotFoundError`` when Apertium or ``mode`` is
    not installed, ``RuntimeError`` when Apertium fails or returns another number of texts.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    if isinstance(texts, str):
        raise TypeError("apertium_translate expects a list of texts, not one string.")
    texts = list(texts)
    if any(not isinstance(t, str) for t in texts):
        raise TypeError("apertium_translate expects str texts.")
    broken = next((t for t in texts if "\n" in t or "\r" in t), None)
    if broken is not None:
        raise ValueError("a text holds a line break, so its translation could not be told apart: "
                         f"{broken!r}; join its lines first.")
    if not apertium_available():
        raise FileNotFoundError(_APERTIUM_MISSING)
    if mode not in apertium_pairs():
        raise FileNotFoundError(f"Apertium has no direction {mode!r} installed (installed: "
                                f"{apertium_pairs()}).")
    todo = [i for i, t in enumerate(texts) if t.strip()]
    out = [""] * len(texts)
    if not todo:
        return out
    done = subprocess.run(["apertium", "-u", mode],
                          input="\n\n".join(texts[i].strip() for i in todo) + "\n",
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"apertium {mode} failed ({done.returncode}): "
                           f"{done.stderr.strip()[:500]}")
    lines = done.stdout.strip("\n").split("\n\n")
    if len(lines) != len(todo):
        raise RuntimeError(f"apertium {mode} returned {len(lines)} texts for {len(todo)} inputs.")
    for i, line in zip(todo, lines):
        out[i] = line.strip()
    return out


class ApertiumTranslator:
    """``translate(texts, src, tgt)`` with Apertium, for the directions between English and ``lang``
    that are installed (checked when built: ``FileNotFoundError`` otherwise). ``name`` says which
    system and pair, for table rows.

    Book: chapter 6 (XNLI and aligned encoders).
    """

    def __init__(self, lang: str) -> None:
        self.modes = {("en", lang): apertium_mode("en", lang),
                      (lang, "en"): apertium_mode(lang, "en")}
        self.name = f"Apertium {self.modes[('en', lang)]} / {self.modes[(lang, 'en')]}"

    def __call__(self, texts: list[str], src: str, tgt: str) -> list[str]:
        if isinstance(texts, str):
            raise TypeError("translate expects a list of texts, not one string.")
        if src == tgt:
            return list(texts)
        if (src, tgt) not in self.modes:
            raise KeyError(f"no {self.name} direction {src}->{tgt}; it has {sorted(self.modes)}.")
        return apertium_translate(texts, self.modes[(src, tgt)])


def english_stems(word: str) -> list[str]:
    """Candidate lemmas of an inflected English word by regular suffix rules, most specific first.

    ``"turtles" -> ["turtle"]``, ``"watches" -> ["watche", "watch"]``: plural and 3rd-person
    ``-s``/``-es``/``-ies``, past ``-ed`` (with ``-e`` restored and doubled consonants undone),
    ``-ing``, adverbs in ``-ly`` and comparatives are stripped; a translator tries each candidate in
    turn. Irregular forms are not handled.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    if not isinstance(word, str):
        raise TypeError(f"english_stems takes a str, got {type(word).__name__}.")
    out: list[str] = []

    def add(stem: str) -> None:
        if len(stem) >= 2 and stem != word and stem not in out:
            out.append(stem)

    w = word
    if w.endswith("ies") and len(w) > 4:
        add(w[:-3] + "y")
    if w.endswith("s") and not w.endswith("ss") and len(w) > 2:
        add(w[:-1])
    if w.endswith("es") and len(w) > 3 and w[:-2].endswith(("ch", "sh", "s", "x", "z", "o")):
        add(w[:-2])  # watches -> watch, goes -> go
    for suffix in ("ed", "ing", "er", "est"):
        if w.endswith(suffix) and len(w) > len(suffix) + 2:
            stem = w[: -len(suffix)]
            if len(stem) >= 2 and stem[-1] == stem[-2] and stem[-1] not in _VOWELS:
                add(stem[:-1])  # stopped -> stop
            if stem.endswith("i"):
                add(stem[:-1] + "y")  # carried -> carry
            add(stem + "e")  # liked -> like
            add(stem)
    if w.endswith("ly") and len(w) > 4:
        add(w[:-2])  # patiently -> patient
        if w.endswith("ily"):
            add(w[:-3] + "y")  # happily -> happy
    return out


def choose_translations(pairs: Iterable[tuple[str, str]],
                        bitext: tuple[Sequence[str], Sequence[str]] | None = None
                        ) -> tuple[dict[str, str], int]:
    """One translation per source word of ``pairs`` (``(source, target)`` words, lower-cased).

    With a ``bitext`` (source sentences, target sentences, line-aligned) the candidate with the
    highest Dice coefficient ``2 c(s, t) / (c(s) + c(t))`` over sentence pairs wins; without one, or
    when no candidate ever co-occurs with the word, the first candidate in ``pairs`` order. Returns
    the table and how many words were decided by the bitext.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    candidates: dict[str, list[str]] = {}
    for s, t in pairs:
        if not isinstance(s, str) or not isinstance(t, str):
            raise TypeError("pairs must be (source word, target word) strings.")
        lst = candidates.setdefault(s.lower(), [])
        if t.lower() not in lst:
            lst.append(t.lower())
    table = {s: c[0] for s, c in candidates.items()}
    if bitext is None:
        return table, 0
    src, tgt = bitext
    if len(src) != len(tgt):
        raise ValueError(f"the bitext sides differ in length: {len(src)} vs {len(tgt)}.")
    ambiguous = {s for s, c in candidates.items() if len(c) > 1}
    wanted = {t for s in ambiguous for t in candidates[s]}
    count_s: Counter = Counter()
    count_t: Counter = Counter()
    joint: dict[str, Counter] = defaultdict(Counter)
    for a, b in zip(_TOKENIZER.tokenize_batch(list(src)), _TOKENIZER.tokenize_batch(list(tgt))):
        sa = ambiguous.intersection(a)
        sb = wanted.intersection(b)
        count_s.update(sa)
        count_t.update(sb)
        for s in sa:
            joint[s].update(t for t in sb if t in candidates[s])
    decided = 0
    for s in ambiguous:
        scores = {t: 2 * joint[s][t] / (count_s[s] + count_t[t]) for t in candidates[s]
                  if joint[s][t] > 0}
        if scores:
            table[s] = max(candidates[s], key=lambda t: (scores.get(t, 0.0),
                                                         -candidates[s].index(t)))
            decided += 1
    return table, decided


class WordByWordTranslator:
    """``translate(texts, src, tgt)``: each token replaced by its dictionary translation, order
    kept.

    ``tables[(src, tgt)]`` maps lower-cased words to one translation; ``stemmers[src]`` (optional)
    proposes lemmas for words not in the table. Unknown words pass through unchanged.
    :meth:`coverage` reports, for some texts, the share of word tokens translated directly, through
    a stem, or passed through (punctuation is not counted). ``name`` says which dictionaries it
    uses, for table rows.
    Book: chapter 6 (XNLI and aligned encoders).
    """

    def __init__(self, tables: Mapping[tuple[str, str], Mapping[str, str]], name: str,
                 stemmers: Mapping[str, Stemmer] | None = None) -> None:
        if not tables:
            raise ValueError("a word-by-word translator needs at least one dictionary table.")
        self.tables = {k: dict(v) for k, v in tables.items()}
        self.name = str(name)
        self.stemmers = dict(stemmers or {})

    def _table(self, src: str, tgt: str) -> dict[str, str]:
        if (src, tgt) not in self.tables:
            raise KeyError(f"no {self.name} dictionary {src}->{tgt}; it has {sorted(self.tables)}.")
        return self.tables[(src, tgt)]

    def _word(self, word: str, table: Mapping[str, str], stem: Stemmer | None) -> tuple[str, str]:
        if word in table:
            return table[word], "direct"
        if not any(ch.isalpha() for ch in word):
            return word, "punctuation"
        for lemma in (stem(word) if stem else ()):
            if lemma in table:
                return table[lemma], "stem"
        return word, "passed"

    def __call__(self, texts: list[str], src: str, tgt: str) -> list[str]:
        if isinstance(texts, str):
            raise TypeError("translate expects a list of texts, not one string.")
        if src == tgt:
            return list(texts)
        table, stem = self._table(src, tgt), self.stemmers.get(src)
        return [" ".join(self._word(w, table, stem)[0] for w in toks)
                for toks in _TOKENIZER.tokenize_batch(texts)]

    def coverage(self, texts: Sequence[str], src: str, tgt: str) -> dict[str, float]:
        """Shares of the word tokens of ``texts`` translated ``direct``-ly, through a ``stem``, or
        ``passed`` through untranslated, and the number of ``tokens`` counted.

        Book: chapter 6 (XNLI and aligned encoders).
        """
        table, stem = self._table(src, tgt), self.stemmers.get(src)
        counts: Counter = Counter()
        for toks in _TOKENIZER.tokenize_batch(list(texts)):
            counts.update(self._word(w, table, stem)[1] for w in toks)
        n = sum(v for k, v in counts.items() if k != "punctuation")
        if n == 0:
            raise ValueError("no word tokens to measure coverage on.")
        return {"tokens": float(n), **{k: counts[k] / n for k in ("direct", "stem", "passed")}}


def freedict_translator(lang: str, bitext: tuple[Sequence[str], Sequence[str]] | None = None,
                        cache_dir: str | os.PathLike[str] | None = None) -> WordByWordTranslator:
    """FreeDict word-by-word MT between English and ``lang`` in both directions, from the cached
    ``freedict-en-<lang>`` and ``freedict-<lang>-en`` (each direction also uses the other, flipped).

    ``bitext`` = (English sentences, ``lang`` sentences) chooses among a word's translations
    (:func:`choose_translations`); English words are stemmed (:func:`english_stems`).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    from xsent_lib.data.corpora import load_dictionary

    def load(name: str) -> list[tuple[str, str]]:
        try:
            d = load_dictionary(name, "all", cache_dir=cache_dir)
        except (KeyError, ValueError, FileNotFoundError):
            return []
        return list(zip(d.source, d.target))

    forward, backward = load(f"freedict-en-{lang}"), load(f"freedict-{lang}-en")
    if not forward and not backward:
        raise FileNotFoundError(f"neither freedict-en-{lang} nor freedict-{lang}-en is cached: run "
                                f"`xsent-data fetch freedict-en-{lang}`.")
    en_x = forward + [(b, a) for a, b in backward]
    x_en = backward + [(b, a) for a, b in forward]
    flipped = (bitext[1], bitext[0]) if bitext is not None else None
    tables = {("en", lang): choose_translations(en_x, bitext)[0],
              (lang, "en"): choose_translations(x_en, flipped)[0]}
    return WordByWordTranslator(tables, f"FreeDict en<->{lang} word by word", {"en": english_stems})
