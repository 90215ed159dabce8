"""Gold bilingual lexicons between any two languages of the synthetic world (MUSE-style train/test
split).

Every language renders the same concepts, so translation pairs are known exactly. Citation forms
pair a noun's singular, a verb's dictionary form (English base form, invented languages' present
singular), an adjective's singular and each manner adverb; ``inflected=True`` adds every
feature-aligned inflected pair (plural nouns, each tense and number of a verb, plural adjectives),
which gives words several translations as in MUSE's dictionaries. Concepts, not pairs, are split, so
no source word is in both train and test.
Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

import numpy as np

from .datasets import BilingualLexicon
from .languages import LanguageTables


def _concept_pairs(src: LanguageTables, tgt: LanguageTables,
                   inflected: bool) -> list[list[tuple[int, int]]]:
    """For each concept (nouns, verbs, adjectives, manner adverbs in lexicon order) its aligned id
    pairs."""
    out: list[list[tuple[int, int]]] = []

    def cite_verb(t: LanguageTables, v: int) -> int:
        return int(t.verb[v, 2, 0, 0, 2] if t.typology.real else t.verb[v, 1, 0, 0, 2])

    for i in range(src.noun.shape[0]):
        nums = (0, 1) if inflected else (0,)
        out.append([(int(src.noun[i, n, 0]), int(tgt.noun[i, n, 0])) for n in nums])
    for v in range(src.verb.shape[0]):
        pairs = [(cite_verb(src, v), cite_verb(tgt, v))]
        if inflected:
            pairs += [(int(src.verb[v, t, n, 0, 2]), int(tgt.verb[v, t, n, 0, 2])) for t in range(3)
                      for n in (0, 1)]
        out.append(pairs)
    for a in range(src.adj.shape[0]):
        nums = (0, 1) if inflected else (0,)
        out.append([(int(src.adj[a, n]), int(tgt.adj[a, n])) for n in nums])
    for r in range(len(src.adv)):
        out.append([(int(src.adv[r]), int(tgt.adv[r]))])
    return [list(dict.fromkeys(p)) for p in out]


def gold_lexicon(src: LanguageTables, tgt: LanguageTables, rng: np.random.Generator,
                 test_fraction: float = 0.2,
                 inflected: bool = False) -> BilingualLexicon:
    """Split the concepts at random (``rng``) into train and test and list their word pairs.

    Book: chapter 5 (Word translation without parallel data).
    """
    if not 0.0 < test_fraction < 1.0:
        raise ValueError(f"test_fraction={test_fraction} must be strictly between 0 and 1.")
    concepts = _concept_pairs(src, tgt, inflected)
    perm = rng.permutation(len(concepts))
    n_test = max(1, int(round(test_fraction * len(concepts))))
    is_test = np.zeros(len(concepts), bool)
    is_test[perm[:n_test]] = True
    words = lambda pairs: [(src.words[a], tgt.words[b]) for a, b in pairs]  # noqa: E731
    train = [p for c in np.flatnonzero(~is_test) for p in words(concepts[c])]
    test = [p for c in np.flatnonzero(is_test) for p in words(concepts[c])]
    return BilingualLexicon(src.code, tgt.code, train, test)
