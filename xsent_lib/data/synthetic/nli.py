"""NLI pairs whose labels hold under the logical forms, in every language from the same forms
(XNLI-like).

Semantics (ours; SNLI's annotation convention made explicit):

* premise and hypothesis describe the same scene: noun phrases in the same role corefer, so "the
  poodle" and "the dog" are one animal and "a big dog" / "a small dog" cannot both describe it;
* the subject is referential (scopes over negation): edits to it are upward-monotone in every
  clause;
* the object is upward-monotone when the clause is positive or the object definite, and
  downward-monotone when it is indefinite under negation (rendered "not ... any cat");
* manner adverbs and PPs restrict the event: upward in positive clauses, downward under negation;
* scalar adjectives (any adjective with an antonym) are subsective ("a big poodle" need not be a big
  dog), so no edit relies on them commuting with a hypernym; colour-like adjectives without antonym
  are intersective.

Constructions per label (a row picks one at random among those that apply to its premise):

* entailment: subject hypernym; drop a subject modifier; object hypernym / drop its modifier (upward
  object); object hyponym (downward object); drop a VP modifier (positive); add one (negated); verb
  hypernym (positive) / hyponym (negated); drop a conjunct; swap the arguments of a symmetric verb;
  move a modifier to the front or back; sometimes two of these in a row;
* contradiction: negate the premise, a conjunct of it, or an entailed variant of it; subject
  adjective antonym; subject replaced by a mutually exclusive sibling (poodle / beagle) or the other
  gender (man / woman); adverb antonym (positive); swap the arguments of an asymmetric verb
  (positive). The subject-based ones apply only when the new subject can corefer with nothing else
  in the premise (no object, place, other clause's or embedded noun related to it, and the main
  clause is still the premise's), else "the beagle" might be the beagle the premise already
  mentions;
* neutral: subject hyponym or compatible sibling (teacher / doctor); add a subject or object
  adjective; object hypernym under negation; object hyponym (upward object); add a VP modifier
  (positive) or drop one under negation; change the tense; add an unrelated conjunct; swap arguments
  of a verb that is neither symmetric nor (in a positive clause) asymmetric; flip the polarity while
  narrowing what is denied ("chases a dog" / "does not chase any poodle", "runs" / "does not run
  quickly").

Languages without articles (xb, xd) do not show definiteness, so in them a few pairs hinge on a
distinction the sentence does not mark, as happens with real translations. Because additions,
deletions, swaps and polarity flips occur under several labels, neither word overlap nor a "not"
mismatch is a label oracle. Negation and tense change, which always apply, are drawn with half
weight.
Book: chapter 6 (XNLI and aligned encoders).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .datasets import NLISet
from .english import ENGLISH
from .forms import (
    FRONT_NONE,
    FRONT_PP,
    FRONT_SUB,
    FRONT_TIME,
    Clauses,
    FormConfig,
    Forms,
    FormSampler,
)

ENTAILMENT, NEUTRAL, CONTRADICTION = range(3)
NLI_CONFIG = FormConfig(p_disc=0.0, p_coord=0.2, p_sub=0.1, p_neg=0.35, p_nested_rel=0.2)
GENDER_PAIRS = (("man", "woman"), ("boy", "girl"), ("king", "queen"), ("prince", "princess"),
                ("mother", "father"), ("sister", "brother"), ("aunt", "uncle"),
                ("grandmother", "grandfather"),
                ("waiter", "waitress"))
_SWAP = ("", "_num", "_def", "_adj", "_rel")


def _padded(groups: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    width = max(1, max(len(g) for g in groups))
    out = np.full((len(groups), width), -1, np.int64)
    for i, g in enumerate(groups):
        out[i, : len(g)] = g
    return out, np.array([len(g) for g in groups])


class _Lex:
    """Lookup tables for the edits, derived once from the English lexicon."""

    def __init__(self) -> None:
        E = ENGLISH
        n = len(E.nouns)
        self.parent = E.noun_parent
        self.grand = np.where(self.parent >= 0, self.parent[np.maximum(self.parent, 0)], -1)
        self.children, self.n_children = _padded([list(np.flatnonzero(self.parent == i))
                                                  for i in range(n)])
        self.n_siblings = np.where(self.parent >= 0, self.n_children[np.maximum(self.parent, 0)], 0)
        self.exclusive = (self.parent >= 0) & E.noun_disjoint[np.maximum(self.parent, 0)]
        self.other_gender = np.full(n, -1, np.int64)
        for a, b in GENDER_PAIRS:
            self.other_gender[E.noun_id(a)], self.other_gender[E.noun_id(b)] = (E.noun_id(b),
                                                                                E.noun_id(a))
        self.verb_children, self.n_verb_children = _padded(
            [list(np.flatnonzero(E.verb_hypernym == v)) for v in range(len(E.verbs))])
        self.scalar_adj = E.adj_antonym >= 0


LEX = _Lex()


class _Editor:
    """Applies the edits to a hypothesis copy ``H`` (in place), row subsets at a time."""

    def __init__(self, H: Forms, sampler: FormSampler, rng: np.random.Generator) -> None:
        self.H, self.s, self.rng = H, sampler, rng
        self.premise_main = H.main.copy()
        # what the premise mentions besides its main subject
        self.premise_nouns = self.other_nouns()

    # field access on the main clause of sentences ``rows``
    def get(self, f: str, rows: np.ndarray | None = None) -> np.ndarray:
        main = self.H.main if rows is None else self.H.main[rows]
        return getattr(self.H.clauses, f)[main]

    def set(self, f: str, rows: np.ndarray, values) -> None:
        getattr(self.H.clauses, f)[self.H.main[rows]] = values

    def pick(self, cand: np.ndarray, valid: np.ndarray) -> np.ndarray:
        """One valid candidate per row, uniformly (rows must have one)."""
        score = np.where(valid, self.rng.random(valid.shape), -1.0)
        return cand[np.arange(len(cand)), score.argmax(1)]

    def ancestor(self, x: np.ndarray) -> np.ndarray:
        up = self.rng.random(len(x)) < 0.3
        g = LEX.grand[x]
        return np.where(up & (g >= 0), g, LEX.parent[x])

    def child(self, x: np.ndarray) -> np.ndarray:
        return self.pick(LEX.children[x], LEX.children[x] >= 0)

    def upward_obj(self) -> np.ndarray:
        return (self.get("neg") == 0) | (self.get("obj_def") == 1)

    def can_add_adv(self) -> np.ndarray:
        return ((self.get("adv") < 0) & ENGLISH.manner[self.get("verb")]
                & self.s.has_adv[self.get("subj")])

    def other_nouns(self) -> np.ndarray:
        """(n, k) every noun the sentence mentions besides its main subject (-1 padded): objects,
        places, and the nouns of second, subordinate and relative clauses."""
        c, H = self.H.clauses, self.H
        cols = [c.obj[H.main], c.pp[H.main]]
        rows = [H.main, H.coord, H.sub]
        for r in rows[1:]:
            cols += [np.where(r >= 0, getattr(c, f)[np.maximum(r, 0)], -1)
                     for f in ("subj", "obj", "pp")]
        for _ in range(4):  # relative clauses, nested up to the sampler's depth
            nxt = []
            for r in rows:
                for f in ("subj_rel", "obj_rel"):
                    rel = np.where(r >= 0, getattr(c, f)[np.maximum(r, 0)], -1)
                    cols.append(np.where(rel >= 0, c.obj[np.maximum(rel, 0)], -1))
                    nxt.append(rel)
            rows = nxt
        return np.stack(cols, 1)

    def mentioned(self, noun: np.ndarray, others: np.ndarray) -> np.ndarray:
        """Rows where ``noun`` is, or is taxonomically related to, one of ``others`` (so it could
        corefer)."""
        anc = ENGLISH.noun_ancestors
        o = np.maximum(others, 0)
        x = np.maximum(noun, 0)[:, None]
        return ((others >= 0) & (anc[x, o] | anc[o, x])).any(1)

    def fresh_subject(self, noun: np.ndarray) -> np.ndarray:
        """Rows where ``noun`` as main subject could only corefer with the premise's main subject:
        the main clause is still the premise's and nothing else the premise mentions is related to
        ``noun``."""
        return (self.H.main == self.premise_main) & ~self.mentioned(noun, self.premise_nouns)

    def exclusive_ok(self) -> tuple[np.ndarray, np.ndarray]:
        s = self.get("subj")
        sib = LEX.children[np.maximum(LEX.parent[s], 0)]
        free = np.stack([self.fresh_subject(sib[:, k]) for k in range(sib.shape[1])], 1)
        sib_ok = LEX.exclusive[s][:, None] & (sib >= 0) & (sib != s[:, None]) & free
        gender_ok = (LEX.other_gender[s] >= 0) & self.fresh_subject(LEX.other_gender[s])
        return sib_ok, gender_ok

    def swap_ok(self) -> np.ndarray:
        E, subj, obj, verb = ENGLISH, self.get("subj"), self.get("obj"), self.get("verb")
        o = np.maximum(obj, 0)
        return ((obj >= 0) & (self.get("subj_def") == 1) & (self.get("obj_def") == 1)
                & E.subj_ok[verb, o] & E.obj_ok[verb, subj] & ~E.noun_ancestors[subj, o]
                & ~E.noun_ancestors[o, subj])

    # -- edits (applicability mask over all rows, then the edit on a subset) -----------------------
    def subj_hypernym(self, rows):
        s = self.get("subj", rows)
        self.set("subj", rows, self.ancestor(s))
        self.set("subj_adj", rows, -1)

    def subj_drop_modifier(self, rows):
        adj, rel = self.get("subj_adj", rows) >= 0, self.get("subj_rel", rows) >= 0
        drop_adj = adj & (~rel | (self.rng.random(len(rows)) < 0.5))
        self.set("subj_adj", rows, np.where(drop_adj, -1, self.get("subj_adj", rows)))
        self.set("subj_rel", rows, np.where(drop_adj, self.get("subj_rel", rows), -1))

    def obj_hypernym(self, rows):
        self.set("obj", rows, self.ancestor(self.get("obj", rows)))
        self.set("obj_adj", rows, -1)

    def obj_hyponym(self, rows):
        self.set("obj", rows, self.child(self.get("obj", rows)))

    def obj_drop_modifier(self, rows):
        adj, rel = self.get("obj_adj", rows) >= 0, self.get("obj_rel", rows) >= 0
        drop_adj = adj & (~rel | (self.rng.random(len(rows)) < 0.5))
        self.set("obj_adj", rows, np.where(drop_adj, -1, self.get("obj_adj", rows)))
        self.set("obj_rel", rows, np.where(drop_adj, self.get("obj_rel", rows), -1))

    def vp_drop_modifier(self, rows, with_time: bool = True):
        cand = np.stack([self.get("adv", rows), self.get("pp", rows), self.get("time", rows)], 1)
        valid = cand >= 0
        if not with_time:
            valid[:, 2] = False
        which = self.pick(np.tile(np.arange(3), (len(rows), 1)), valid)
        for k, f in enumerate(("adv", "pp", "time")):
            self.set(f, rows, np.where(which == k, -1, self.get(f, rows)))
        front = self.H.front[rows]
        self.H.front[rows] = np.where(((which == 1) & (front == FRONT_PP))
                                      | ((which == 2) & (front == FRONT_TIME)),
                                      FRONT_NONE, front)

    def vp_add_modifier(self, rows):
        adv_ok = self.can_add_adv()[rows]
        pp_ok = self.get("pp", rows) < 0
        use_adv = adv_ok & (~pp_ok | (self.rng.random(len(rows)) < 0.5))
        r = rows[use_adv]
        self.set("adv", r, self.s.adv_for_subj(self.get("subj", r), self.rng))
        r = rows[~use_adv]
        place = self.s.place(0, self.rng, size=len(r))
        self.set("pp", r, place)
        self.set("prep", r, self.s.prep_for_place(place, self.rng))

    def verb_hypernym(self, rows):
        self.set("verb", rows, ENGLISH.verb_hypernym[self.get("verb", rows)])

    def verb_hyponym_ok(self) -> tuple[np.ndarray, np.ndarray]:
        E = ENGLISH
        cand = LEX.verb_children[self.get("verb")]
        c = np.maximum(cand, 0)
        obj = self.get("obj")
        valid = (cand >= 0) & E.subj_ok[c, self.get("subj")[:, None]] & (
            (obj < 0)[:, None] | E.obj_ok[c, np.maximum(obj, 0)[:, None]])
        return cand, valid

    def verb_hyponym(self, rows):
        cand, valid = self.verb_hyponym_ok()
        self.set("verb", rows, self.pick(cand[rows], valid[rows]))

    def drop_conjunct(self, rows):
        c = self.H.clauses
        keep_second = self.rng.random(len(rows)) < 0.5
        r = rows[keep_second]
        second = self.H.coord[r]
        for role in ("subj", "obj"):
            pro = getattr(c, f"{role}_pro")[second] == 1
            getattr(c, f"{role}_def")[second] = np.where(pro, 1, getattr(c, f"{role}_def")[second])
            getattr(c, f"{role}_pro")[second] = 0
        self.H.main[r] = second
        self.H.coord[rows] = -1
        self.H.conj[rows] = -1

    def swap_roles(self, rows):
        vals = {f: (self.get("subj" + f, rows), self.get("obj" + f, rows)) for f in _SWAP}
        for f, (s, o) in vals.items():
            self.set("subj" + f, rows, o)
            self.set("obj" + f, rows, s)

    def reorder(self, rows):
        front = self.H.front[rows]
        avail = np.stack([self.get("pp", rows) >= 0, self.get("time", rows) >= 0,
                          self.H.sub[rows] >= 0], 1)
        choice = self.pick(np.tile(np.array([FRONT_PP, FRONT_TIME, FRONT_SUB]), (len(rows), 1)),
                           avail)
        self.H.front[rows] = np.where(front == FRONT_NONE, choice, FRONT_NONE)

    def negate(self, rows):
        c = self.H.clauses
        target = self.H.main[rows].copy()
        coord = self.H.coord[rows]
        second = (coord >= 0) & (self.rng.random(len(rows)) < 0.5)
        target[second] = coord[second]
        c.neg[target] = 1 - c.neg[target]

    def negated_shift_ok(self) -> np.ndarray:
        o = np.maximum(self.get("obj"), 0)
        indef = (self.get("obj") >= 0) & (self.get("obj_def") == 0)
        positive = (self.get("neg") == 0) & ((indef & (LEX.n_children[o] > 0)) | self.can_add_adv()
                                               | (self.get("pp") < 0))
        negative = (self.get("neg") == 1) & ((indef & (LEX.parent[o] >= 0)) | (self.get("adv") >= 0)
                                               | (self.get("pp") >= 0))
        return positive | negative

    def negated_shift(self, rows):
        """Flip polarity and move the object or a VP modifier against the new polarity's
        monotonicity: "chases a dog" vs "does not chase any poodle", "runs" vs "does not run
        quickly" (and back) are consistent."""
        o = np.maximum(self.get("obj", rows), 0)
        indef = (self.get("obj", rows) >= 0) & (self.get("obj_def", rows) == 0)
        pos = self.get("neg", rows) == 0
        obj_ok = indef & np.where(pos, LEX.n_children[o] > 0, LEX.parent[o] >= 0)
        mod_ok = np.where(pos, self.can_add_adv()[rows] | (self.get("pp", rows) < 0),
                          (self.get("adv", rows) >= 0) | (self.get("pp", rows) >= 0))
        use_obj = obj_ok & (~mod_ok | (self.rng.random(len(rows)) < 0.5))
        self.obj_hyponym(rows[use_obj & pos])
        self.obj_hypernym(rows[use_obj & ~pos])
        self.vp_add_modifier(rows[~use_obj & pos])
        self.vp_drop_modifier(rows[~use_obj & ~pos], with_time=False)
        self.set("neg", rows, 1 - self.get("neg", rows))

    def subj_antonym(self, rows):
        self.set("subj_adj", rows, ENGLISH.adj_antonym[self.get("subj_adj", rows)])

    def subj_exclusive(self, rows):
        """Replace the subject by a noun that excludes it (a sibling under an exclusive node, or the
        other gender) and that names nothing else in the sentence, so it can only corefer with the
        subject."""
        s = self.get("subj", rows)
        sib_ok, gender_ok = (m[rows] for m in self.exclusive_ok())
        sib = LEX.children[LEX.parent[s]]
        use_gender = gender_ok & (~sib_ok.any(1) | (self.rng.random(len(rows)) < 0.5))
        self.set("subj", rows, np.where(use_gender, LEX.other_gender[s], self.pick(sib, sib_ok)))
        self.set("subj_adj", rows, -1)

    def adv_antonym(self, rows):
        self.set("adv", rows, ENGLISH.adv_antonym[self.get("adv", rows)])

    def subj_hyponym(self, rows):
        self.set("subj", rows, self.child(self.get("subj", rows)))

    def compatible_siblings(self) -> tuple[np.ndarray, np.ndarray]:
        g = ENGLISH.noun_gender
        s = self.get("subj")
        sib = LEX.children[np.maximum(LEX.parent[s], 0)]
        gs, gb = g[s][:, None], g[np.maximum(sib, 0)]
        valid = ((sib >= 0) & (sib != s[:, None]) & ~LEX.exclusive[s][:, None]
                 & (LEX.parent[s] >= 0)[:, None])
        valid &= (gs == 3) | (gb == 3) | (gs == gb)
        return sib, valid

    def subj_sibling(self, rows):
        sib, valid = self.compatible_siblings()
        self.set("subj", rows, self.pick(sib[rows], valid[rows]))

    def add_adjective(self, rows, role: str):
        self.set(f"{role}_adj", rows, self.s.adj_for_noun(self.get(role, rows), self.rng))

    def tense_change(self, rows):
        t = self.get("tense", rows)
        self.set("tense", rows, (t + 1 + self.rng.integers(0, 2, len(rows))) % 3)
        self.set("time", rows, -1)
        self.H.front[rows] = np.where(self.H.front[rows] == FRONT_TIME, FRONT_NONE,
                                      self.H.front[rows])

    def add_conjunct(self, rows) -> np.ndarray:
        """Append an unrelated clause (no noun sharing a taxonomy root with the premise's nouns);
        returns the rows where no such clause was found in a few tries (left unchanged)."""
        E, k = ENGLISH, 6
        m = len(rows)
        new = self.s.clause_fields(self.rng, m * k, "coord")
        roots = lambda x: np.where(x >= 0, E.noun_root[np.maximum(x, 0)], -1)  # noqa: E731
        p_roots = np.stack([roots(self.get("subj", rows)), roots(self.get("obj", rows))], 1)
        n_roots = np.stack([roots(new["subj"]), roots(new["obj"])], 1).reshape(m, k, 2)
        clash = ((n_roots[:, :, :, None] == p_roots[:, None, None, :])
                 & (n_roots[:, :, :, None] >= 0)).any((2, 3))
        ok = ~clash
        found = ok.any(1)
        pick = np.arange(m) * k + ok.argmax(1)
        take = pick[found]
        c = self.H.clauses
        start = len(c)
        self.H.clauses = Clauses.concat([c, Clauses(**{f: v[take] for f, v in new.items()})])
        self.H.coord[rows[found]] = start + np.arange(found.sum())
        self.H.conj[rows[found]] = (self.rng.random(int(found.sum())) < 0.35).astype(np.int64)
        return rows[~found]


