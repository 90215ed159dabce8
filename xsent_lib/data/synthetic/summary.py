"""Tables that describe the synthetic world: what each part stands in for, the languages' typology,
renderings, word roles, samples of its NLI / STS / probing sets, corpus statistics and generation
speed.

Book: chapter 1 (Data: the corpora and the synthetic world).
"""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from xsent_lib.data.summary import SYNTHETIC_USES, chapter_list, token_counts
from xsent_lib.data.synthetic import LANGUAGES, PROBING_TASKS, NLISet, STSSet, SyntheticWorld
from xsent_lib.data.synthetic.forms import FRONT_NONE, FUTURE, Forms


def synthetic_table() -> pd.DataFrame:
    """The parts of the synthetic world, what each stands in for, and the chapters that use it.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    return pd.DataFrame([{"data set": name, "stands in for": what,
                          "chapters": chapter_list(chapters)}
                         for name, (what, chapters) in SYNTHETIC_USES.items()])


def typology_table(languages: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per language of the synthetic world: word order, modifier order, adpositions,
    negation, future and the morphemes (plural, case, tense and agreement suffixes; ``-`` where the
    language marks nothing).

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    codes = list(LANGUAGES) if languages is None else list(languages)
    unknown = [c for c in codes if c not in LANGUAGES]
    if unknown:
        raise ValueError(f"unknown languages {unknown}; the synthetic world knows "
                         f"{sorted(LANGUAGES)}.")

    def morphs(xs: Sequence[str]) -> str:
        return " / ".join(x or "-" for x in xs) if any(xs) else "-"

    rows = []
    for code in codes:
        t = LANGUAGES[code]
        rows.append({"code": t.code, "name": t.name, "order": t.order, "adjective": t.adjective,
                     "relative clause": t.relative, "adposition": t.adposition,
                     "articles": t.articles,
                     "negation": t.negation, "future": t.future, "plural": t.plural or "-",
                     "case (nom / acc / obl)": morphs(t.cases),
                     "tense (past / pres / fut)": morphs(t.tense_suffixes),
                     "agreement (sg / pl)": morphs(t.agreement)})
    return pd.DataFrame(rows)


def showcase_forms(world: SyntheticWorld, pool: int = 4096, stream: str = "showcase") -> Forms:
    """Three logical forms that show the typologies: a plain transitive clause with a subject
    adjective, a clause with a relative clause on its subject, and a negated future clause with a
    place phrase.

    Taken (first match) from ``pool`` forms of the stream ``stream``; ValueError if the pool has
    none.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    f = world.forms(pool, stream)
    c, m = f.clauses, f.main
    plain = ((f.coord < 0) & (f.sub < 0) & (f.front == FRONT_NONE) & (c.obj[m] >= 0)
             & (c.subj_pro[m] == 0)
             & (c.obj_pro[m] == 0) & (c.adv[m] < 0) & (c.time[m] < 0) & (c.obj_rel[m] < 0)
             & (c.obj_adj[m] < 0)
             & (c.subj[m] != c.obj[m]))
    wanted = [
        plain & (c.subj_adj[m] >= 0) & (c.subj_rel[m] < 0) & (c.pp[m] < 0) & (c.neg[m] == 0),
        plain & (c.subj_adj[m] < 0) & (c.subj_rel[m] >= 0) & (c.pp[m] < 0) & (c.neg[m] == 0),
        plain & (c.subj_adj[m] < 0) & (c.subj_rel[m] < 0) & (c.pp[m] >= 0) & (c.neg[m] == 1)
        & (c.tense[m] == FUTURE),
    ]
    found = [np.flatnonzero(w) for w in wanted]
    if any(len(x) == 0 for x in found):
        raise ValueError(f"no showcase form among {pool} forms; pass a larger pool.")
    return f.take(np.array([x[0] for x in found]))


def renderings_table(world: SyntheticWorld, forms: Forms,
                     languages: Sequence[str] | None = None) -> pd.DataFrame:
    """Every form rendered in every language, with its interlinear gloss: columns form, language,
    sentence, gloss.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    rows = []
    for lang in languages or world.languages:
        for i, (s, g) in enumerate(zip(world.render(forms, lang),
                                       world.render(forms, lang, gloss=True))):
            rows.append({"form": i, "language": lang, "sentence": s, "gloss": g})
    return pd.DataFrame(rows).sort_values(["form"], kind="stable").reset_index(drop=True)


def word_roles(world: SyntheticWorld, forms: Forms, index: int = 0,
               languages: Sequence[str] | None = None) -> dict[str, list[tuple[str, str, str]]]:
    """The words of form ``index`` in each language as ``(word, gloss, role)``; roles are
    ``subject``, ``verb``, ``object``, ``adjective`` (of the subject) or ``other``, read off the
    word-form tables of each language.

    Meant for the single-clause forms of :func:`showcase_forms` (the subject's and object's heads,
    the main verb).
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    one = forms.take(np.array([index]))
    c, m = one.clauses, int(one.main[0])
    out = {}
    for lang in languages or world.languages:
        t = world.tables(lang)
        roles = {}
        for role, ids in (("subject", t.noun[c.subj[m]]), ("object", t.noun[c.obj[m]]
                                                           if c.obj[m] >= 0 else []),
                          ("verb", t.verb[c.verb[m], ..., 2]),
                          ("adjective", t.adj[c.subj_adj[m]] if c.subj_adj[m] >= 0 else [])):
            roles.update({int(i): role for i in np.ravel(ids) if i >= 0})
        ids = world.ids(one, lang)[0]
        ids = ids[ids >= 0]
        words, glosses = (world.render(one, lang)[0].split(" "),
                          world.render(one, lang, gloss=True)[0].split(" "))
        out[lang] = [(w, g, roles.get(int(i), "other")) for w, g, i in zip(words, glosses, ids)]
    return out


