"""Surface tables of each language: every inflected word form as a token id, plus interlinear
glosses.

For English the forms are the real words of :mod:`.english`. For an invented language every concept
gets a pseudo-word stem from a syllable generator seeded by ``(seed, language code)``; the forms are
stem + the suffixes of its :class:`~.typology.Typology`. Stems are drawn in a fixed order and
redrawn until no two different (concept, features) pairs share a surface string, so the tables are a
bijection and a gold bilingual lexicon exists for every pair of languages.

Book: chapter 1 (Data: the synthetic world).
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from .english import ENGLISH
from .typology import Typology, typology

TAGS = ("S", "NP", "VP", "PP", "ADVP", "SBAR", "WHNP", "DT", "JJ", "NN", "NNS", "PRP", "VB", "VBD",
        "VBZ",
        "VBP", "MD", "RB", "IN", "WDT", "WP", "CC", ",", ".")
TAG = {t: i for i, t in enumerate(TAGS)}
N_PRON = 4  # pronoun cells: masculine, feminine, neuter singular; plural
_TENSE_GLOSS = ("PST", "PRS", "FUT")


def stable_seed(*parts: int | str) -> np.random.SeedSequence:
    """A SeedSequence from ints and strings that is the same on every machine (crc32, not ``hash``).

    Book: chapter 1 (Data: the synthetic world).
    """
    return np.random.SeedSequence([p if isinstance(p, int) else zlib.crc32(p.encode())
                                   for p in parts])


@dataclass(frozen=True)
class LanguageTables:
    """Token ids of every word form of one language; -1 where a form does not exist.

    ``noun[i, number, case]`` (case 0 subject, 1 object, 2 inside a PP); ``adj[a, number]``;
    ``adv``, ``time``, ``disc`` (manner, time and discourse adverbs); ``verb[v, tense, number,
    negated, slot]`` with the slots (auxiliary, negation before the main verb, main verb, negation
    after it) and ``verb_tag`` their POS tags (ids into :data:`TAGS`); ``det[kind, number,
    next-word-starts-with-vowel]`` with kinds def / indef / any; ``pron[cell, case]``;
    ``rel[is_person]`` the relative marker; ``prep``, ``conj``, ``sub``; ``comma``, ``period``.
    ``words`` is the vocabulary and ``glosses`` the interlinear gloss of each word.
    Book: chapter 1 (Data: the synthetic world).
    """

    typology: Typology
    words: tuple[str, ...]
    glosses: tuple[str, ...]
    noun: np.ndarray
    adj: np.ndarray
    adv: np.ndarray
    time: np.ndarray
    disc: np.ndarray
    verb: np.ndarray
    verb_tag: np.ndarray
    det: np.ndarray
    pron: np.ndarray
    rel: np.ndarray
    prep: np.ndarray
    conj: np.ndarray
    sub: np.ndarray
    comma: int
    period: int
    vowel_initial: np.ndarray

    @property
    def code(self) -> str:
        """The language code. Book: chapter 1 (Data: the synthetic world)."""
        return self.typology.code


class _Vocab:
    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.gloss: list[str] = []

    def add(self, word: str, gloss: str) -> int:
        if word not in self.ids:
            self.ids[word] = len(self.ids)
            self.gloss.append(gloss)
        return self.ids[word]


def english_tables() -> LanguageTables:
    """The English tables from the real lexicon (do-support negation, ``will`` future, a/an, any).

    Book: chapter 1 (Data: the synthetic world).
    """
    E, voc = ENGLISH, _Vocab()
    add = lambda w: voc.add(w, w)  # noqa: E731  (English glosses are the words themselves)
    period, comma = add("."), add(",")
    det = np.full((3, 2, 2), -1, np.int64)
    det[0] = add("the")
    det[1, 0] = (add("a"), add("an"))
    det[2] = add("any")
    pron = np.array([[add(a), add(b), add(b)] for a, b in
                     (("he", "him"), ("she", "her"), ("it", "it"), ("they", "them"))])
    rel = np.array([add("that"), add("who")])
    aux = {k: add(k) for k in ("did", "does", "do", "will", "not")}
    conj = np.array([add(w) for w in E.conjunctions])
    sub = np.array([add(w) for w in E.subordinators])
    prep = np.array([add(w) for w in E.prepositions])
    noun = np.array([[[add(s)] * 3, [add(p)] * 3] for s, p in zip(E.nouns, E.plurals)])
    adj = np.array([[add(a)] * 2 for a in E.adjectives])
    adv = np.array([add(a) for a in E.adverbs])
    time = np.array([add(a) for a in E.time_adverbs])
    disc = np.array([add(a) for a in E.discourse_adverbs])
    nv = len(E.verbs)
    verb = np.full((nv, 3, 2, 2, 4), -1, np.int64)
    vtag = np.full((nv, 3, 2, 2, 4), -1, np.int64)
    for v in range(nv):
        base, third, past = add(E.verbs[v]), add(E.verbs_3sg[v]), add(E.verbs_past[v])
        for num in (0, 1):
            pres_aux, pres_tag = (aux["does"], TAG["VBZ"]) if num == 0 else (aux["do"], TAG["VBP"])
            verb[v, 0, num, 0, 2], vtag[v, 0, num, 0, 2] = past, TAG["VBD"]
            verb[v, 1, num, 0, 2], vtag[v, 1, num, 0, 2] = (third if num == 0 else base), pres_tag
            verb[v, 2, num, 0] = (aux["will"], -1, base, -1)
            vtag[v, 2, num, 0] = (TAG["MD"], -1, TAG["VB"], -1)
            for t, (a, at) in enumerate(((aux["did"], TAG["VBD"]), (pres_aux, pres_tag),
                                         (aux["will"], TAG["MD"]))):
                verb[v, t, num, 1] = (a, aux["not"], base, -1)
                vtag[v, t, num, 1] = (at, TAG["RB"], TAG["VB"], -1)
    words = tuple(voc.ids)
    vowel = np.array([w[0] in "aeiou" for w in words])
    return LanguageTables(typology("en"), words, tuple(voc.gloss), noun, adj, adv, time, disc, verb,
                          vtag, det,
                          pron, rel, prep, conj, sub, comma, period, vowel)


class _StemMaker:
    """Draws pseudo-word stems from a language's syllables, never repeating a surface form."""

    def __init__(self, typ: Typology, seed: int) -> None:
        self.t = typ
        self.rng = np.random.Generator(np.random.PCG64(stable_seed(seed, "stems", typ.code)))
        self.used: set[str] = set()

    def syllable(self) -> str:
        t, r = self.t, self.rng
        coda = t.codas[r.integers(len(t.codas))] if r.random() < t.coda_rate else ""
        return t.onsets[r.integers(len(t.onsets))] + t.vowels[r.integers(len(t.vowels))] + coda

    def word(self, forms, syllables: tuple[int, int]) -> str:
        """A stem whose surface forms (``forms(stem)`` -> list of strings) are all new."""
        while True:
            k = int(self.rng.integers(syllables[0], syllables[1] + 1))
            stem = "".join(self.syllable() for _ in range(k))
            out = forms(stem)
            if len(stem) > 1 and not (set(out) & self.used) and len(set(out)) == len(out):
                self.used.update(out)
                return stem


