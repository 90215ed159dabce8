"""Linear maps between embedding spaces from paired rows: orthogonal Procrustes and least squares.

Rows are examples: ``X`` and ``Y`` are ``(n, d)`` with row ``i`` of ``X`` paired with row ``i`` of
``Y`` (a dictionary entry, or a sentence and its translation). A map ``W`` is ``(d_out, d_in)`` and
acts on column vectors as in the thesis (``W x ~ y``), so on rows it is ``X @ W.T``
(:func:`apply_map`). With the thesis' column matrices, Procrustes is ``W = U V^T`` where ``U S V^T =
SVD(Y X^T)``; with our row matrices that is the SVD of ``Y.T @ X``.

:class:`SentenceMapping` is Aldarmaki & Diab's post-hoc "sentence mapping": an orthogonal (or plain
linear) map fitted on the sentence vectors of a parallel corpus.

Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np


class RankDeficientMapWarning(UserWarning):
    """The pairs do not span the space: the fitted orthogonal map is not unique on the missing
    directions.

    Book: chapter 5 (Word translation without parallel data).
    """


def _pair(X: np.ndarray, Y: np.ndarray, same_dim: bool) -> tuple[np.ndarray, np.ndarray]:
    """Validate two paired row matrices and return them as float64 arrays."""
    X, Y = np.asarray(X), np.asarray(Y)
    for name, a in (("X", X), ("Y", Y)):
        if a.ndim != 2 or not np.issubdtype(a.dtype, np.number):
            raise ValueError(f"{name} must be a numeric 2-D array (n_pairs, dim), got shape "
                             f"{a.shape} {a.dtype}.")
        if not np.isfinite(a).all():
            raise ValueError(f"{name} contains NaN or infinite values.")
    if X.shape[0] != Y.shape[0]:
        raise ValueError(f"X and Y must have one row per pair: got {X.shape[0]} and "
                         f"{Y.shape[0]} rows.")
    if X.shape[0] == 0:
        raise ValueError("X and Y are empty; a map needs at least one pair.")
    if same_dim and X.shape[1] != Y.shape[1]:
        raise ValueError(f"an orthogonal map needs equal dimensions, got {X.shape[1]} and "
                         f"{Y.shape[1]}; use least_squares_map for a rectangular map.")
    return X.astype(np.float64), Y.astype(np.float64)


def _out_dtype(*arrays: np.ndarray) -> np.dtype:
    """float32 when every input is float32, else float64."""
    return np.dtype(np.float32) if all(np.asarray(a).dtype == np.float32 for a in arrays) \
        else np.dtype(np.float64)


def procrustes(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Orthogonal ``W`` minimising ``||X W^T - Y||_F`` (thesis eq. 4.2).

    ``W = U V^T`` with ``U S V^T = SVD(Y^T X)``.

    Exact in closed form; with noise-free rotated data it recovers the rotation to float
    precision. When the cross-covariance ``Y^T X`` is rank-deficient (fewer distinct,
    independent pairs than dimensions, e.g. duplicated pairs) the map is still orthogonal and
    fits the pairs, but it is not unique: on the directions the pairs do not span it is an
    arbitrary rotation. A :class:`RankDeficientMapWarning` says so, with the rank.
    Book: chapter 5 (Word translation without parallel data).
    """
    Xd, Yd = _pair(X, Y, same_dim=True)
    M = Yd.T @ Xd
    U, S, Vt = np.linalg.svd(M)
    d = M.shape[0]
    # numpy's matrix_rank tolerance; 0 for M = 0
    rank = int((S > S[0] * d * np.finfo(np.float64).eps).sum())
    if rank < d:
        warnings.warn(
            f"procrustes: the cross-covariance Y^T X has rank {rank} of {d} ({Xd.shape[0]} pairs, "
            f"{len(np.unique(Xd, axis=0))} distinct): the orthogonal map is not unique on the "
            f"{d - rank} missing directions, where it is an arbitrary rotation. Use more distinct "
            "pairs (at least as many independent ones as dimensions) for a well-defined map.",
            RankDeficientMapWarning, stacklevel=2)
    return (U @ Vt).astype(_out_dtype(X, Y))


