"""One thread limiter for small work, shared by every layer.

Small problems (a 64-row batch through a 128-wide LSTM, a logistic regression on 2k examples) run
faster on one thread: thread start-up and the barrier every step spend more than a second core
gives, and on a busy 2-core machine two spinning threads per process slow everything many times
over.
Book: chapter 3 (InferSent: training details).
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch
from threadpoolctl import threadpool_limits


@contextmanager
def single_thread(when: bool = True, *, blas: bool = False) -> Iterator[None]:
    """Run the block on one torch thread (and one BLAS thread when ``blas``) if ``when`` is true.

    The previous torch thread count is restored afterwards, also when the block raises.
    Book: chapter 3 (InferSent: training details).
    """
    if not when:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        if blas:
            with threadpool_limits(limits=1):
                yield
        else:
            yield
    finally:
        torch.set_num_threads(before)
