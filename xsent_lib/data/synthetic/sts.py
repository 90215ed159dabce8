"""Graded similarity pairs (STS-like), possibly cross-lingual, scored from the logical forms.

Sentence a renders a single-clause form A (in ``lang_a``); sentence b renders B (in ``lang_b``),
which is A after 0-8 random edits (noun replaced by a hypernym, hyponym, sibling or unrelated noun;
number, tense or polarity flipped; verb replaced; adjective, adverb or PP added, dropped or changed;
fronting toggled) or, for one pair in five, an unrelated form. The score does not come from the
edits but from comparing A and B (:func:`sts_score`), so it is exact for any pair of forms:

``score = 5 * core * (0.6 + 0.4 * detail)``, where ``core`` is the weighted mean similarity of the
subject (weight 2), verb (2) and object (1.5), and ``detail`` that of polarity (1), tense (0.5),
subject and object number (0.25 each) and the modifier slots subject adjective, object adjective,
adverb, PP (0.375 each, counted only when one of the two sentences fills the slot). Nouns: same 1,
one an ancestor of the other 0.7, same parent 0.4, same taxonomy root 0.2, else 0; verbs: same 1,
one entails the other 0.7, else 0; an object absent from both counts as same, from one as 0.
Modifier slots: same 1, one absent 0.5, antonyms 0, other different 0.25. So unrelated sentences
score at most 1, a negated copy 4, and fronting (a paraphrase) or translation 5. The weights are
ours (STS guidelines grade "important" vs "unimportant" differences; no paper fixes numbers).
Book: chapter 2 (Evaluating sentence embeddings).
"""
from __future__ import annotations

import numpy as np

from .datasets import STSSet
from .english import ENGLISH
from .forms import FRONT_NONE, FRONT_TIME, FormConfig, Forms, FormSampler
from .nli import LEX, _Editor

STS_CONFIG = FormConfig(p_coord=0.0, p_sub=0.0, p_disc=0.0, p_subj_rel=0.0, p_obj_rel=0.0,
                        p_time=0.1)
CORE = {"subj": 2.0, "verb": 2.0, "obj": 1.5}
DETAIL = {"neg": 1.0, "tense": 0.5, "subj_num": 0.25, "obj_num": 0.25, "subj_adj": 0.375,
          "obj_adj": 0.375,
          "adv": 0.375, "pp": 0.375}
_SLOTS = ("subj_adj", "obj_adj", "adv", "pp")


