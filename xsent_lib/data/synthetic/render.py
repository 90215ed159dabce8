"""Vectorised rendering of logical forms into token ids, strings and constituency trees, per
language.

Every constituent is an integer matrix with one row per sentence and -1 in unused cells: a leaf is a
column, a phrase is its children's matrices side by side, an optional element is a column that is -1
where absent. In tree mode each leaf is ``(TAG word )`` and each phrase ``(LABEL ... )``; the words
of the sentence are the non-bracket cells read left to right, so sentences and trees come from the
same matrix and tree depth / top constituents are exact. Only the final string join touches Python
objects (one ``str.join`` per batch).

Trees follow the Penn Treebank for English (``(S (NP (DT the) (NN dog)) (VP (VBZ barks)) (. .))``,
auxiliaries take a VP complement). For the invented languages the same labels are arranged in their
own order: SOV puts the object, modifiers and verb inside the VP with the verb last; VSO has a flat
S (verb, subject, object, modifiers).
Book: chapter 1 (Data: the synthetic world).
"""
from __future__ import annotations

import numpy as np

from .english import ENGLISH
from .forms import FRONT_DISC, FRONT_PP, FRONT_SUB, FRONT_TIME, Clauses, Forms
from .languages import TAG, TAGS, LanguageTables

_OPEN_LABELS = tuple("(" + t for t in TAGS)


_DT = np.int16  # token ids fit: every language has far fewer than 32k words


def _row(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, _DT)[None, :]


