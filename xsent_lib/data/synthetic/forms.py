"""Logical forms: a table of clauses plus sentence-level structure, sampled vectorised with numpy.

A sentence is a main clause, optionally coordinated with a second clause (``and`` / ``but``) whose
subject or object may corefer with the first one (rendered as a pronoun or an anaphoric definite),
optionally with a subordinate clause (``because`` / ``when`` / ``after``) and with something fronted
(a time adverb, the PP, the subordinate clause, or a discourse adverb). A clause has a subject, a
verb with tense and polarity, an optional object, each noun phrase with number, definiteness, an
optional adjective and an optional relative clause (itself a clause whose subject is a gap), and
optional manner adverb, locative PP and time adverb.

All fields are arrays, so a million forms are sampled with a few dozen numpy calls; weighted choices
are done in exact integer arithmetic so the same seed gives the same forms on every machine.
Book: chapter 1 (Data: the synthetic world).
"""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from .english import ENGLISH

FRONT_NONE, FRONT_TIME, FRONT_PP, FRONT_DISC, FRONT_SUB = range(5)
PAST, PRESENT, FUTURE = range(3)

_CLAUSE_FIELDS = ("subj", "subj_num", "subj_def", "subj_adj", "subj_pro", "subj_rel", "verb",
                  "tense", "neg",
                  "obj", "obj_num", "obj_def", "obj_adj", "obj_pro", "obj_rel", "adv", "prep", "pp",
                  "time", "gap")


@dataclass
class Clauses:
    """Column arrays of clauses (one row per clause); -1 marks an absent optional element.

    ``*_num`` 0 singular / 1 plural; ``*_def`` 1 definite; ``*_pro`` 1 rendered as a pronoun;
    ``*_rel`` row of the relative clause modifying that noun; ``tense`` 0 past, 1 present, 2 future;
    ``neg`` 1 negated; ``pp`` a place noun with preposition ``prep``; ``adv`` manner adverb;
    ``time`` time adverb; ``gap`` 1 for a relative clause, whose subject fields repeat its head
    noun. Ids index :data:`~.english.ENGLISH`'s tables.
    Book: chapter 1 (Data: the synthetic world).
    """

    subj: np.ndarray
    subj_num: np.ndarray
    subj_def: np.ndarray
    subj_adj: np.ndarray
    subj_pro: np.ndarray
    subj_rel: np.ndarray
    verb: np.ndarray
    tense: np.ndarray
    neg: np.ndarray
    obj: np.ndarray
    obj_num: np.ndarray
    obj_def: np.ndarray
    obj_adj: np.ndarray
    obj_pro: np.ndarray
    obj_rel: np.ndarray
    adv: np.ndarray
    prep: np.ndarray
    pp: np.ndarray
    time: np.ndarray
    gap: np.ndarray

    def __len__(self) -> int:
        return len(self.verb)

    def copy(self) -> Clauses:
        """Deep copy. Book: chapter 1 (Data: the synthetic world)."""
        return Clauses(**{f: getattr(self, f).copy() for f in _CLAUSE_FIELDS})

    @staticmethod
    def concat(parts: list[Clauses]) -> Clauses:
        """Stack clause tables; relative-clause pointers of part k are shifted by the rows before
        it.

        Book: chapter 1 (Data: the synthetic world).
        """
        offsets = np.cumsum([0] + [len(p) for p in parts[:-1]])
        out = {}
        for f in _CLAUSE_FIELDS:
            cols = [getattr(p, f) for p in parts]
            if f in ("subj_rel", "obj_rel"):
                cols = [np.where(c >= 0, c + o, -1) for c, o in zip(cols, offsets)]
            out[f] = np.concatenate(cols)
        return Clauses(**out)