def _noun_sim(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    E = ENGLISH
    a0, b0 = np.maximum(a, 0), np.maximum(b, 0)
    related = E.noun_ancestors[a0, b0] | E.noun_ancestors[b0, a0]
    sim = np.select([a == b, related, (LEX.parent[a0] == LEX.parent[b0]) & (LEX.parent[a0] >= 0),
                     E.noun_root[a0] == E.noun_root[b0]], [1.0, 0.7, 0.4, 0.2], 0.0)
    return np.where((a < 0) | (b < 0), (a == b).astype(float), sim)


def _slot_sim(a: np.ndarray, b: np.ndarray, antonym: np.ndarray | None) -> np.ndarray:
    anti = (a >= 0) & (b >= 0) & (antonym[np.maximum(a, 0)] == b) if antonym is not None else False
    return np.select([a == b, (a < 0) | (b < 0), anti], [1.0, 0.5, 0.0], 0.25)


def sts_score(A: Forms, B: Forms) -> np.ndarray:
    """Similarity in [0, 5] of the main clauses of two aligned batches of forms (see the module
    docstring).

    Book: chapter 2 (Evaluating sentence embeddings).
    """
    E = ENGLISH
    if len(A) != len(B):
        raise ValueError(f"sts_score needs aligned batches, got {len(A)} and {len(B)} forms.")
    ga = lambda f: getattr(A.clauses, f)[A.main]  # noqa: E731
    gb = lambda f: getattr(B.clauses, f)[B.main]  # noqa: E731
    va, vb = ga("verb"), gb("verb")
    verb = np.select([va == vb, (E.verb_hypernym[va] == vb) | (E.verb_hypernym[vb] == va)],
                     [1.0, 0.7], 0.0)
    both_obj = (ga("obj") >= 0) & (gb("obj") >= 0)
    sims = {
        "subj": _noun_sim(ga("subj"), gb("subj")), "verb": verb,
        "obj": _noun_sim(ga("obj"), gb("obj")),
        "neg": (ga("neg") == gb("neg")).astype(float),
        "tense": (ga("tense") == gb("tense")).astype(float),
        "subj_num": (ga("subj_num") == gb("subj_num")).astype(float),
        "obj_num": np.where(both_obj, ga("obj_num") == gb("obj_num"),
                            ga("obj") == gb("obj")).astype(float),
        "subj_adj": _slot_sim(ga("subj_adj"), gb("subj_adj"), E.adj_antonym),
        "obj_adj": _slot_sim(ga("obj_adj"), gb("obj_adj"), E.adj_antonym),
        "adv": _slot_sim(ga("adv"), gb("adv"), E.adv_antonym),
        "pp": _slot_sim(ga("pp"), gb("pp"), None),
    }
    core = sum(CORE[k] * sims[k] for k in CORE) / sum(CORE.values())
    used = {k: np.where((ga(k) >= 0) | (gb(k) >= 0), DETAIL[k], 0.0) if k in _SLOTS else DETAIL[k]
            for k in DETAIL}
    detail = sum(used[k] * sims[k] for k in DETAIL) / sum(used.values())
    return np.round(5.0 * core * (0.6 + 0.4 * detail), 4)


def _edit(B: Forms, rows: np.ndarray, sampler: FormSampler, rng: np.random.Generator) -> None:
    """One random component edit on each of ``rows`` (in place)."""
    ed = _Editor(B, sampler, rng)
    E = ENGLISH
    kind = rng.integers(0, 9, len(rows))
    c, m = B.clauses, B.main
    for k in range(9):
        r = rows[kind == k]
        if r.size == 0:
            continue
        cr = m[r]
        if k == 0:  # subject: hypernym / hyponym / sibling / unrelated, keeping a verb it can do
            s = c.subj[cr]
            new = sampler.subj_for_verb(c.verb[cr], rng)
            alt = np.select([rng.random(r.size) < 0.3, LEX.n_children[s] > 0],
                            [ed.ancestor(s), ed.child(s)], new)
            c.subj[cr] = np.where(alt >= 0, alt, new)
        elif k == 1:
            c.subj_num[cr] ^= 1
        # verb: hypernym when there is one, else another verb of the same frame for this subject
        elif k == 2:
            v = c.verb[cr]
            new = sampler.verb_for_subj(c.subj[cr], rng)
            same = E.transitive[new] == E.transitive[v]
            obj_ok = ~E.transitive[new] | E.obj_ok[new, np.maximum(c.obj[cr], 0)]
            c.verb[cr] = np.select([E.verb_hypernym[v] >= 0, same & obj_ok],
                                   [E.verb_hypernym[v], new], v)
        elif k == 3:
            c.tense[cr] = (c.tense[cr] + 1 + rng.integers(0, 2, r.size)) % 3
            c.time[cr] = -1
            B.front[r] = np.where(B.front[r] == FRONT_TIME, FRONT_NONE, B.front[r])
        elif k == 4:
            c.neg[cr] ^= 1
        elif k == 5:  # object: another admissible object
            has = c.obj[cr] >= 0
            c.obj[cr[has]] = sampler.obj_for_verb(c.verb[cr[has]], rng)
        elif k in (6, 7):  # an adjective slot: add, drop, or antonym
            role = "subj" if k == 6 else "obj"
            has_noun = getattr(c, role)[cr] >= 0
            cr = cr[has_noun]
            adj = getattr(c, f"{role}_adj")
            cur = adj[cr]
            noun = getattr(c, role)[cr]
            fresh = np.full(cr.size, -1, np.int64)
            ok = sampler.has_adj[noun]
            fresh[ok] = sampler.adj_for_noun(noun[ok], rng)
            anti = np.where(cur >= 0, E.adj_antonym[np.maximum(cur, 0)], -1)
            adj[cr] = np.select([cur < 0, (anti >= 0) & (rng.random(cr.size) < 0.5)], [fresh, anti],
                                -1)
        else:  # adverb or PP: add / drop / change; or toggle fronting (a paraphrase)
            toggle = rng.random(r.size) < 0.25
            can_front = (c.pp[cr] >= 0) | (c.time[cr] >= 0)
            t = r[toggle & can_front]
            ed.reorder(t)
            rr = r[~(toggle & can_front)]
            has_mod = (c.adv[m[rr]] >= 0) | (c.pp[m[rr]] >= 0)
            ed.vp_drop_modifier(rr[has_mod & (rng.random(rr.size) < 0.5)], with_time=False)
            add = rr[~has_mod | (rng.random(rr.size) < 0.5)]
            add = add[ed.can_add_adv()[add] | (c.pp[m[add]] < 0)]
            ed.vp_add_modifier(add)


def make_sts(world, n: int, lang_a: str, lang_b: str, split: str) -> STSSet:
    """``n`` scored pairs for ``split`` (forms independent of the languages).

    Book: chapter 2 (SentEval).
    """
    sampler = world.cached(("sts-sampler",), lambda: FormSampler(world.seed, STS_CONFIG))
    A = world.forms(n, "sts", split, sampler=sampler)
    rng = world.rng("sts-edits", split, n)
    B = A.copy()
    n_edits = rng.integers(0, 9, n)
    for step in range(8):
        _edit(B, np.flatnonzero(n_edits > step), sampler, rng)
    unrelated = np.flatnonzero(rng.random(n) < 0.2)
    if unrelated.size:
        other = world.forms(n, "sts-unrelated", split, sampler=sampler).take(unrelated)
        idx = np.arange(n)
        idx[unrelated] = n + np.arange(unrelated.size)
        B = Forms.concat([B, other]).take(idx)
    score = sts_score(A, B)
    return STSSet(lang_a, lang_b, world.render(A, lang_a), world.render(B, lang_b), score, A, B)
