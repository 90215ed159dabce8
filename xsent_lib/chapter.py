"""What every chapter does first and last: resolve its parameters, seed, pick the device, stamp
provenance.

Book: chapter 0 (How to run this book).
"""
from __future__ import annotations

import inspect
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, TypeVar

import numpy as np
import pandas as pd
import torch

import xsent_lib
from xsent_lib.base.runtime import check_seed, pick_device, seed_everything, set_chapter_device
from xsent_lib.data.cache import DATASETS_READ
from xsent_lib.data.sources import DataSources
from xsent_lib.results import gpu_runs
from xsent_lib.results.provenance import device_description, git_commit, library_hash
from xsent_lib.results.store import PROFILES, Run, start_run

T = TypeVar("T")
_BOOK_STAMP = re.compile(r"^\s*Book: chapters? .*$")
#: a stamp after a docstring's text on the same line, up to its closing ``).`` (it may wrap)
_INLINE_STAMP = re.compile(r"(?<=\S)[ \t]+Book: chapters? [0-9][0-9, and-]*"
                           r"(?:\s*\((?:[^()]|\([^()]*\))*\))?\.?")
PROFILE_ENV = "XSENT_PROFILE"
#: ``1`` builds the chapters' widgets, ``0`` never does; unset, they are built only for a live
#: front-end
WIDGETS_ENV = "XSENT_WIDGETS"
#: executors that run a notebook without a front-end (a kernel started by one of them draws no
#: widget)
_EXECUTORS = ("papermill", "nbconvert", "nbclient", "jupyter-execute", "nbexec")
#: the checkout holding xsent_lib/, notebooks/ and tests/ (the defaults below are read against it,
#: never the cwd)
REPO_ROOT = Path(xsent_lib.__file__).resolve().parents[1]
NOTEBOOKS_DIR = REPO_ROOT / "notebooks"
DEFAULT_RESULTS_DIR = REPO_ROOT / "_build" / "results"


def resolve_path(value: str | os.PathLike[str] | None, default: Path | None = None) -> Path | None:
    """``None`` gives ``default``; a relative path is read against the caller's working folder, as a
    user expects.

    Book: chapter 0 (How to run this book).
    """
    if value is None:
        return default
    path = Path(value).expanduser()
    return (path if path.is_absolute() else Path.cwd() / path).resolve()


@dataclass
class Chapter:
    """A chapter run: its resolved profile, device, seeded generator and the :class:`Run` that
    stores results.

    Book: chapter 0 (How to run this book).
    """

    name: str
    profile: str
    device: torch.device
    seed: int
    rng: np.random.Generator
    run: Run
    results_dir: Path = DEFAULT_RESULTS_DIR
    data_dir: Path | None = None
    data: DataSources | None = None

    def pick(self, *, smoke: T, book: T, full: T, gpu: T | None = None) -> T:
        """Return the setting of the current profile, e.g. ``ch.pick(smoke=200, book=5_000,
        full=550_000)``.

        ``gpu`` (minutes on one GPU) falls back to ``book`` for a setting that does not grow there.
        Book: chapter 0 (How to run this book).
        """
        return {"smoke": smoke, "book": book, "gpu": book if gpu is None else gpu,
                "full": full}[self.profile]

    def log(self, key: str, value: Any) -> Any:
        """Store a result under ``key`` in ``metrics.json`` (see :meth:`Run.log`).

        Book: chapter 0 (How to run this book).
        """
        return self.run.log(key, value)

    def log_timing(self, key: str, value: Any) -> Any:
        """Store a measurement that varies from run to run under ``timings`` (see
        :meth:`Run.log_timing`).

        Book: chapter 0 (How to run this book).
        """
        return self.run.log_timing(key, value)

    def finish(self, **extra: Any) -> pd.Series:
        """Write ``provenance.json`` and return it as a Series to show at the end of the chapter.

        Book: chapter 0 (How to run this book).
        """
        extra.setdefault("library_modules", library_modules())
        extra.setdefault("cached_datasets", sorted(DATASETS_READ))
        if self.data is not None:
            extra.setdefault("data_sources", self.data.report())
        prov = self.run.finish(**extra)
        shown = {k: v for k, v in prov.items()
                 if k not in {"params", "library_modules", "data_sources"}}
        if "data_sources" in prov:
            sources = prov["data_sources"]
            shown["real data read"] = ", ".join(n for n, st in sources["datasets"].items()
                                                if st["status"] == "real") or "none"
            shown["real data files"] = len(sources["files"])
        shown["results"] = str(self.run.directory)
        return pd.Series(shown, name="provenance")


