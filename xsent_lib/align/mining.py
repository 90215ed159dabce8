"""Mining sentence pairs across languages with CSLS, and swapping each mined sentence into its
partner's context: the retrieval half of Wang et al.'s stage 2 (the regression loss is
:func:`xsent_lib.losses.context.coherence_regression_loss`).

Book: chapter 9 (Multilingual embeddings from monolingual text).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from xsent_lib.base.neighbors import csls_knn, l2_normalize
from xsent_lib.base.runtime import DeviceLike
from xsent_lib.losses.context import ContextExamples, context_windows, int_vector


@dataclass(frozen=True)
class MinedPairs:
    """Sentence pairs mined by CSLS: corpus indices, CSLS score and cosine (the regression target).

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """

    query: np.ndarray
    partner: np.ndarray
    csls: np.ndarray
    cosine: np.ndarray


def mine_coherent_pairs(embeddings: np.ndarray, *, m: int = 10_000, n_pairs: int = 1000,
                        k_neighbors: int = 10, query_pool: np.ndarray | None = None,
                        candidate_pool: np.ndarray | None = None, seed: int = 0,
                        use_faiss: bool = True, device: DeviceLike = None) -> MinedPairs:
    """One retrieval draw: ``m`` queries and ``m`` disjoint candidates, keep the ``n_pairs`` best
    CSLS matches.

    Our reading of the paper's "sample m x m sentences and choose min(m x m, 1000) pairs": each
    query takes its CSLS-best candidate (``csls_knn``, neighbourhoods computed inside the sample,
    ``K = 10`` as in MUSE since the paper gives none) and the ``n_pairs`` highest-scoring queries
    are kept.
    Restrict ``query_pool`` / ``candidate_pool`` (corpus indices) to e.g. two languages for
    cross-lingual pairs; by default pairs may be of any language, as in the paper. The search runs
    on ``device`` (``None``: the chapter's).
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    embeddings = np.asarray(embeddings)
    n = embeddings.shape[0]
    rng = np.random.default_rng(seed)
    q_pool = np.arange(n) if query_pool is None else int_vector("query_pool", query_pool)
    q = rng.choice(q_pool, size=min(m, len(q_pool)), replace=False)
    c_all = np.arange(n) if candidate_pool is None else int_vector("candidate_pool", candidate_pool)
    c_pool = np.setdiff1d(c_all, q)
    c = rng.choice(c_pool, size=min(m, len(c_pool)), replace=False)
    if min(len(q), len(c)) < k_neighbors:
        raise ValueError(f"only {len(q)} queries and {len(c)} candidates available; CSLS needs at "
                         f"least k_neighbors={k_neighbors} on each side.")
    scores, idx = csls_knn(embeddings[q], embeddings[c], k_neighbors, 1, use_faiss=use_faiss,
                           device=device)
    best = np.argsort(-scores[:, 0], kind="stable")[: min(n_pairs, len(q))]
    query, partner = q[best], c[idx[best, 0]]
    cosine = np.sum(l2_normalize(embeddings[query]) * l2_normalize(embeddings[partner]),
                    axis=1)
    return MinedPairs(query, partner, scores[best, 0], cosine.astype(np.float32))


def build_coherence_examples(pairs: MinedPairs, doc_ids: np.ndarray, *,
                             k: int = 1) -> ContextExamples:
    """Stage-2 examples: swap each mined sentence into its partner's context, both ways.

    Returns ``2 * n_pairs`` windows (query's context holding the partner, then the partner's context
    holding the query) whose target is the pair's cosine, computed at mining time.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    a = context_windows(doc_ids, k, pairs.query)
    b = context_windows(doc_ids, k, pairs.partner)
    a[:, k], b[:, k] = pairs.partner, pairs.query
    windows = np.stack([a, b], axis=1).reshape(-1, a.shape[1])
    return ContextExamples(windows, np.repeat(pairs.cosine.astype(np.float32), 2))
