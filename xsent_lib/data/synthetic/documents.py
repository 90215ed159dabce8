"""Documents: consecutive sentences about a shared cast of entities in one setting (for
context-based training).

A document has three entities (nouns with a number), a place and a tense (past for narratives, else
present). Sentence j is about an entity: the previous sentence's subject again with probability 0.4
(then usually a pronoun), otherwise a random entity of the document, or, one time in ten, someone
new. Its object is another entity the verb can take, when there is one (probability 0.6). An
entity's first mention is indefinite ("a dog"), later ones definite ("the dog"); half the sentences
are set in the document's place, and later sentences may open with a discourse adverb ("then ,").
Shuffling the sentences breaks exactly these cues (pronouns and definites before their antecedents,
"then" first), which is what a coherence model must notice (Wang et al.'s sentence-context
classification). Documents are vectorised over documents, looping only over the few sentence
positions.

Book: chapter 9 (Multilingual embeddings from monolingual text).
"""
from __future__ import annotations

import numpy as np

from .datasets import DocumentSet
from .english import ENGLISH
from .forms import (
    FRONT_DISC,
    FRONT_NONE,
    FRONT_PP,
    PAST,
    PRESENT,
    Clauses,
    FormConfig,
    Forms,
    FormSampler,
)

DOC_CONFIG = FormConfig(p_coord=0.0, p_sub=0.0, p_disc=0.0, p_time=0.0, p_pp=0.0, p_subj_rel=0.08,
                        p_obj_rel=0.06)
N_ENTITIES = 3


def document_forms(sampler: FormSampler, rng: np.random.Generator, n_docs: int,
                   n_sents: int) -> Forms:
    """Forms of ``n_docs`` documents, sentence-major within each document (row ``d * n_sents + j``).

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    E = ENGLISH
    seeds = sampler.clause_fields(rng, n_docs * N_ENTITIES, "main")
    ent = seeds["subj"].reshape(n_docs, N_ENTITIES)
    ent_num = seeds["subj_num"].reshape(n_docs, N_ENTITIES)
    place = sampler.place(0, rng, size=n_docs)
    tense = np.where(rng.random(n_docs) < 0.7, PAST, PRESENT)
    mentioned = np.zeros((n_docs, N_ENTITIES), bool)
    prev = np.full(n_docs, -1)
    docs = np.arange(n_docs)
    batches = []
    for j in range(n_sents):
        k = np.where((prev >= 0) & (rng.random(n_docs) < 0.4), prev,
                     rng.integers(0, N_ENTITIES, n_docs))
        fresh = rng.random(n_docs) < 0.1
        subj = np.where(fresh, -1, ent[docs, k])
        f = sampler.clause_fields(rng, n_docs, "main", subj=subj, tense=tense)
        known = ~fresh & mentioned[docs, k]
        f["subj_num"] = np.where(fresh, f["subj_num"], ent_num[docs, k])
        f["subj_def"] = np.where(fresh, 0, known.astype(np.int64))
        again = ~fresh & (k == prev)
        f["subj_pro"] = (again & sampler.pronominal[f["subj"]]
                         & (rng.random(n_docs) < 0.8)).astype(np.int64)
        f["subj_adj"] = np.where(known, -1, f["subj_adj"])
        # object: another entity the verb can take
        cand = E.obj_ok[f["verb"][:, None], ent] & (np.arange(N_ENTITIES)[None, :] != k[:, None])
        score = np.where(cand, rng.random(cand.shape), -1.0)
        o = score.argmax(1)
        use = cand.any(1) & (f["obj"] >= 0) & (rng.random(n_docs) < 0.6)
        f["obj"] = np.where(use, ent[docs, o], f["obj"])
        f["obj_num"] = np.where(use, ent_num[docs, o], f["obj_num"])
        f["obj_def"] = np.where(use, mentioned[docs, o], f["obj_def"]).astype(np.int64)
        f["obj_adj"] = np.where(use & mentioned[docs, o], -1, f["obj_adj"])
        at = rng.random(n_docs) < 0.5
        f["pp"] = np.where(at, place, -1)
        f["prep"] = np.where(at, sampler.prep_for_place(place, rng), -1)
        mentioned[docs[~fresh], k[~fresh]] = True
        mentioned[docs[use], o[use]] = True
        prev = np.where(fresh, -1, k)
        batches.append(f)
    fields = {key: np.stack([b[key] for b in batches], 1).ravel() for key in batches[0]}
    n = n_docs * n_sents
    pool: list[dict] = []
    sampler.add_relatives(rng, pool, fields, 0, n)
    clauses = Clauses(**{f: np.concatenate([fields[f]] + [b[f] for b in pool]) for f in fields})
    position = np.tile(np.arange(n_sents), n_docs)
    disc = (position > 0) & (rng.random(n) < 0.3)
    front = np.where(disc, FRONT_DISC, np.where((clauses.pp[:n] >= 0) & (rng.random(n) < 0.2),
                                                FRONT_PP, FRONT_NONE))
    none = np.full(n, -1, np.int64)
    return Forms(clauses, np.arange(n), none, none.copy(), none.copy(), none.copy(), front,
                 np.where(disc, rng.integers(0, len(E.discourse_adverbs), n), -1),
                 np.zeros(n, bool))


def make_documents(world, n_docs: int, n_sents: int, lang: str, split: str, shuffle: bool,
                   parallel: bool) -> DocumentSet:
    """Render documents in ``lang``; ``shuffle`` permutes each document's sentences (seeded).

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    if n_sents < 1:
        raise ValueError(f"n_sents={n_sents} must be at least 1.")
    sampler = world.cached(("doc-sampler",), lambda: FormSampler(world.seed, DOC_CONFIG))
    key = ("documents", split, n_docs, n_sents) + (() if parallel else (lang,))
    forms = document_forms(sampler, world.rng(*key), n_docs, n_sents)
    order = np.tile(np.arange(n_sents), (n_docs, 1))
    if shuffle:
        order = world.rng(*key, "shuffle").permuted(order, axis=1)
    sents = np.array(world.render(forms, lang), dtype=object).reshape(n_docs, n_sents)
    return DocumentSet(lang, np.take_along_axis(sents, order, 1).tolist(), order, forms)
