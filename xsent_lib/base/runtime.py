"""Device choice and seeding shared by every chapter and every training loop.

Book: chapter 0 (Preface, "How to run this book").
"""
from __future__ import annotations

import os
import random

import numpy as np
import torch

_DEVICE_NAMES = ("auto", "cpu", "cuda", "mps")
# The seed a user gives a chapter: the chapters derive further seeds from it (seed + 1, seed + fold,
# seed + restart, seed * 7919 + epoch, gensim's seed + crc32 % 10000), and each derived seed must
# stay in its consumer's range.
MAX_SEED = 2**31 - 1
# Any seed a library function takes (possibly derived from a chapter's seed): numpy's 32-bit range
# (RandomState, gensim), which leaves room for the library's own offsets inside torch's unsigned
# 64-bit one.
LIBRARY_MAX_SEED = 2**32 - 1
# What torch.manual_seed takes (numpy takes any non-negative int): for internal seeds derived from a
# library seed.
TORCH_MAX_SEED = 2**64 - 1
_SEED_RANGES = {MAX_SEED: ("2**31 - 1", "a chapter's seed, leaving room for the seeds it derives"),
                LIBRARY_MAX_SEED: ("2**32 - 1",
                                   "numpy's 32-bit seeds, leaving room for derived seeds"),
                TORCH_MAX_SEED: ("2**64 - 1", "the range torch.manual_seed accepts")}


def check_seed(seed: object, what: str = "seed", high: int = MAX_SEED) -> int:
    """Return ``seed`` as an int, or raise ValueError with the valid range ``[0, high]`` in the
    message.

    The default range ``[0, 2**31 - 1]`` (:data:`MAX_SEED`) is that of a chapter's seed: it leaves
    room for the seeds the chapters derive from it, so a seed accepted here never fails later as
    ``seed + 1``. Library functions, which may receive such derived seeds, check
    ``high=LIBRARY_MAX_SEED`` (``[0, 2**32 - 1]``), and internal ones derived from those
    ``high=TORCH_MAX_SEED`` (``[0, 2**64 - 1]``). Booleans, floats and strings are refused rather
    than converted, so a typo never becomes a seed. ``what`` names the argument in the message (e.g.
    ``"params['seed']"``).
    Book: chapter 0 (Reproducibility).
    """
    if (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
            or not 0 <= int(seed) <= high):
        shown, why = _SEED_RANGES.get(high, (str(high), "the range of this argument"))
        raise ValueError(f"{what} must be a non-negative integer in [0, {shown}] ({why}), got "
                         f"{seed!r}.")
    return int(seed)


def pick_device(device: str | torch.device = "auto") -> torch.device:
    """Return the torch device a chapter asked for.

    ``"auto"`` picks CUDA when a GPU is visible, else the CPU. Asking for ``"cuda"`` on a
    machine without one raises a clear error instead of failing deep inside torch.
    Book: chapter 0 (How to run this book).
    """
    if isinstance(device, torch.device):
        return device
    name = str(device).lower()
    base = name.split(":")[0]
    if base not in _DEVICE_NAMES:
        raise ValueError(f"device={device!r} is not understood; use one of {_DEVICE_NAMES} (or "
                         "'cuda:N').")
    if base == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if base == "cuda" and not torch.cuda.is_available():
        raise RuntimeError(
            f"device={device!r} was requested but torch sees no CUDA GPU "
            f"(torch {torch.__version__}); pass device='auto' or 'cpu'."
        )
    if base == "mps" and not (hasattr(torch.backends, "mps") and torch.backends.mps.is_available()):
        raise RuntimeError(f"device={device!r} was requested but MPS is not available; pass "
                           "device='auto'.")
    return torch.device(name)


DeviceLike = str | torch.device | None  # a device argument; None: the chapter's (compute_device)
_CHAPTER_DEVICE: list[torch.device] = []  # the device of the chapter running in this process


def set_chapter_device(device: str | torch.device | None) -> None:
    """Make ``device`` what :func:`compute_device` returns for ``device=None`` (``None`` clears it).

    :func:`xsent_lib.chapter.start_chapter` calls it with the chapter's device, so the nearest-
    neighbour searches and retrieval a chapter calls without ``device`` run where the chapter runs.
    Book: chapter 0 (How to run this book).
    """
    _CHAPTER_DEVICE.clear()
    if device is not None:
        _CHAPTER_DEVICE.append(pick_device(device))


def compute_device(device: str | torch.device | None = None) -> torch.device:
    """The device a library computation runs on: ``device``, else the chapter's, else torch's.

    ``None`` resolves to the device of the running chapter (:func:`set_chapter_device`) and,
    outside a chapter, to ``torch.get_default_device()`` (the CPU unless the user changed it).
    Book: chapter 0 (How to run this book).
    """
    if device is not None:
        return pick_device(device)
    if _CHAPTER_DEVICE:
        return _CHAPTER_DEVICE[0]
    return torch.get_default_device()


def seed_everything(seed: int) -> np.random.Generator:
    """Seed Python, NumPy and torch (CPU and CUDA) and return a fresh NumPy generator.

    CPU runs with the same seed are bit-identical; on a GPU cuDNN is asked to be deterministic too.
    ``seed`` must be an integer in ``[0, 2**32 - 1]`` (:data:`LIBRARY_MAX_SEED`: training loops seed
    it with seeds derived from a chapter's, see :func:`check_seed`), the range of ``np.random.seed``
    and of ``PYTHONHASHSEED``, which gets ``seed`` when not already set.
    Book: chapter 0 (Reproducibility).
    """
    seed = check_seed(seed, high=LIBRARY_MAX_SEED)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
    os.environ.setdefault("PYTHONHASHSEED", str(seed))
    return np.random.default_rng(seed)


def measure_gemm_flops(n: int = 2048, *, device: str | torch.device = "auto",
                       dtype: torch.dtype = torch.float32, repeats: int = 5) -> float:
    """Measure the achievable dense matrix-multiply rate (FLOP/s) of this machine: the ceiling of
    every benchmark.

    Times ``repeats`` products of two ``n x n`` matrices after one warm-up and returns the best rate
    (``2 n^3`` floating-point operations per product). Speed sections report their kernels as a
    fraction of it.
    Book: chapter 0 (How to run this book).
    """
    import time

    if n < 16 or repeats < 1:
        raise ValueError(f"need n >= 16 and repeats >= 1, got n={n}, repeats={repeats}.")
    dev = pick_device(device)
    gen = torch.Generator(device="cpu").manual_seed(0)
    a = torch.randn(n, n, generator=gen, dtype=torch.float32).to(dev, dtype)
    b = torch.randn(n, n, generator=gen, dtype=torch.float32).to(dev, dtype)
    best = float("inf")
    for i in range(repeats + 1):
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)
        start = time.perf_counter()
        (a @ b).sum().item()
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)
        if i > 0:
            best = min(best, time.perf_counter() - start)
    return 2.0 * n**3 / best
