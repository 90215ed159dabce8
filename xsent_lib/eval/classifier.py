"""Classifiers on frozen embeddings, trained many at once: every fold x penalty x size is one slice
of a tensor.

SentEval fits one logistic regression (or MLP) per fold and per L2 value in a Python loop. Here the
``M`` models of a whole cross-validation grid share one forward pass: weights are ``(d, M, C)``
tensors, each model sees only the rows of its own training mask, has its own L2 penalty, hidden size
(a mask over a shared hidden layer) and dropout rate, and keeps its own early-stopping snapshot.
Adam (``torch.optim.Adam``) is element-wise, so the models stay independent: each model's parameters
are slices of the same tensors and its moment estimates are the same slices of Adam's state; one run
replaces hundreds of fits. Their settings, :class:`ClassifierConfig`, live in
:mod:`~xsent_lib.eval.classifier_config` (importable from here too).
Book: chapter 2 (Evaluating sentence embeddings: SentEval).
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import torch

from xsent_lib.base.runtime import pick_device
from xsent_lib.base.threads import single_thread
from xsent_lib.eval.classifier_config import ClassifierConfig, parse_optim

Metric = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]
# multiply-adds per forward below which extra threads cost more than they give
SMALL_WORK = 50_000_000


def _threads_for(work: int):
    """One thread (torch and BLAS) for problems below :data:`SMALL_WORK` multiply-adds."""
    return single_thread(work < SMALL_WORK, blas=True)


def accuracy_metric(probs: torch.Tensor, targets: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Per-model accuracy over the rows of ``mask``: ``probs`` (M, n, C), ``targets`` (n, C),
    ``mask`` (M, n).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    hit = (probs.argmax(-1) == targets.argmax(-1)[None]).float()
    return (hit * mask).sum(1) / mask.sum(1).clamp_min(1)


def pearson_metric(probs: torch.Tensor, targets: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Per-model Pearson r between expected and gold class index (relatedness heads), over ``mask``.

    Book: chapter 3 (InferSent).
    """
    classes = torch.arange(probs.shape[-1], dtype=probs.dtype, device=probs.device)
    return masked_pearson(probs @ classes, targets @ classes, mask)


