"""Run a chapter from its MyST source as a plain Python script: no Jupyter, IPython or papermill
needed.

A lent GPU machine has CUDA torch but may lack the notebook stack. This executor reads
``notebooks/NN_name.md``, runs its code cells in order in one namespace (named ``__main__``, as a
kernel's), sets the parameters given with ``-p name value`` right after the cell tagged
``parameters`` (papermill's rule), and shows each cell's last expression the way a notebook would:
through a small stand-in for ``IPython.display`` that prints tables and text and saves every
matplotlib figure as a PNG in the run's ``figures/`` folder. Magic lines (``%matplotlib inline``)
are skipped. Cells tagged ``raises-exception`` may fail; any other failure, or the ``--time-limit``,
stops the run. Beside the chapter's own ``metrics.json`` and ``provenance.json``
(results_dir/<chapter>/<profile>/), it writes ``output.txt`` (what the cells printed) and
``runner.json`` (status, seconds, the slowest cells, the Python, torch and GPU it ran on), and
copies ``runner.json``'s summary into provenance.json under ``runner``.

    python tools/run_chapter.py notebooks/10_xlm.md --profile gpu --results-dir book/runs -p seed 1

``XSENT_BLOCK_IMPORTS=IPython,papermill`` makes those imports fail (the tests simulate a bare
machine)."""

from __future__ import annotations

import argparse
import ast
import importlib.abc
import json
import os
import platform
import re
import signal
import sys
import time
import traceback
import types
from pathlib import Path
from typing import Any

