"""Wieting et al.'s margin loss with hardest negatives mined in a mega-batch, and its growth
schedule.

For a translation pair ``(s, t)`` the loss is ``max(0, delta - cos(g(s), g(t)) + cos(g(s), g(t')))``
with ``delta = 0.4`` and ``t'`` the *most similar* non-translation in the mega-batch (several
mini-batches encoded together without gradient). With ``symmetric=True`` the mirror term ``max(0,
delta - cos(s, t) + cos(s', t))`` is added, ``s'`` being the hardest source for ``t``, as the
authors' later code does; the 2019 paper only shows the first term. Bilingual data takes ``t'`` from
the target side only (``pool="target"``); monolingual paraphrase data takes it from every sentence
of the mega-batch except the current pair (``pool="both"``).

Mining is one masked similarity matrix and an ``argmax`` per row. A candidate is excluded when it is
the pair's own target, an exact duplicate of that target, or the target of another pair whose source
is an exact duplicate of ours (it is then a translation too); in the ``"both"`` pool, copies of the
query itself are excluded as well. Duplicates are found from caller-supplied keys (e.g. token-id
hashes) or, by default, from bit-identical embedding rows.

The ablation's baseline, *random* negatives (:func:`sample_random_negatives`), draws ``t'``
uniformly among the same allowed candidates, without looking at the embeddings; with a mega-batch of
one mini-batch these are in-batch random negatives.

Book: chapter 8 (Paraphrastic embeddings from bitext).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import torch
import torch.nn.functional as F

from xsent_lib.losses.alignment import Reduction, reduce_loss, require_pair

NegativePool = Literal["target", "both"]


def megabatch_size(n_batches_seen: int | np.ndarray, *, max_size: int = 60,
                   anneal_rate: int | None = 150, start: int = 1) -> int | np.ndarray:
    """Number of mini-batches per mega-batch after ``n_batches_seen`` mini-batches: ``min(max, start
    + n // rate)``.

    The paper fixes the mega-batch size at 60 and an "annealing rate" of 150 mini-batches per +1; it
    does not say where the growth starts. We start at 1 (the authors' later code), so the full size
    60 is reached after 59 * 150 = 8850 mini-batches. ``anneal_rate=None`` disables annealing
    (always ``max_size``). Accepts an integer or an integer array (for plotting the schedule).
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    if max_size < 1 or start < 1 or start > max_size:
        raise ValueError(f"need 1 <= start <= max_size, got start={start}, max_size={max_size}.")
    n = np.asarray(n_batches_seen)
    if not np.issubdtype(n.dtype, np.integer) or (n < 0).any():
        raise ValueError("n_batches_seen must be a non-negative integer (or integer array), got "
                         f"{n_batches_seen!r}.")
    if anneal_rate is None:
        size = np.full(n.shape, max_size)
    elif anneal_rate < 1:
        raise ValueError(f"anneal_rate must be a positive integer or None, got {anneal_rate}.")
    else:
        size = np.minimum(max_size, start + n // anneal_rate)
    return int(size) if size.ndim == 0 else size


def megabatch_plan(n_minibatches: int, *, n_batches_seen: int = 0, max_size: int = 60,
                   anneal_rate: int | None = 150, start: int = 1) -> list[range]:
    """Split ``n_minibatches`` consecutive mini-batches into mega-batches that follow
    :func:`megabatch_size`.

    Each mega-batch's size is read from the schedule at the number of mini-batches processed before
    it (``n_batches_seen`` carries the count across epochs). The last group may be shorter.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    if n_minibatches < 0 or n_batches_seen < 0:
        raise ValueError(f"n_minibatches and n_batches_seen must be >= 0, got {n_minibatches}, "
                         f"{n_batches_seen}.")
    groups, pos = [], 0
    while pos < n_minibatches:
        size = megabatch_size(n_batches_seen + pos, max_size=max_size, anneal_rate=anneal_rate,
                              start=start)
        groups.append(range(pos, min(pos + size, n_minibatches)))
        pos += size
    return groups


def duplicate_keys(rows: torch.Tensor) -> torch.Tensor:
    """Integer key per row such that two rows share a key iff they are bit-identical, shape
    ``(n,)``.

    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    return torch.unique(rows.detach(), dim=0, return_inverse=True)[1]


def _keys(name: str, keys: torch.Tensor | np.ndarray | None, rows: torch.Tensor) -> torch.Tensor:
    """Validate caller keys (or derive them from exact row equality) as an int64 tensor on rows'
    device."""
    if keys is None:
        return duplicate_keys(rows)
    keys = torch.as_tensor(keys, device=rows.device)
    if keys.shape != (rows.shape[0],) or keys.is_floating_point():
        raise ValueError(f"{name} must be an integer array of shape ({rows.shape[0]},), one key "
                         "per sentence (equal keys = identical sentences), got shape "
                         f"{tuple(keys.shape)} {keys.dtype}.")
    return keys.long()


def _same_pair(s_key: torch.Tensor, t_key: torch.Tensor) -> torch.Tensor:
    """``(M, M)`` mask: pair ``j`` is "the same pair" as ``i`` when its source or its target
    duplicates ours."""
    return (s_key[:, None] == s_key[None, :]) | (t_key[:, None] == t_key[None, :])


def _masked_argmax(scores: torch.Tensor, banned: torch.Tensor, what: str) -> torch.Tensor:
    """Row-wise argmax of ``scores`` over the entries that are not ``banned``; error if a row has
    none."""
    if bool(banned.all(dim=1).any()):
        bad = int(banned.all(dim=1).nonzero()[0])
        raise ValueError(f"pair {bad} has no valid {what} in the mega-batch (every candidate is "
                         "its own pair or a duplicate); use a larger mega-batch or "
                         "de-duplicate the data.")
    return scores.masked_fill(banned, float("-inf")).argmax(dim=1)


@dataclass(frozen=True)
class MinedNegatives:
    """Indices of the hardest negatives of a mega-batch.

    ``target_idx[i]`` indexes the negative target ``t'`` of pair ``i`` in the pool: the target rows
    for ``pool="target"``, or ``cat([targets, sources])`` for ``pool="both"``. ``source_idx[i]`` is
    the negative ``s'`` of the mirror term (``None`` unless ``symmetric``): it indexes the source
    rows for ``pool="target"`` and the same ``cat([targets, sources])`` for ``pool="both"``.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """

    target_idx: torch.Tensor
    source_idx: torch.Tensor | None
    pool: NegativePool


def mine_hardest_negatives(src: torch.Tensor, tgt: torch.Tensor, *, pool: NegativePool = "target",
                           symmetric: bool = False,
                           src_keys: torch.Tensor | np.ndarray | None = None,
                           tgt_keys: torch.Tensor | np.ndarray | None = None) -> MinedNegatives:
    """Hardest non-translation for every pair of a mega-batch, by cosine, fully vectorised.

    ``src``/``tgt`` are the mega-batch's embeddings ``(M, dim)``, row ``i`` a translation pair
    (encode them in eval mode under ``torch.no_grad()``; this function detaches anyway). See the
    module docstring for which candidates are excluded. Memory is one ``(M, M)`` (or ``(M, 2M)``)
    matrix: 7,680 x 7,680 floats (235 MB) at the paper's 60 x 128.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    require_pair(src, tgt, "src", "tgt")
    if pool not in ("target", "both"):
        raise ValueError(f"pool={pool!r} must be 'target' (bilingual data) or 'both' (monolingual "
                         "paraphrases).")
    src, tgt = src.detach(), tgt.detach()
    if pool == "both" and (src_keys is None) != (tgt_keys is None):
        raise ValueError("with pool='both' give both src_keys and tgt_keys (one shared key "
                         "space) or neither.")
    if pool == "both" and src_keys is None:
        joint = duplicate_keys(torch.cat([src, tgt]))
        s_key, t_key = joint[: src.shape[0]], joint[src.shape[0]:]
    else:
        s_key, t_key = _keys("src_keys", src_keys, src), _keys("tgt_keys", tgt_keys, tgt)
    s_n, t_n = F.normalize(src, dim=1), F.normalize(tgt, dim=1)
    same = _same_pair(s_key, t_key)
    if pool == "target":
        tgt_idx = _masked_argmax(s_n @ t_n.T, same, "negative target")
        src_idx = _masked_argmax(t_n @ s_n.T, same, "negative source") if symmetric else None
        return MinedNegatives(tgt_idx, src_idx, pool)
    # Pool = targets then sources; also ban copies of the query sentence itself.
    pool_rows = torch.cat([t_n, s_n])
    pool_keys = torch.cat([t_key, s_key])
    banned_for_src = torch.cat([same, same], dim=1) | (s_key[:, None] == pool_keys[None, :])
    tgt_idx = _masked_argmax(s_n @ pool_rows.T, banned_for_src, "negative")
    src_idx = None
    if symmetric:
        banned_for_tgt = torch.cat([same, same], dim=1) | (t_key[:, None] == pool_keys[None, :])
        src_idx = _masked_argmax(t_n @ pool_rows.T, banned_for_tgt, "negative")
    return MinedNegatives(tgt_idx, src_idx, pool)


def sample_random_negatives(src_keys: torch.Tensor | np.ndarray,
                            tgt_keys: torch.Tensor | np.ndarray, *,
                            generator: torch.Generator | None = None) -> torch.Tensor:
    """A random non-translation target for every pair of a batch: index ``j`` drawn uniformly among
    the pairs that :func:`mine_hardest_negatives` (``pool="target"``) may choose from, i.e. never
    the pair itself, a pair with a duplicate source or a duplicate target.

    ``src_keys``/``tgt_keys`` hold one integer per pair (equal keys = identical sentences); no
    embedding is needed. Vectorised: the arg-max of i.i.d. uniform scores over the allowed
    candidates, which is uniform over them. Pass a seeded ``torch.Generator`` (on the CPU) for
    reproducible draws. Returns int64 ``(M,)``.
    Book: chapter 8 (Paraphrastic embeddings from bitext: random against hardest negatives).
    """
    s_key, t_key = torch.as_tensor(src_keys), torch.as_tensor(tgt_keys)
    if s_key.dim() != 1 or s_key.shape != t_key.shape or s_key.is_floating_point() \
            or t_key.is_floating_point():
        raise ValueError("src_keys and tgt_keys must be integer arrays of one equal length (one "
                         f"key per pair), got shapes {tuple(s_key.shape)} and "
                         f"{tuple(t_key.shape)}.")
    if s_key.shape[0] < 2:
        raise ValueError("random negatives need a batch of at least 2 pairs, got "
                         f"{s_key.shape[0]}.")
    s_key, t_key = s_key.long().cpu(), t_key.long().cpu()
    scores = torch.rand((s_key.shape[0], s_key.shape[0]), generator=generator)
    return _masked_argmax(scores, _same_pair(s_key, t_key), "negative target")


def margin_loss(src: torch.Tensor, tgt: torch.Tensor, neg_tgt: torch.Tensor, *,
                neg_src: torch.Tensor | None = None, delta: float = 0.4,
                reduction: Reduction = "mean") -> torch.Tensor:
    """``max(0, delta - cos(s, t) + cos(s, t'))`` per pair, plus ``max(0, delta - cos(s, t) +
    cos(s', t))``.

    The mirror term is added only when ``neg_src`` is given. ``delta = 0.4`` is the paper's margin.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    require_pair(src, tgt, "src", "tgt")
    require_pair(src, neg_tgt, "src", "neg_tgt")
    if delta < 0:
        raise ValueError(f"delta (the margin) must be >= 0, got {delta}.")
    positive = F.cosine_similarity(src, tgt, dim=1, eps=1e-8)
    per_row = F.relu(delta - positive + F.cosine_similarity(src, neg_tgt, dim=1, eps=1e-8))
    if neg_src is not None:
        require_pair(tgt, neg_src, "tgt", "neg_src")
        per_row = per_row + F.relu(delta - positive
                                   + F.cosine_similarity(neg_src, tgt, dim=1, eps=1e-8))
    return reduce_loss(per_row, reduction)


def megabatch_margin_loss(src: torch.Tensor, tgt: torch.Tensor, *, delta: float = 0.4,
                          pool: NegativePool = "target", symmetric: bool = False,
                          src_keys: torch.Tensor | np.ndarray | None = None,
                          tgt_keys: torch.Tensor | np.ndarray | None = None,
                          reduction: Reduction = "mean") -> torch.Tensor:
    """Mine hardest negatives in ``(src, tgt)`` and return the margin loss, gradients through all
    rows.

    The one-call form for small encoders that can encode a whole mega-batch with gradient. For large
    ones, call :func:`mine_hardest_negatives` on a no-grad encoding, then re-encode each
    mini-batch's pairs and their negatives and call :func:`margin_loss`.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    mined = mine_hardest_negatives(src, tgt, pool=pool, symmetric=symmetric, src_keys=src_keys,
                                   tgt_keys=tgt_keys)
    pool_rows = tgt if pool == "target" else torch.cat([tgt, src])
    src_pool = src if pool == "target" else torch.cat([tgt, src])
    neg_src = src_pool[mined.source_idx] if mined.source_idx is not None else None
    return margin_loss(src, tgt, pool_rows[mined.target_idx], neg_src=neg_src, delta=delta,
                       reduction=reduction)
