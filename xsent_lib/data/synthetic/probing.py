"""The ten probing tasks of Conneau et al. (2018), with their definitions, on the synthetic world.

Common to all tasks (as in the thesis, Sec. 3.3): sentences of 5-28 words (punctuation not counted),
balanced classes, train / dev / test without a shared sentence. Labels come from the logical form or
from the tree rendered from it, so they are exact.

* **SentLen**: 6 equal-width bins of the length in words: 5-8, 9-12, ..., 25-28.
* **WC**: which one of the mid-frequency content words the sentence contains (exactly one of them).
  The thesis takes 1000 words of frequency rank 2k-3k; our world has under a thousand content word
  forms, so the targets are the middle 40% of the frequency ranking of a reference corpus (ranks
  30%-70%, capped at 1000), minus the few that (almost) never occur as the only target in a sentence
  (a base verb form, say, only follows an auxiliary whose subject is itself a target); WC sentences
  are drawn with fewer modifiers so that "exactly one target" is common. About 340 classes in
  English.
* **TreeDepth**: depth of the tree (bracket nesting, S = 1, words not counted), 8 classes of
  consecutive depths. De-correlated from length by structured sampling: the pool mixes three
  grammars (deep and lean: nested relative clauses, no modifiers; flat and rich: modifiers and
  coordination, no relative clauses; the probing default), and every class gets the same length
  distribution q(L), the normalised pointwise minimum of the classes' length distributions in a
  reference sample (quota per class and length, largest-remainder rounding). Length then carries no
  information about depth. The window of 8 depths maximises the number of length-matched sentences
  the pool can supply (mass of q times the rarest class's count).
* **TopConst**: the sequence of constituents directly below S; the 19 most frequent sequences plus
  "other" (our grammar yields fewer than 19 in English, then every sequence is a class).
* **BShift**: half the sentences have two adjacent words inverted (never punctuation, never two
  equal words).
* **Tense**: tense of the main-clause verb, past vs present (future clauses excluded); the main
  verbs of train, dev and test are disjoint lemmas.
* **SubjNum** / **ObjNum**: number of the main-clause subject / direct object; disjoint noun lemmas
  across splits.
* **SOMO**: half the sentences have the main-clause subject, object or verb replaced by another noun
  / verb in the same form (number, case, tense, agreement), chosen so the two bigrams around it have
  corpus frequencies closest on a log scale to the original ones, among words the verb does not
  admit there (so the result is semantically odd, which is what makes it the odd man out).
  Replacement words of the three splits are disjoint.
* **CoordInv**: sentences of two coordinated clauses; in half of them the clauses are swapped. The
  second clause refers back to the first (pronouns, definites), so inversion is detectable, as in
  real text.

Book: chapter 4 (Probing).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .datasets import ProbingSet, ProbingSplit
from .english import ENGLISH
from .english_words import TENSES
from .forms import PRESENT, FormConfig, Forms, FormSampler
from .render import decode_top, join_rows, top_constituents, tree_depth

TASKS = ("SentLen", "WC", "TreeDepth", "TopConst", "BShift", "Tense", "SubjNum", "ObjNum", "SOMO",
         "CoordInv")
MIN_WORDS, MAX_WORDS = 5, 28
BATCH = 16_384
MAX_BATCHES = 400
REFERENCE_SIZE = 30_000
SPLIT_FRACTIONS = (0.8, 0.1, 0.1)
PROBING_CONFIG = FormConfig(p_coord=0.3, p_subj_rel=0.35, p_obj_rel=0.3, p_nested_rel=0.6,
                            max_rel_depth=3,
                            p_adv=0.35, p_pp=0.4, p_sub=0.25, p_subj_adj=0.4, p_obj_adj=0.35,
                            p_disc=0.06,
                            p_time=0.2)
WC_CONFIG = FormConfig(p_coord=0.1, p_subj_rel=0.05, p_obj_rel=0.05, p_adv=0.1, p_pp=0.1,
                       p_sub=0.05,
                       p_subj_adj=0.1, p_obj_adj=0.1, p_time=0.05)
COORD_CONFIG = FormConfig(p_coord=1.0, p_coref_subj=0.7, p_coref_obj=0.5, p_subj_rel=0.15,
                          p_obj_rel=0.1)


DEEP_CONFIG = FormConfig(p_subj_rel=0.6, p_obj_rel=0.5, p_nested_rel=0.8, max_rel_depth=3,
                         p_adv=0.0, p_pp=0.0,
                         p_subj_adj=0.0, p_obj_adj=0.0, p_coord=0.0, p_sub=0.1, p_time=0.0,
                         p_disc=0.0)
FLAT_CONFIG = FormConfig(p_subj_rel=0.0, p_obj_rel=0.0, p_adv=0.7, p_pp=0.8, p_subj_adj=0.8,
                         p_obj_adj=0.8,
                         p_coord=0.6, p_time=0.5, p_sub=0.0)
N_LENGTHS = MAX_WORDS + 1


@dataclass
class _Batch:
    """Candidates from one batch of forms: label (-1 = unusable), stratum (the quota cell: the
    label, or label and length for TreeDepth), final word ids, extras."""

    forms: Forms
    labels: np.ndarray
    strata: np.ndarray
    words: np.ndarray
    meta: dict[str, np.ndarray]


class _Task:
    """Everything one probing task needs for one language: reference statistics, classes, batch
    builder."""

    def __init__(self, world, name: str, lang: str) -> None:
        if name not in TASKS:
            raise ValueError(f"unknown probing task {name!r}; use one of {TASKS}.")
        self.w, self.name, self.lang = world, name, lang
        self.r = world.renderer(lang)
        self.T = self.r.T
        configs = {"CoordInv": (COORD_CONFIG,), "WC": (WC_CONFIG,),
                   "TreeDepth": (DEEP_CONFIG, FLAT_CONFIG,
                                 PROBING_CONFIG)}.get(name, (PROBING_CONFIG,))
        self.samplers = [self.sampler_for(c) for c in configs]
        self.classes: tuple[str, ...] = ()
        self.length_quota: np.ndarray | None = None  # TreeDepth: q(L)

    def sampler_for(self, config: FormConfig) -> FormSampler:
        return self.w.cached(("probing-sampler", config), lambda: FormSampler(self.w.seed, config))

    def pool(self, n: int, *stream: str | int) -> Forms:
        """``n`` forms, split evenly over this task's grammars."""
        k = len(self.samplers)
        parts = [self.w.forms(n // k, *stream, i, sampler=s) for i, s in enumerate(self.samplers)]
        return parts[0] if k == 1 else Forms.concat(parts)

    # -- reference statistics (cached per language) ------------------------------------------------
    def reference(self) -> dict:
        def build() -> dict:
            forms = self.w.forms(REFERENCE_SIZE, "probing-reference",
                                 sampler=self.sampler_for(PROBING_CONFIG))
            tree = self.r.ids(forms, tree=True, packed=False)
            words = self.r.ids(forms)
            ok = (self.length(words) >= MIN_WORDS) & (self.length(words) <= MAX_WORDS)
            v = len(self.T.words)
            a, b = words[:, :-1], words[:, 1:]
            pair = (a >= 0) & (b >= 0)
            bigram = np.bincount(a[pair].astype(np.int64) * v + b[pair],
                                 minlength=v * v).reshape(v, v)
            return {"unigram": np.bincount(words[words >= 0], minlength=v), "bigram": bigram,
                    "depth": tree_depth(tree, self.r.n_words)[ok],
                    "top": top_constituents(tree, self.r.n_words)[ok]}
        return self.w.cached(("probing-reference", self.lang), build)

    def partition(self, kind: str, size: int) -> np.ndarray:
        """Seeded split (0 train, 1 dev, 2 test) of ``size`` lemmas of ``kind``."""
        def build() -> np.ndarray:
            perm = self.w.rng("probing-partition", kind).permutation(size)
            cut = np.round(np.cumsum(SPLIT_FRACTIONS) * size).astype(int)
            out = np.zeros(size, np.int64)
            out[perm[cut[0]: cut[1]]] = 1
            out[perm[cut[1]:]] = 2
            return out
        return self.w.cached(("probing-partition", kind), build)

    def length(self, words: np.ndarray) -> np.ndarray:
        return ((words >= 0) & (words != self.T.comma) & (words != self.T.period)).sum(1)

    def words(self, forms: Forms, tree: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
        return self.r.ids(forms), (self.r.ids(forms, tree=True, packed=False) if tree else None)

    # -- classes -----------------------------------------------------------------------------------
    def setup(self) -> None:
        n = self.name
        if n == "SentLen":
            self.classes = tuple(f"{lo}-{lo + 3}" for lo in range(MIN_WORDS, MAX_WORDS, 4))
        elif n == "WC":
            words = self.r.ids(self.pool(REFERENCE_SIZE, "probing-reference-wc"))
            content = self.content_ids()
            freq = np.bincount(words[words >= 0], minlength=len(self.T.words))[content]
            seen = content[freq > 0][np.argsort(-freq[freq > 0], kind="stable")]
            band = seen[int(0.3 * len(seen)): int(0.7 * len(seen))][:1000]
            index = np.full(len(self.T.words), -1, np.int64)
            index[band] = np.arange(len(band))
            hit = (words >= 0) & (index[np.maximum(words, 0)] >= 0)
            alone = np.where(hit, index[np.maximum(words, 0)], -1).max(1)[hit.sum(1) == 1]
            band = band[np.bincount(alone, minlength=len(band)) >= 5]
            self.target_index = np.full(len(self.T.words), -1, np.int64)
            self.target_index[band] = np.arange(len(band))
            self.classes = tuple(self.T.words[i] for i in band)
        elif n == "TreeDepth":
            forms = self.pool(REFERENCE_SIZE, "probing-reference-depth")
            tree = self.r.ids(forms, tree=True, packed=False)
            length = self.length(self.r.ids(forms))
            ok = (length >= MIN_WORDS) & (length <= MAX_WORDS)
            depth = tree_depth(tree, self.r.n_words)[ok]
            joint = np.zeros((depth.max() + 9, N_LENGTHS))
            np.add.at(joint, (depth, length[ok]), 1)
            best = (-1.0, 0, None)
            for lo in range(len(joint) - 8):
                block = joint[lo: lo + 8]
                if (block.sum(1) == 0).any():
                    continue
                q = (block / block.sum(1, keepdims=True)).min(0)
                score = q.sum() * block.sum(1).min()
                if score > best[0]:
                    best = (score, lo, q / max(q.sum(), 1e-12))
            _, lo, self.length_quota = best
            self.depths = np.arange(lo, lo + 8)
            self.classes = tuple(str(x) for x in self.depths)
        elif n == "TopConst":
            codes, counts = np.unique(self.reference()["top"], return_counts=True)
            order = np.argsort(-counts, kind="stable")
            top = codes[order[:19]]
            self.top_codes = top
            self.classes = tuple(decode_top(c)
                                 for c in top) + (("other",) if len(codes) > 19 else ())
        elif n == "Tense":
            self.classes = TENSES[:2]
        elif n in ("SubjNum", "ObjNum"):
            self.classes = ("singular", "plural")
        elif n == "BShift":
            self.classes = ("original", "inverted")
        elif n == "SOMO":
            self.classes = ("original", "odd")
        elif n == "CoordInv":
            self.classes = ("original", "inverted")

    def content_ids(self) -> np.ndarray:
        T = self.T
        ids = np.concatenate([T.noun.ravel(), T.verb[..., 2].ravel(), T.adj.ravel(), T.adv])
        return np.unique(ids[ids >= 0])

    # -- batches -----------------------------------------------------------------------------------
    def quotas(self, n: int) -> np.ndarray:
        """Examples wanted per stratum for a split of ``n``: balanced classes, and for TreeDepth
        each class spread over lengths by q(L) (largest remainder)."""
        k = len(self.classes)
        need = n // k + (np.arange(k) < n % k)
        if self.length_quota is None:
            return need
        out = np.zeros((k, N_LENGTHS), np.int64)
        for c in range(k):
            exact = need[c] * self.length_quota
            out[c] = np.floor(exact)
            short = need[c] - out[c].sum()
            out[c, np.argsort(-(exact - out[c]), kind="stable")[:short]] += 1
        return out.ravel()

    def batch(self, forms: Forms, split: int, rng: np.random.Generator) -> _Batch:
        n = self.name
        main = lambda f: getattr(forms.clauses, f)[forms.main]  # noqa: E731
        tree_needed = n in ("TreeDepth", "TopConst")
        if n == "CoordInv":
            forms.inverted = rng.random(len(forms)) < 0.5
        words, tree = self.words(forms, tree_needed)
        length = self.length(words)
        ok = (length >= MIN_WORDS) & (length <= MAX_WORDS)
        meta: dict[str, np.ndarray] = {}
        if n == "SentLen":
            labels = (length - MIN_WORDS) // 4
        elif n == "WC":
            idx = self.target_index[np.maximum(words, 0)]
            hit = (words >= 0) & (idx >= 0)
            ok &= hit.sum(1) == 1
            labels = np.where(hit, idx, -1).max(1)
            meta["word"] = np.array(self.classes + ("",), dtype=object)[labels]
        elif n == "TreeDepth":
            d = tree_depth(tree, self.r.n_words)
            labels = d - self.depths[0]
            ok &= (labels >= 0) & (labels < 8)
            meta["length"] = length
        elif n == "TopConst":
            code = top_constituents(tree, self.r.n_words)
            hit = code[:, None] == self.top_codes[None, :]
            labels = np.where(hit.any(1), hit.argmax(1), len(self.top_codes))
            ok &= labels < len(self.classes)
        elif n == "Tense":
            labels = main("tense")
            part = self.partition("verbs", len(ENGLISH.verbs))
            ok &= (labels <= PRESENT) & (part[main("verb")] == split)
        elif n == "SubjNum":
            labels = main("subj_num")
            ok &= self.partition("nouns-subject", len(ENGLISH.nouns))[main("subj")] == split
        elif n == "ObjNum":
            labels = main("obj_num")
            obj = main("obj")
            ok &= (obj >= 0) & (self.partition("nouns-object",
                                               len(ENGLISH.nouns))[np.maximum(obj, 0)] == split)
        elif n == "BShift":
            labels, words, meta["position"] = self.bigram_shift(words, rng)
        elif n == "SOMO":
            labels, words, ok2, meta = self.odd_man_out(forms, words, split, rng)
            ok &= ok2
        else:  # CoordInv
            labels = forms.inverted.astype(np.int64)
            ok &= forms.coord >= 0
        labels = np.where(ok, labels, -1)
        strata = labels * N_LENGTHS + np.minimum(length, MAX_WORDS) if n == "TreeDepth" else labels
        return _Batch(forms, labels, np.where(ok, strata, -1), words, meta)

    def bigram_shift(self, words: np.ndarray, rng: np.random.Generator):
        T = self.T
        a, b = words[:, :-1], words[:, 1:]
        word = lambda x: (x >= 0) & (x != T.comma) & (x != T.period)  # noqa: E731
        can = word(a) & word(b) & (a != b)
        label = (rng.random(len(words)) < 0.5) & can.any(1)
        score = np.where(can, rng.random(can.shape), -1.0)
        pos = np.where(label, score.argmax(1), -1)
        out = words.copy()
        r = np.flatnonzero(label)
        out[r, pos[r]], out[r, pos[r] + 1] = words[r, pos[r] + 1], words[r, pos[r]]
        return label.astype(np.int64), out, pos

    def odd_man_out(self, forms: Forms, words: np.ndarray, split: int, rng: np.random.Generator):
        """Replace the main subject, object or verb by a frequency-matched word the verb does not
        admit."""
        E, T = ENGLISH, self.T
        c, m = forms.clauses, forms.main
        g = lambda f: getattr(c, f)[m]  # noqa: E731
        n = len(forms)
        subj, obj, verb, num, onum = g("subj"), g("obj"), g("verb"), g("subj_num"), g("obj_num")
        tense, neg = g("tense"), g("neg")
        o0 = np.maximum(obj, 0)
        vtok = T.verb[verb, tense, num, neg, 2]
        toks = np.stack([T.noun[subj, num, 0], np.where(obj >= 0, T.noun[o0, onum, 1], -1), vtok],
                        1)
        once = ((words[:, None, :] == toks[:, :, None]).sum(2) == 1) & (toks >= 0)
        kind = np.where(once, rng.random(once.shape), -1.0).argmax(1)
        has = once.any(1)
        tok = toks[np.arange(n), kind]
        pos = np.where(has, (words == tok[:, None]).argmax(1), 0)
        left = np.where(pos > 0, words[np.arange(n), np.maximum(pos - 1, 0)], -1)
        right = words[np.arange(n), np.minimum(pos + 1, words.shape[1] - 1)]
        right = np.where(pos + 1 < words.shape[1], right, -1)
        part_n = self.partition("somo-nouns", len(E.nouns))
        part_v = self.partition("somo-verbs", len(E.verbs))
        ref = self.reference()
        bigram = np.frexp(ref["bigram"] + 1.0)[1]  # exact integer log2 buckets (no libm rounding)
        new_tok = np.full(n, -1, np.int64)
        new_word = np.full(n, -1, np.int64)
        for k in range(3):
            r = np.flatnonzero(has & (kind == k))
            if r.size == 0:
                continue
            if k < 2:
                cand = np.arange(len(E.nouns))
                nouns = (subj, obj)[k][r]
                number = (num, onum)[k][r]
                ctok = T.noun[cand[None, :], number[:, None], k]
                admit = (E.subj_ok if k == 0 else E.obj_ok)[verb[r][:, None], cand[None, :]]
                valid = ~admit & (cand[None, :] != nouns[:,
                                                         None]) & (part_n[cand] == split)[None, :]
            else:
                cand = np.arange(len(E.verbs))
                ctok = T.verb[cand[None, :], tense[r][:, None], num[r][:, None], neg[r][:, None], 2]
                o = obj[r][:, None]
                fits = E.subj_ok[cand[None, :], subj[r][:, None]] & (
                    (o < 0) | E.obj_ok[cand[None, :], np.maximum(o, 0)])
                valid = (~fits & (E.transitive[cand][None, :] == E.transitive[verb[r]][:, None])
                         & (cand[None, :] != verb[r][:, None]) & (part_v[cand] == split)[None, :])
            valid &= T.vowel_initial[ctok] == T.vowel_initial[tok[r]][:, None]
            lt, rt, ot = left[r][:, None], right[r][:, None], tok[r][:, None]
            cost = np.zeros(ctok.shape, np.int64)
            cost += np.where(lt >= 0,
                             np.abs(bigram[np.maximum(lt, 0),
                                           ctok] - bigram[np.maximum(lt, 0), ot]), 0)
            cost += np.where(rt >= 0,
                             np.abs(bigram[ctok,
                                           np.maximum(rt, 0)] - bigram[ot, np.maximum(rt, 0)]), 0)
            key = np.where(valid, cost + rng.random(cost.shape) * 0.5, np.inf)  # random tie-break
            best = key.argmin(1)
            found = np.isfinite(key[np.arange(r.size), best])
            new_tok[r[found]] = ctok[np.arange(r.size), best][found]
            new_word[r[found]] = cand[best][found]
        ok = has & (new_tok >= 0)
        label = ok & (rng.random(n) < 0.5)
        out = words.copy()
        rr = np.flatnonzero(label)
        out[rr, pos[rr]] = new_tok[rr]
        vocab = np.array(T.words, dtype=object)
        meta = {"position": np.where(label, pos, -1),
                "original": np.where(label, vocab[np.maximum(tok, 0)], ""),
                "replacement": np.where(label, vocab[np.maximum(new_tok, 0)], "")}
        return label.astype(np.int64), out, ok, meta


def _collect(task: _Task, split: int, n: int, exclude: set[str]) -> ProbingSplit:
    """Draw batches until every stratum has its quota, skipping sentences already used (in any
    split)."""
    w = task.w
    need = task.quotas(n)
    size = int(min(BATCH, max(2048, 8 * n)))  # small requests render small batches
    have = np.zeros(need.size, np.int64)
    got: list[tuple[_Batch, np.ndarray, list[str]]] = []
    seen: set[str] = set()
    for b in range(MAX_BATCHES):
        if (have >= need).all():
            break
        if b == 100 and ((have == 0) & (need > 0)).any():
            raise RuntimeError(f"{task.name}: strata "
                               f"{np.flatnonzero((have == 0) & (need > 0)).tolist()} got no "
                               f"example in {b} batches; the grammar does not produce them in this "
                               "language.")
        sampler = task.samplers[b % len(task.samplers)]
        forms = w.forms(size, "probing", task.name, split, b, sampler=sampler)
        batch = task.batch(forms, split, w.rng("probing-batch", task.name, split, b))
        rows = np.flatnonzero(batch.strata >= 0)
        strings = join_rows(batch.words[rows], task.r.vocab)
        fresh = np.array([s not in exclude and s not in seen for s in strings], bool)
        unique = np.zeros(len(rows), bool)
        unique[np.unique(np.array(strings, dtype=object), return_index=True)[1]] = True
        keep = fresh & unique
        rows = rows[keep]
        strings = [s for s, k in zip(strings, keep) if k]
        cell = batch.strata[rows]
        order = np.argsort(cell, kind="stable")
        rank = np.empty(len(rows), np.int64)
        rank[order] = (have[cell[order]] + np.arange(len(rows))
                       - np.searchsorted(cell[order], cell[order]))
        take = rank < need[cell]
        have += np.bincount(cell[take], minlength=need.size)
        got.append((batch, rows[take], [s for s, t in zip(strings, take) if t]))
        seen.update(got[-1][2])
    if (have < need).any():
        raise RuntimeError(f"{task.name}: {int((need - have).clip(0).sum())} examples missing "
                           f"after {MAX_BATCHES} batches (rare classes or lengths); ask for fewer "
                           "examples.")
    forms = Forms.concat([g[0].forms.take(g[1]) for g in got])
    labels = np.concatenate([g[0].labels[g[1]] for g in got])
    strings = [s for g in got for s in g[2]]
    meta = {k: np.concatenate([g[0].meta[k][g[1]] for g in got]) for k in got[0][0].meta}
    idx = w.rng("probing-select", task.name, split).permutation(labels.size)
    return ProbingSplit([strings[i] for i in idx], labels[idx], forms.take(idx),
                        {k: v[idx] for k, v in meta.items()})


def make_probing(world, name: str, sizes: tuple[int, int, int], lang: str) -> ProbingSet:
    """Build task ``name`` with (train, dev, test) sizes in ``lang``; test is drawn first, then dev,
    then train, each excluding the sentences of the previous ones.

    Book: chapter 4 (Probing).
    """
    if min(sizes) < 1:
        raise ValueError(f"probing task {name!r}: train, dev and test sizes must each be at least "
                         f"1, got {sizes}; an evaluation needs examples in every split.")
    task = _Task(world, name, lang)
    task.setup()
    exclude: set[str] = set()
    splits = {}
    for split in (2, 1, 0):
        splits[split] = _collect(task, split, sizes[split], exclude)
        exclude.update(splits[split].sentences)
    return ProbingSet(name, lang, task.classes, splits[0], splits[1], splits[2])

