"""Cross-lingual transfer with frozen features and a small MLP trained on English (Wang et al.'s
protocol).

XNLI: features ``[u, v, u*v, |u-v|]`` of the frozen premise / hypothesis vectors; document
classification: the frozen vector itself. A fully connected network with two hidden layers (the
paper's 512 and 384 units; ReLU, our choice, the paper names no activation), no regularisation,
Adam, early stopping on the English dev set (an "epoch" is at least ``min_steps`` minibatches, so
small training sets still get trained); then the same network scores every language's test set.
Book: chapter 9 (Multilingual embeddings from monolingual text).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import torch
from torch import nn

from xsent_lib.base.runtime import seed_everything


def wang_pair_features(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``[u, v, u*v, |u-v|]`` in the paper's order. Book: chapter 9 (Multilingual embeddings)."""
    if u.shape != v.shape or u.ndim != 2:
        raise ValueError(f"u and v must be (n, d) of one shape, got {u.shape} and {v.shape}.")
    return np.hstack([u, v, u * v, np.abs(u - v)]).astype(np.float32)


def frozen_mlp_transfer(x_train: np.ndarray, y_train: np.ndarray, x_dev: np.ndarray,
                        y_dev: np.ndarray,
                        tests: Mapping[str, tuple[np.ndarray, np.ndarray]], *,
                        hidden: Sequence[int] = (512, 384),
                        max_epochs: int = 30, patience: int = 3, batch_size: int = 64,
                        lr: float = 1e-3, min_steps: int = 50, seed: int = 0) -> dict[str, float]:
    """Train the MLP on (English) ``x_train``, keep the epoch best on ``x_dev``, return accuracy
    (percent) on every ``tests[lang] = (x, y)``. Features are standardised with the training rows'
    mean and spread.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    x_train, y_train = np.asarray(x_train, np.float32), np.asarray(y_train, np.int64)
    if x_train.ndim != 2 or len(x_train) != len(y_train) or len(x_train) == 0:
        raise ValueError(f"x_train must be (n, d) with one label each, got {x_train.shape} and "
                         f"{y_train.shape}.")
    if not hidden or any(h < 1 for h in hidden):
        raise ValueError(f"hidden must list positive layer sizes, got {hidden}.")
    seed_everything(seed)
    mu, sd = x_train.mean(0), x_train.std(0) + 1e-6
    prep = lambda x: torch.from_numpy((np.asarray(x, np.float32) - mu) / sd)  # noqa: E731
    n_classes = int(max(y_train.max(), np.max(y_dev), *(np.max(y) for _, y in tests.values()))) + 1
    layers: list[nn.Module] = []
    width = x_train.shape[1]
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    net = nn.Sequential(*layers, nn.Linear(width, n_classes))
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    xt, yt, xd, yd = prep(x_train), torch.from_numpy(y_train), prep(x_dev), np.asarray(y_dev)
    rng = np.random.default_rng(seed)
    best, best_state, bad = -1.0, None, 0
    # an "epoch" is at least min_steps minibatches
    reps = max(1, -(-min_steps * batch_size // len(xt)))
    for _ in range(max_epochs):
        net.train()
        order = np.concatenate([rng.permutation(len(xt)) for _ in range(reps)])
        for idx in np.array_split(order, max(1, len(order) // batch_size)):
            loss = nn.functional.cross_entropy(net(xt[idx]), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        net.eval()
        with torch.no_grad():
            acc = float((net(xd).argmax(1).numpy() == yd).mean())
        if acc > best:
            best, best_state, bad = acc, {k: v.clone() for k, v in net.state_dict().items()}, 0
        else:
            bad += 1
            if bad >= patience:
                break
    net.load_state_dict(best_state)
    net.eval()
    with torch.no_grad():
        return {lang: 100.0 * float((net(prep(x)).argmax(1).numpy() == np.asarray(y)).mean())
                for lang, (x, y) in tests.items()}
