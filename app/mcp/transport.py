"""A stdio transport for ``mcp.Client`` that watches its child closely.

Compared with the SDK's own stdio client it exposes the child's pid, notices
its death at once (``exited``, ``returncode``, an ``on_exit`` callback), keeps
the tail of its stderr and logs all of it to a file, and tolerates a server
that prints non-JSON lines on stdout: those go to the stderr tail marked
``[stdout garbage]`` instead of breaking the session. The child runs in a new
process group with a minimal environment, and leaving the context stops the
whole group: close stdin, a bounded wait, SIGTERM, then SIGKILL.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from app.children import spawn, stop_tree, wait_for_death
from app.mcp.inbound import Inbound
from app.mcp.process import child_environment
from app.mcp.serverlog import ServerLog

logger = logging.getLogger(__name__)

TAIL_LINES = 200
STDERR_LINE = 8192  # characters of one stderr line kept; a longer one is cut into pieces


class StdioTransport:
    """``async with StdioTransport(argv) as (read, write)``; one child per instance.

    Create it inside the running event loop (it holds anyio events)."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        log_path: Path | None = None,
        tail_lines: int = TAIL_LINES,
        on_exit: Callable[[int], None] | None = None,
        on_dropped: Callable[[int], None] | None = None,
        grace_s: float = 2.0,
        kill_after_s: float = 2.0,
        adopt: anyio.abc.Process | None = None,
    ) -> None:
        self.argv = list(argv)
        self.env = child_environment(env or {})
        self.cwd = cwd
        self.log_path = log_path
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=tail_lines)
        self.on_exit = on_exit
        self.grace_s, self.kill_after_s = grace_s, kill_after_s
        self.adopt = adopt  # a process already started for this argv (app.mcp.early), used once
        self.pid: int | None = None
        self.spawn_s = 0.0  # how long creating the process took
        self.returncode: int | None = None
        self._exited = anyio.Event()
        self._watching = False  # the watcher task waits for the child's death
        self._stderr_done = anyio.Event()
        self._cm: contextlib.AbstractAsyncContextManager[Any] | None = None
        self._log = ServerLog(log_path) if log_path is not None else None
        self.inbound = Inbound(self._record, on_dropped=on_dropped)  # on_dropped: a flood's note

    # --- what the owner watches ---

    @property
    def exited(self) -> bool:
        return self._exited.is_set()

    async def wait_exited(self, timeout: float | None = None) -> int | None:
        """The exit code once the child is gone (and its stderr read), or None on timeout."""
        with anyio.move_on_after(timeout):
            await self._exited.wait()
        return self.returncode if self._exited.is_set() else None

    # --- the Transport protocol ---

    async def __aenter__(self) -> tuple[Any, Any]:
        self._cm = self._session()
        return await self._cm.__aenter__()

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        assert self._cm is not None, "transport exited without being entered"
        return await self._cm.__aexit__(*exc_info)

    @contextlib.asynccontextmanager
    async def _session(self) -> AsyncIterator[tuple[Any, Any]]:
        began = time.perf_counter()
        process, self.adopt = self.adopt, None
        if process is None:
            process = await spawn(self.argv, self.env, self.cwd)
        self.spawn_s = time.perf_counter() - began
        self.pid = process.pid
        self._open_log()
        to_session, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_stream, from_session = anyio.create_memory_object_stream[SessionMessage](0)
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._read_stdout, process, to_session)
                tg.start_soon(self._write_stdin, process, from_session, to_session)
                tg.start_soon(self._read_stderr, process)
                tg.start_soon(self._watch, process)
                try:
                    yield read_stream, write_stream
                finally:
                    with anyio.CancelScope(shield=True):
                        await self._shutdown(process, read_stream, write_stream)
                    tg.cancel_scope.cancel()
        finally:
            self._close_log()

    async def _shutdown(self, process: anyio.abc.Process, *streams: Any) -> None:
        self.inbound.budget.flush()  # a flood's last second is told too
        for stream in streams:
            await stream.aclose()
        await stop_tree(process, self.grace_s, self.kill_after_s)
        # The watcher records the exit; it may have been cancelled with a session cut short
        # during its connect, so once the process is known to be gone, wait for it only briefly.
        if process.returncode is not None and not self._watching:
            self._exit_seen(process.returncode)  # the watcher was cancelled: no one else will say so
        with anyio.move_on_after(0.5 if process.returncode is not None else self.kill_after_s):
            await self._exited.wait()
        if process.returncode is not None:  # closes the pipes, even ones a stray grandchild holds
            await process.aclose()

    # --- pipe tasks ---

    async def _read_stdout(self, process: anyio.abc.Process, sink: MemoryObjectSendStream[Any]) -> None:
        assert process.stdout is not None
        async with sink:
            with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                async for chunk in process.stdout:
                    for message in self.inbound.feed(chunk):
                        await sink.send(message)

    async def _write_stdin(
        self,
        process: anyio.abc.Process,
        source: MemoryObjectReceiveStream[SessionMessage],
        to_session: MemoryObjectSendStream[Any],
    ) -> None:
        assert process.stdin is not None
        try:
            async with source:
                async for message in source:
                    self.inbound.sent(message.message)
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(data.encode() + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The child stopped reading: end the session's read side so no request waits forever.
            await to_session.aclose()

    async def _read_stderr(self, process: anyio.abc.Process) -> None:
        """Lines of stderr into the tail and the log, a piece at a time however long they are."""
        assert process.stderr is not None
        buffer = b""
        try:
            with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                async for chunk in process.stderr:
                    *lines, buffer = (buffer + chunk).split(b"\n")
                    for line in lines:
                        self._record_stderr(line)
                    while len(buffer) > STDERR_LINE:
                        self._record_stderr(buffer[:STDERR_LINE] + b" [line continues]")
                        buffer = buffer[STDERR_LINE:]
            if buffer:
                self._record_stderr(buffer)
        finally:
            self._stderr_done.set()

    def _record_stderr(self, line: bytes) -> None:
        self._record(line.decode("utf-8", errors="replace").rstrip("\r"))

    async def _watch(self, process: anyio.abc.Process) -> None:
        self._watching = True
        try:
            code = await wait_for_death(process)
            with anyio.move_on_after(0.5):  # the last words on stderr explain the death
                await self._stderr_done.wait()
        finally:
            self._watching = False
        self._exit_seen(code)

    def _exit_seen(self, code: int) -> None:
        if self._exited.is_set():
            return
        self.returncode = code
        self._record(f"[process exited with code {code}]")
        self._exited.set()
        if self.on_exit is not None:
            self.on_exit(code)

    # --- stderr tail and log file ---

    def _record(self, line: str) -> None:
        self.stderr_tail.append(line)
        if self._log is not None:
            self._log.write(line)

    def _open_log(self) -> None:
        if self._log is not None:
            self._log.open(f"started pid {self.pid}: {self.argv}")

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
