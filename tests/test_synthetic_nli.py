"""NLI labels checked by an independent natural-logic reader of the forms; XNLI parallelism; no trivial cue."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.data.synthetic.english import ENGLISH as E
from xsent_lib.data.synthetic.nli import STRATEGY_NAMES

GENDER = {frozenset(p) for p in (("man", "woman"), ("boy", "girl"), ("king", "queen"), ("prince", "princess"),
                                 ("mother", "father"), ("sister", "brother"), ("aunt", "uncle"),
                                 ("grandmother", "grandfather"), ("waiter", "waitress"))}


def anc(x: int, y: int) -> bool:
    """y is x or one of x's hypernyms."""
    return bool(E.noun_ancestors[x, y])


def disjoint(a: int, b: int) -> bool:
    """Nouns that cannot name the same thing: different children of an exclusive node, or a gender pair."""
    if frozenset((E.nouns[a], E.nouns[b])) in GENDER:
        return True
    common = np.flatnonzero(E.noun_ancestors[a] & E.noun_ancestors[b])
    if common.size == 0 or anc(a, b) or anc(b, a):
        return False
    lca = common[np.argmax(E.noun_depth[common])]
    return bool(E.noun_disjoint[lca])


class Reader:
    """Reads one sentence of a Forms batch as conjuncts of clause dicts (pronoun flags ignored: coreference)."""

    KEYS = ("subj", "subj_num", "subj_def", "subj_adj", "subj_rel", "verb", "tense", "neg", "obj", "obj_num", "obj_def",
            "obj_adj", "obj_rel", "adv", "pp", "time")

    def __init__(self, forms):
        self.f = forms

    def rel(self, row: int):
        if row < 0:
            return None
        c = self.f.clauses
        return (c.verb[row], c.tense[row], c.neg[row], c.obj[row], c.obj_num[row], c.obj_def[row], c.obj_adj[row],
                self.rel(c.obj_rel[row]))

    def clause(self, row: int, sub: int) -> dict:
        c = self.f.clauses
        d = {k: int(getattr(c, k)[row]) for k in self.KEYS}
        d["subj_rel"], d["obj_rel"] = self.rel(c.subj_rel[row]), self.rel(c.obj_rel[row])
        d["sub"] = None if sub < 0 else (self.clause(sub, -1), int(self.f.sub_conj[self.i]))
        return d

    def conjuncts(self, i: int) -> list[dict]:
        self.i = i
        f = self.f
        out = [self.clause(f.main[i], f.sub[i])]
        if f.coord[i] >= 0:
            out.append(self.clause(f.coord[i], -1))
        return out


def intersective(adj: int) -> bool:
    return E.adj_antonym[adj] < 0


def np_entails(p_noun, p_adj, p_rel, h_noun, h_adj, h_rel, upward: bool) -> bool:
    """Noun phrase p |= h in an upward context (or h |= p in a downward one)."""
    if not upward:
        p_noun, p_adj, p_rel, h_noun, h_adj, h_rel = h_noun, h_adj, h_rel, p_noun, p_adj, p_rel
    if not anc(p_noun, h_noun):
        return False
    adj_ok = h_adj < 0 or (h_adj == p_adj and (h_noun == p_noun or intersective(h_adj)))
    return adj_ok and (h_rel is None or h_rel == p_rel)


def symmetric(p: dict, h: dict | None = None) -> bool:
    """A symmetric verb between two definite (referential) arguments can be read both ways."""
    return bool(E.symmetric[p["verb"]]) and all(d["obj"] >= 0 and d["subj_def"] == 1 and d["obj_def"] == 1
                                                for d in (p, h or p))


def entails(p: dict, h: dict) -> bool:
    """Clause p |= clause h; with a symmetric verb the arguments of h may also be read swapped."""
    return direct(p, h) or (symmetric(p, h) and direct(p, swap(h)))


def direct(p: dict, h: dict) -> bool:
    if p["tense"] != h["tense"] or p["neg"] != h["neg"] or p["subj_num"] != h["subj_num"]:
        return False
    pos = p["neg"] == 0
    if not np_entails(p["subj"], p["subj_adj"], p["subj_rel"], h["subj"], h["subj_adj"], h["subj_rel"], True):
        return False
    narrow, broad = (p["verb"], h["verb"]) if pos else (h["verb"], p["verb"])
    v_ok = broad == narrow or E.verb_hypernym[narrow] == broad
    if not v_ok or (p["obj"] < 0) != (h["obj"] < 0):
        return False
    if p["obj"] >= 0:
        if p["obj_num"] != h["obj_num"] or p["obj_def"] != h["obj_def"]:
            return False
        upward = pos or p["obj_def"] == 1
        if not np_entails(p["obj"], p["obj_adj"], p["obj_rel"], h["obj"], h["obj_adj"], h["obj_rel"], upward):
            return False
    for slot in ("adv", "pp", "time"):
        a, b = (p[slot], h[slot]) if pos else (h[slot], p[slot])
        if b >= 0 and b != a:
            return False
    return h["sub"] is None and pos or h["sub"] == p["sub"]


def swap(d: dict) -> dict:
    out = dict(d)
    for f in ("", "_num", "_def", "_adj", "_rel"):
        out["subj" + f], out["obj" + f] = d["obj" + f], d["subj" + f]
    return out