def start_chapter(name: str, *, profile: str, device: str, seed: int,
                  results_dir: str | None = None, data_dir: str | None = None,
                  uses: Sequence[str] = (), **params: Any) -> Chapter:
    """Resolve a chapter's papermill parameters, seed everything, and open its results run.

    The environment variable ``XSENT_PROFILE`` (set by ``make book PROFILE=...``) overrides
    ``profile`` so a whole book can be built at one scale. Paths never depend on where the chapter
    was started from: ``results_dir=None`` means ``<repository>/_build/results``, ``data_dir=None``
    means no data folder, and a relative path given by the user is read against the caller's working
    folder. In a notebook the chapter's ``results_dir`` / ``data_dir`` variables are rebound to
    those absolute paths and the kernel moves to ``notebooks/``, so the chapter's own relative paths
    (``../tests/fixtures``) hold wherever papermill was run. Prints one line saying what produced
    this page.

    ``uses`` names the papers' real data sets the chapter reads when ``data_dir`` holds them, at
    every profile (keys of :data:`xsent_lib.data.sources.REAL_DATA`): the next lines say, for each,
    whether it was found or falls back to a stand-in, and ``ch.data`` (a :class:`DataSources`)
    records what the run read; its report, with every file's size and sha256, goes to
    provenance.json. ``seed`` must lie in ``[0, 2**31 - 1]``
    (:data:`~xsent_lib.base.runtime.MAX_SEED`): the chapter derives further seeds from it
    (``seed + 1``, ...).

    The run folder ``results_dir/<name>/<profile>`` is created and write-tested first
    (:func:`start_run`): a ``results_dir`` that is a file or cannot be written raises ValueError
    naming it, before anything runs.
    Book: chapter 0 (How to run this book).
    """
    seed = check_seed(seed)
    profile = os.environ.get(PROFILE_ENV) or profile
    if profile not in PROFILES:
        raise ValueError(f"profile={profile!r} is not one of {PROFILES}.")
    results_path = resolve_path(results_dir, DEFAULT_RESULTS_DIR)
    data_path = resolve_path(data_dir)
    dev = pick_device(device)
    all_params = {"profile": profile, "device": str(device), "seed": seed,
                  "data_dir": None if data_path is None else str(data_path),
                  "results_dir": str(results_path), **params}
    # checks results_dir
    run = start_run(name, profile, results_path, params=all_params, seed=seed, device=str(dev))
    _rebind_caller_paths(inspect.currentframe(), results_dir=(results_dir, results_path),
                         data_dir=(data_dir, data_path))
    rng = seed_everything(seed)
    set_chapter_device(dev)  # library calls without a device= run on the chapter's
    if _inline_figures() and NOTEBOOKS_DIR.is_dir():
        os.chdir(NOTEBOOKS_DIR)
    data = DataSources(data_path, profile, tuple(uses),
                       checksum_cache=results_path / ".data_checksums.json")
    print(f"xsent_lib {xsent_lib.__version__} (commit {git_commit()}, library hash "
          f"{library_hash()}) · profile '{profile}' · {device_description(dev)} · seed {seed}")
    if uses or data_path is not None:
        print("\n".join(data.lines()))
    return Chapter(name=name, profile=profile, device=dev, seed=seed, rng=rng, run=run,
                   results_dir=results_path, data_dir=data_path, data=data)


def _rebind_caller_paths(frame: Any, **names: tuple[Any, Path | None]) -> None:
    """In the notebook that called start_chapter, replace ``results_dir`` / ``data_dir`` by their
    resolved paths."""
    caller = frame.f_back if frame is not None else None
    if caller is None or caller.f_globals.get("__name__") != "__main__":
        return
    for name, (given, resolved) in names.items():
        if name in caller.f_globals and caller.f_globals[name] is given:
            caller.f_globals[name] = None if resolved is None else str(resolved)