def least_squares_map(X: np.ndarray, Y: np.ndarray, *, ridge: float = 0.0) -> np.ndarray:
    """Unconstrained ``W`` minimising ``||X W^T - Y||_F^2 + ridge ||W||_F^2`` (Mikolov et al.,
    thesis eq. 4.1).

    ``W`` is ``(d_y, d_x)``, so the two spaces may differ in size. ``ridge = 0`` is the paper's
    plain least squares (minimum-norm solution when under-determined); a NaN, infinite or negative
    ``ridge`` raises a ValueError.
    Book: chapter 5 (Word translation without parallel data).
    """
    Xd, Yd = _pair(X, Y, same_dim=False)
    try:
        ridge = float(ridge)
    except (TypeError, ValueError):
        raise ValueError(f"ridge must be a finite number >= 0, got {ridge!r}.") from None
    if not math.isfinite(ridge) or ridge < 0:
        raise ValueError(f"ridge must be a finite number >= 0, got {ridge!r}: a NaN or infinite "
                         "penalty gives a map of NaN (0 is plain least squares).")
    if ridge == 0:
        Wt = np.linalg.lstsq(Xd, Yd, rcond=None)[0]
    else:
        Wt = np.linalg.solve(Xd.T @ Xd + ridge * np.eye(Xd.shape[1]), Xd.T @ Yd)
    return Wt.T.astype(_out_dtype(X, Y))


def _check_finite_rows(X: np.ndarray, name: str) -> None:
    """Raise a ValueError naming the first row of ``X`` that holds a NaN or infinite value."""
    bad = np.flatnonzero(~np.isfinite(X).all(1))
    if bad.size:
        raise ValueError(f"{name} row {bad[0]} holds NaN or infinite values ({bad.size} of "
                         f"{X.shape[0]} rows); a map would pass them through. Check the "
                         "encoder output.")


def apply_map(X: np.ndarray, W: np.ndarray, *, name: str = "X") -> np.ndarray:
    """Map the rows of ``X`` with ``W`` (``(d_out, d_in)``): returns ``X @ W.T``.

    A NaN or infinite value in ``X`` raises a ValueError naming its first row (``name`` says what
    ``X`` is); one in ``W`` raises too.
    Book: chapter 5 (Word translation without parallel data).
    """
    X, W = np.asarray(X), np.asarray(W)
    if W.ndim != 2 or X.ndim != 2 or X.shape[1] != W.shape[1]:
        raise ValueError(f"cannot map rows of shape {X.shape} with W of shape {W.shape}: need "
                         f"X (n, d_in) and W (d_out, d_in).")
    if not np.isfinite(W).all():
        raise ValueError(f"W (shape {W.shape}) holds NaN or infinite values; refit the map.")
    _check_finite_rows(X, name)
    return X @ W.T


def orthogonality_error(W: np.ndarray) -> float:
    """``||W W^T - I||_F``: zero exactly when the square matrix ``W`` is orthogonal.

    Book: chapter 5 (Word translation without parallel data).
    """
    W = np.asarray(W, dtype=np.float64)
    if W.ndim != 2 or W.shape[0] != W.shape[1]:
        raise ValueError(f"W must be a square matrix, got shape {W.shape}.")
    return float(np.linalg.norm(W @ W.T - np.eye(W.shape[0])))


def _unit_rows(X: np.ndarray) -> np.ndarray:
    return X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)