_Strategy = tuple[str, int, Callable[[_Editor], np.ndarray], Callable[[_Editor, np.ndarray], None]]


def _strategies() -> list[_Strategy]:
    E = ENGLISH
    neg = lambda ed: ed.get("neg") == 1  # noqa: E731
    obj = lambda ed: ed.get("obj") >= 0  # noqa: E731
    simple = lambda ed: (ed.H.coord < 0) & (ed.H.sub < 0) & (ed.H.front == FRONT_NONE)  # noqa: E731
    return [
        ("subj-hypernym", ENTAILMENT, lambda ed: LEX.parent[ed.get("subj")] >= 0,
         _Editor.subj_hypernym),
        ("subj-drop-modifier", ENTAILMENT, lambda ed: (ed.get("subj_adj") >= 0)
         | (ed.get("subj_rel") >= 0),
         _Editor.subj_drop_modifier),
        ("obj-hypernym", ENTAILMENT, lambda ed: obj(ed) & ed.upward_obj()
         & (LEX.parent[ed.get("obj")] >= 0),
         _Editor.obj_hypernym),
        ("obj-hyponym-negated", ENTAILMENT,
         lambda ed: obj(ed) & neg(ed) & (ed.get("obj_def") == 0)
         & (LEX.n_children[ed.get("obj")] > 0)
         & ((ed.get("obj_adj") < 0) | ~LEX.scalar_adj[ed.get("obj_adj")]), _Editor.obj_hyponym),
        ("obj-drop-modifier", ENTAILMENT,
         lambda ed: obj(ed) & ed.upward_obj() & ((ed.get("obj_adj") >= 0)
                                                 | (ed.get("obj_rel") >= 0)),
         _Editor.obj_drop_modifier),
        ("vp-drop-modifier", ENTAILMENT,
         lambda ed: ~neg(ed) & ((ed.get("adv") >= 0) | (ed.get("pp") >= 0) | (ed.get("time") >= 0)),
         _Editor.vp_drop_modifier),
        ("vp-add-modifier-negated", ENTAILMENT, lambda ed: neg(ed)
         & (ed.can_add_adv() | (ed.get("pp") < 0)),
         _Editor.vp_add_modifier),
        ("verb-hypernym", ENTAILMENT, lambda ed: ~neg(ed) & (E.verb_hypernym[ed.get("verb")] >= 0),
         _Editor.verb_hypernym),
        ("verb-hyponym-negated", ENTAILMENT, lambda ed: neg(ed) & ed.verb_hyponym_ok()[1].any(1),
         _Editor.verb_hyponym),
        ("drop-conjunct", ENTAILMENT, lambda ed: ed.H.coord >= 0, _Editor.drop_conjunct),
        ("symmetric-swap", ENTAILMENT, lambda ed: E.symmetric[ed.get("verb")] & ed.swap_ok(),
         _Editor.swap_roles),
        ("reorder", ENTAILMENT,
         lambda ed: (ed.H.coord < 0) & ((ed.get("pp") >= 0) | (ed.get("time") >= 0)
                                        | (ed.H.sub >= 0)),
         _Editor.reorder),
        ("negation", CONTRADICTION, lambda ed: np.ones(len(ed.H), bool), _Editor.negate),
        ("subj-antonym", CONTRADICTION,
         lambda ed: (ed.get("subj_adj") >= 0) & LEX.scalar_adj[ed.get("subj_adj")]
         & (ed.get("subj_def") == 1)
         & ed.fresh_subject(ed.get("subj")), _Editor.subj_antonym),
        ("subj-exclusive", CONTRADICTION,
         lambda ed: (lambda a, b: a.any(1) | b)(*ed.exclusive_ok()),
         _Editor.subj_exclusive),
        ("adverb-antonym", CONTRADICTION,
         lambda ed: ~neg(ed) & (ed.get("adv") >= 0) & (E.adv_antonym[ed.get("adv")] >= 0),
         _Editor.adv_antonym),
        ("asymmetric-swap", CONTRADICTION, lambda ed: ~neg(ed) & E.asymmetric[ed.get("verb")]
         & ed.swap_ok(),
         _Editor.swap_roles),
        ("subj-hyponym", NEUTRAL, lambda ed: LEX.n_children[ed.get("subj")] > 0,
         _Editor.subj_hyponym),
        ("subj-sibling", NEUTRAL, lambda ed: ed.compatible_siblings()[1].any(1),
         _Editor.subj_sibling),
        ("subj-add-adjective", NEUTRAL, lambda ed: (ed.get("subj_adj") < 0)
         & ed.s.has_adj[ed.get("subj")],
         lambda ed, r: ed.add_adjective(r, "subj")),
        ("obj-add-adjective", NEUTRAL,
         lambda ed: obj(ed) & ed.upward_obj() & (ed.get("obj_adj") < 0)
         & ed.s.has_adj[np.maximum(ed.get("obj"), 0)],
         lambda ed, r: ed.add_adjective(r, "obj")),
        ("obj-hypernym-negated", NEUTRAL,
         lambda ed: obj(ed) & neg(ed) & (ed.get("obj_def") == 0) & (LEX.parent[ed.get("obj")] >= 0),
         _Editor.obj_hypernym),
        ("obj-hyponym", NEUTRAL, lambda ed: obj(ed) & ed.upward_obj()
         & (LEX.n_children[ed.get("obj")] > 0),
         _Editor.obj_hyponym),
        ("vp-add-modifier", NEUTRAL, lambda ed: ~neg(ed) & (ed.can_add_adv() | (ed.get("pp") < 0)),
         _Editor.vp_add_modifier),
        ("vp-drop-modifier-negated", NEUTRAL, lambda ed: neg(ed)
         & ((ed.get("adv") >= 0) | (ed.get("pp") >= 0)),
         lambda ed, r: ed.vp_drop_modifier(r, with_time=False)),
        ("tense-change", NEUTRAL, lambda ed: np.ones(len(ed.H), bool), _Editor.tense_change),
        ("add-conjunct", NEUTRAL, simple, _Editor.add_conjunct),
        ("negated-shift", NEUTRAL, _Editor.negated_shift_ok, _Editor.negated_shift),
        ("role-swap", NEUTRAL,
         lambda ed: ed.swap_ok() & ~E.symmetric[ed.get("verb")]
         & (~E.asymmetric[ed.get("verb")] | neg(ed)),
         _Editor.swap_roles),
    ]