def library_modules() -> dict[str, str]:
    """Every ``xsent_lib`` module this process imported, as
    ``{path relative to xsent_lib/: sha256}``, sorted.

    Recorded in provenance.json by :meth:`Chapter.finish`; the book build re-executes a chapter only
    when one of these files (or the chapter, requirements.txt, the profile) changed.
    Book: chapter 11 (Reproducibility report).
    """
    import hashlib

    root = Path(xsent_lib.__file__).resolve().parent
    found: dict[str, str] = {}
    for mod_name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not (mod_name == "xsent_lib" or mod_name.startswith("xsent_lib.")) or not file:
            continue
        path = Path(file).resolve()
        if path.suffix == ".py" and path.is_relative_to(root):
            found[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return dict(sorted(found.items()))


def _inline_figures() -> bool:
    """Inside a notebook, display returned matplotlib figures inline (also those built without
    pyplot).

    Returns whether this runs in an IPython kernel (a notebook), not a plain interpreter or a test.
    """
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is not None and hasattr(shell, "run_line_magic") and hasattr(shell, "kernel"):
        shell.run_line_magic("matplotlib", "inline")
        return True
    if shell is not None and hasattr(shell, "run_line_magic"):
        shell.run_line_magic("matplotlib", "inline")
    return False


def live_frontend() -> bool:
    """Whether this kernel has a live Jupyter front-end that will draw widgets and call back into
    them.

    ``XSENT_WIDGETS=1`` / ``0`` decides when set (the book's executor sets 1: it cannot stall on
    widget messages, and the built page keeps the saved widget state). Otherwise a front-end must
    show itself: Jupyter Server names the notebook of the kernels it starts (``JPY_SESSION_NAME``),
    VS Code defines ``__vsc_ipynb_file__``, Colab imports ``google.colab``; a kernel whose parent is
    an executor (papermill, nbconvert, nbclient, ...) has none, even when it inherited such a
    variable. Plain papermill and nbclient can wait forever on a cell that creates widgets
    (nbclient#312), so without a front-end no widget is built.
    Book: chapter 0 (How to run this book).
    """
    forced = os.environ.get(WIDGETS_ENV, "").strip()
    if forced in {"0", "1"}:
        return forced == "1"
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None or not hasattr(shell, "kernel"):
        return False
    shown = ("JPY_SESSION_NAME" in os.environ or "__vsc_ipynb_file__" in shell.user_ns
             or "google.colab" in sys.modules)
    return shown and not _parent_is_executor()


def _parent_is_executor() -> bool:
    """Whether the process that started this kernel is a notebook executor (read from /proc; False
    elsewhere)."""
    try:
        raw = Path(f"/proc/{os.getppid()}/cmdline").read_bytes()
        cmdline = raw.replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return False
    return any(name in cmdline for name in _EXECUTORS)


@dataclass(frozen=True)
class Control:
    """One control of :func:`explore`: its starting ``value`` and, for a drop-down, its ``options``.

    A text value gives a text box that calls back on Enter; ``options`` give a drop-down.
    Book: chapter 0 (How to run this book).
    """

    value: Any
    options: Sequence[Any] = ()
    description: str = ""

    def widget(self, name: str) -> Any:
        """The ipywidgets control (built only for a live front-end).

        Book: chapter 0 (How to run this book).
        """
        import ipywidgets as widgets

        label = self.description or name
        if self.options:
            return widgets.Dropdown(options=list(self.options), value=self.value, description=label)
        if isinstance(self.value, str):
            return widgets.Text(value=self.value, continuous_update=False, description=label,
                                layout=widgets.Layout(width="90%"))
        raise TypeError(f"control {name!r}: give options=[...] for a drop-down or a str value for "
                        f"a text box, got value {self.value!r}.")


def explore(fn: Callable[..., None], /, **controls: Control) -> Any:
    """Call ``fn`` with each control's value; with a live front-end, return the widget that calls it
    again.

    Without one (papermill, nbconvert, the tests) no widget is created: ``fn`` runs once with the
    starting values and its printed or displayed output is the cell's, so a chapter run by any
    client finishes.
    Book: chapter 0 (How to run this book).
    """
    unknown = [name for name, c in controls.items() if not isinstance(c, Control)]
    if unknown:
        raise TypeError(f"explore(): {unknown} must be Control(...) values, e.g. n=Control(256, "
                        "options=[128, 256]).")
    if live_frontend():
        import ipywidgets as widgets

        return widgets.interactive(fn, **{name: c.widget(name) for name, c in controls.items()})
    fn(**{name: c.value for name, c in controls.items()})
    return None


def show_gpu_run(ch: Chapter, *, plans: Mapping[str, Any] | None = None,
                 work: Callable[[Any], float] | None = None, unit: str = "",
                 benchmark: tuple[float, str] | None = None, tables: Sequence[str] = (),
                 runs_dir: str | Path | None = None) -> None:
    """Show, beside this run, the chapter's committed ``gpu``-profile run (``book/runs/<ch>/gpu/``).

    With ``plans`` (the recipe's plans by profile) it first lists the settings ``gpu`` changes
    against ``book``. Then it prints which GPU, commit and date made the committed run, how long it
    took and whether it finished, each claim's verdict in both runs (and where it changes with
    scale), the run's tables named in ``tables`` and its figures; or one line saying that none is
    committed.
    With ``work`` (the recipe's count of ``unit`` in a plan), a last line estimates ``full``'s GPU
    hours from that run, or from ``benchmark`` (:func:`~xsent_lib.results.gpu_runs.full_estimate`).
    Book: chapter 11 (Reproducibility report).
    """
    from IPython.display import Image, display

    if plans is not None:
        changes = gpu_runs.plan_changes(plans)
        print(f"what the 'gpu' profile changes against 'book' ({len(changes)} settings):")
        display(changes)
    run = gpu_runs.committed_run(ch.name, "gpu", runs_dir)
    if run is not None and run.directory == ch.run.directory:
        print(f"This run is the chapter's '{ch.profile}'-profile run ({run.directory}).")
        run = None
    elif run is None:
        print(gpu_runs.absent_line(ch.name))
    else:
        print("Committed GPU-profile run: " + run.label)
        if run.status != "ok":
            print(f"  it stopped: {run.runner.get('error', 'no provenance.json')}")
        ours = ch.run.metrics.get("claims")
        display(gpu_runs.claims_beside(ours, run, f"this run ({ch.profile})"))
        for key in tables:
            frame = run.table(key)
            print(f"{key} of the GPU run:" if frame is not None else f"{key}: not in the GPU run")
            if frame is not None:
                display(frame)
        for fig in run.figures:
            display(Image(filename=str(fig)))
    if plans is not None and work is None:
        print("full: GPU hours unmeasured (the recipe counts no training work to scale a run by).")
    elif plans is not None and work is not None:
        work_run, work_full = work(plans["gpu"]), work(plans["full"])
        print(gpu_runs.full_estimate(run, work_run=work_run, work_full=work_full, unit=unit,
                                     benchmark=benchmark))


def show_source(obj: Callable[..., Any] | type) -> Any:
    """Display the library's own source of ``obj`` (never a pasted copy), syntax-highlighted.

    Book: chapter 0 (How to run this book).
    """
    from IPython.display import Code

    return Code(without_book_stamps(inspect.getsource(obj)), language="python")


def without_book_stamps(source: str) -> str:
    """``source`` without the docstrings' ``Book: chapter N (...)`` lines (they point a reader of
    the library at the book; in the book itself they are noise); a docstring the stamp closed now
    closes on its last line.

    Book: chapter 0 (How to run this book).
    """
    lines = _INLINE_STAMP.sub("", source).splitlines(keepends=True)
    kept: list[str] = []
    skip_next = False
    for i, line in enumerate(lines):
        if skip_next:
            skip_next = False
            continue
        if not _BOOK_STAMP.match(line):
            kept.append(line)
            continue
        closes_here = line.rstrip().endswith('"""')
        closes = closes_here or (i + 1 < len(lines) and lines[i + 1].strip() == '"""')
        if closes:
            while kept and not kept[-1].strip():
                kept.pop()
            if kept:
                kept[-1] = kept[-1].rstrip("\n") + '"""\n'
                skip_next = not closes_here
    return "".join(kept)