class Renderer:
    """Renders :class:`~.forms.Forms` in one language. ``ids(forms, tree)`` gives an ``(n, width)``
    int16 matrix (-1 = empty cell); :meth:`strings` joins it. Token ids below ``n_words`` are words;
    ids from ``n_words`` are ``(LABEL`` for each tag of :data:`~.languages.TAGS` and the last one is
    ``)``. Internally constituents are stored transposed, ``(width, n)``, so that putting phrases
    side by side is a contiguous copy.

    Book: chapter 1 (Data: the synthetic world).
    """

    def __init__(self, tables: LanguageTables) -> None:
        self.T = tables
        self.typ = tables.typology
        self.n_words = len(tables.words)
        self.close = self.n_words + len(TAGS)
        if self.close >= np.iinfo(_DT).max:
            raise ValueError(f"{tables.code}: {self.n_words} words do not fit int16 token ids.")
        self.vocab = np.array(list(tables.words) + list(_OPEN_LABELS) + [")"], dtype=object)
        self.gloss_vocab = np.array(list(tables.glosses) + list(_OPEN_LABELS) + [")"], dtype=object)
        self.tree = False
        self._cell = np.where(ENGLISH.noun_gender < 3, ENGLISH.noun_gender, 2)
        self._person = ENGLISH.noun_ancestors[:, ENGLISH.nouns.index("person")]

    # -- combinators (matrices are (width, rows)) --------------------------------------------------
    def leaf(self, tag: int | np.ndarray, word: np.ndarray) -> np.ndarray:
        """A preterminal ``(tag word)``; rows with ``word == -1`` stay empty.
        Book: chapter 1 (Data: the synthetic world).
        """
        w = _row(word)
        there = w >= 0
        if not there.any():
            return w[:0]
        if not self.tree:
            return w
        t = self.n_words + (np.asarray(tag, np.int64)[None, :] if np.ndim(tag) else tag)
        return np.concatenate([np.where(there, t, -1).astype(_DT), w,
                               np.where(there, self.close, -1).astype(_DT)])

    def node(self, tag: int, parts: list[np.ndarray],
             present: np.ndarray | None = None) -> np.ndarray:
        """A phrase over ``parts``; its brackets appear where ``present`` (default: where any child
        has a word).
        Book: chapter 1 (Data: the synthetic world).
        """
        body = parts[0] if len(parts) == 1 else np.concatenate(parts)
        if not self.tree or body.shape[0] == 0:
            return body
        if present is None:
            present = (body >= 0).any(0)
        p = present[None, :]
        return np.concatenate([np.where(p, self.n_words + tag, -1).astype(_DT), body,
                               np.where(p, self.close, -1).astype(_DT)])

    @staticmethod
    def expand(sub: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Scatter the (compacted) columns of ``sub`` into an all-empty matrix where ``mask`` holds.
        Book: chapter 1 (Data: the synthetic world).
        """
        sub = _compact_columns(sub)
        out = np.full((sub.shape[0], len(mask)), -1, _DT)
        out[:, mask] = sub
        return out

    # -- phrases -----------------------------------------------------------------------------------
    def noun_phrase(self, c: Clauses, noun: np.ndarray, num: np.ndarray, det: np.ndarray,
                    adj: np.ndarray,
                    pro: np.ndarray, rel: np.ndarray, case: int,
                    npi: np.ndarray | None = None) -> np.ndarray:
        """An NP: determiner, adjective and noun in the language's order, or a pronoun; plus a
        relative clause.
        Book: chapter 1 (Data: the synthetic world).
        """
        T = self.T
        there = noun >= 0
        n0 = np.maximum(noun, 0)
        full = there & (pro == 0)
        nn = np.where(full, T.noun[n0, num, case], -1)
        aj = np.where(full & (adj >= 0), T.adj[np.maximum(adj, 0), num], -1)
        kind = np.where(det == 1, 0, 1 if npi is None else np.where(npi, 2, 1))
        first = np.where((aj >= 0) & (self.typ.adjective == "before"), aj, nn)
        dt = np.where(full,
                      T.det[kind, num, T.vowel_initial[np.maximum(first, 0)].astype(np.int64)], -1)
        pr = np.where(there & (pro == 1), T.pron[np.where(num == 1, 3, self._cell[n0]), case], -1)
        noun_tag = np.where(num == 1, TAG["NNS"], TAG["NN"])
        mods = [self.leaf(TAG["JJ"], aj), self.leaf(noun_tag, nn)]
        if self.typ.adjective == "after":
            mods.reverse()
        inner = self.node(TAG["NP"], [self.leaf(TAG["DT"], dt), *mods, self.leaf(TAG["PRP"], pr)])
        has_rel = there & (rel >= 0)
        if not has_rel.any():
            return inner
        sbar = self.expand(self.relative(c, rel[has_rel], self._person[n0[has_rel]]), has_rel)
        parts = [inner, sbar] if self.typ.relative == "after" else [sbar, inner]
        return self.node(TAG["NP"], parts, present=has_rel)

    def relative(self, c: Clauses, rows: np.ndarray, person: np.ndarray) -> np.ndarray:
        """A subject-gap relative clause: marker + clause, or clause + marker for prenominal
        relatives.
        Book: chapter 1 (Data: the synthetic world).
        """
        marker = self.T.rel[person.astype(np.int64)]
        tag = np.where(person & (self.T.rel[1] != self.T.rel[0]), TAG["WP"], TAG["WDT"])
        s = self.node(TAG["S"], self.clause(c, rows, "rel"))
        if self.typ.relative == "after":
            return self.node(TAG["SBAR"], [self.node(TAG["WHNP"], [self.leaf(tag, marker)]), s])
        return self.node(TAG["SBAR"], [s, self.leaf(tag, marker)])

    def place_phrase(self, prep: np.ndarray, place: np.ndarray) -> np.ndarray:
        """A locative PP ``in the garden`` (or ``garden-OBL in`` with postpositions); empty where
        place is -1.
        Book: chapter 1 (Data: the synthetic world).
        """
        there = place >= 0
        p = np.where(there, self.T.prep[np.maximum(prep, 0)], -1)
        zeros = np.zeros(len(place), np.int64)
        np_ = self.noun_phrase(None, np.where(there, place, -1), zeros, zeros + 1, zeros - 1, zeros,
                               zeros - 1, 2)
        parts = ([self.leaf(TAG["IN"], p), np_] if self.typ.adposition == "pre"
                 else [np_, self.leaf(TAG["IN"], p)])
        return self.node(TAG["PP"], parts, present=there)

    def subordinate(self, c: Clauses, rows: np.ndarray, conj: np.ndarray) -> np.ndarray:
        """An adverbial clause ``because the cat sleeps`` (complementiser last in SOV languages).
        Book: chapter 1 (Data: the synthetic world).
        """
        there = rows >= 0
        s = self.expand(self.node(TAG["S"], self.clause(c, rows[there], "sub")), there)
        word = self.leaf(TAG["IN"], np.where(there, self.T.sub[np.maximum(conj, 0)], -1))
        parts = [s, word] if self.typ.order == "SOV" else [word, s]
        return self.node(TAG["SBAR"], parts, present=there)

    def adverb(self, table: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """An ADVP of one adverb from ``table``; empty where ``ids`` is -1.
        Book: chapter 1 (Data: the synthetic world).
        """
        return self.node(TAG["ADVP"],
                         [self.leaf(TAG["RB"], np.where(ids >= 0, table[np.maximum(ids, 0)], -1))])

    def clause(self, c: Clauses, rows: np.ndarray, role: str, hide_time: np.ndarray | None = None,
               hide_pp: np.ndarray | None = None, sub_rows: np.ndarray | None = None,
               sub_conj: np.ndarray | None = None) -> list[np.ndarray]:
        """The children of a clause's S node in the language's order (no subject for relative
        clauses).
        Book: chapter 1 (Data: the synthetic world).
        """
        T = self.T
        g = lambda f: getattr(c, f)[rows]  # noqa: E731
        neg, num = g("neg"), g("subj_num")
        slots = T.verb[g("verb"), g("tense"), num, neg]
        tags = T.verb_tag[g("verb"), g("tense"), num, neg]
        aux, neg_a, main, neg_b = (self.leaf(tags[:, k], slots[:, k]) for k in range(4))
        obj = self.noun_phrase(c, g("obj"), g("obj_num"), g("obj_def"), g("obj_adj"), g("obj_pro"),
                               g("obj_rel"),
                               1, npi=neg == 1)
        time, pp = g("time"), g("pp")
        if hide_time is not None:
            time = np.where(hide_time, -1, time)
        if hide_pp is not None:
            pp = np.where(hide_pp, -1, pp)
        rest = [obj, self.adverb(T.adv, g("adv")), self.place_phrase(g("prep"), pp),
                self.adverb(T.time, time)]
        if sub_rows is not None:
            rest.append(self.subordinate(c, sub_rows, sub_conj))
        subj = [] if role == "rel" else [self.noun_phrase(c, g("subj"), num, g("subj_def"),
                                                          g("subj_adj"),
                                                          g("subj_pro"), g("subj_rel"), 0)]
        order = self.typ.order
        if order == "SVO":
            inner = self.node(TAG["VP"], [main, neg_b, *rest], present=slots[:, 0] >= 0)
            return [*subj, self.node(TAG["VP"], [aux, neg_a, inner])]
        if order == "SOV":
            return [*subj, self.node(TAG["VP"], [*rest, neg_a, main, neg_b, aux])]
        return [aux, neg_a, main, neg_b, *subj, *rest]

    # -- sentences ---------------------------------------------------------------------------------
    def ids(self, forms: Forms, tree: bool = False, packed: bool = True) -> np.ndarray:
        """Token-id matrix of ``forms`` (``tree=True`` adds the bracket tokens of the constituency
        tree); ``packed`` left-justifies the rows (else they keep -1 gaps, which :meth:`strings`
        ignores).

        Book: chapter 1 (Data: the synthetic world).
        """
        self.tree = tree
        T, c, n = self.T, forms.clauses, len(forms)
        front, main_rows = forms.front, forms.main
        sov = self.typ.order == "SOV"
        sub_front = (forms.sub >= 0) & ((front == FRONT_SUB) | sov)
        sub_end = np.where((forms.sub >= 0) & ~sub_front, forms.sub, -1)
        main = self.node(TAG["S"], self.clause(c, main_rows, "main", front == FRONT_TIME,
                                               front == FRONT_PP,
                                               sub_end, forms.sub_conj), present=forms.coord >= 0)
        has_coord = forms.coord >= 0
        first, second = main, np.zeros((0, n), _DT)
        if has_coord.any():
            second = self.expand(self.node(TAG["S"],
                                           self.clause(c, forms.coord[has_coord], "coord")),
                                 has_coord)
            inv = forms.inverted & has_coord
            if inv.any():
                height = max(first.shape[0], second.shape[0])
                first = np.pad(first, ((0, height - first.shape[0]), (0, 0)), constant_values=-1)
                second = np.pad(second, ((0, height - second.shape[0]), (0, 0)), constant_values=-1)
                first[:, inv], second[:, inv] = second[:, inv], first[:, inv].copy()
        comma = lambda mask: self.leaf(TAG[","], np.where(mask, T.comma, -1))  # noqa: E731
        conj = np.maximum(forms.conj, 0)
        mt = c.time[main_rows]
        parts = [
            self.subordinate(c, np.where(sub_front, forms.sub, -1), forms.sub_conj),
            comma(sub_front),
            self.adverb(T.disc, np.where(front == FRONT_DISC, forms.disc, -1)),
            comma(front == FRONT_DISC),
            self.place_phrase(c.prep[main_rows], np.where(front == FRONT_PP, c.pp[main_rows], -1)),
            comma(front == FRONT_PP),
            self.adverb(T.time, np.where(front == FRONT_TIME, mt, -1)),
            first, comma(has_coord & (forms.conj == 1)),
            self.leaf(TAG["CC"], np.where(has_coord, T.conj[conj], -1)), second,
            self.leaf(TAG["."], np.full(n, T.period)),
        ]
        out = self.node(TAG["S"], parts, present=np.ones(n, bool))
        self.tree = False
        return np.ascontiguousarray((_compact_columns(out) if packed else out).T)

    def strings(self, ids: np.ndarray, gloss: bool = False) -> list[str]:
        """Join each row's tokens with spaces (brackets tidied to ``(NN dog)``); ``gloss`` uses
        glosses.

        Book: chapter 1 (Data: the synthetic world).
        """
        return join_rows(ids, self.gloss_vocab if gloss else self.vocab,
                         tidy=bool((ids >= self.n_words).any()))


def _cumsum_rows(mask: np.ndarray) -> np.ndarray:
    """Running count down axis 0 of a ``(width, rows)`` mask: one vectorised add per row of the
    width, which is far faster than ``np.cumsum(axis=0)`` on this layout (numpy iterates it
    element-wise)."""
    out = mask.astype(np.int16)
    for i in range(1, len(out)):
        out[i] += out[i - 1]
    return out


def _compact_columns(ids: np.ndarray) -> np.ndarray:
    """Move each column's tokens (order kept) to the top of a ``(width, rows)`` matrix and trim the
    height to the longest column; -1 fills the rest."""
    valid = ids >= 0
    pos = _cumsum_rows(valid) - 1
    height = int(pos[-1].max()) + 1 if ids.size else 0
    out = np.full((height, ids.shape[1]), -1, ids.dtype)
    out[pos[valid], np.nonzero(valid)[1]] = ids[valid]
    return out


def join_rows(ids: np.ndarray, vocab: np.ndarray, tidy: bool = False) -> list[str]:
    """Rows of token ids to strings in one ``str.join``: tokens separated by spaces, rows by
    newlines; ``tidy`` glues closing brackets to the previous token (``(NN dog)``).

    Book: chapter 1 (Data: the synthetic world).
    """
    if len(ids) == 0:
        return []
    valid = ids >= 0
    counts = valid.sum(1)
    if (counts == 0).any():
        raise ValueError("join_rows: a row has no tokens.")
    flat = ids[valid]
    sep = np.full(flat.size, " ", dtype=object)
    sep[np.cumsum(counts) - 1] = "\n"
    out = np.empty(2 * flat.size, dtype=object)
    out[0::2] = vocab[flat]
    out[1::2] = sep
    text = "".join(out.tolist())
    if tidy:
        text = text.replace(" )", ")")
    return text[:-1].split("\n")


def tree_depth(ids: np.ndarray, n_words: int) -> np.ndarray:
    """Maximum bracket nesting of each tree (S counts 1, a preterminal counts as a level, words do
    not).

    Book: chapter 4 (Probing).
    """
    close = n_words + len(TAGS)
    step = ((ids >= n_words) & (ids < close)).astype(np.int16) - (ids == close)
    return np.cumsum(step, axis=1, dtype=np.int16).max(1)


def top_constituents(ids: np.ndarray, n_words: int) -> np.ndarray:
    """Integer code of the sequence of labels directly below the root S (decode with
    :func:`decode_top`).

    Book: chapter 4 (Probing).
    """
    close = n_words + len(TAGS)
    is_open = (ids >= n_words) & (ids < close)
    level = np.cumsum(is_open.astype(np.int16) - (ids == close), axis=1, dtype=np.int16)
    # row-major: each row's top constituents in order
    rows, cols = np.nonzero(is_open & (level == 2))
    k = np.arange(rows.size) - np.searchsorted(rows, rows)
    if k.size and (k.max() + 1) * np.log(len(TAGS) + 1) > 43:
        raise ValueError("top_constituents: too many top constituents to encode in int64.")
    code = np.zeros(len(ids), np.int64)
    np.add.at(code, rows, (ids[rows, cols].astype(np.int64) - n_words
                           + 1) * np.int64(len(TAGS) + 1) ** k)
    return code


def decode_top(code: int) -> str:
    """``"NP VP ."`` from a :func:`top_constituents` code. Book: chapter 4 (Probing)."""
    labels, base = [], len(TAGS) + 1
    while code:
        code, r = divmod(int(code), base)
        labels.append(TAGS[r - 1])
    return " ".join(labels)