STRATEGIES = _strategies()
STRATEGY_NAMES = tuple(s[0] for s in STRATEGIES) + ("identity",)
# always-applicable fallbacks are chosen half as often as the specific constructions (integer
# weights)
_WEIGHT = np.array([1 if s[0] in ("negation", "tense-change") else 2 for s in STRATEGIES])


def _choose(ed: _Editor, rows: np.ndarray, label: int, exclude: tuple[str, ...] = ()) -> np.ndarray:
    """For each row, the index (into STRATEGIES) of a random applicable strategy of ``label``, or
    -1."""
    idx = [i for i, s in enumerate(STRATEGIES) if s[1] == label and s[0] not in exclude]
    ok = np.stack([STRATEGIES[i][2](ed)[rows] for i in idx], 1)
    cum = np.cumsum(ok * _WEIGHT[idx], axis=1)
    total = cum[:, -1]
    u = ed.rng.integers(0, np.maximum(total, 1))
    best = (cum <= u[:, None]).sum(1)
    return np.where(total > 0, np.array(idx)[np.minimum(best, len(idx) - 1)], -1)


def _apply(ed: _Editor, rows: np.ndarray, which: np.ndarray, names: np.ndarray) -> np.ndarray:
    """Apply strategy ``which[i]`` to ``rows[i]``; record names; return rows whose edit could not be
    done."""
    failed = []
    for k in np.unique(which[which >= 0]):
        r = rows[which == k]
        left = STRATEGIES[k][3](ed, r)
        done = r if left is None else np.setdiff1d(r, left)
        prev = names[done]
        names[done] = np.where(prev == "", STRATEGIES[k][0], prev + ("+" + STRATEGIES[k][0]))
        if left is not None:
            failed.append(left)
    return np.concatenate(failed) if failed else np.zeros(0, np.int64)