@dataclass
class SentenceMapping:
    """Aldarmaki & Diab's sentence mapping: a map fitted on parallel sentence vectors, applied post
    hoc.

    ``method="orthogonal"`` (the paper, after Smith et al. 2017) uses :func:`procrustes`;
    ``"linear"`` uses :func:`least_squares_map`. The paper does not say how vectors are prepared;
    like Smith et al. we L2-normalise rows and then subtract each side's mean (``unit_norm``,
    ``center``), which lets a rotation align clouds that are not centred at the origin. Use
    :meth:`transform` for the source side and :meth:`transform_target` for the target side before
    comparing them.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """

    method: Literal["orthogonal", "linear"] = "orthogonal"
    center: bool = True
    unit_norm: bool = True
    W: np.ndarray | None = None
    src_mean: np.ndarray | None = None
    tgt_mean: np.ndarray | None = None

    def _prepare(self, X: np.ndarray, mean: np.ndarray | None, name: str) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"{name} must be a 2-D array (n, dim) of sentence vectors, got "
                             f"shape {X.shape}.")
        _check_finite_rows(X, name)
        X = _unit_rows(X) if self.unit_norm else X
        return X - mean if mean is not None else X

    def fit(self, src: np.ndarray, tgt: np.ndarray) -> SentenceMapping:
        """Fit the map on paired sentence vectors ``src`` ``(n, d_s)`` and ``tgt`` ``(n, d_t)``;
        returns self.

        Book: chapter 7 (Joint vs transfer vs mapping).
        """
        if self.method not in ("orthogonal", "linear"):
            raise ValueError(f"method={self.method!r} must be 'orthogonal' or 'linear'.")
        src, tgt = _pair(src, tgt, same_dim=self.method == "orthogonal")
        S, T = self._prepare(src, None, "src"), self._prepare(tgt, None, "tgt")
        self.src_mean = S.mean(axis=0) if self.center else None
        self.tgt_mean = T.mean(axis=0) if self.center else None
        S, T = self._prepare(src, self.src_mean, "src"), self._prepare(tgt, self.tgt_mean, "tgt")
        self.W = procrustes(S, T) if self.method == "orthogonal" else least_squares_map(S, T)
        return self

    def _require_fitted(self) -> np.ndarray:
        if self.W is None:
            raise ValueError("this SentenceMapping is not fitted yet; call fit(src, tgt) first.")
        return self.W

    def transform(self, src: np.ndarray) -> np.ndarray:
        """Prepare and map source sentence vectors into the target space; a NaN or infinite row
        raises, named.

        Book: chapter 7 (Joint vs transfer vs mapping).
        """
        W = self._require_fitted()
        return apply_map(self._prepare(src, self.src_mean, "src"), W, name="src")

    def transform_target(self, tgt: np.ndarray) -> np.ndarray:
        """Prepare target sentence vectors the same way the map was fitted (no map applied).

        Book: chapter 7 (Joint vs transfer vs mapping).
        """
        self._require_fitted()
        return self._prepare(tgt, self.tgt_mean, "tgt")


Encode = Callable[[list[str]], np.ndarray]


def mapped_encoders(english: Encode, targets: Mapping[str, Encode],
                    maps: Mapping[str, SentenceMapping]) -> dict[str, tuple[Encode, Encode]]:
    """Encoders into the spaces of fitted sentence maps, per target language: ``(English side,
    target side)``, the English encoder prepared as that language's map prepared its English side
    when it was fitted (:meth:`SentenceMapping.transform_target`: unit rows, that map's English mean
    removed) and the target encoder mapped (:meth:`SentenceMapping.transform`).
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    missing = set(targets) - set(maps)
    if missing:
        raise ValueError(f"no fitted map for {sorted(missing)}; fit one SentenceMapping per "
                         "target language.")

    def side(encode: Encode, prepare: Callable[[np.ndarray], np.ndarray]) -> Encode:
        return lambda sentences: prepare(encode(list(sentences)))

    return {lang: (side(english, maps[lang].transform_target), side(encode, maps[lang].transform))
            for lang, encode in targets.items()}
