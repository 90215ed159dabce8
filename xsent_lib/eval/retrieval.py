"""Caption/image-style ranking retrieval: R@K and median rank, with a learned joint space
(SentEval's COCO).

Queries (captions) and items (images, or any vectors) each have a linear map into a joint space,
trained with the pairwise ranking loss of the thesis (hinge with margin alpha over the in-batch
contrastive items and queries, cosine similarity). Each query has one gold item; an item may have
several queries (five captions per COCO image). ``query_to_item`` is image retrieval from a caption
(rank of its image); ``item_to_query`` is caption retrieval from an image (best rank among its
captions).
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import torch

from xsent_lib.base.runtime import pick_device
from xsent_lib.base.threads import single_thread
from xsent_lib.eval.classifier import SMALL_WORK


def _ranks_summary(ranks: np.ndarray, ks: tuple[int, ...]) -> dict:
    out = {f"r@{k}": 100 * float((ranks <= k).mean()) for k in ks}
    out["medr"] = float(np.median(ranks))
    return out


def ranking_metrics(sim: np.ndarray, gold_item: np.ndarray,
                    ks: tuple[int, ...] = (1, 5, 10)) -> dict:
    """R@K (percent) and median rank in both directions from a (n_queries, n_items) similarity
    matrix.

    Ranks start at 1 and a tie counts against the query (pessimistic rank): the gold item's rank is
    the number of items scoring at least as high as it, itself included, so a constant similarity
    ranks every gold last instead of first. An item's rank among the queries is that of its best
    query, counting the queries of other items that score at least as high (its own other queries,
    e.g. a second caption of the same image, are not counted against it). A NaN or infinite
    similarity, or no query, raises a ValueError.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    sim = np.asarray(sim, dtype=np.float64)
    gold_item = np.asarray(gold_item, dtype=np.int64)
    if sim.ndim != 2 or gold_item.shape != (sim.shape[0],):
        raise ValueError("sim must be (n_queries, n_items) and gold_item (n_queries,), got "
                         f"{sim.shape}, {gold_item.shape}.")
    if sim.shape[0] == 0:
        raise ValueError(f"no queries to rank (sim has shape {sim.shape}); the test "
                         "split is empty.")
    bad = np.flatnonzero(~np.isfinite(sim).all(1))
    if bad.size:
        raise ValueError(f"sim row {bad[0]} (query {bad[0]}) holds NaN or infinite similarities "
                         f"({bad.size} bad rows); a NaN would rank first. Check the query and "
                         "item vectors.")
    if gold_item.min() < 0 or gold_item.max() >= sim.shape[1]:
        raise ValueError("gold_item holds indices outside the item range.")
    own = sim[np.arange(len(gold_item)), gold_item]
    q_rank = (sim >= own[:, None]).sum(1)
    # rank of query q among the other items' queries for its own item, then the best over each
    # item's queries
    col = sim[:, gold_item]  # (n_q, n_q): column j = every query's score for query j's item
    per_query = 1 + ((col >= own[None, :]) & (gold_item[:, None] != gold_item[None, :])).sum(0)
    items = np.unique(gold_item)
    best = np.full(sim.shape[1], np.iinfo(np.int64).max)
    np.minimum.at(best, gold_item, per_query)
    return {"query_to_item": _ranks_summary(q_rank, ks),
            "item_to_query": _ranks_summary(best[items], ks),
            "n_queries": int(len(gold_item)), "n_items": int(items.size)}


