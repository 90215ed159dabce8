"""Execute a chapter notebook without ever stalling on a lost ZeroMQ wake-up.

Why this exists (see the book-build hang of chapter 3): with nbclient 0.11 / jupyter_client 8.10 /
pyzmq 27, the executor waits for a cell's ``execute_reply`` in ONE asyncio poll of the shell socket
that lasts the whole cell timeout. After cells that create ipywidgets (a burst of ``comm_open`` /
``comm_msg`` on IOPub) that poll sometimes misses the socket's wake-up: the kernel has sent the
reply (its header is stamped milliseconds after the cell started, before ``status: idle``) and sits
idle, while the poll sleeps until the timeout; pyzmq then polls once more, finds the reply and
returns it as if nothing happened. So the cell "succeeds" after exactly ``timeout`` seconds (1,800 s
in the old _config.yml; forever with papermill's default of no timeout). Upstream reports:
https://github.com/jupyter/nbclient/issues/312 (open; fix PR
https://github.com/jupyter/nbclient/pull/311 not merged),
https://github.com/jupyter/nbconvert/issues/2003.

The fix: wait for the reply (and for IOPub messages) in short slices (``poll_interval``, 1 s), each
ending with pyzmq's own final non-blocking poll, so a lost wake-up costs at most one slice, while
the cell's real timeout still counts from its start. :class:`XsentNotebookClient` is nbclient's
client with that change; the papermill engine ``xsent`` (registered by :func:`register_engine`) uses
it too.
"""
from __future__ import annotations

import asyncio
import os
import time
import typing as t
from queue import Empty

from jupyter_core.utils import ensure_async
from nbclient import NotebookClient
from nbclient.client import timestamp
from nbclient.exceptions import CellExecutionComplete, CellTimeoutError
from papermill.clientwrap import PapermillNotebookClient
from papermill.engines import NBClientEngine, papermill_engines
from papermill.utils import merge_kwargs, remove_args

ENGINE = "xsent"


class SlicedPollMixin:
    """Poll the shell and IOPub sockets in slices of ``poll_interval`` seconds (see the module
    docstring)."""

    #: longest single wait on a kernel socket, in seconds
    poll_interval: float = 1.0
    #: replies read more than a second after the kernel sent them (missed wake-ups this client
    #: recovered)
    late_replies: int = 0
    #: seconds the kernel may sit idle (IOPub said so) without its execute_reply arriving before we
    #: fail loudly
    stall_timeout: float = 60.0

    async def _async_poll_for_reply(self, msg_id: str, cell: t.Any, timeout: int | None,
                                    task_poll_output_msg: asyncio.Future[t.Any],
                                    task_poll_kernel_alive: asyncio.Future[t.Any]
                                    ) -> dict[str, t.Any]:
        assert self.kc is not None
        deadline = None if timeout is None else time.monotonic() + timeout
        idle_since: float | None = None
        while True:
            remaining = None if deadline is None else deadline - time.monotonic()
            wait = (self.poll_interval if remaining is None
                    else max(0.0, min(self.poll_interval, remaining)))
            try:
                msg = await ensure_async(self.kc.shell_channel.get_msg(timeout=wait))
            except Empty:
                # the kernel is idle: the reply must be there by now
                if task_poll_output_msg.done():
                    idle_since = idle_since or time.monotonic()
                    if time.monotonic() - idle_since > self.stall_timeout:
                        task_poll_kernel_alive.cancel()
                        raise CellTimeoutError.error_from_timeout_and_cell(
                            "Stalled: the kernel is idle but its execute_reply never arrived",
                            int(self.stall_timeout), cell)
                if remaining is not None and remaining <= wait:
                    task_poll_kernel_alive.cancel()
                    await self._async_check_alive()
                    msg = await self._async_handle_timeout(timeout, cell)  # raises CellTimeoutError
                    if msg is None:  # interrupted, no error reply configured: wait on
                        deadline = None
                        continue
                    msg["parent_header"] = {"msg_id": msg_id}
                else:
                    continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if task_poll_output_msg.done() and wait > 0 and self._slice_was_missed(msg):
                self.late_replies += 1
            if self.record_timing:
                cell["metadata"]["execution"]["shell.execute_reply"] = timestamp(msg)
            try:
                await asyncio.wait_for(task_poll_output_msg, self.iopub_timeout)
            except (asyncio.TimeoutError, Empty):
                if self.raise_on_iopub_timeout:
                    task_poll_kernel_alive.cancel()
                    raise CellTimeoutError.error_from_timeout_and_cell(
                        "Timeout waiting for IOPub output", self.iopub_timeout, cell) from None
                self.log.warning("Timeout waiting for IOPub output")
            task_poll_kernel_alive.cancel()
            return msg

    @staticmethod
    def _slice_was_missed(msg: dict[str, t.Any]) -> bool:
        """Whether the reply was sent more than a second before we read it (a missed wake-up)."""
        sent = msg.get("header", {}).get("date")
        if not hasattr(sent, "timestamp"):
            return False
        return time.time() - sent.timestamp() > 1.0

    async def _async_poll_output_msg(self, parent_msg_id: str, cell: t.Any,
                                     cell_index: int) -> None:
        assert self.kc is not None
        while True:
            try:
                msg = await ensure_async(self.kc.iopub_channel.get_msg(timeout=self.poll_interval))
            except Empty:
                continue
            if msg["parent_header"].get("msg_id") == parent_msg_id:
                try:
                    # raises CellExecutionComplete at idle
                    self.process_message(msg, cell, cell_index)
                except CellExecutionComplete:
                    return