def masked_pearson(pred: torch.Tensor, gold: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Per-model Pearson r of ``pred`` (M, n) against ``gold`` (n,) over the rows of ``mask``.

    Book: chapter 3 (InferSent).
    """
    gold = gold[None].expand_as(pred)
    w = mask / mask.sum(1, keepdim=True).clamp_min(1)
    pc = pred - (w * pred).sum(1, keepdim=True)
    gc = gold - (w * gold).sum(1, keepdim=True)
    cov = (w * pc * gc).sum(1)
    return cov / ((w * pc * pc).sum(1) * (w * gc * gc).sum(1)).sqrt().clamp_min(1e-12)


class BatchedLogReg:
    """``M`` independent L2-penalised multinomial logistic regressions, solved exactly side by side.

    Each model minimises the mean cross-entropy over its training rows plus ``l2/2 * ||W||^2`` (bias
    not penalised). The answer is the penalised optimum, not an early-stopped approximation, which
    makes the choice of penalty reproducible. Loss and gradient of all models are two float32 GEMMs
    in numpy, minimised by :func:`batched_lbfgs` on the CPU (``config.device`` is not used). This
    plays the role of SentEval's scikit-learn logistic regression path; the thesis's Adam-trained
    variant is :class:`BatchedClassifier` with ``solver='adam'``.

    Why not one scikit-learn ``LogisticRegression`` per model (``benchmarks/bench_eval.py``, both on
    one thread, 2 loaded cores, 300-d features): nested CV (55 models per task in ``fast`` mode, 410
    in ``full``) is as fast or faster batched (1.06x fast and 1.08x full at 2,000 rows, 2.8x at 400
    rows) with the same accuracies within 0.05 points; the train/dev/test route (2-4 models) is 2-5x
    faster with scikit-learn (0.3 s vs 0.05 s for SST2 at 2,000 rows), but its accuracies differ by
    a test item here and there (SST5 77.8 vs 78.0, SST2 at 400 rows 91 vs 92: scikit-learn stops at
    gradient 1e-4, we at 1e-5), and scikit-learn cannot fit the soft targets of the relatedness
    tasks (SICK-R, STS-B), which this class fits too. So one solver serves every path, and the
    book's numbers do not depend on which path ran.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    def __init__(self, dim: int, n_classes: int, settings: list[dict],
                 config: ClassifierConfig) -> None:
        if not settings:
            raise ValueError("settings is empty: give at least one {'nhid', 'dropout', 'l2'} dict.")
        if any(int(s["nhid"]) != 0 for s in settings):
            raise ValueError("BatchedLogReg has no hidden layer; use BatchedClassifier "
                             "for nhid > 0.")
        self.config = config
        self.n_models, self.n_classes, self.dim = len(settings), n_classes, dim
        self.l2 = np.array([float(s["l2"]) for s in settings], dtype=np.float32)
        # classes before models: fast reductions
        self.w = np.zeros((dim, n_classes, self.n_models), np.float32)
        self.b = np.zeros((n_classes, 1, self.n_models), np.float32)

    def fit(
        self,
        x: np.ndarray,
        targets: np.ndarray,
        train_mask: np.ndarray,
        val_mask: np.ndarray | None = None,
        metric: Metric = accuracy_metric,
        max_iter: int = 500,
    ) -> BatchedLogReg:
        """Solve every model on its ``train_mask`` rows; score it on ``val_mask`` rows when given.

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        train_mask = np.asarray(train_mask, bool)
        if train_mask.shape != (self.n_models, x.shape[0]):
            raise ValueError(f"train_mask must be (n_models, n) = {(self.n_models, x.shape[0])}, "
                             f"got {train_mask.shape}.")
        if (train_mask.sum(1) == 0).any():
            raise ValueError("a model has no training rows; give more data or fewer folds.")
        xf = np.ascontiguousarray(x, dtype=np.float32)
        tf = np.asarray(targets, dtype=np.float32)
        weight = (train_mask / train_mask.sum(1, keepdims=True)).T.astype(np.float32)  # (n, M)
        m, c, d = self.n_models, self.n_classes, self.dim
        l2 = self.l2
        if self.config.penalty == "C":
            # scikit-learn minimises ||w||^2/2 + C * sum(loss); per row that is l2 = 1/(C n). Binary
            # scikit-learn fits one weight vector w = w1 - w0, whose penalty is twice that of our
            # two-class softmax.
            l2 = (2.0 if c == 2 else 1.0) / (self.l2 * train_mask.sum(1))
        l2 = np.asarray(l2, np.float32)[None, None, :]
        # (C, n, 1): classes on the leading axis keeps reductions fast
        tcm = np.ascontiguousarray(tf.T[:, :, None])
        wcm = weight[None]  # (1, n, M)
        p_w = d * c  # weight rows per model; the C bias rows follow

        def loss_and_grad(theta: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            """Losses (k,) and gradients (P, k) of the models ``cols`` at their parameters theta (P,
            k)."""
            k = len(cols)
            w = theta[:p_w].reshape(d, c, k)
            b = theta[p_w:].reshape(c, 1, k)
            wk, l2k = wcm[:, :, cols], l2[:, :, cols]
            logp = _log_softmax0(
                (xf @ w.reshape(d, c * k)).reshape(-1, c, k).transpose(1, 0, 2) + b)
            loss = -(logp * tcm * wk).sum((0, 1), dtype=np.float64) \
                + 0.5 * (l2k[0, 0] * (w * w).sum((0, 1)))
            resid = (np.exp(logp) - tcm) * wk  # (C, n, k)
            g_w = (xf.T @ resid.transpose(1, 0, 2).reshape(-1, c * k)).reshape(d, c, k) + l2k * w
            return loss, np.concatenate([g_w.reshape(p_w, k), resid.sum(1)])

        with _threads_for(x.shape[0] * p_w * m):
            theta, self.n_iter = batched_lbfgs(loss_and_grad, np.zeros((p_w + c, m), np.float32),
                                               max_iter)
        self.w = theta[:p_w].reshape(d, c, m)
        self.b = theta[p_w:].reshape(c, 1, m)
        if val_mask is not None:
            probs = torch.as_tensor(self.predict_proba(xf))
            vm = torch.as_tensor(np.asarray(val_mask, bool), dtype=torch.float32)
            self.val_score = metric(probs, torch.as_tensor(tf), vm).numpy()
        return self

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """Class probabilities of every model: (M, n, C).

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        xf = np.asarray(x, dtype=np.float32)
        m, c = self.n_models, self.n_classes
        logits = (xf @ self.w.reshape(self.dim, c * m)).reshape(-1, c, m).transpose(1, 0, 2) \
            + self.b
        return np.exp(_log_softmax0(logits)).transpose(2, 1, 0)


