"""MUSE's adversarial stage: learn a rotation W so that a discriminator cannot tell W x from y.

The discriminator sees mapped source words (label "source" = 1) and target words (label 0), drawn
uniformly among the most frequent words, and is trained with smoothed labels (eq. 4.3); the mapping
is trained on the flipped labels (eq. 4.4). After every mapping step W is pulled back towards the
orthogonal manifold with ``W <- (1 + beta) W - beta (W W^T) W`` (eq. 4.7). Each epoch ends with the
unsupervised criterion, which keeps the best W, and with the learning-rate schedule.

Thesis values are the defaults; MUSE's released code differs (``map_beta = 0.001``, 75k frequent
words, smoothing 0.1, decay 0.98) and can be reproduced by changing :class:`AdversarialConfig`.

Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from xsent_lib.align.criterion import unsupervised_criterion
from xsent_lib.base.runtime import pick_device, seed_everything


@dataclass(frozen=True)
class AdversarialConfig:
    """Hyper-parameters of the adversarial stage (thesis values unless noted).

    Thesis: discriminator with 2 hidden layers of 2048 and Leaky-ReLU, input dropout 0.1, label
    smoothing 0.2, SGD with batch 32, lr 0.1 and decay 0.95 for both players, lr halved when the
    criterion drops, 50k most frequent words, beta = 0.01, criterion on 10k words. The thesis is
    silent on the Leaky-ReLU slope (0.2), on the number of discriminator steps per mapping step (5),
    on the epoch size (1M samples, i.e. 31,250 mapping steps), the number of epochs (5) and the
    minimum lr (1e-6): those come from MUSE's code.
    Book: chapter 5 (Word translation without parallel data).
    """

    dis_hidden: int = 2048
    dis_layers: int = 2
    dis_input_dropout: float = 0.1
    leaky_slope: float = 0.2
    smoothing: float = 0.2
    beta: float = 0.01
    batch_size: int = 32
    lr: float = 0.1
    lr_decay: float = 0.95
    lr_shrink: float = 0.5
    min_lr: float = 1e-6
    dis_steps: int = 5
    most_frequent: int = 50_000
    epoch_size: int = 1_000_000
    n_epochs: int = 5
    criterion_words: int = 10_000
    k_neighbors: int = 10

    def __post_init__(self) -> None:
        if not 0.0 <= self.smoothing < 0.5:
            raise ValueError(f"smoothing must be in [0, 0.5), got {self.smoothing}.")
        if not 0.0 <= self.dis_input_dropout < 1.0:
            raise ValueError(f"dis_input_dropout must be in [0, 1), got {self.dis_input_dropout}.")
        positive = ("dis_hidden", "dis_layers", "batch_size", "dis_steps", "most_frequent",
                    "epoch_size", "n_epochs", "criterion_words", "k_neighbors")
        for name in positive:
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}.")
        if self.lr <= 0 or self.beta < 0:
            raise ValueError(f"lr must be > 0 and beta >= 0, got lr={self.lr}, beta={self.beta}.")

    @property
    def work(self) -> float:
        """One run's training work: samples x (discriminator + map steps) x hidden width^2.

        Book: chapter 5 (Word translation without parallel data).
        """
        return float(self.n_epochs * self.epoch_size * (self.dis_steps + 1) * self.dis_hidden ** 2)


class Discriminator(nn.Module):
    """MLP ``dropout(input) -> [Linear -> LeakyReLU] x n_layers -> Linear -> logit`` for "is a
    mapped source".

    Returns one logit per row; the sigmoid is applied inside the loss.
    Book: chapter 5 (Word translation without parallel data).
    """

    def __init__(self, dim: int, hidden: int = 2048, n_layers: int = 2, input_dropout: float = 0.1,
                 leaky_slope: float = 0.2) -> None:
        super().__init__()
        layers: list[nn.Module] = [nn.Dropout(input_dropout)]
        width = dim
        for _ in range(n_layers):
            layers += [nn.Linear(width, hidden), nn.LeakyReLU(leaky_slope)]
            width = hidden
        layers.append(nn.Linear(width, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        """Logits of shape ``(batch,)``.

        Book: chapter 5 (Word translation without parallel data).
        """
        return self.net(z).squeeze(-1)


def smoothed_labels(n_mapped: int, n_target: int, smoothing: float, *, flip: bool = False,
                    device: torch.device | str = "cpu") -> torch.Tensor:
    """Discriminator targets: ``1 - s`` for mapped source rows then ``s`` for target rows (eq. 4.3).

    ``flip=True`` gives the mapping's targets (eq. 4.4): ``s`` for mapped rows, ``1 - s`` for
    targets.
    Book: chapter 5 (Word translation without parallel data).
    """
    hi, lo = 1.0 - smoothing, smoothing
    if flip:
        hi, lo = lo, hi
    return torch.cat(
        [torch.full((n_mapped,), hi, device=device), torch.full((n_target,), lo, device=device)])


def sample_frequent(n_rows: int, most_frequent: int, batch_size: int,
                    generator: torch.Generator) -> torch.Tensor:
    """``batch_size`` row indices drawn uniformly (with replacement) among the first
    ``most_frequent`` rows.

    Book: chapter 5 (Word translation without parallel data).
    """
    high = min(int(most_frequent), int(n_rows))
    return torch.randint(0, high, (batch_size,), generator=generator)


def orthogonalize_(weight: torch.Tensor, beta: float) -> None:
    """In place ``W <- (1 + beta) W - beta (W W^T) W`` (eq. 4.7), which keeps W close to orthogonal.

    Book: chapter 5 (Word translation without parallel data).
    """
    with torch.no_grad():
        weight.copy_((1 + beta) * weight - beta * (weight @ weight.T) @ weight)


def scheduled_lr(lr: float, criterion: float, previous: float, config: AdversarialConfig) -> float:
    """Next epoch's learning rate: ``lr * lr_decay``, times ``lr_shrink`` if ``criterion <
    previous``, >= ``min_lr``.

    The thesis halves the rate "whenever the unsupervised validation criterion decreases"; we
    compare with the previous epoch (MUSE's code compares with the best so far) and apply the
    schedule to both players, as the thesis gives one set of SGD settings "for both".
    Book: chapter 5 (Word translation without parallel data).
    """
    shrink = config.lr_shrink if criterion < previous else 1.0
    return max(config.min_lr, lr * config.lr_decay * shrink)


def _as_embeddings(name: str, x: np.ndarray | torch.Tensor, device: torch.device) -> torch.Tensor:
    t = torch.as_tensor(np.asarray(x) if not isinstance(x, torch.Tensor) else x)
    if t.dim() != 2 or not t.is_floating_point() or t.shape[0] < 2:
        raise ValueError(f"{name} must be a float (n_words, dim) matrix with n_words >= 2, got "
                         f"{tuple(t.shape)} {t.dtype}.")
    if not bool(torch.isfinite(t).all()):
        raise ValueError(f"{name} contains NaN or infinite values.")
    return t.detach().to(device=device, dtype=torch.float32)


class AdversarialAligner:
    """Seeded, device-aware adversarial training of a linear map from ``src`` to ``tgt`` embeddings.

    Rows of both matrices must be sorted by word frequency (most frequent first). The map starts at
    the identity (MUSE's code; the thesis does not say). Use :meth:`fit` for the whole schedule, or
    :meth:`discriminator_step` / :meth:`mapping_step` to drive it by hand.
    Book: chapter 5 (Word translation without parallel data).
    """

    def __init__(self, src: np.ndarray | torch.Tensor, tgt: np.ndarray | torch.Tensor,
                 config: AdversarialConfig = AdversarialConfig(), *, seed: int = 0,
                 device: str | torch.device = "auto") -> None:
        self.config = config
        self.device = pick_device(device)
        seed_everything(seed)
        self.src = _as_embeddings("src", src, self.device)
        self.tgt = _as_embeddings("tgt", tgt, self.device)
        if self.src.shape[1] != self.tgt.shape[1]:
            raise ValueError("src and tgt must have the same dimension, got "
                             f"{self.src.shape[1]} and {self.tgt.shape[1]}.")
        dim = self.src.shape[1]
        self.mapping = nn.Linear(dim, dim, bias=False).to(self.device)
        with torch.no_grad():
            self.mapping.weight.copy_(torch.eye(dim))
        self.discriminator = Discriminator(dim, config.dis_hidden, config.dis_layers,
                                           config.dis_input_dropout,
                                           config.leaky_slope).to(self.device)
        self.map_optimizer = torch.optim.SGD(self.mapping.parameters(), lr=config.lr)
        self.dis_optimizer = torch.optim.SGD(self.discriminator.parameters(), lr=config.lr)
        self.generator = torch.Generator().manual_seed(seed)

    @property
    def W(self) -> np.ndarray:
        """The current map as a ``(dim, dim)`` numpy array (``W x`` maps a source column vector).

        Book: chapter 5 (Word translation without parallel data).
        """
        return self.mapping.weight.detach().cpu().numpy().copy()

    def _batch(self, *, mapped_grad: bool) -> torch.Tensor:
        """Mapped source rows then target rows, from the most frequent words."""
        cfg = self.config
        i = sample_frequent(len(self.src), cfg.most_frequent, cfg.batch_size,
                            self.generator).to(self.device)
        j = sample_frequent(len(self.tgt), cfg.most_frequent, cfg.batch_size,
                            self.generator).to(self.device)
        mapped = self.mapping(self.src[i])
        if not mapped_grad:
            mapped = mapped.detach()
        return torch.cat([mapped, self.tgt[j]])

    def discriminator_step(self) -> float:
        """One SGD step of the discriminator on smoothed labels (eq. 4.3); returns its loss.

        Book: chapter 5 (Word translation without parallel data).
        """
        cfg = self.config
        self.discriminator.train()
        x = self._batch(mapped_grad=False)
        y = smoothed_labels(cfg.batch_size, cfg.batch_size, cfg.smoothing, device=self.device)
        loss = F.binary_cross_entropy_with_logits(self.discriminator(x), y)
        self.dis_optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.dis_optimizer.step()
        return float(loss.detach())

    def mapping_step(self) -> float:
        """One SGD step of W on the flipped labels (eq. 4.4), then orthogonalisation.

        Returns the loss.

        The discriminator runs in eval mode here (no input dropout) and is not updated.
        Book: chapter 5 (Word translation without parallel data).
        """
        cfg = self.config
        self.discriminator.eval()
        x = self._batch(mapped_grad=True)
        y = smoothed_labels(cfg.batch_size, cfg.batch_size, cfg.smoothing, flip=True,
                            device=self.device)
        loss = F.binary_cross_entropy_with_logits(self.discriminator(x), y)
        self.map_optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.map_optimizer.step()
        orthogonalize_(self.mapping.weight, cfg.beta)
        return float(loss.detach())

    def criterion(self) -> float:
        """The unsupervised validation criterion of the current map.

        Book: chapter 5 (Word translation without parallel data).
        """
        mapped = self.src.cpu().numpy() @ self.W.T
        return unsupervised_criterion(mapped, self.tgt.cpu().numpy(),
                                      n_words=self.config.criterion_words,
                                      k_neighbors=self.config.k_neighbors)

    def _set_lr(self, lr: float) -> None:
        for opt in (self.map_optimizer, self.dis_optimizer):
            for group in opt.param_groups:
                group["lr"] = lr

    def fit(self) -> list[dict]:
        """Run ``n_epochs`` epochs, select the best W by the criterion, and return one record per
        epoch.

        An epoch is ``epoch_size // batch_size`` rounds of ``dis_steps`` discriminator steps and one
        mapping step. After each epoch both learning rates follow :func:`scheduled_lr`. At the end
        the map is set to the epoch with the best criterion.
        Book: chapter 5 (Word translation without parallel data).
        """
        cfg = self.config
        n_rounds = max(1, cfg.epoch_size // cfg.batch_size)
        history, lr = [], cfg.lr
        best_W, best_crit, previous = self.W, -np.inf, -np.inf
        for epoch in range(cfg.n_epochs):
            dis_losses, map_losses = [], []
            for _ in range(n_rounds):
                dis_losses += [self.discriminator_step() for _ in range(cfg.dis_steps)]
                map_losses.append(self.mapping_step())
            crit = self.criterion()
            history.append({"epoch": epoch, "dis_loss": float(np.mean(dis_losses)),
                            "map_loss": float(np.mean(map_losses)), "criterion": crit, "lr": lr})
            if crit > best_crit:
                best_W, best_crit = self.W, crit
            lr, previous = scheduled_lr(lr, crit, previous, cfg), crit
            self._set_lr(lr)
        with torch.no_grad():
            self.mapping.weight.copy_(torch.from_numpy(best_W).to(self.device))
        return history
