"""Explorers for a page without a kernel: every state of a few drop-downs computed ahead and
switched in the browser by a few lines of plain JavaScript (no widget manager, no network).

:func:`xsent_lib.chapter.explore_states` uses this when no live front-end is there to call back (the
book's executor, papermill); with one, the same function runs behind ipywidgets.
Book: Teaching with this book.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import html
import io
import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["MAX_STATES", "capture_html", "states_html"]

#: more states than this make a page heavy; give fewer options
MAX_STATES = 64


def _output_html(data: Mapping[str, Any]) -> str:
    if "text/html" in data:
        return str(data["text/html"])
    if "image/png" in data:
        png = data["image/png"]
        png = png if isinstance(png, str) else base64.b64encode(png).decode()
        return f'<img src="data:image/png;base64,{png}" alt="explorer state"/>'
    if "image/svg+xml" in data:
        return str(data["image/svg+xml"])
    return f"<pre>{html.escape(str(data.get('text/plain', '')))}</pre>"


def capture_html(fn: Callable[..., Any], values: Mapping[str, Any]) -> str:
    """Call ``fn(**values)`` and return what it printed and displayed, as HTML (figures as inline
    PNG).

    Without IPython's capture (``tools/run_chapter.py`` on a bare GPU host, where a shim stands
    in for ``IPython.display``) the printed text is captured alone; that host builds no page.
    Book: Teaching with this book.
    """
    try:
        from IPython.utils.capture import capture_output
    except ImportError:
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            fn(**values)
        _close_figures()
        return f"<pre>{html.escape(printed.getvalue())}</pre>"
    with capture_output() as captured:
        fn(**values)
    _close_figures()
    parts = [f"<pre>{html.escape(captured.stdout)}</pre>"] if captured.stdout.strip() else []
    parts += [_output_html(out.data) for out in captured.outputs]
    return "\n".join(parts)


def _close_figures() -> None:
    """Close what ``fn`` drew through pyplot: the cell's end would show it again."""
    try:
        import matplotlib.pyplot as plt

        plt.close("all")
    except ImportError:  # pragma: no cover - matplotlib is a dependency
        pass


def states_html(
    fn: Callable[..., Any],
    options: Mapping[str, Sequence[Any]],
    start: Mapping[str, Any],
    *,
    labels: Mapping[str, str] | None = None,
) -> str:
    """One HTML block: a ``<select>`` per control and the output of ``fn`` for every combination of
    options, only the selected one shown; ``start`` gives the first state. Deterministic (same
    inputs, same bytes).

    Book: Teaching with this book.
    """
    names = list(options)
    if not names:
        raise ValueError("states_html needs at least one control with options.")
    n_states = 1
    for name in names:
        if not options[name]:
            raise ValueError(
                f"control {name!r} has no options: a page without a kernel can only show "
                "states computed ahead, so give options=[...]."
            )
        if start[name] not in list(options[name]):
            raise ValueError(
                f"control {name!r}: the starting value {start[name]!r} is not among its options."
            )
        n_states *= len(options[name])
    if n_states > MAX_STATES:
        raise ValueError(
            f"{n_states} states (the product of the options) is more than {MAX_STATES}: "
            "give fewer options."
        )
    states = []
    for combo in itertools.product(*(range(len(options[n])) for n in names)):
        values = {n: list(options[n])[i] for n, i in zip(names, combo)}
        states.append(("-".join(map(str, combo)), capture_html(fn, values)))
    uid = (
        "xsent-explorer-"
        + hashlib.sha256(
            json.dumps(
                [getattr(fn, "__qualname__", "fn"), names, [s for s, _ in states]], default=str
            ).encode()
        ).hexdigest()[:10]
    )
    selects = []
    for name in names:
        label = html.escape((labels or {}).get(name, name))
        opts = "".join(
            f'<option value="{i}"{" selected" if v == start[name] else ""}>'
            f"{html.escape(str(v))}</option>"
            for i, v in enumerate(options[name])
        )
        selects.append(
            f'<label style="margin-right:1em">{label} <select data-control="{html.escape(name)}">'
            f"{opts}</select></label>"
        )
    first = "-".join(str(list(options[n]).index(start[n])) for n in names)
    divs = "\n".join(
        f'<div class="xsent-state" data-state="{key}"{"" if key == first else " hidden"}>\n'
        f"{body}\n</div>"
        for key, body in states
    )
    script = (
        f'<script>(function () {{ var root = document.getElementById("{uid}");'
        ' var selects = root.querySelectorAll("select[data-control]");'
        " function show() { var key = Array.prototype.map.call(selects, function (s) { return "
        "s.value; })"
        '.join("-"); root.querySelectorAll(".xsent-state").forEach(function (d) {'
        " d.hidden = d.dataset.state !== key; }); }"
        ' selects.forEach(function (s) { s.addEventListener("change", show); }); show(); '
        '})();</script>'
    )
    return (
        f'<div class="xsent-explorer" id="{uid}">\n<div '
        f'class="xsent-controls">{"".join(selects)}</div>\n'
        f"{divs}\n</div>\n{script}"
    )