def nli_samples(nli: NLISet, per_label: int = 2) -> pd.DataFrame:
    """The first ``per_label`` pairs of each label: premise, hypothesis, label name and the
    construction used.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    rows = []
    for label, name in enumerate(nli.label_names):
        for i in np.flatnonzero(nli.label == label)[:per_label]:
            rows.append({"premise": nli.premise[i], "hypothesis": nli.hypothesis[i], "label": name,
                         "construction": nli.strategy[i]})
    return pd.DataFrame(rows, columns=["premise", "hypothesis", "label", "construction"])


def sts_samples(sts: STSSet, k: int = 5) -> pd.DataFrame:
    """``k`` pairs spread over the score range (the pairs at evenly spaced ranks of the score),
    highest first.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    if len(sts) == 0:
        raise ValueError("the STS set is empty.")
    order = np.argsort(-sts.score, kind="stable")
    picks = order[np.unique(np.linspace(0, len(sts) - 1, min(k, len(sts))).round().astype(int))]
    return pd.DataFrame({"a": [sts.a[i] for i in picks], "b": [sts.b[i] for i in picks],
                         "score": np.round(sts.score[picks], 3)})


def probing_samples(world: SyntheticWorld, tasks: Sequence[str] = PROBING_TASKS, per_task: int = 2,
                    lang: str = "en", n_test: int = 16) -> pd.DataFrame:
    """For each probing task, ``per_task`` test sentences with distinct labels when possible, the
    class name, the number of classes and the task's extra fields (e.g. the swapped position of
    BShift).

    Each task is built with ``n_test`` test sentences (and two train and dev ones, never shown).
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    rows = []
    for task in tasks:
        p = world.probing(task, 2, 2, n_test, lang)
        labels = p.test.labels
        first = np.unique(labels, return_index=True)[1]
        picks = np.concatenate([np.sort(first),
                                np.setdiff1d(np.arange(len(labels)), first)])[:per_task]
        for i in picks:
            extra = {k: (v[i].item() if hasattr(v[i], "item") else v[i])
                     for k, v in p.test.meta.items()}
            rows.append({"task": task, "sentence": p.test.sentences[i],
                         "class": p.classes[labels[i]],
                         "classes": len(p.classes),
                         "extra": ", ".join(f"{k}={v}" for k, v in extra.items())})
    return pd.DataFrame(rows, columns=["task", "sentence", "class", "classes", "extra"])


def synthetic_stats(world: SyntheticWorld, n: int, languages: Sequence[str] | None = None,
                    split: str = "train") -> pd.DataFrame:
    """Per language, ``n`` sentences of the same forms (parallel): mean, median and maximum tokens,
    the distinct words they use and the size of the language's vocabulary.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    forms = world.forms(n, "parallel", split)
    rows = []
    for lang in languages or world.languages:
        ids = world.ids(forms, lang)
        lengths = (ids >= 0).sum(1)
        rows.append({"language": lang, "sentences": n,
                     "mean tokens": round(float(lengths.mean()), 2),
                     "median": float(np.median(lengths)), "max": int(lengths.max()),
                     "distinct words": int(np.unique(ids[ids >= 0]).size),
                     "vocabulary": len(world.tables(lang).words)})
    return pd.DataFrame(rows)


def nli_token_means(sets: Mapping[str, NLISet]) -> dict[str, dict[str, float]]:
    """Mean tokens (:func:`token_counts`) of premises and hypotheses per language, as ``{"Premise":
    {lang: x}, "Hypothesis": {...}}``: the layout of the thesis's Table 4.8 (XNLI).

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    return {"Premise": {lang: round(float(token_counts(s.premise).mean()), 2)
                        for lang, s in sets.items()},
            "Hypothesis": {lang: round(float(token_counts(s.hypothesis).mean()), 2)
                           for lang, s in sets.items()}}


def generation_speed(world: SyntheticWorld, n: int, lang: str = "en",
                     split: str = "train") -> dict[str, float]:
    """Time the library's generator on ``n`` sentences of ``lang``: sampling the forms, then
    rendering strings.

    Exactly what ``world.sentences(n, lang, split)`` does, split in two timed steps after a
    1,000-sentence warm-up (which builds the language's tables). Returns seconds, sentences/s and
    mean tokens.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    if n < 1:
        raise ValueError(f"n must be a positive number of sentences, got {n!r}.")
    world.render(world.forms(1000, "warm-up"), lang)
    t0 = time.perf_counter()
    forms = world.forms(n, "corpus", split, lang)
    t1 = time.perf_counter()
    sentences = world.render(forms, lang)
    t2 = time.perf_counter()
    spaces = np.fromiter(map(str.count, sentences, [" "] * len(sentences)), dtype=np.int64,
                         count=len(sentences))
    return {"language": lang, "sentences": n, "forms_s": round(t1 - t0, 3),
            "render_s": round(t2 - t1, 3),
            "total_s": round(t2 - t0, 3), "sentences_per_s": round(n / (t2 - t0)),
            "mean_tokens": round(float(spaces.mean()) + 1, 2)}