def _log_softmax0(z: np.ndarray) -> np.ndarray:
    """Log-softmax over the leading (class) axis."""
    z = z - z.max(0, keepdims=True)
    return z - np.log(np.exp(z).sum(0, keepdims=True))


def batched_lbfgs(
    loss_and_grad: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    theta: np.ndarray, max_iter: int = 500, tol: float = 1e-5, history: int = 10,
) -> tuple[np.ndarray, int]:
    """Minimise ``M`` independent smooth functions at once: L-BFGS with a step size per model.

    ``theta`` is (P, M), one column per model; ``loss_and_grad(theta_cols, cols)`` returns the
    losses (k,) and gradients (P, k) of the models ``cols`` (so a failed step re-evaluates only
    those). Each model has its own two-loop recursion, Armijo backtracking step and stopping test
    (largest gradient entry below ``tol``, scikit-learn's lbfgs uses 1e-4); a converged model is
    frozen, and so is one whose backtracking finds no decrease within float32 precision. The work
    per iteration is one batched evaluation, and the iteration count is that of the slowest model,
    not that of a joint problem whose shared line search would serve all models at once. Returns the
    solution and the number of iterations.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    every = np.arange(theta.shape[1])
    f, g = loss_and_grad(theta, every)
    hist: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    active = np.abs(g).max(0) > tol
    it = 0
    for it in range(1, max_iter + 1):
        if not active.any():
            break
        q = g.astype(np.float64)
        alphas = []
        for s_k, y_k, rho in reversed(hist):
            a_k = rho * (s_k * q).sum(0)
            q -= a_k * y_k
            alphas.append(a_k)
        if hist:
            s_k, y_k, _ = hist[-1]
            yy = (y_k * y_k).sum(0)
            q *= np.where(yy > 0, (s_k * y_k).sum(0) / np.where(yy > 0, yy, 1.0), 1.0)
        else:
            q /= np.maximum(np.abs(q).sum(0), 1.0)  # first step: at most unit length per model
        for (s_k, y_k, rho), a_k in zip(hist, reversed(alphas)):
            q += s_k * (a_k - rho * (y_k * q).sum(0))
        direction = -q
        slope = (g * direction).sum(0)
        uphill = slope >= 0
        direction[:, uphill] = -g[:, uphill]
        slope = np.where(uphill, -(g.astype(np.float64) ** 2).sum(0), slope)
        direction[:, ~active] = 0.0
        step = np.ones(theta.shape[1])
        trial = theta + direction.astype(np.float32)
        f_new, g_new = loss_and_grad(trial, every)
        for _ in range(20):
            ok = (f_new <= f + 1e-4 * step * slope) | ~active
            if ok.all():
                break
            redo = np.flatnonzero(~ok)  # only the models whose step failed are evaluated again
            step[redo] *= 0.5
            trial[:, redo] = theta[:, redo] + (step[redo] * direction[:, redo]).astype(np.float32)
            f_new[redo], g_new[:, redo] = loss_and_grad(trial[:, redo], redo)
        else:  # no decrease found within float32 precision: that model is as good as it gets
            active &= ok
            trial = np.where(ok, trial, theta)
            f_new, g_new = np.where(ok, f_new, f), np.where(ok, g_new, g)
        s_new = (trial - theta).astype(np.float64)
        y_new = (g_new - g).astype(np.float64)
        sy = (s_new * y_new).sum(0)
        hist.append((s_new, y_new, np.where(sy > 1e-12, 1.0 / np.where(sy > 1e-12, sy, 1.0), 0.0)))
        hist = hist[-history:]
        theta, f, g = trial, f_new, g_new
        active &= np.abs(g).max(0) > tol
    return theta, it


def make_classifier(dim: int, n_classes: int, settings: list[dict], config: ClassifierConfig):
    """The exact batched logistic regression when no setting has a hidden layer, else the batched
    Adam MLP.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """
    if all(int(s["nhid"]) == 0 for s in settings) and config.solver == "exact":
        return BatchedLogReg(dim, n_classes, settings, config)
    return BatchedClassifier(dim, n_classes, settings, config)


class BatchedClassifier:
    """``M`` independent logistic regressions or one-hidden-layer MLPs trained in one loop.

    Ours rather than scikit-learn: the probing grid gives every model its own hidden size (a mask
    over a shared layer), dropout rate, L2 penalty, training rows and early-stopping snapshot on its
    validation rows, which ``MLPClassifier`` has no batched form for (nor a per-model dropout); and
    it runs on the GPU when there is one. Optimiser: ``torch.optim.Adam`` (element-wise, so the
    models stay independent).

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    def __init__(self, dim: int, n_classes: int, settings: list[dict],
                 config: ClassifierConfig) -> None:
        if not settings:
            raise ValueError("settings is empty: give at least one {'nhid', 'dropout', 'l2'} dict.")
        self.config = config
        self.device = pick_device(config.device)
        self.n_models = len(settings)
        self.n_classes = n_classes
        self.hidden = max(int(s["nhid"]) for s in settings)
        dev = self.device
        self.l2 = torch.tensor([float(s["l2"]) for s in settings], device=dev)
        self.dropout = torch.tensor([float(s["dropout"]) for s in settings], device=dev)
        gen = torch.Generator().manual_seed(config.seed)
        m, c, h = self.n_models, n_classes, self.hidden

        def init(fan_in: int, *shape: int) -> torch.Tensor:
            bound = 1.0 / np.sqrt(fan_in)
            return ((torch.rand(*shape, generator=gen) * 2 - 1) * bound).to(dev).requires_grad_()

        if h == 0:
            self.params = [init(dim, dim, m, c), init(dim, m, c)]
            self.unit_mask = None
        else:
            self.params = [init(dim, dim, m, h), init(dim, m, h), init(h, h, m, c), init(h, m, c)]
            sizes = torch.tensor([int(s["nhid"]) for s in settings], device=dev)
            self.unit_mask = (torch.arange(h, device=dev)[None] < sizes[:, None]).float()
        self.best = [p.detach().clone() for p in self.params]
        self._gen = torch.Generator(device="cpu").manual_seed(config.seed + 1)

    def _logits(self, x: torch.Tensor, params: list[torch.Tensor], train: bool) -> torch.Tensor:
        """(B, d) -> (M, B, C)."""
        m, c = self.n_models, self.n_classes
        if self.hidden == 0:
            w, b = params
            return (x @ w.reshape(w.shape[0], m * c)).reshape(-1, m, c).transpose(0, 1) + b[:, None]
        w1, b1, w2, b2 = params
        h = self.hidden
        z = torch.sigmoid((x @ w1.reshape(w1.shape[0], m * h)).reshape(-1, m, h)
                          + b1) * self.unit_mask
        if train and bool((self.dropout > 0).any()):
            keep = 1.0 - self.dropout[None, :, None]
            u = torch.rand(z.shape, generator=self._gen).to(z.device)
            z = z * (u < keep).float() / keep
        return torch.einsum("bmh,hmc->mbc", z, w2) + b2[:, None]

    def fit(
        self,
        x: np.ndarray,
        targets: np.ndarray,
        train_mask: np.ndarray,
        val_mask: np.ndarray | None = None,
        metric: Metric = accuracy_metric,
    ) -> BatchedClassifier:
        """Train every model on its rows of ``x``; early-stop each on its validation rows by
        ``metric``.

        ``targets`` is (n, C): one-hot labels or soft distributions (relatedness). ``train_mask`` is
        (M, n); ``val_mask`` (M, n) or None, in which case ``validation_split`` of each model's
        training rows is held out (seeded). Each model keeps the parameters of its best validation
        epoch.
        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        cfg, dev = self.config, self.device
        train_mask = np.asarray(train_mask, bool)
        if train_mask.shape != (self.n_models, x.shape[0]):
            raise ValueError(f"train_mask must be (n_models, n) = {(self.n_models, x.shape[0])}, "
                             f"got {train_mask.shape}.")
        if val_mask is None:
            rng = np.random.default_rng(cfg.seed)
            held = rng.random(train_mask.shape) < cfg.validation_split
            val_mask, rest = train_mask & held, train_mask & ~held
            # too few rows to hold any out: early-stop on the training rows
            tiny = ~val_mask.any(1) | ~rest.any(1)
            val_mask[tiny], rest[tiny] = train_mask[tiny], train_mask[tiny]
            train_mask = rest
        if (train_mask.sum(1) == 0).any() or (np.asarray(val_mask).sum(1) == 0).any():
            raise ValueError("a model has no training or no validation rows; give more data or "
                             "fewer folds.")
        xt = torch.as_tensor(np.asarray(x, np.float32), device=dev)
        tt = torch.as_tensor(np.asarray(targets, np.float32), device=dev)
        tm = torch.as_tensor(train_mask, dtype=torch.float32, device=dev)
        vm = torch.as_tensor(np.asarray(val_mask, bool), dtype=torch.float32, device=dev)
        rows = np.flatnonzero(train_mask.any(0))
        optim_cls, optim_opts = parse_optim(cfg.optim)
        if cfg.optim == "adam":
            optim_opts = {"lr": cfg.lr, **optim_opts}
        adam = optim_cls(self.params, **optim_opts)
        rng = np.random.default_rng(cfg.seed + 2)
        best = torch.full((self.n_models,), -np.inf, device=dev)
        stale = torch.zeros(self.n_models, dtype=torch.long, device=dev)
        weights = [p for p in self.params if p.dim() >= 3]
        work = cfg.batch_size * sum(w.numel() for w in weights)
        with _threads_for(work):
            steps_per_pass = -(-rows.size // cfg.batch_size)
            passes = max(cfg.epoch_size, -(-cfg.min_steps_per_epoch // steps_per_pass))
            for _ in range(cfg.max_epochs):
                for _ in range(passes):
                    order = rows[rng.permutation(rows.size)]
                    for s in range(0, order.size, cfg.batch_size):
                        idx = torch.as_tensor(order[s : s + cfg.batch_size], device=dev)
                        logp = torch.log_softmax(self._logits(xt[idx], self.params, True), -1)
                        mask = tm[:, idx]
                        if cfg.loss == "mse":
                            ce = (logp.exp() - tt[idx][None]).pow(2).mean(-1)
                        else:
                            ce = -(logp * tt[idx][None]).sum(-1)
                        loss = ((ce * mask).sum(1) / mask.sum(1).clamp_min(1)).sum()
                        loss = loss + 0.5 * sum((self.l2 * _per_model_sq(w)).sum() for w in weights)
                        adam.zero_grad(set_to_none=True)
                        loss.backward()
                        adam.step()
                with torch.no_grad():
                    score = metric(self._probs(xt, self.params), tt, vm)
                    better = score > best
                    best = torch.where(better, score, best)
                    if cfg.stale_count == "total":
                        stale = stale + (~better).long()
                    else:
                        stale = torch.where(better, torch.zeros_like(stale), stale + 1)
                    for b, p in zip(self.best, self.params):
                        axis = 1 if p.dim() == 3 else 0  # weights are (in, M, out), biases (M, out)
                        shape = [1] * p.dim()
                        shape[axis] = self.n_models
                        b.copy_(torch.where(better.reshape(shape), p.detach(), b))
                if bool((stale >= cfg.tenacity).all()):
                    break
        self.val_score = best.cpu().numpy()
        return self

    def _probs(self, xt: torch.Tensor, params: list[torch.Tensor]) -> torch.Tensor:
        out = [torch.softmax(self._logits(xt[s : s + 65536], params, False), -1)
               for s in range(0, xt.shape[0], 65536)]
        return torch.cat(out, 1)

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """Class probabilities of every model's best snapshot: (M, n, C).

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        with torch.no_grad():
            xt = torch.as_tensor(np.asarray(x, np.float32), device=self.device)
            return self._probs(xt, self.best).cpu().numpy()


def _per_model_sq(w: torch.Tensor) -> torch.Tensor:
    """Squared norm of each model's slice; the model axis is 1 for (d, M, ...) weights."""
    return w.pow(2).transpose(0, 1).reshape(w.shape[1], -1).sum(1)