def nli_forms(premise: Forms, labels: np.ndarray, sampler: FormSampler, rng: np.random.Generator
              ) -> tuple[Forms, np.ndarray]:
    """Hypothesis forms for ``premise`` with the given labels, and the name of each construction.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    n = len(premise)
    ed = _Editor(premise.copy(), sampler, rng)
    names = np.full(n, "", dtype=object)
    ent = np.flatnonzero(labels == ENTAILMENT)
    con = np.flatnonzero(labels == CONTRADICTION)
    neu = np.flatnonzero(labels == NEUTRAL)
    # contradiction: sometimes first move to an entailed variant, then negate (or another
    # contradiction edit)
    pre = con[rng.random(con.size) < 0.5]
    _apply(ed, pre, _choose(ed, pre, ENTAILMENT, exclude=("reorder",)), names)
    _apply(ed, con, _choose(ed, con, CONTRADICTION), names)
    # entailment: one edit, a second one for some rows; identity when nothing applies
    first = _choose(ed, ent, ENTAILMENT)
    names[ent[first < 0]] = "identity"
    _apply(ed, ent, first, names)
    again = ent[(first >= 0) & (rng.random(ent.size) < 0.3)]
    _apply(ed, again, _choose(ed, again, ENTAILMENT), names)
    # neutral: one edit; add-conjunct may fail (no unrelated clause found), then change the tense
    left = _apply(ed, neu, _choose(ed, neu, NEUTRAL), names)
    tense = [i for i, s in enumerate(STRATEGIES) if s[0] == "tense-change"][0]
    _apply(ed, left, np.full(left.size, tense), names)
    return ed.H, names


def make_nli(world, n: int, split: str, lang: str) -> NLISet:
    """``n`` NLI pairs for ``split`` rendered in ``lang`` (same forms for every language).

    Book: chapter 6 (XNLI and aligned encoders).
    """
    sampler = world.cached(("nli-sampler",), lambda: FormSampler(world.seed, NLI_CONFIG))
    premise = world.forms(n, "nli", split, sampler=sampler)
    rng = world.rng("nli-edits", split, n)
    labels = rng.permutation(np.arange(n) % 3)
    hyp, names = nli_forms(premise, labels, sampler, rng)
    return NLISet(lang, world.render(premise, lang), world.render(hyp, lang), labels, list(names),
                  premise, hyp)