def invented_tables(code: str, seed: int) -> LanguageTables:
    """Tables of an invented language: seeded stems plus the suffixes of its typology.

    Book: chapter 1 (Data: the synthetic world).
    """
    E, t = ENGLISH, typology(code)
    if t.real:
        raise ValueError("English is not invented; use english_tables().")
    mk, voc = _StemMaker(t, seed), _Vocab()
    period, comma = voc.add(".", "."), voc.add(",", ",")
    one = (1, 1)
    short = (1, 2)

    def function_word(gloss: str, syl=one) -> int:
        return voc.add(mk.word(lambda s: [s], syl), gloss)

    det = np.full((3, 2, 2), -1, np.int64)
    if t.articles:
        det[0, 0] = function_word("the.DEF.SG")
        det[0, 1] = function_word("the.DEF.PL")
        det[1, 0] = function_word("a.INDEF")
        det[2] = function_word("any.NPI")
    cased = any(t.cases)
    pron = np.full((N_PRON, 3), -1, np.int64)
    cell_gloss = ("he", "she", "it", "they")
    for c in range(N_PRON):
        if cased:
            stem = mk.word(lambda s: [s + k for k in t.cases], one)
            pron[c] = [voc.add(stem + k, f"{cell_gloss[c]}.{g}")
                       for k, g in zip(t.cases, ("NOM", "ACC", "OBL"))]
        else:
            pron[c, 0] = function_word(f"{cell_gloss[c]}.NOM")
            pron[c, 1:] = function_word(f"{cell_gloss[c]}.ACC")
    rel = np.full(2, function_word("REL"))
    neg = function_word("NEG") if t.negation.startswith("particle") else -1
    fut_aux = None
    if t.future == "aux":
        stem = mk.word(lambda s: [s + a for a in t.agreement], one)
        fut_aux = [voc.add(stem + a, "will" + (".PL" if a and k else ""))
                   for k, a in enumerate(t.agreement)]
    conj = np.array([function_word(w) for w in E.conjunctions])
    sub = np.array([function_word(w, short) for w in E.subordinators])
    prep = np.array([function_word(w) for w in E.prepositions])
    syl = t.stem_syllables

    def noun_forms(s: str) -> list[str]:
        return [s + (t.plural if n else "") + c for n in (0, 1) for c in dict.fromkeys(t.cases)]

    noun = np.zeros((len(E.nouns), 2, 3), np.int64)
    for i, lemma in enumerate(E.nouns):
        stem = mk.word(noun_forms, syl)
        for n in (0, 1):
            for c in range(3):
                g = lemma + (".PL" if n else "") + ((".NOM", ".ACC", ".OBL")[c] if t.cases[c]
                                                    else "")
                noun[i, n, c] = voc.add(stem + (t.plural if n else "") + t.cases[c], g)
    adj = np.zeros((len(E.adjectives), 2), np.int64)
    for a, lemma in enumerate(E.adjectives):
        stem = mk.word(lambda s: list(dict.fromkeys(s + x for x in t.adjective_agreement)), syl)
        for n in (0, 1):
            suffix = t.adjective_agreement[n]
            adj[a, n] = voc.add(stem + suffix, lemma + (".PL" if n and suffix else ""))
    adv = np.array([voc.add(mk.word(lambda s: [s], syl), w) for w in E.adverbs])
    time = np.array([voc.add(mk.word(lambda s: [s], short), w) for w in E.time_adverbs])
    disc = np.array([voc.add(mk.word(lambda s: [s], short), w) for w in E.discourse_adverbs])

    def verb_cells(s: str) -> dict[tuple[int, int, int], str]:
        out = {}
        for tense in range(3):
            for num in (0, 1):
                for ng in (0, 1):
                    if tense == 2 and t.future == "aux":
                        form = s
                    else:
                        form = s + t.tense_suffixes[tense] + t.agreement[num]
                    if ng and t.negation == "suffix":
                        form += t.negative_suffix
                    out[(tense, num, ng)] = form
        return out

    nv = len(E.verbs)
    verb = np.full((nv, 3, 2, 2, 4), -1, np.int64)
    vtag = np.full((nv, 3, 2, 2, 4), -1, np.int64)
    for v, lemma in enumerate(E.verbs):
        cells = verb_cells(mk.word(lambda s: list(dict.fromkeys(verb_cells(s).values())), syl))
        for (tense, num, ng), form in cells.items():
            aux_form = tense == 2 and t.future == "aux"
            gloss = (lemma + ("" if aux_form else "." + _TENSE_GLOSS[tense])
                     + (".PL" if t.agreement[num] and not aux_form else "")
                     + (".NEG" if ng and t.negation == "suffix" else ""))
            main = voc.add(form, gloss)
            tag = TAG["VB"] if tense == 2 else (TAG["VBD"] if tense == 0
                                                else (TAG["VBZ"], TAG["VBP"])[num])
            a = fut_aux[num] if aux_form else -1
            slots = [a, -1, main, -1]
            if ng and t.negation == "particle-before":
                slots[1] = neg
            elif ng and t.negation == "particle-after":
                slots[1 if a >= 0 else 3] = neg
            verb[v, tense, num, ng] = slots
            vtag[v, tense, num, ng] = [TAG["MD"] if a >= 0 else -1, TAG["RB"] if slots[1] >= 0
                                       else -1, tag,
                                       TAG["RB"] if slots[3] >= 0 else -1]
    words = tuple(voc.ids)
    return LanguageTables(t, words, tuple(voc.gloss), noun, adj, adv, time, disc, verb, vtag, det,
                          pron, rel,
                          prep, conj, sub, comma, period, np.zeros(len(words), bool))


def language_tables(code: str, seed: int) -> LanguageTables:
    """Tables for any language code (English ignores the seed).

    Book: chapter 1 (Data: the synthetic world).
    """
    return english_tables() if typology(code).real else invented_tables(code, seed)
