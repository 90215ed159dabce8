"""Benchmark the synthetic world: logical forms and English rendering, vectorised vs one sentence at
a time.

    python benchmarks/bench_synthetic.py [--quick]

Measures, on the same machine and in one run:
1. form sampling: the vectorised sampler (``SyntheticWorld.forms``) against a naive per-sentence
   sampler that draws each field with its own random call (main clause only, so the baseline does
   less work than the real sampler and its rate is an upper bound);
2. rendering English strings: the vectorised renderer against a per-sentence recursive renderer of
   the *same* forms (their outputs are compared and must be identical, which also checks the
   renderer);
3. end to end: forms + English strings for the full size (1M sentences, 100k with ``--quick``), plus
   another language and the constituency trees at a tenth of that size.
Writes ``_build/benchmarks/synthetic.json`` with provenance.
Book: chapter 1 (Data: the synthetic world).
"""
from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np

from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.synthetic.english import ENGLISH as E
from xsent_lib.data.synthetic.forms import FRONT_DISC, FRONT_PP, FRONT_SUB, FRONT_TIME, Forms
from xsent_lib.results.provenance import collect_provenance

OUT = Path("_build/benchmarks/synthetic.json")


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


# -- naive baseline: one sentence at a time --------------------------------------------------------
def naive_forms(world: SyntheticWorld, n: int, seed: int) -> list[dict]:
    """Main clauses drawn field by field with Python's random (the baseline the vectorised sampler
    replaces)."""
    s, cfg, r = world.sampler, world.sampler.config, random.Random(seed)
    verbs = list(range(len(E.verbs)))
    out = []
    for _ in range(n):
        v = r.choices(verbs, weights=s.verb_w)[0]
        subj = r.choices(range(len(E.nouns)), weights=E.subj_ok[v] * s.noun_w)[0]
        obj = r.choices(range(len(E.nouns)),
                        weights=E.obj_ok[v] * s.noun_w)[0] if E.transitive[v] else -1
        adj = r.choices(range(len(E.adjectives)), weights=E.adj_ok[:, subj] * s.adj_w)[0] \
            if r.random() < cfg.p_subj_adj and s.has_adj[subj] else -1
        out.append({"subj": subj, "verb": v, "obj": obj, "subj_adj": adj,
                    "tense": r.choices(range(3), cfg.tense)[0], "neg": int(r.random() < cfg.p_neg),
                    "subj_num": int(r.random() < cfg.p_plural),
                    "obj_num": int(r.random() < cfg.p_plural),
                    "subj_def": int(r.random() < cfg.p_subj_def),
                    "obj_def": int(r.random() < cfg.p_obj_def)})
    return out


class NaiveEnglish:
    """Per-sentence recursive English renderer of :class:`Forms` (same grammar as the vectorised
    one)."""

    PRON = (("he", "him"), ("she", "her"), ("it", "it"))

    def __init__(self, forms: Forms) -> None:
        self.f, self.c = forms, forms.clauses
        self.person = E.noun_ancestors[:, E.nouns.index("person")]

    def np_(self, noun, num, det, adj, pro, rel, case, npi) -> list[str]:
        if noun < 0:
            return []
        if pro:
            return [(("they", "them") if num else self.PRON[E.noun_gender[noun]])[1 if case else 0]]
        word = E.plurals[noun] if num else E.nouns[noun]
        a = [E.adjectives[adj]] if adj >= 0 else []
        if det:
            d = ["the"]
        elif npi:
            d = ["any"]
        else:
            d = [] if num else (["an"] if (a or [word])[0][0] in "aeiou" else ["a"])
        out = d + a + [word]
        if rel >= 0:
            out += ["who" if self.person[noun] else "that"] + self.clause(rel, gap=True)
        return out

    def verb(self, v, tense, num, neg) -> list[str]:
        if tense == 2:
            return ["will"] + (["not"] if neg else []) + [E.verbs[v]]
        if neg:
            return [("did" if tense == 0 else ("does" if num == 0 else "do")), "not", E.verbs[v]]
        return [E.verbs_past[v] if tense == 0 else (E.verbs_3sg[v] if num == 0 else E.verbs[v])]

    def clause(self, i, gap=False, hide_time=False, hide_pp=False, sub=-1) -> list[str]:
        c = self.c
        out = [] if gap else self.np_(c.subj[i], c.subj_num[i], c.subj_def[i], c.subj_adj[i],
                                      c.subj_pro[i], c.subj_rel[i], 0, False)
        out += self.verb(c.verb[i], c.tense[i], c.subj_num[i], c.neg[i])
        out += self.np_(c.obj[i], c.obj_num[i], c.obj_def[i], c.obj_adj[i], c.obj_pro[i],
                        c.obj_rel[i], 1, c.neg[i] == 1)
        if c.adv[i] >= 0:
            out.append(E.adverbs[c.adv[i]])
        if c.pp[i] >= 0 and not hide_pp:
            out += [E.prepositions[c.prep[i]], "the", E.nouns[c.pp[i]]]
        if c.time[i] >= 0 and not hide_time:
            out.append(E.time_adverbs[c.time[i]])
        if sub >= 0:
            out += [E.subordinators[self.f.sub_conj[self.k]]] + self.clause(sub)
        return out

    def sentence(self, k: int) -> str:
        f, c = self.f, self.c
        self.k = k
        m, front = f.main[k], f.front[k]
        head: list[str] = []
        if front == FRONT_SUB:
            head = [E.subordinators[f.sub_conj[k]]] + self.clause(f.sub[k]) + [","]
        elif front == FRONT_DISC:
            head = [E.discourse_adverbs[f.disc[k]], ","]
        elif front == FRONT_PP:
            head = [E.prepositions[c.prep[m]], "the", E.nouns[c.pp[m]], ","]
        elif front == FRONT_TIME:
            head = [E.time_adverbs[c.time[m]]]
        body = self.clause(m, hide_time=front == FRONT_TIME, hide_pp=front == FRONT_PP,
                           sub=f.sub[k] if front != FRONT_SUB else -1)
        if f.coord[k] >= 0:
            second = self.clause(f.coord[k])
            a, b = (second, body) if f.inverted[k] else (body, second)
            body = a + ([","] if f.conj[k] == 1 else []) + [E.conjunctions[f.conj[k]]] + b
        return " ".join(head + body + ["."])


