"""Self-checks that teach: compare a learner's function or number with the library's, case by case.

A failed check raises :class:`SelfCheckError` (an ``AssertionError``, so otter-grader and pytest
count it as a failure) whose message names the exercise and the case, shows the input, the expected
and the received value, and gives a hint. The classroom exercises (``notebooks/exercises/``) use
these in their public and hidden tests.
Book: Teaching with this book.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

__all__ = ["Case", "SelfCheckError", "check_choice", "check_function", "check_value", "describe"]


class SelfCheckError(AssertionError):
    """A self-check failed; the message says which case, with what input, what was expected and a
    hint.

    Book: Teaching with this book.
    """


@dataclass(frozen=True)
class Case:
    """One input of :func:`check_function`: a ``name`` shown on failure, the positional ``args`` and
    ``kwargs``.

    ``hint`` is added to the exercise's hint when this case fails (say what the case is about).
    Book: Teaching with this book.
    """

    name: str
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    hint: str = ""


def describe(value: Any, *, limit: int = 6) -> str:
    """A short, readable rendering of a value for a check's message (shape, dtype and the first
    entries).

    Book: Teaching with this book.
    """
    if isinstance(value, torch.Tensor):
        return f"tensor{tuple(value.shape)} {str(value.dtype).replace('torch.', '')} " + _head(
            value.detach().cpu().numpy(), limit
        )
    if isinstance(value, np.ndarray):
        return f"array{value.shape} {value.dtype} " + _head(value, limit)
    if isinstance(value, (list, tuple)) and len(value) > limit:
        return f"{type(value).__name__} of {len(value)}: {value[:limit]!r} ..."
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + " ..."


def _head(array: np.ndarray, limit: int) -> str:
    flat = np.asarray(array).reshape(-1)
    shown = np.array2string(flat[:limit], precision=4, separator=", ")
    return shown[:-1] + ", ...]" if flat.size > limit else shown


def _as_array(value: Any) -> np.ndarray | None:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        return np.asarray(value)
    return None


def _mismatch(expected: Any, received: Any, atol: float, rtol: float) -> str | None:
    """Why ``received`` is not ``expected`` (None when they agree)."""
    if received is None or received is Ellipsis:
        return "nothing was returned (is the function still a stub `...`?)"
    if isinstance(expected, (tuple, list)):
        if not isinstance(received, (tuple, list)) or len(received) != len(expected):
            return f"expected a {type(expected).__name__} of {len(expected)} values"
        for i, (e, r) in enumerate(zip(expected, received)):
            why = _mismatch(e, r, atol, rtol)
            if why:
                return f"item {i}: {why}"
        return None
    exp, got = _as_array(expected), _as_array(received)
    if exp is None:
        return None if received == expected else "the values differ"
    if got is None:
        return f"expected a {type(expected).__name__}, received a {type(received).__name__}"
    if exp.shape != got.shape:
        return f"shape {got.shape} where {exp.shape} was expected"
    if exp.dtype == bool or got.dtype == bool:
        return None if np.array_equal(exp, got) else "the boolean entries differ"
    if not np.allclose(
        got.astype(np.float64), exp.astype(np.float64), atol=atol, rtol=rtol, equal_nan=True
    ):
        err = np.abs(got.astype(np.float64) - exp.astype(np.float64))
        where = np.unravel_index(int(np.nanargmax(err)), err.shape) if err.ndim else ()
        at = tuple(int(i) for i in where)
        return f"largest difference {float(np.nanmax(err)):.4g} at index {at}"
    return None


def _fail(exercise: str, case: str, lines: Sequence[str], hint: str) -> SelfCheckError:
    text = "\n".join([f"{exercise}: case '{case}' failed.", *(f"  {line}" for line in lines)])
    if hint:
        text += f"\n  hint: {hint}"
    return SelfCheckError(text)


def check_function(
    exercise: str,
    fn: Callable[..., Any],
    reference: Callable[..., Any],
    cases: Sequence[Case],
    *,
    hint: str = "",
    atol: float = 1e-5,
    rtol: float = 1e-5,
) -> None:
    """Call ``fn`` and ``reference`` (the library's implementation) on every case; raise on the
    first mismatch.

    Inputs are passed to each function as copies, so a function that changes its input in place
    cannot make the other look wrong. Returns None when every case agrees (so a test cell prints
    nothing).
    Book: Teaching with this book.
    """
    if not cases:
        raise ValueError(f"{exercise}: check_function needs at least one Case.")
    for case in cases:
        expected = reference(*_copies(case.args), **_copies(case.kwargs))
        shown = ", ".join(
            [
                *(describe(a) for a in case.args),
                *(f"{k}={describe(v)}" for k, v in case.kwargs.items()),
            ]
        )
        try:
            received = fn(*_copies(case.args), **_copies(case.kwargs))
        except Exception as err:  # noqa: BLE001 - the learner's code may raise anything; report it
            raise _fail(
                exercise,
                case.name,
                [
                    f"input: {shown}",
                    f"expected: {describe(expected)}",
                    f"received: {type(err).__name__}: {err}",
                ],
                " ".join(x for x in (case.hint, hint) if x),
            ) from err
        why = _mismatch(expected, received, atol, rtol)
        if why:
            raise _fail(
                exercise,
                case.name,
                [
                    f"input: {shown}",
                    f"expected: {describe(expected)}",
                    f"received: {describe(received)}",
                    f"why: {why}",
                ],
                " ".join(x for x in (case.hint, hint) if x),
            )


def _copies(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, tuple):
        return tuple(_copies(v) for v in value)
    if isinstance(value, Mapping):
        return {k: _copies(v) for k, v in value.items()}
    return value


def check_value(
    exercise: str,
    received: Any,
    expected: Any,
    *,
    source: str = "",
    hint: str = "",
    atol: float = 0.0,
    rtol: float = 0.0,
    reveal: bool = False,
) -> None:
    """Check one number (or array) a learner computed; ``source`` says where the expected value
    comes from.

    The expected value is the answer, so it is shown only with ``reveal=True``; otherwise the
    message says whether the received number lies above or below it.
    Book: Teaching with this book.
    """
    why = _mismatch(expected, received, atol, rtol)
    if why:
        tol = f" (tolerance {atol:g})" if atol else ""
        shown = describe(expected) + tol if reveal else "not shown (it is the answer)" + tol
        exp, got = _as_array(expected), _as_array(received)
        if not reveal and exp is not None and got is not None and exp.shape == got.shape == ():
            why = "your value is too " + ("high" if float(got) > float(exp) else "low")
        raise _fail(
            exercise,
            "value",
            [
                f"input: {source or 'the chapter run'}",
                f"expected: {shown}",
                f"received: {describe(received)}",
                f"why: {why}",
            ],
            hint,
        )


def check_choice(
    exercise: str,
    received: Any,
    expected: str,
    options: Sequence[str],
    *,
    source: str = "",
    hint: str = "",
) -> None:
    """Check a choice among ``options``; an answer outside them lists the allowed ones, the answer
    stays hidden.

    Book: Teaching with this book.
    """
    if received not in options:
        raise _fail(
            exercise,
            "choice",
            [
                f"options: {list(options)}",
                f"received: {describe(received)}",
                "why: the answer must be one of the options, spelled exactly",
            ],
            hint,
        )
    if received != expected:
        raise _fail(
            exercise,
            "choice",
            [
                f"input: {source or 'the chapter run'}",
                "expected: not shown",
                f"received: {received!r}",
                "why: another option fits the run",
            ],
            hint,
        )
