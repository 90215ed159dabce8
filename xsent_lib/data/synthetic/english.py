"""The English lexicon of the synthetic world: real words with plurals, hypernyms, antonyms and verb
frames.

Every other language of the world is a seeded pseudo-word relabelling of these concepts, so this
file fixes what the world can talk about. The tables are plain text parsed once at import:

* nouns form a taxonomy by indentation (``poodle`` under ``dog`` under ``animal``); ``pl=`` gives an
  irregular plural, ``g=`` the pronoun gender (m, f, n; ``p`` = a person of unspecified gender,
  never pronominalised), ``prep=`` the prepositions a place takes, ``*`` marks a node whose children
  are mutually exclusive (a poodle is never a beagle; a teacher may be a woman, so ``person`` has no
  ``*``);
* verbs give base, 3rd-singular and past forms, the noun classes allowed as subject and object
  (taxonomy node names joined by ``|``; ``animate`` = animal|person, ``thing`` =
  food|object|plant, ``concrete`` = both, ``adult`` = grown-up persons), ``m`` (takes manner
  adverbs), ``sym`` / ``asym`` (x V y entails / excludes y V x in the same event) and ``hyp=`` a
  verb it entails (``devour`` -> ``eat``);
* adjectives and manner adverbs come as antonym pairs ``big/small`` (or alone) with the classes they
  modify.

Words that would be homographs across parts of speech (``saw``, ``watch``, ``fly``, ``cook``) are
left out so that every surface string has one part of speech. The tables themselves are in
:mod:`~xsent_lib.data.synthetic.english_words`.

Book: chapter 1 (Data: the synthetic world).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .english_words import (
    ADJECTIVES,
    ADVERBS,
    CLASS_ALIASES,
    CONJUNCTIONS,
    DISCOURSE_ADVERBS,
    GENDERS,
    NOUNS,
    PREPOSITIONS,
    SUBORDINATORS,
    TIME_ADVERBS,
    VERBS,
)


def _plural(word: str) -> str:
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


@dataclass(frozen=True)
class EnglishLexicon:
    """The parsed English tables; ids index every array (noun id, verb id, adjective id, adverb id).

    ``noun_parent[i]`` is -1 for a root; ``noun_ancestors[i, j]`` says whether j is i or one of its
    ancestors; ``subj_ok[v, i]`` / ``obj_ok[v, i]`` whether noun i may be the subject / object of
    verb v; ``adj_ok[a, i]`` whether adjective a may modify noun i; ``adv_ok[r, i]`` whether manner
    adverb r may describe an action of subject i; ``prep_ok[p, i]`` whether preposition p may head a
    PP with place i.
    Book: chapter 1 (Data: the synthetic world).
    """

    nouns: tuple[str, ...]
    plurals: tuple[str, ...]
    noun_parent: np.ndarray
    noun_depth: np.ndarray
    noun_gender: np.ndarray
    noun_root: np.ndarray
    noun_disjoint: np.ndarray
    noun_ancestors: np.ndarray
    is_place: np.ndarray
    prep_ok: np.ndarray
    verbs: tuple[str, ...]
    verbs_3sg: tuple[str, ...]
    verbs_past: tuple[str, ...]
    transitive: np.ndarray
    manner: np.ndarray
    symmetric: np.ndarray
    asymmetric: np.ndarray
    verb_hypernym: np.ndarray
    subj_ok: np.ndarray
    obj_ok: np.ndarray
    adjectives: tuple[str, ...]
    adj_antonym: np.ndarray
    adj_ok: np.ndarray
    adverbs: tuple[str, ...]
    adv_antonym: np.ndarray
    adv_ok: np.ndarray
    time_adverbs: tuple[str, ...]
    time_ok: np.ndarray
    discourse_adverbs: tuple[str, ...]
    prepositions: tuple[str, ...]
    conjunctions: tuple[str, ...]
    subordinators: tuple[str, ...]

    def noun_id(self, word: str) -> int:
        """Id of a noun given its singular form. Book: chapter 1 (Data: the synthetic world)."""
        return _index(self.nouns, word, "noun")

    def verb_id(self, word: str) -> int:
        """Id of a verb given its base form. Book: chapter 1 (Data: the synthetic world)."""
        return _index(self.verbs, word, "verb")

    def adjective_id(self, word: str) -> int:
        """Id of an adjective. Book: chapter 1 (Data: the synthetic world)."""
        return _index(self.adjectives, word, "adjective")

    def adverb_id(self, word: str) -> int:
        """Id of a manner adverb. Book: chapter 1 (Data: the synthetic world)."""
        return _index(self.adverbs, word, "manner adverb")


def _index(names: tuple[str, ...], word: str, what: str) -> int:
    try:
        return names.index(word)
    except ValueError:
        raise ValueError(f"{word!r} is not a {what} of the synthetic English lexicon; "
                         f"see xsent_lib/data/synthetic/english.py for the word list.") from None


def _classes(spec: str, node_of: dict[str, int], ancestors: np.ndarray) -> np.ndarray:
    """Boolean mask over nouns: descendants (or self) of any node named in ``spec``."""
    mask = np.zeros(ancestors.shape[0], bool)
    for name in spec.split("|"):
        for node in CLASS_ALIASES.get(name, (name,)):
            if node not in node_of:
                raise KeyError(f"class {node!r} in the English lexicon names no noun")
            mask |= ancestors[:, node_of[node]]
    return mask


def _parse_nouns() -> tuple:
    words, plurals, parent, gender, disjoint, preps = [], [], [], [], [], []
    stack: list[tuple[int, int]] = []  # (indent, id)
    for line in NOUNS.strip("\n").splitlines():
        indent = (len(line) - len(line.lstrip())) // 2
        toks = line.split()
        while stack and stack[-1][0] >= indent:
            stack.pop()
        par = stack[-1][1] if stack else -1
        opts = dict(t.split("=") for t in toks[1:] if "=" in t)
        words.append(toks[0])
        plurals.append(opts.get("pl", _plural(toks[0])))
        parent.append(par)
        gender.append(opts.get("g", gender[par] if par >= 0 else "n"))
        disjoint.append("*" in toks[1:])
        preps.append(opts["prep"].split("|") if "prep" in opts
                     else (preps[par] if par >= 0 else []))
        stack.append((indent, len(words) - 1))
    return words, plurals, parent, gender, disjoint, preps


def _pairs(table: str) -> tuple[list[str], list[int], list[str]]:
    words, antonym, classes = [], [], []
    for line in table.strip("\n").splitlines():
        pair, spec = line.split()
        names = pair.split("/")
        base = len(words)
        for k, w in enumerate(names):
            words.append(w)
            antonym.append(base + 1 - k if len(names) == 2 else -1)
            classes.append(spec)
    return words, antonym, classes


def build_english() -> EnglishLexicon:
    """Parse the tables into an :class:`EnglishLexicon` and check its invariants.

    Book: chapter 1 (Data: the synthetic world).
    """
    words, plurals, parent, gender, disjoint, preps = _parse_nouns()
    n = len(words)
    par = np.array(parent, np.int64)
    anc = np.eye(n, dtype=bool)
    depth = np.zeros(n, np.int64)
    for i in range(n):
        j = par[i]
        while j >= 0:
            anc[i, j] = True
            depth[i] += 1
            j = par[j]
    root = np.array([np.flatnonzero(anc[i] & (par < 0))[0] for i in range(n)])
    node_of = {w: i for i, w in enumerate(words)}
    is_place = anc[:, node_of["place"]]
    prep_ok = np.array([[p in preps[i] for i in range(n)] for p in PREPOSITIONS]) & is_place

    vb, v3, vp, subj, obj, trans, man, sym, asym, hyp = [], [], [], [], [], [], [], [], [], []
    for line in VERBS.strip("\n").splitlines():
        toks = line.split()
        opts = dict(t.split("=") for t in toks[3:] if "=" in t)
        flags = {t for t in toks[3:] if "=" not in t}
        vb.append(toks[0]); v3.append(toks[1]); vp.append(toks[2])
        subj.append(_classes(opts["subj"], node_of, anc) & ~is_place)
        trans.append("obj" in opts)
        obj.append(_classes(opts["obj"], node_of, anc) if "obj" in opts else np.zeros(n, bool))
        man.append("m" in flags); sym.append("sym" in flags); asym.append("asym" in flags)
        hyp.append(opts.get("hyp", ""))
    verb_hyp = np.array([vb.index(h) if h else -1 for h in hyp])

    adjs, adj_ant, adj_cls = _pairs(ADJECTIVES)
    advs, adv_ant, adv_cls = _pairs(ADVERBS)
    time_ok = np.array([[t in ok for t in range(3)] for _, ok in TIME_ADVERBS]).T  # (tense, adverb)
    lex = EnglishLexicon(
        nouns=tuple(words), plurals=tuple(plurals), noun_parent=par, noun_depth=depth,
        noun_gender=np.array([GENDERS.index(g) for g in gender]), noun_root=root,
        noun_disjoint=np.array(disjoint), noun_ancestors=anc, is_place=is_place, prep_ok=prep_ok,
        verbs=tuple(vb), verbs_3sg=tuple(v3), verbs_past=tuple(vp), transitive=np.array(trans),
        manner=np.array(man), symmetric=np.array(sym), asymmetric=np.array(asym),
        verb_hypernym=verb_hyp,
        subj_ok=np.array(subj), obj_ok=np.array(obj),
        adjectives=tuple(adjs), adj_antonym=np.array(adj_ant),
        adj_ok=np.array([_classes(c, node_of, anc) for c in adj_cls]),
        adverbs=tuple(advs), adv_antonym=np.array(adv_ant),
        adv_ok=np.array([_classes(c, node_of, anc) for c in adv_cls]),
        time_adverbs=tuple(w for w, _ in TIME_ADVERBS), time_ok=time_ok,
        discourse_adverbs=DISCOURSE_ADVERBS, prepositions=PREPOSITIONS,
        conjunctions=CONJUNCTIONS, subordinators=SUBORDINATORS,
    )
    _check(lex)
    return lex


def _check(lex: EnglishLexicon) -> None:
    """Every surface string has one part of speech; every verb has subjects; hypernym verbs agree in
    frame."""
    pos: dict[str, str] = {}
    groups = {"noun": lex.nouns + lex.plurals, "verb": lex.verbs + lex.verbs_3sg + lex.verbs_past,
              "adj": lex.adjectives, "adv": lex.adverbs + lex.time_adverbs + lex.discourse_adverbs,
              "function": lex.prepositions + lex.conjunctions + lex.subordinators}
    for tag, ws in groups.items():
        for w in ws:
            if pos.setdefault(w, tag) != tag:
                raise AssertionError(f"English lexicon: {w!r} is both {pos[w]} and {tag}")
    if len(set(lex.nouns)) != len(lex.nouns) or len(set(lex.verbs)) != len(lex.verbs):
        raise AssertionError("English lexicon: duplicate lemma")
    if not lex.subj_ok.any(1).all() or not (lex.obj_ok.any(1) == lex.transitive).all():
        raise AssertionError("English lexicon: a verb has no possible subject or object")
    h = lex.verb_hypernym
    if ((h >= 0) & (lex.transitive != lex.transitive[np.maximum(h, 0)])).any():
        raise AssertionError("English lexicon: a verb and its hypernym differ in transitivity")


ENGLISH = build_english()