def flip(d: dict) -> dict:
    return {**d, "neg": 1 - d["neg"]}


def aligned(p: dict, h: dict) -> bool:
    """Two clauses about the same event: same tense, same or hypernym-related verb, same frame."""
    v, w = p["verb"], h["verb"]
    return (p["tense"] == h["tense"] and (v == w or E.verb_hypernym[v] == w or E.verb_hypernym[w] == v)
            and (p["obj"] < 0) == (h["obj"] < 0))


def nouns(d) -> list[int]:
    """Nouns a clause (dict or relative-clause tuple) introduces besides its subject; an indefinite object under
    negation ("not ... any cat") introduces nothing."""
    if d is None:
        return []
    if isinstance(d, tuple):
        return ([d[3]] if d[3] >= 0 and not (d[2] == 1 and d[5] == 0) else []) + nouns(d[7])
    out = [] if d["neg"] == 1 and d["obj_def"] == 0 else [d["obj"]]
    out += [d["pp"]] + nouns(d["subj_rel"]) + nouns(d["obj_rel"])
    if d["sub"] is not None:
        out += [d["sub"][0]["subj"]] + nouns(d["sub"][0])
    return [x for x in out if x >= 0]


def contradicts(p: dict, h: dict, P: list[dict]) -> bool:
    """p and h cannot both hold: p |= not-h, or (same event) h's subject must be p's and excludes it, or
    adverbs are antonyms, or an asymmetric relation is reversed. Symmetric verbs are read both ways."""
    if entails(p, flip(h)):
        return True
    if not aligned(p, h):
        return False
    views = [p, swap(p)] if symmetric(p) else [p]
    for v in views:
        s, t = v["subj"], h["subj"]
        elsewhere = nouns(v) + [x for q in P if q is not p for x in [q["subj"]] + nouns(q)]
        fresh = not any(anc(t, x) or anc(x, t) for x in elsewhere if x != s)
        if fresh and disjoint(s, t):
            return True
        a, b = v["subj_adj"], h["subj_adj"]
        if fresh and (anc(s, t) or anc(t, s)) and a >= 0 and b >= 0 and E.adj_antonym[a] == b:
            return True
    if p["neg"] == 0 and p["adv"] >= 0 and h["adv"] >= 0 and E.adv_antonym[p["adv"]] == h["adv"]:
        return entails(p, {**h, "adv": p["adv"]})
    if p["neg"] == 0 and E.asymmetric[p["verb"]] and p["obj"] >= 0 and h["obj"] >= 0:
        return direct(p, swap(h)) and (p["subj"], p["obj"]) != (h["subj"], h["obj"])
    return False


def relation(P: list[dict], H: list[dict]) -> int:
    if all(any(entails(p, h) for p in P) for h in H):
        return 0
    if any(contradicts(p, h, P) for p in P for h in H):
        return 2
    return 1


@pytest.fixture(scope="module")
def train(world):
    return world.nli(1800, "train", "en")


def test_every_label_agrees_with_the_natural_logic_reader(train):
    P, H = Reader(train.premise_forms), Reader(train.hypothesis_forms)
    wrong = [(train.strategy[i], train.premise[i], train.hypothesis[i], int(train.label[i]))
             for i in range(len(train)) if relation(P.conjuncts(i), H.conjuncts(i)) != train.label[i]]
    assert not wrong, wrong[:5]
    assert np.bincount(train.label).tolist() == [600, 600, 600]


def test_constructions_are_varied_and_pairs_differ(train):
    names = {s.split("+")[-1] for s in train.strategy}
    assert len(names) >= 20 and {n for s in train.strategy for n in s.split("+")} <= set(STRATEGY_NAMES)
    changed = np.array([p != h for p, h in zip(train.premise, train.hypothesis)])
    assert changed.mean() > 0.97


def test_no_surface_cue_decides_the_label(train):
    subset = np.array([set(h.split()) <= set(p.split()) for p, h in zip(train.premise, train.hypothesis)])
    by_subset = np.bincount(train.label[subset], minlength=3) / max(subset.sum(), 1)
    assert by_subset.max() < 0.85  # "hypothesis words all in the premise" is not an entailment oracle
    neg = np.array([(" not " in p) != (" not " in h) for p, h in zip(train.premise, train.hypothesis)])
    assert (np.bincount(train.label[neg], minlength=3) > 0).sum() >= 2  # a polarity flip is not always contradiction
    assert np.bincount(train.label[~neg], minlength=3).min() > 150  # many contradictions without "not"


def test_xnli_sets_are_translations_of_the_same_pairs(world):
    x = world.xnli(30, 12, 12, langs=("en", "xb", "xc"))
    assert x["train"].lang == "en" and len(x["train"]) == 30
    for split in ("dev", "test"):
        en, xb = x[split]["en"], x[split]["xb"]
        assert (en.label == xb.label).all() and en.strategy == xb.strategy
        assert world.render(en.premise_forms, "xb") == xb.premise
        assert en.premise != xb.premise
    assert x["dev"]["en"].premise != x["test"]["en"].premise


def test_bad_arguments_are_rejected(world):
    with pytest.raises(ValueError, match="split"):
        world.nli(5, "valid")
    with pytest.raises(ValueError, match="language"):
        world.nli(5, "train", "fr")
    with pytest.raises(ValueError, match="non-negative"):
        world.nli(-1)