@dataclass
class Forms:
    """A batch of logical forms: rows of :class:`Clauses` plus sentence-level arrays (one entry per
    sentence).

    ``main`` / ``coord`` / ``sub``: clause rows (``coord``, ``sub`` -1 when absent); ``conj`` 0 and
    / 1 but; ``sub_conj`` 0 because / 1 when / 2 after; ``front`` what is fronted (``FRONT_*``);
    ``disc`` discourse adverb (with ``FRONT_DISC``); ``inverted`` render the coordinated clauses in
    swapped order (CoordInv).
    Book: chapter 1 (Data: the synthetic world).
    """

    clauses: Clauses
    main: np.ndarray
    coord: np.ndarray
    conj: np.ndarray
    sub: np.ndarray
    sub_conj: np.ndarray
    front: np.ndarray
    disc: np.ndarray
    inverted: np.ndarray

    _SENT = ("main", "coord", "conj", "sub", "sub_conj", "front", "disc", "inverted")

    def __len__(self) -> int:
        return len(self.main)

    def copy(self) -> Forms:
        """Deep copy. Book: chapter 1 (Data: the synthetic world)."""
        return Forms(self.clauses.copy(), *(getattr(self, f).copy() for f in self._SENT))

    def take(self, idx: np.ndarray) -> Forms:
        """Sentences ``idx`` (indices or a boolean mask) with only the clause rows they reach,
        renumbered.

        Book: chapter 1 (Data: the synthetic world).
        """
        idx = np.asarray(idx)
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        c = self.clauses
        keep = np.zeros(len(c), bool)
        frontier = np.concatenate([self.main[idx], self.coord[idx], self.sub[idx]])
        frontier = frontier[frontier >= 0]
        while frontier.size:
            keep[frontier] = True
            frontier = np.concatenate([c.subj_rel[frontier], c.obj_rel[frontier]])
            frontier = frontier[frontier >= 0]
        new = np.cumsum(keep) - 1
        remap = lambda a: np.where(a >= 0, new[np.maximum(a, 0)], -1)  # noqa: E731
        cols = {f: getattr(c, f)[keep] for f in _CLAUSE_FIELDS}
        cols["subj_rel"], cols["obj_rel"] = remap(cols["subj_rel"]), remap(cols["obj_rel"])
        sent = {f: getattr(self, f)[idx] for f in self._SENT}
        for f in ("main", "coord", "sub"):
            sent[f] = remap(sent[f])
        return Forms(Clauses(**cols), **sent)

    @staticmethod
    def concat(parts: list[Forms]) -> Forms:
        """Stack batches of forms. Book: chapter 1 (Data: the synthetic world)."""
        offsets = np.cumsum([0] + [len(p.clauses) for p in parts[:-1]])
        sent = {}
        for f in Forms._SENT:
            cols = [getattr(p, f) for p in parts]
            if f in ("main", "coord", "sub"):
                cols = [np.where(c >= 0, c + o, -1) for c, o in zip(cols, offsets)]
            sent[f] = np.concatenate(cols)
        return Forms(Clauses.concat([p.clauses for p in parts]), **sent)


@dataclass(frozen=True)
class FormConfig:
    """Probabilities of the form sampler. Values are ours (no paper fixes them); chosen so that
    English sentences average about 10 tokens (90% between 5 and 20) and every construction is
    common enough.

    ``tense`` is the past / present / future distribution.

    Book: chapter 1 (Data: the synthetic world).
    """

    tense: tuple[float, float, float] = (0.4, 0.4, 0.2)
    p_plural: float = 0.35
    p_subj_def: float = 0.7
    p_obj_def: float = 0.4
    p_neg: float = 0.2
    p_subj_adj: float = 0.3
    p_obj_adj: float = 0.25
    p_subj_rel: float = 0.12
    p_obj_rel: float = 0.1
    p_nested_rel: float = 0.3
    max_rel_depth: int = 2
    p_adv: float = 0.25
    p_pp: float = 0.3
    p_time: float = 0.15
    p_coord: float = 0.18
    p_but: float = 0.35
    p_coref_subj: float = 0.5
    p_coref_obj: float = 0.35
    p_pronoun: float = 0.7
    p_sub: float = 0.12
    p_front_sub: float = 0.6
    p_front_pp: float = 0.35
    p_front_time: float = 0.5
    p_disc: float = 0.04

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name.startswith("p_") and not 0.0 <= v <= 1.0:
                raise ValueError(f"FormConfig.{f.name}={v} is not a probability in [0, 1].")
        if len(self.tense) != 3 or min(self.tense) < 0 or sum(self.tense) <= 0:
            raise ValueError(f"FormConfig.tense={self.tense} must be three non-negative weights, "
                             "not all zero.")
        if self.max_rel_depth < 0:
            raise ValueError("FormConfig.max_rel_depth must be >= 0.")