def naive_render(forms: Forms) -> list[str]:
    r = NaiveEnglish(forms)
    return [r.sentence(k) for k in range(len(forms))]


def main() -> None:
    """Run the measurements and print a table with ratios. Book: chapter 1 (Data: the synthetic
    world)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="100k sentences instead of 1M (under a minute)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    n_full = 100_000 if args.quick else 1_000_000
    n_naive = 5_000 if args.quick else 20_000
    world = SyntheticWorld(seed=0)
    world.forms(1000, "warm-up"), world.render(world.forms(1000, "warm-up"), "en")

    t_naive_forms, _ = timed(lambda: naive_forms(world, n_naive, 0))
    t_fast_forms_small, small = timed(lambda: world.forms(n_naive, "bench"))
    t_naive_render, naive = timed(lambda: naive_render(small))
    t_fast_render_small, fast = timed(lambda: world.render(small, "en"))
    agree = naive == fast
    if not agree:
        bad = next(i for i, (a, b) in enumerate(zip(naive, fast)) if a != b)
        raise SystemExit(f"naive and vectorised renderers disagree at {bad}:\n  {naive[bad]}\n  "
                         f"{fast[bad]}")

    t_forms, forms = timed(lambda: world.forms(n_full, "bench"))
    t_render, sents = timed(lambda: world.render(forms, "en"))
    tenth = forms.take(np.arange(n_full // 10))
    t_xb, _ = timed(lambda: world.render(tenth, "xb"))
    t_tree, _ = timed(lambda: world.render(tenth, "en", tree=True))
    n_words = sum(len(s.split()) for s in sents[:10_000]) / 10_000

    rate = lambda n, t: n / t  # noqa: E731
    rows = [
        ("forms (naive, main clause only)", n_naive, t_naive_forms),
        ("forms (vectorised, full grammar)", n_naive, t_fast_forms_small),
        ("render en (naive per sentence)", n_naive, t_naive_render),
        ("render en (vectorised)", n_naive, t_fast_render_small),
        (f"forms, {n_full:,} sentences", n_full, t_forms),
        (f"render en, {n_full:,} sentences", n_full, t_render),
        (f"render xb, {n_full // 10:,} sentences", n_full // 10, t_xb),
        (f"trees en, {n_full // 10:,} sentences", n_full // 10, t_tree),
    ]
    print(f"{'step':40s} {'n':>10s} {'seconds':>9s} {'sentences/s':>13s}")
    for name, n, t in rows:
        print(f"{name:40s} {n:10,d} {t:9.2f} {rate(n, t):13,.0f}")
    speed_forms = t_naive_forms / t_fast_forms_small
    speed_render = t_naive_render / t_fast_render_small
    print(f"speed-up: forms x{speed_forms:.0f} (vs a baseline that samples less), rendering "
          f"x{speed_render:.0f}; naive and vectorised strings identical: {agree}")
    print(f"end to end: {n_full:,} English sentences (mean {n_words:.1f} tokens) in "
          f"{t_forms + t_render:.1f} s")

    params = {"n_full": n_full, "n_naive": n_naive, "seed": 0, "quick": args.quick}
    record = {"rows": [{"step": a, "n": b, "seconds": c, "sentences_per_s": rate(b, c)}
                       for a, b, c in rows],
              "speedup_forms": speed_forms, "speedup_render": speed_render,
              "renderers_agree": agree, "end_to_end_seconds": t_forms + t_render,
              "mean_tokens": n_words, "provenance": collect_provenance(params, device="cpu")}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