FENCE = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```\s*$", re.DOTALL | re.MULTILINE)
OPTION = re.compile(r"^:(\w[\w-]*):\s*(.*)$")


class Blocker(importlib.abc.MetaPathFinder):
    """Make ``import NAME`` fail for the named top-level packages (a machine without them)."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if fullname.split(".")[0] in self.names:
            raise ImportError(f"No module named {fullname!r} (blocked by XSENT_BLOCK_IMPORTS)")
        return None


def parse_cells(source: str) -> list[dict[str, Any]]:
    """The code cells of a MyST notebook: ``{"code": str, "tags": [...]}`` in order."""
    cells = []
    for match in FENCE.finditer(source):
        lines = match.group(1).split("\n")
        tags: list[str] = []
        if lines and lines[0].strip() == "---":  # a YAML block of options
            end = lines.index("---", 1)
            for line in lines[1:end]:
                if line.strip().startswith("tags:"):
                    tags = re.findall(r"[\w-]+", line.split(":", 1)[1])
            lines = lines[end + 1 :]
        while lines and OPTION.match(lines[0]):
            key, value = OPTION.match(lines[0]).groups()  # type: ignore[union-attr]
            if key == "tags":
                tags = re.findall(r"[\w-]+", value)
            lines = lines[1:]
        code = "\n".join("# " + ln if ln.lstrip().startswith(("%", "!")) else ln for ln in lines)
        cells.append({"code": code, "tags": tags})
    return cells


def parameter_value(text: str) -> Any:
    """``-p name value``: a Python literal when it reads as one (1, 0.5, None), else the string."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


class Display:
    """The stand-in for ``IPython.display``: prints what a notebook would show and saves figures."""

    def __init__(self, figures: Path) -> None:
        self.figures = figures
        self.count = 0
        self.saved: list[str] = []

    def save_figure(self, fig: Any) -> None:
        self.count += 1
        self.figures.mkdir(parents=True, exist_ok=True)
        name = f"fig_{self.count:02d}.png"
        fig.savefig(self.figures / name, dpi=80, bbox_inches="tight")
        self.saved.append(name)
        print(f"[figure {name}]")

    def show(self, obj: Any) -> None:
        if obj is None:
            return
        if hasattr(obj, "savefig"):  # a matplotlib Figure, or a seaborn grid
            self.save_figure(obj)
            self.close(getattr(obj, "figure", obj))
        elif hasattr(obj, "get_figure") and hasattr(obj, "plot"):  # an Axes
            fig = obj.get_figure()
            self.save_figure(fig)
            self.close(fig)
        elif hasattr(obj, "to_string"):  # a DataFrame or Series
            print(obj.to_string(max_rows=80))
        elif hasattr(obj, "data") and hasattr(obj, "to_html") and hasattr(obj.data, "to_string"):
            print(obj.data.to_string(max_rows=80))  # a pandas Styler
        elif isinstance(obj, Shown):
            print(obj.text)
        else:
            print(repr(obj))

    @staticmethod
    def close(fig: Any) -> None:
        import matplotlib.pyplot as plt

        plt.close(fig)

    def flush_pyplot(self) -> None:
        """Save and close the figures a cell left open in pyplot (the inline backend shows them)."""
        if "matplotlib.pyplot" not in sys.modules:
            return
        import matplotlib.pyplot as plt

        for num in plt.get_fignums():
            self.save_figure(plt.figure(num))
        plt.close("all")


class Shown:
    """Markdown, HTML, Code, Latex: shown as their text."""

    def __init__(self, data: Any = "", *args: Any, **kwargs: Any) -> None:
        self.text = str(data)


#: the display classes of the shim's ``IPython.display`` (besides ``display`` and ``clear_output``)
SHOWN = ("Markdown", "HTML", "Javascript", "Code", "Latex", "Image", "Pretty", "JSON")


def install_ipython_shim(display: Display) -> None:
    """Put a minimal ``IPython`` and ``IPython.display`` in ``sys.modules`` (the front end)."""
    ipython = types.ModuleType("IPython")
    disp = types.ModuleType("IPython.display")

    def show_all(*objs: Any, **kwargs: Any) -> None:
        for obj in objs:
            display.show(obj)

    for name in SHOWN:
        setattr(disp, name, type(name, (Shown,), {}))
    disp.display = show_all  # type: ignore[attr-defined]
    disp.clear_output = lambda *a, **k: None  # type: ignore[attr-defined]
    ipython.display = disp  # type: ignore[attr-defined]
    ipython.get_ipython = lambda: None  # type: ignore[attr-defined]
    ipython.__version__ = "9.0.0 (xsent run_chapter shim)"  # type: ignore[attr-defined]
    ipython.version_info = (9, 0, 0, "shim")  # matplotlib reads it  # type: ignore[attr-defined]
    sys.modules["IPython"], sys.modules["IPython.display"] = ipython, disp


class Tee:
    """Write to the console and to the run's output.txt."""

    def __init__(self, stream: Any, log: Any) -> None:
        self.stream, self.log = stream, log

    def write(self, text: str) -> int:
        self.log.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.log.flush()
        self.stream.flush()


class TimeLimit(BaseException):
    """The run's time limit (a BaseException: a chapter's ``except Exception`` cannot hide it)."""


def run_cell(code: str, namespace: dict[str, Any], display: Display, label: str) -> None:
    """Execute one cell; show its last expression as a notebook would."""
    tree = ast.parse(code, filename=label)
    last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    if last is not None and code.rstrip().endswith(";"):
        last = None
    body = ast.Module(body=tree.body[:-1] if last is not None else tree.body, type_ignores=[])
    exec(compile(body, label, "exec"), namespace)
    if last is not None:
        display.show(eval(compile(ast.Expression(last.value), label, "eval"), namespace))
    display.flush_pyplot()


def machine() -> dict[str, Any]:
    """Python, torch, CUDA and the GPU this process sees (torch's if the chapter imported it)."""
    info: dict[str, Any] = {"python": platform.python_version(), "host_cpus": os.cpu_count(),
                            "torch": None, "cuda": None, "gpu": None}
    torch = sys.modules.get("torch")
    if torch is not None:
        info.update(torch=torch.__version__, cuda=torch.version.cuda)
        if torch.cuda.is_available():
            info["gpu"] = torch.cuda.get_device_name(0)
    return info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("chapter", help="notebooks/NN_name.md")
    parser.add_argument("--profile", default="gpu")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--results-dir", default="book/runs")
    parser.add_argument("--time-limit", type=int, default=0, help="seconds (0: none)")
    parser.add_argument("-p", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"))
    args = parser.parse_args(argv)
    blocked = {n.strip() for n in os.environ.get("XSENT_BLOCK_IMPORTS", "").split(",") if n.strip()}
    if blocked:
        sys.meta_path.insert(0, Blocker(blocked))
    md = Path(args.chapter).resolve()
    if md.suffix != ".md" or not md.is_file():
        parser.error(f"{args.chapter} is not a chapter's MyST source (notebooks/NN_name.md).")
    results = Path(args.results_dir).resolve()
    run_dir = results / md.stem / args.profile
    run_dir.mkdir(parents=True, exist_ok=True)
    for old in ("metrics.json", "provenance.json", "runner.json"):
        (run_dir / old).unlink(missing_ok=True)
    for old in (run_dir / "figures").glob("*.png"):
        old.unlink()
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ["XSENT_WIDGETS"] = "0"
    display = Display(run_dir / "figures")
    install_ipython_shim(display)
    sys.path.insert(0, str(md.parents[1]))
    params = {
        "profile": args.profile,
        "device": args.device,
        "results_dir": str(results),
        **{name: parameter_value(value) for name, value in args.p},
    }
    cells = parse_cells(md.read_text())
    # IPython makes ``display`` a builtin of every kernel; a chapter may call it unimported.
    namespace: dict[str, Any] = {"__name__": "__main__", "__file__": str(md),
                                 "display": sys.modules["IPython.display"].display}
    os.chdir(md.parent)
    status: dict[str, Any] = {
        "chapter": md.stem,
        "profile": args.profile,
        "status": "ok",
        "cells": len(cells),
        "params": params,
        "blocked_imports": sorted(blocked),
    }
    cell_s: list[tuple[float, int]] = []

    def on_alarm(signum: int, frame: Any) -> None:
        raise TimeLimit(f"the run passed its time limit of {args.time_limit} s")

    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(max(0, args.time_limit))
    start = time.perf_counter()
    with open(run_dir / "output.txt", "w") as log:
        sys.stdout = Tee(sys.__stdout__, log)
        try:
            for i, cell in enumerate(cells):
                if "skip-execution" in cell["tags"]:
                    continue
                t0 = time.perf_counter()
                try:
                    run_cell(cell["code"], namespace, display, f"<{md.stem} cell {i}>")
                except TimeLimit:
                    raise
                except BaseException as exc:  # noqa: BLE001 - a notebook cell may raise anything
                    if "raises-exception" not in cell["tags"]:
                        status.update(
                            status="failed", failed_cell=i, error=f"{type(exc).__name__}: {exc}"
                        )
                        traceback.print_exc(file=sys.stdout)
                        break
                    print(f"{type(exc).__name__}: {exc} (the cell is tagged raises-exception)")
                cell_s.append((time.perf_counter() - t0, i))
                if "parameters" in cell["tags"]:
                    namespace.update(params)
        except TimeLimit as exc:
            status.update(status="timed out", error=str(exc))
            print(f"STOPPED: {exc}")
        finally:
            signal.alarm(0)
            sys.stdout = sys.__stdout__
    status.update(
        seconds=round(time.perf_counter() - start, 1),
        machine=machine(),
        commit=os.environ.get("XSENT_COMMIT"),
        figures=display.saved,
        slowest_cells=[{"cell": i, "seconds": round(s, 1)} for s, i in sorted(cell_s)[::-1][:8]],
    )
    (run_dir / "runner.json").write_text(json.dumps(status, indent=1) + "\n")
    prov_path = run_dir / "provenance.json"
    if prov_path.exists():
        prov = json.loads(prov_path.read_text())
        prov["runner"] = {k: status[k] for k in ("status", "seconds", "machine", "figures")}
        prov_path.write_text(json.dumps(prov, indent=1, sort_keys=True) + "\n")
    print(
        f"{md.stem} ({args.profile}): {status['status']} in {status['seconds']} s -> {run_dir}"
        + (f" ({status['error']})" if "error" in status else ""),
        file=sys.stderr,
    )
    return 0 if status["status"] == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