def train_joint_space(
    queries: np.ndarray, items: np.ndarray, gold_item: np.ndarray, dim: int = 256,
    margin: float = 0.2,
    epochs: int = 10, batch_size: int = 128, lr: float = 1e-3, seed: int = 1111,
    device: str = "auto", dev: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Linear maps ``U`` (queries) and ``V`` (items) into a joint space, by the pairwise ranking
    loss.

    Loss per batch of (query, item) pairs: sum over contrastive items of ``max(0, a - s(q, i) + s(q,
    i'))`` plus over contrastive queries of ``max(0, a - s(q, i) + s(q', i))``, cosine ``s``, margin
    ``a`` = 0.2 (SentEval's value; the thesis does not give it). With ``dev``, the epoch with the
    best dev R@1+R@5+R@10 sum is kept. Returns ``(U, V)`` as arrays (d_query x dim, d_item x dim).
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    dvc = pick_device(device)
    gen = torch.Generator().manual_seed(seed)
    q = torch.as_tensor(np.asarray(queries, np.float32), device=dvc)
    it = torch.as_tensor(np.asarray(items, np.float32), device=dvc)
    g = torch.as_tensor(np.asarray(gold_item, np.int64), device=dvc)
    u = (torch.randn(q.shape[1], dim, generator=gen) / np.sqrt(q.shape[1])).to(dvc).requires_grad_()
    v = (torch.randn(it.shape[1], dim, generator=gen)
         / np.sqrt(it.shape[1])).to(dvc).requires_grad_()
    opt = torch.optim.Adam([u, v], lr=lr)
    best, best_score = (u.detach().clone(), v.detach().clone()), -np.inf
    with single_thread(batch_size * dim * (q.shape[1] + it.shape[1]) < SMALL_WORK, blas=True):
        for _ in range(epochs):
            best, best_score = _epoch(q, it, g, u, v, opt, gen, batch_size, margin, dev, best,
                                      best_score)
    return best[0].cpu().numpy(), best[1].cpu().numpy()


def _epoch(q, it, g, u, v, opt, gen, batch_size, margin, dev, best, best_score):
    """One pass of the ranking loss; keep (U, V) if the dev score improved (or always without
    dev)."""
    dvc = q.device
    order = torch.randperm(len(g), generator=gen).to(dvc)
    for s in range(0, len(order), batch_size):
        b = order[s : s + batch_size]
        qe = torch.nn.functional.normalize(q[b] @ u, dim=1)
        ie = torch.nn.functional.normalize(it[g[b]] @ v, dim=1)
        scores = qe @ ie.T
        pos = scores.diag()
        same = g[b][:, None] == g[b][None, :]  # captions of the same image are not negatives
        cost_i = (margin - pos[:, None] + scores).clamp_min(0).masked_fill(same, 0)
        cost_q = (margin - pos[None, :] + scores).clamp_min(0).masked_fill(same, 0)
        loss = cost_i.sum() + cost_q.sum()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    if dev is not None:
        with torch.no_grad():
            m = ranking_metrics(_joint_sim(dev[0], dev[1], u.detach().cpu().numpy(),
                                           v.detach().cpu().numpy()), dev[2])
        score = sum(m[d][f"r@{k}"] for d in ("query_to_item", "item_to_query") for k in (1, 5, 10))
        if score > best_score:
            best, best_score = (u.detach().clone(), v.detach().clone()), score
    else:
        best = (u.detach().clone(), v.detach().clone())
    return best, best_score


def _joint_sim(queries: np.ndarray, items: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Cosines in the joint space; equal query (item) vectors get equal rows (columns), so that they
    tie exactly.

    A matrix product may round a row differently by its position, which would break such ties by
    noise.
    """
    qe = queries @ u
    ie = items @ v
    qe /= np.linalg.norm(qe, axis=1, keepdims=True) + 1e-12
    ie /= np.linalg.norm(ie, axis=1, keepdims=True) + 1e-12
    sim = qe @ ie.T
    _, q_first, q_inverse = np.unique(queries, axis=0, return_index=True, return_inverse=True)
    _, i_first, i_inverse = np.unique(items, axis=0, return_index=True, return_inverse=True)
    return sim[q_first[q_inverse.ravel()]][:, i_first[i_inverse.ravel()]]


class RankingTask:
    """Cross-modal ranking (COCO-style): ``splits[name] = (query_sentences, item_vectors,
    gold_item)``.

    Needs ``train`` and ``test`` (``dev`` optional, for epoch selection). The test set is cut into
    ``n_folds`` equal groups of items with their queries and the metrics are averaged, like COCO's
    five 1k-image folds.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    def __init__(self, splits: dict, name: str = "ranking", n_folds: int = 1, dim: int = 256,
                 epochs: int = 10, lr: float = 1e-3) -> None:
        if not isinstance(splits, dict) or not {"train", "test"} <= set(splits):
            raise ValueError("RankingTask needs splits {'train': (...), 'test': (...)} of "
                             "(sentences, items, gold).")
        self.splits, self.name, self.n_folds = splits, name, n_folds
        self.dim, self.epochs, self.lr = dim, epochs, lr

    def sentences(self) -> list[str]:
        """Every query sentence.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        return [s for sents, _, _ in self.splits.values() for s in sents]

    def run(self, ev: Any) -> dict:
        """Encode the queries, learn the joint space, report averaged test metrics.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        enc = {k: (ev.encode(list(s)), np.asarray(i, np.float32), np.asarray(g)) for k,
               (s, i, g) in self.splits.items()}
        u, v = train_joint_space(*enc["train"], dim=self.dim, epochs=self.epochs, lr=self.lr,
                                 seed=int(ev.params.seed),
                                 device=ev.params.get("device", "auto"), dev=enc.get("dev"))
        q, items, gold = enc["test"]
        item_fold = np.arange(len(items)) * self.n_folds // len(items)
        folds = []
        for f in range(self.n_folds):
            keep_items = np.flatnonzero(item_fold == f)
            remap = np.full(len(items), -1)
            remap[keep_items] = np.arange(keep_items.size)
            rows = np.flatnonzero(remap[gold] >= 0)
            folds.append(
                ranking_metrics(_joint_sim(q[rows], items[keep_items], u, v), remap[gold[rows]]))
        out = {d: {m: float(np.mean([f[d][m] for f in folds])) for m in folds[0][d]}
               for d in ("query_to_item", "item_to_query")}
        return {**out, "n_folds": self.n_folds}