class RowChooser:
    """Weighted choice of one column per requested row of a fixed non-negative integer weight
    matrix.

    One ``searchsorted`` over the flattened cumulative weights answers every request; integer
    arithmetic makes it bit-identical across machines.

    Book: chapter 1 (Data: the synthetic world).
    """

    def __init__(self, weights: np.ndarray) -> None:
        w = np.atleast_2d(np.asarray(weights, np.int64))
        cum = np.cumsum(w, axis=1)
        self.total = cum[:, -1]
        self.offset = np.concatenate([[0], np.cumsum(self.total)[:-1]])
        self.flat = (cum + self.offset[:, None]).ravel()
        self.k = w.shape[1]

    def __call__(self, rows: np.ndarray | int, rng: np.random.Generator,
                 size: int | None = None) -> np.ndarray:
        rows = np.full(size, rows, np.int64) if size is not None else np.asarray(rows, np.int64)
        if rows.size == 0:
            return np.zeros(0, np.int64)
        if (self.total[rows] <= 0).any():
            raise ValueError("RowChooser: a requested row has no positive weight.")
        u = rng.integers(0, self.total[rows])
        return np.searchsorted(self.flat, self.offset[rows] + u, side="right") - rows * self.k


def _weights(rng: np.random.Generator, n: int, base: np.ndarray | int = 1) -> np.ndarray:
    """Integer word weights: ``base`` times a seeded jitter 2^k * u (k in 0..3, u in 500..999), a
    long-tailed spread drawn without floating point, so frequencies are bit-identical on every
    machine."""
    return np.asarray(base, np.int64) * (2 ** rng.integers(0, 4, n)) * rng.integers(500, 1000, n)


