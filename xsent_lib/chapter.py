"""What every chapter does first and last: resolve its parameters, seed, pick the device, stamp provenance.

Book: chapter 0 (How to run this book).
"""
from __future__ import annotations

import inspect
import os
from dataclasses import dataclass
from typing import Any, Callable, TypeVar

import numpy as np
import pandas as pd
import torch

import xsent_lib
from xsent_lib.results.provenance import device_description, git_commit, library_hash
from xsent_lib.results.store import PROFILES, Run, start_run
from xsent_lib.base.runtime import pick_device, seed_everything

T = TypeVar("T")
PROFILE_ENV = "XSENT_PROFILE"


@dataclass
class Chapter:
    """A chapter run: its resolved profile, device, seeded generator and the :class:`Run` that stores results.

    Book: chapter 0 (How to run this book).
    """

    name: str
    profile: str
    device: torch.device
    seed: int
    rng: np.random.Generator
    run: Run

    def pick(self, *, smoke: T, book: T, full: T) -> T:
        """Return the setting of the current profile, e.g. ``ch.pick(smoke=200, book=5_000, full=550_000)``.

        Book: chapter 0 (How to run this book).
        """
        return {"smoke": smoke, "book": book, "full": full}[self.profile]

    def log(self, key: str, value: Any) -> Any:
        """Store a result under ``key`` in ``metrics.json`` (see :meth:`Run.log`).

        Book: chapter 0 (How to run this book).
        """
        return self.run.log(key, value)

    def finish(self, **extra: Any) -> pd.Series:
        """Write ``provenance.json`` and return it as a Series to show at the end of the chapter.

        Book: chapter 0 (How to run this book).
        """
        prov = self.run.finish(**extra)
        shown = {k: v for k, v in prov.items() if k != "params"}
        shown["results"] = str(self.run.directory)
        return pd.Series(shown, name="provenance")


def start_chapter(name: str, *, profile: str, device: str, seed: int, results_dir: str,
                  data_dir: str | None = None, **params: Any) -> Chapter:
    """Resolve a chapter's papermill parameters, seed everything, and open its results run.

    The environment variable ``XSENT_PROFILE`` (set by ``make book PROFILE=...``) overrides ``profile``
    so a whole book can be built at one scale. Prints one line saying what produced this page.
    Book: chapter 0 (How to run this book).
    """
    profile = os.environ.get(PROFILE_ENV) or profile
    if profile not in PROFILES:
        raise ValueError(f"profile={profile!r} is not one of {PROFILES}.")
    dev = pick_device(device)
    rng = seed_everything(seed)
    all_params = {"profile": profile, "device": str(device), "seed": seed, "data_dir": data_dir,
                  "results_dir": str(results_dir), **params}
    run = start_run(name, profile, results_dir, params=all_params, seed=seed, device=str(dev))
    _inline_figures()
    print(f"xsent_lib {xsent_lib.__version__} (commit {git_commit()}, library hash {library_hash()}) · "
          f"profile '{profile}' · {device_description(dev)} · seed {seed}")
    return Chapter(name=name, profile=profile, device=dev, seed=seed, rng=rng, run=run)


def _inline_figures() -> None:
    """Inside a notebook, display returned matplotlib figures inline (also those built without pyplot)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None and hasattr(shell, "run_line_magic"):
        shell.run_line_magic("matplotlib", "inline")


def show_source(obj: Callable[..., Any] | type) -> Any:
    """Display the library's own source of ``obj`` (never a pasted copy), syntax-highlighted.

    Book: chapter 0 (How to run this book).
    """
    from IPython.display import Code

    return Code(inspect.getsource(obj), language="python")