class XsentNotebookClient(SlicedPollMixin, NotebookClient):
    """nbclient's NotebookClient, polling in slices so it never waits for a reply the kernel already
    sent."""


class XsentPapermillClient(SlicedPollMixin, PapermillNotebookClient):
    """papermill's client with the same sliced polling."""


class XsentEngine(NBClientEngine):
    """The papermill engine ``xsent``: papermill's nbclient engine on
    :class:`XsentPapermillClient`."""

    @classmethod
    def execute_managed_notebook(cls, nb_man, kernel_name, log_output=False, stdout_file=None,
                                 stderr_file=None, start_timeout=60, execution_timeout=None,
                                 **kwargs):
        kwargs = remove_args(["input_path"], **kwargs)
        safe_kwargs = remove_args(["timeout", "startup_timeout"], **kwargs)
        final_kwargs = merge_kwargs(
            safe_kwargs, timeout=execution_timeout if execution_timeout else kwargs.get("timeout"),
            startup_timeout=start_timeout, kernel_name=kernel_name,
            log=kwargs.get("log") or _logger(), log_output=log_output, stdout_file=stdout_file,
            stderr_file=stderr_file)
        return XsentPapermillClient(nb_man, **final_kwargs).execute()


def _logger():
    from papermill.log import logger

    return logger


def register_engine() -> str:
    """Register the papermill engine ``xsent`` (idempotent) and return its name."""
    papermill_engines.register(ENGINE, XsentEngine)
    return ENGINE


def execute_notebook(input_path: str, output_path: str, *,
                     parameters: dict[str, t.Any] | None = None, cwd: str | None = None,
                     timeout: int = 600, progress_bar: bool = False, **kwargs: t.Any) -> t.Any:
    """papermill.execute_notebook on the ``xsent`` engine with a per-cell ``timeout`` (seconds)."""
    import papermill

    # this client cannot stall on widget messages, and the book keeps the saved widget state
    # (chapter.live_frontend)
    os.environ.setdefault("XSENT_WIDGETS", "1")
    return papermill.execute_notebook(input_path, output_path, parameters=parameters or {}, cwd=cwd,
                                      kernel_name="python3", engine_name=register_engine(),
                                      execution_timeout=timeout, progress_bar=progress_bar,
                                      **kwargs)


def main(argv: list[str] | None = None) -> int:
    """``python tools/nbexec.py IN.ipynb OUT.ipynb [-p NAME VALUE]... [--timeout S]``: papermill's
    rerun, unstallable."""
    import argparse

    import yaml

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("-p", "--parameter", nargs=2, action="append", default=[],
                        metavar=("NAME", "VALUE"))
    parser.add_argument("--timeout", type=int, default=3600,
                        help="per-cell limit in seconds (stalls fail after 60 s idle)")
    args = parser.parse_args(argv)
    # as papermill's -p reads values
    params = {name: yaml.safe_load(value) for name, value in args.parameter}
    execute_notebook(args.input, args.output, parameters=params, timeout=args.timeout,
                     progress_bar=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