class FormSampler:
    """Samples :class:`Forms` for a seed: word frequencies are drawn once from the seed, then every
    batch is a handful of vectorised choices.

    Book: chapter 1 (Data: the synthetic world).
    """

    def __init__(self, seed: int, config: FormConfig | None = None) -> None:
        from .languages import stable_seed

        E = ENGLISH
        self.config = config or FormConfig()
        rng = np.random.Generator(np.random.PCG64(stable_seed(seed, "word-frequencies")))
        # basic-level nouns most frequent
        depth_base = np.array([3, 10, 5, 3, 2])[np.minimum(E.noun_depth, 4)]
        self.noun_w = _weights(rng, len(E.nouns), depth_base)
        self.verb_w = _weights(rng, len(E.verbs), np.where(E.verb_hypernym >= 0, 2, 5))
        self.adj_w = _weights(rng, len(E.adjectives))
        self.adv_w = _weights(rng, len(E.adverbs))
        self.verb_any = RowChooser(self.verb_w)
        self.subj_for_verb = RowChooser(E.subj_ok * self.noun_w)
        self.obj_for_verb = RowChooser(E.obj_ok * self.noun_w)
        self.verb_for_subj = RowChooser(E.subj_ok.T * self.verb_w)
        self.adj_for_noun = RowChooser(E.adj_ok.T * self.adj_w)
        self.has_adj = E.adj_ok.any(0)
        self.adv_for_subj = RowChooser(E.adv_ok.T * self.adv_w)
        self.has_adv = E.adv_ok.any(0)
        self.place = RowChooser(E.is_place * self.noun_w)
        self.prep_for_place = RowChooser(E.prep_ok.T.astype(np.int64))
        self.time_for_tense = RowChooser(E.time_ok.astype(np.int64))
        self.tense_choice = RowChooser(
            np.round(np.array(self.config.tense) * 1000).astype(np.int64))
        self.pronominal = E.noun_gender < 3
        self.has_subj_verb = E.subj_ok.any(0)

    # -- clauses -----------------------------------------------------------------------------------
    def clause_fields(self, rng: np.random.Generator, n: int, role: str,
                      subj: np.ndarray | None = None,
                      tense: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """Fields of ``n`` fresh clauses. ``role`` is main / coord / sub / rel; ``subj`` (-1 =
        sample) fixes subjects (verbs are then drawn among those the subject can do); ``tense``
        fixes tenses.
        Book: chapter 1 (Data: the synthetic world).
        """
        E, cfg = ENGLISH, self.config
        if subj is None:
            subj = np.full(n, -1, np.int64)
        given = subj >= 0
        verb = np.empty(n, np.int64)
        verb[given] = self.verb_for_subj(subj[given], rng)
        verb[~given] = self.verb_any(0, rng, size=int((~given).sum()))
        subj = subj.copy()
        subj[~given] = self.subj_for_verb(verb[~given], rng)
        f = {"subj": subj, "verb": verb, "gap": np.full(n, int(role == "rel"))}
        f["subj_num"] = (rng.random(n) < cfg.p_plural).astype(np.int64)
        f["subj_def"] = (rng.random(n) < cfg.p_subj_def).astype(np.int64)
        f["subj_adj"] = self._adjectives(rng, subj, cfg.p_subj_adj if role != "rel" else 0.0)
        f["subj_pro"] = np.zeros(n, np.int64)
        f["tense"] = self.tense_choice(0, rng, size=n) if tense is None else tense.astype(np.int64)
        f["neg"] = (rng.random(n) < (cfg.p_neg if role != "rel"
                                     else cfg.p_neg / 3)).astype(np.int64)
        trans = E.transitive[verb]
        obj = np.full(n, -1, np.int64)
        obj[trans] = self.obj_for_verb(verb[trans], rng)
        f["obj"] = obj
        f["obj_num"] = np.where(trans, rng.random(n) < cfg.p_plural, 0).astype(np.int64)
        f["obj_def"] = np.where(trans, rng.random(n) < cfg.p_obj_def, 0).astype(np.int64)
        f["obj_adj"] = np.where(trans, self._adjectives(rng, np.maximum(obj, 0), cfg.p_obj_adj), -1)
        f["obj_pro"] = np.zeros(n, np.int64)
        f["subj_rel"] = np.full(n, -1, np.int64)
        f["obj_rel"] = np.full(n, -1, np.int64)
        p_adv = cfg.p_adv if role != "rel" else 0.0
        use = E.manner[verb] & self.has_adv[subj] & (rng.random(n) < p_adv)
        f["adv"] = np.full(n, -1, np.int64)
        f["adv"][use] = self.adv_for_subj(subj[use], rng)
        use = rng.random(n) < (cfg.p_pp if role in ("main", "coord") else 0.0)
        f["pp"] = np.full(n, -1, np.int64)
        f["prep"] = np.full(n, -1, np.int64)
        f["pp"][use] = self.place(0, rng, size=int(use.sum()))
        f["prep"][use] = self.prep_for_place(f["pp"][use], rng)
        use = rng.random(n) < (cfg.p_time if role == "main" else 0.0)
        f["time"] = np.full(n, -1, np.int64)
        f["time"][use] = self.time_for_tense(f["tense"][use], rng)
        return f

    def _adjectives(self, rng: np.random.Generator, noun: np.ndarray, p: float) -> np.ndarray:
        out = np.full(len(noun), -1, np.int64)
        use = self.has_adj[noun] & (rng.random(len(noun)) < p)
        out[use] = self.adj_for_noun(noun[use], rng)
        return out

    def add_relatives(self, rng: np.random.Generator, pool: list[dict], batch: dict, depth: int = 0,
                      start: int = 0) -> None:
        """Attach relative clauses to the subjects / objects of ``batch`` (rows ``start``..),
        appending them to ``pool``.

        Book: chapter 1 (Data: the synthetic world).
        """
        cfg = self.config
        if depth >= cfg.max_rel_depth:
            return
        n = len(batch["verb"])
        scale = 1.0 if depth == 0 else cfg.p_nested_rel
        is_rel = batch["gap"] == 1
        for role in ("subj", "obj"):
            p = (cfg.p_subj_rel if role == "subj" else cfg.p_obj_rel) * scale
            head = batch[role]
            ok = (head >= 0) & self.has_subj_verb[np.maximum(head, 0)] & (batch[f"{role}_pro"] == 0)
            if role == "subj":
                ok &= ~is_rel
            use = np.flatnonzero(ok & (rng.random(n) < p))
            if use.size == 0:
                continue
            rel = self.clause_fields(rng, use.size, "rel", subj=head[use])
            rel["subj_num"] = batch[f"{role}_num"][use]
            rel["subj_def"] = np.ones(use.size, np.int64)
            rows = start + sum(len(b["verb"]) for b in pool)
            batch[f"{role}_rel"][use] = np.arange(rows, rows + use.size)
            pool.append(rel)
            self.add_relatives(rng, pool, rel, depth + 1, start)

    # -- sentences ---------------------------------------------------------------------------------
    def sample(self, n: int, rng: np.random.Generator) -> Forms:
        """``n`` random sentence forms. Book: chapter 1 (Data: the synthetic world)."""
        if n < 0:
            raise ValueError(f"n={n} must be >= 0.")
        E, cfg = ENGLISH, self.config
        main = self.clause_fields(rng, n, "main")
        has_coord = rng.random(n) < cfg.p_coord
        ci = np.flatnonzero(has_coord)
        subj = np.where(rng.random(ci.size) < cfg.p_coref_subj, main["subj"][ci], -1)
        coord = self.clause_fields(rng, ci.size, "coord", subj=subj)
        self._corefer(rng, coord, main, ci, subj >= 0)
        has_sub = ~has_coord & (rng.random(n) < cfg.p_sub)
        si = np.flatnonzero(has_sub)
        sub_conj = np.full(n, -1, np.int64)
        sub_conj[si] = rng.integers(0, len(E.subordinators), si.size)
        sub_tense = main["tense"][si].copy()
        sub_tense[(sub_tense == FUTURE) & (sub_conj[si] > 0)] = PRESENT
        sub = self.clause_fields(rng, si.size, "sub", tense=sub_tense)

        pool: list[dict] = [main, coord, sub]
        base = n + ci.size + si.size
        rel_pool: list[dict] = []
        for batch in (main, coord, sub):
            self.add_relatives(rng, rel_pool, batch, 0, base)
        clauses = Clauses(**{f: np.concatenate([b[f] for b in pool + rel_pool]).astype(np.int32)
                             for f in _CLAUSE_FIELDS})

        coord_row = np.full(n, -1, np.int64)
        coord_row[ci] = n + np.arange(ci.size)
        sub_row = np.full(n, -1, np.int64)
        sub_row[si] = n + ci.size + np.arange(si.size)
        front = np.full(n, FRONT_NONE, np.int64)
        r = rng.random((4, n))
        free = ~has_coord
        front[free & (r[0] < cfg.p_disc)] = FRONT_DISC
        front[free & (main["time"] >= 0) & (r[1] < cfg.p_front_time)] = FRONT_TIME
        front[free & (main["pp"] >= 0) & (r[2] < cfg.p_front_pp)] = FRONT_PP
        front[has_sub & (r[3] < cfg.p_front_sub)] = FRONT_SUB
        disc = np.where(front == FRONT_DISC, rng.integers(0, len(E.discourse_adverbs), n), -1)
        conj = np.where(has_coord, (rng.random(n) < cfg.p_but).astype(np.int64), -1)
        # no sentence may talk about one event twice ("the bottle does not float , but it floats"):
        # a second clause or subject relative with the main verb (or a verb entailing / entailed by
        # it) is dropped
        mv = clauses.verb[:n]
        same = lambda v: ((v == mv) | (E.verb_hypernym[v] == mv)  # noqa: E731
                          | (E.verb_hypernym[mv] == v))
        twice = has_coord & same(clauses.verb[np.maximum(coord_row, 0)])
        coord_row[twice], conj[twice] = -1, -1
        twice = has_sub & same(clauses.verb[np.maximum(sub_row, 0)])
        sub_row[twice], sub_conj[twice] = -1, -1
        front[twice & (front == FRONT_SUB)] = FRONT_NONE
        rel = clauses.subj_rel[:n]
        clauses.subj_rel[:n] = np.where((rel >= 0) & same(clauses.verb[np.maximum(rel, 0)]), -1,
                                        rel)
        i32 = lambda a: a.astype(np.int32)  # noqa: E731
        return Forms(clauses, i32(np.arange(n)), i32(coord_row), i32(conj), i32(sub_row),
                     i32(sub_conj), i32(front),
                     i32(disc), np.zeros(n, bool))

    def _corefer(self, rng: np.random.Generator, coord: dict, main: dict, ci: np.ndarray,
                 same_subj: np.ndarray) -> None:
        """Make coordinated clauses refer back: a shared subject becomes a pronoun (or ``the N``),
        and an object the first clause introduced may be picked up again."""
        E, cfg = ENGLISH, self.config
        m = ci.size
        pro = lambda noun: (self.pronominal[noun]
                            & (rng.random(m) < cfg.p_pronoun)).astype(np.int64)  # noqa: E731
        s = same_subj
        coord["subj_num"][s] = main["subj_num"][ci][s]
        coord["subj_def"][s] = 1
        coord["subj_adj"][s] = -1
        coord["subj_pro"] = np.where(s, pro(coord["subj"]), 0)
        mobj = main["obj"][ci]
        ok = (coord["obj"] >= 0) & (mobj >= 0)
        ok &= E.obj_ok[coord["verb"], np.maximum(mobj, 0)] & (rng.random(m) < cfg.p_coref_obj)
        coord["obj"][ok] = mobj[ok]
        coord["obj_num"][ok] = main["obj_num"][ci][ok]
        coord["obj_def"][ok] = 1
        coord["obj_adj"][ok] = -1
        coord["obj_pro"] = np.where(ok, pro(np.maximum(coord["obj"], 0)), 0)
