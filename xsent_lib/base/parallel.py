"""Independent seeded jobs run side by side in worker processes, one per core.

Most of the book's CPU work is many small, independent trainings (seven encoders, four language
pairs, the dial's points), each on one thread because small models run fastest there
(:mod:`xsent_lib.base.threads`). A 2-core machine then leaves a core idle. :func:`parallel_map` runs
such jobs in a pool of worker processes, each on one torch and one BLAS thread. A job that seeds
itself gives bit-for-bit the result it gives in a serial loop on one thread, so the book's numbers
do not depend on the number of cores (``tests/test_parallel.py`` checks it on a training job).
Book: chapter 0 (How to run this book: cores and processes).
"""
from __future__ import annotations

import atexit
import importlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, TypeVar

import torch

from xsent_lib.base.runtime import pick_device
from xsent_lib.base.threads import single_thread

T = TypeVar("T")

#: environment variable that caps the worker processes (``1``: every job in the calling process, in
#: order)
ENV_VAR = "XSENT_PROCESSES"


def usable_processes(device: str | torch.device = "cpu") -> int:
    """How many worker processes :func:`parallel_map` uses: the cores this process may run on,
    capped by ``$XSENT_PROCESSES``; 1 when ``device`` is a GPU (its jobs share the one device and
    run in turn).

    Book: chapter 0 (How to run this book: cores and processes).
    """
    if pick_device(device).type != "cpu":
        return 1
    cores = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
             else (os.cpu_count() or 1))
    raw = os.environ.get(ENV_VAR, "").strip()
    if not raw:
        return max(1, cores)
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"${ENV_VAR}={raw!r}: give a positive integer (1 runs every job in this "
                         "process).")
    return min(int(raw), max(1, cores))


def _init_worker() -> None:
    torch.set_num_threads(1)
    # Jupyter interrupts (and, on shutdown, stops) a kernel by signalling its whole process group: a
    # worker then stops at once, without a traceback per idle worker; the caller sees the interrupt
    # (parallel_map).
    signal.signal(signal.SIGINT, _exit_quietly)


def _exit_quietly(signum: int, frame: object) -> None:
    os._exit(128 + signum)


@contextmanager
def _interrupts_ignored() -> Iterator[None]:
    """Ignore SIGINT while worker processes are started (they inherit it), in the main thread
    only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def _call(fn: Callable[..., T], job: Mapping[str, Any]) -> T:
    with single_thread(blas=True):
        return fn(**job)


def _call_in_worker(fn: Callable[..., T], job: Mapping[str, Any]) -> tuple[T, list[str], float]:
    """The job's result, the library modules the worker has imported (see
    :func:`_import_like_workers`) and the CPU seconds the job took."""
    start = time.process_time()
    result = _call(fn, job)
    return result, [m for m in sys.modules
                    if m.startswith("xsent_lib.")], time.process_time() - start


_WORKER_CPU = [0.0]


def worker_cpu_seconds() -> float:
    """CPU seconds that jobs of :func:`parallel_map` have spent in worker processes since this
    process started (provenance adds them to the chapter's own CPU time).

    Book: chapter 0 (How to run this book: cores and processes).
    """
    return _WORKER_CPU[0]


def _import_like_workers(modules: Sequence[str]) -> None:
    """Import here what the workers imported: a chapter's provenance lists the library modules its
    process imported, and the book re-executes the chapter when one of them changes, including those
    only a job used."""
    for name in modules:
        if name not in sys.modules:
            importlib.import_module(name)


def parallel_map(fn: Callable[..., T], jobs: Sequence[Mapping[str, Any]], *,
                 processes: int | None = None, device: str | torch.device = "cpu") -> list[T]:
    """``[fn(**job) for job in jobs]``, computed in up to ``processes`` worker processes, results in
    job order.

    ``fn`` must be importable (a module-level function of the library) and its arguments and result
    picklable. Every job runs on one torch and one BLAS thread, in a worker or, with one process or
    one job, in this process; a job that seeds itself therefore gives the same result either way.
    ``processes`` defaults to :func:`usable_processes` of ``device``. The workers are started on the
    first call and kept for the next ones (they import the library once). An exception in a job is
    raised here with the job's position added to its message.
    Book: chapter 0 (How to run this book: cores and processes).
    """
    jobs = list(jobs)
    if not callable(fn):
        raise TypeError(f"fn must be a function, got {type(fn).__name__}.")
    bad = [i for i, job in enumerate(jobs) if not isinstance(job, Mapping)]
    if bad:
        raise TypeError("every job is a mapping of keyword arguments for fn; "
                        f"jobs {bad[:5]} are not.")
    cap = processes if processes is not None else usable_processes(device)
    if cap < 1:
        raise ValueError(f"processes must be at least 1, got {processes}.")
    if min(cap, len(jobs)) <= 1:
        return [_call(fn, job) for job in jobs]
    pool = _pool(cap)  # one pool per cap: it starts workers as jobs need them, at most cap
    # workers start ignoring SIGINT until _init_worker installs its handler
    with _interrupts_ignored():
        futures = [pool.submit(_call_in_worker, fn, job) for job in jobs]
    results = []
    for i, fut in enumerate(futures):
        try:
            result, modules, cpu = fut.result()
            _WORKER_CPU[0] += cpu
            _import_like_workers(modules)
            results.append(result)
        except BaseException as err:
            for rest in futures[i + 1:]:
                rest.cancel()
            # e.g. an interrupt
            if isinstance(err, BrokenProcessPool) or not isinstance(err, Exception):
                # the next call starts fresh workers
                _POOLS.pop(cap).shutdown(wait=False, cancel_futures=True)
            if isinstance(err, Exception):
                err.add_note(f"(raised by job {i} of {len(jobs)} of "
                             f"{getattr(fn, '__name__', fn)!r} in a worker process; set "
                             f"{ENV_VAR}=1 to run the jobs in this process and debug it)")
            raise
    return results


_POOLS: dict[int, ProcessPoolExecutor] = {}


def _pool(n: int) -> ProcessPoolExecutor:
    """The pool of ``n`` workers, started once per process and kept (a chapter calls parallel_map
    many times; starting workers costs seconds of imports each time)."""
    if n not in _POOLS:
        # fork would copy torch's thread pools into the children
        ctx = multiprocessing.get_context("spawn")
        _POOLS[n] = ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_init_worker)
    return _POOLS[n]


@atexit.register
def _shutdown() -> None:
    for pool in _POOLS.values():
        pool.shutdown(cancel_futures=True)
    _POOLS.clear()
