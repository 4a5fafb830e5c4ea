"""The local model in a process of its own, supervised like an MCP server.

llama.cpp is native code: a segfault in a CPU kernel, an abort on a malformed file or a GPU
driver out of memory ends the process it runs in. So it runs in a child (``calculon engine``,
:mod:`app.llm.local.engine_main`) started with the app, in a process group that dies with it
(:mod:`app.children`), spoken to in typed frames (:mod:`app.llm.local.wire`).

States, told to every subscriber as :class:`EngineState`: ``starting`` (the process), ``loading``
(the model), ``ready``, ``crashed`` (with the cause: the signal and its last lines),
``restarting`` (after a capped backoff, once it had loaded), ``failed`` (a load that did not
succeed; the next question tries again) and ``stopped``. A crash fails the step in progress
with one sentence and nothing else: the turn loop keeps the conversation as it was, and the
next question waits for the model to be back.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import itertools
import logging
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import anyio
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

from app.children import Backoff, spawn, stop_tree, wait_for_death
from app.core.backend import BackendError, Chunk, ModelRequest, ProgressCallback
from app.core.messages import ToolSpec
from app.llm.local import wire
from app.llm.local.options import LocalOptions

logger = logging.getLogger(__name__)
engine_log = logging.getLogger("app.llm.local.engine")

TAIL_LINES = 40
SETTLE_S = 30.0  # a stopped step that does not end within this (stuck in native code): kill it
_ENDED = (anyio.EndOfStream, anyio.IncompleteRead, anyio.ClosedResourceError, anyio.BrokenResourceError)
RESTART = Backoff(first_s=0.5, cap_s=30.0, stable_s=60.0, max_failures=5)


@dataclasses.dataclass(frozen=True)
class EngineState:
    state: str  # starting, loading, ready, crashed, restarting, failed, stopped
    detail: str = ""
    pid: int | None = None  # the model's own process, once it has loaded


def engine_command() -> list[str]:
    """How to start the model's process: the frozen app runs itself, Python runs the package."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "engine"]
    return [sys.executable, "-m", "app", "engine"]


class ProcessBackend:
    """The :class:`app.core.backend.Backend` for GGUF models, in a supervised child process.

    Beyond the protocol: ``last_step`` (the figures of the latest step, as the child measured
    them), ``prompt_text`` and ``prefill``, ``pid`` and ``subscribe`` for state changes."""

    name = "local"

    def __init__(
        self,
        options: LocalOptions | None = None,
        *,
        command: Sequence[str] | None = None,
        backoff: Backoff = RESTART,
    ):
        self.options = options or LocalOptions()
        self.command = list(command or engine_command())
        self.backoff = backoff
        self.last_step: Any = None
        self.engine_pid: int | None = None  # the model's own process (under the guard of app.children)
        self.state = EngineState("stopped")
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
        self._listeners: list[Callable[[EngineState], None]] = []
        self._process: Process | None = None
        self._replies: dict[int, asyncio.Queue[object]] = {}
        self._jobs = itertools.count(1)
        self._label, self._n_ctx = self.options.label(), self.options.n_ctx
        self._loaded = False
        self._closing = False
        self._started_at = 0.0
        self._failures = 0
        self._spawned = asyncio.Event()  # set once a process was started (or could not be)
        self._load_lock = asyncio.Lock()
        self._step_lock = asyncio.Lock()
        self._send_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[Any]] = set()

    # --- the protocol ---

    @property
    def model_label(self) -> str:
        return self._label

    @property
    def context_tokens(self) -> int | None:
        return self._n_ctx

    @property
    def pid(self) -> int | None:
        """The process the app started: the model's, or on Linux the guard that runs it."""
        return self._process.pid if self._process is not None else None

    def subscribe(self, listener: Callable[[EngineState], None]) -> None:
        self._listeners.append(listener)
        listener(self.state)

    async def spawned(self) -> None:
        """Return once a load has started the model's process (or failed to): a caller that
        started :meth:`load` as a task awaits this before its own long imports, so the child's
        start-up overlaps them instead of waiting for the loop's next turn after them."""
        await self._spawned.wait()

    async def load(self, progress: ProgressCallback | None = None) -> None:
        async with self._load_lock:
            if self._loaded:
                return
            if self._closing:
                raise BackendError("The local model is shutting down.", category="model")
            await self._ensure_process()
            self._set_state("loading")
            try:
                label, n_ctx, pid = await self._run(wire.Load(next(self._jobs), self.options), progress)
            except BackendError as exc:
                self._set_state("failed", exc.message)
                raise
            self._label, self._n_ctx, self._loaded, self.engine_pid = label, n_ctx, True, pid
            self._set_state("ready")

    async def stream(self, request: ModelRequest) -> AsyncIterator[Chunk]:
        await self.load()
        async with self._step_lock:
            job = next(self._jobs)
            replies = self._open(job)
            finished = False
            try:
                await self._send(wire.Step(job, portable(request)))
                while True:
                    reply = await replies.get()
                    if isinstance(reply, wire.Streamed):
                        yield reply.chunk
                        continue
                    finished = True
                    if isinstance(reply, wire.Failed):
                        raise BackendError(reply.message, category=reply.category)
                    assert isinstance(reply, wire.Finished)
                    self.last_step = reply.figures
                    return
            finally:
                if not finished:
                    await self._stop_job(job, replies)
                self._replies.pop(job, None)

    async def prefill(self, system: str) -> int:
        """Read the prompt's shared opening ahead of the first question (see LocalBackend.prefill)."""
        await self.load()
        async with self._step_lock:
            tokens: int = await self._run(wire.Prefill(next(self._jobs), system))
            return tokens

    async def prompt_text(self, request: ModelRequest) -> str:
        await self.load()
        async with self._step_lock:
            text: str = await self._run(wire.PromptText(next(self._jobs), portable(request)))
            return text

    async def aclose(self) -> None:
        self._closing = True
        for task in list(self._tasks):
            task.cancel()
        process, self._process = self._process, None
        self._end_jobs("The local model was shut down.", "cancelled")  # nobody answers them now
        if process is not None:
            await stop_tree(process, grace_s=2.0, kill_after_s=2.0)
        self._loaded = False
        self._set_state("stopped")

    # --- one job ---

    async def _run(self, message: Any, progress: ProgressCallback | None = None) -> Any:
        """Send a job and wait for its end; its value, or its failure as a BackendError."""
        job = message.job
        replies = self._open(job)
        finished = False
        try:
            await self._send(message)
            while True:
                reply = await replies.get()
                if isinstance(reply, wire.Progress):
                    if progress is not None:
                        progress(reply.value, reply.message)
                    continue
                finished = True
                if isinstance(reply, wire.Failed):
                    raise BackendError(reply.message, category=reply.category)
                assert isinstance(reply, wire.Finished)
                return reply.value
        finally:
            if not finished:
                await self._stop_job(job, replies)
            self._replies.pop(job, None)

    def _open(self, job: int) -> asyncio.Queue[object]:
        queue: asyncio.Queue[object] = asyncio.Queue()
        self._replies[job] = queue
        return queue

    async def _stop_job(self, job: int, replies: asyncio.Queue[object]) -> None:
        """The consumer left early (cancelled): stop the job at its next token and wait for its
        end, so the model is free for the next one. A job that does not end is stuck in native
        code: the process is killed, and starts again."""
        if self._closing:
            return  # the process is being stopped, and with it the job
        with contextlib.suppress(BackendError):
            await self._send(wire.Cancel(job))
        with anyio.move_on_after(SETTLE_S) as scope:
            while not isinstance(reply := await replies.get(), wire.Finished | wire.Failed):
                pass
            if isinstance(reply, wire.Finished) and reply.figures is not None:
                self.last_step = reply.figures  # how far it went after the stop: one token at most
        if scope.cancelled_caught and self._process is not None:
            logger.error("the model's process did not stop job %d within %g s; killing it", job, SETTLE_S)
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()

    async def _send(self, message: object) -> None:
        process = self._process
        if process is None or process.stdin is None:
            raise BackendError("The local model's process is not running.", category="crash")
        try:
            async with self._send_lock:
                await process.stdin.send(wire.encode(message))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
            raise BackendError("The local model's process is not running.", category="crash") from exc

    # --- the process ---

    async def _ensure_process(self) -> None:
        if self._process is not None:
            return
        self._set_state("starting")
        try:
            process = await spawn(self.command, dict(os.environ))
        except OSError as exc:
            message = f"The local model's process could not start: {exc.strerror or exc}."
            self._set_state("failed", message)
            raise BackendError(message, category="model") from exc
        finally:
            self._spawned.set()
        if self._closing:  # closed while it started: nobody would stop it later
            await stop_tree(process, grace_s=0.0, kill_after_s=2.0)
            raise BackendError("The local model is shutting down.", category="model")
        self._process, self._started_at = process, time.monotonic()
        self.stderr_tail.clear()
        self._spawn_task(self._read_frames(process))
        self._spawn_task(self._read_stderr(process))
        self._spawn_task(self._watch(process))

    def _spawn_task(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _read_frames(self, process: Process) -> None:
        assert process.stdout is not None
        stream = BufferedByteReceiveStream(process.stdout)
        try:
            while True:
                header = await stream.receive_exactly(wire.HEADER.size)
                message = wire.decode(await stream.receive_exactly(wire.frame_length(header)))
                queue = self._replies.get(getattr(message, "job", -1))
                if queue is not None:
                    queue.put_nowait(message)
        except (
            anyio.EndOfStream,
            anyio.IncompleteRead,
            anyio.ClosedResourceError,
            anyio.BrokenResourceError,
        ):
            pass  # the process ended: _watch says why
        except asyncio.CancelledError:
            # Nothing reads its answers now (the app is ending): wake every job that waits on one.
            self._end_jobs("The local model was shut down.", "cancelled")
            raise
        except wire.WireError:
            logger.exception("the model's process sent an unreadable frame; stopping it")
            with contextlib.suppress(ProcessLookupError):
                process.kill()

    async def _read_stderr(self, process: Process) -> None:
        assert process.stderr is not None
        pending = b""
        with contextlib.suppress(*_ENDED):
            async for data in process.stderr:
                *lines, pending = (pending + data).split(b"\n")
                for line in lines:
                    text = line.decode("utf-8", errors="replace").rstrip()
                    if text:
                        self.stderr_tail.append(text[:2000])
                        engine_log.debug("%s", text)

    async def _watch(self, process: Process) -> None:
        code = await wait_for_death(process)
        await asyncio.sleep(0.05)  # the last stderr lines arrive just after the exit
        if self._closing or process is not self._process:
            return
        self._process, was_loaded, self._loaded, self.engine_pid = None, self._loaded, False, None
        self._spawn_task(stop_tree(process, grace_s=0.0, kill_after_s=2.0))  # anything left of its group
        cause = crash_cause(code, list(self.stderr_tail), restarting=was_loaded)
        logger.error("%s", cause)
        self._end_jobs(cause, "crash")
        self._set_state("crashed", cause)
        if was_loaded and not self._load_lock.locked():
            self._spawn_task(self._restart())

    def _end_jobs(self, message: str, category: str) -> None:
        for job, queue in list(self._replies.items()):
            queue.put_nowait(wire.Failed(job, message, category))

    async def _restart(self) -> None:
        """Load again after a crash, after a delay that doubles with each crash in a row; a
        model that kept crashing is given up on until the next question asks for it."""
        await asyncio.sleep(0)  # a question waiting on the crashed step may load it first
        if self._loaded or self._load_lock.locked():
            return
        if time.monotonic() - self._started_at >= self.backoff.stable_s:
            self._failures = 0
        self._failures += 1
        if self._failures > self.backoff.max_failures:
            self._set_state("failed", self.state.detail)
            return
        delay = self.backoff.delay(self._failures)
        self._set_state("restarting", f"in {delay:g} s")
        await asyncio.sleep(delay)  # a question asked meanwhile loads it at once instead
        with contextlib.suppress(BackendError):  # said through the state; a question will try again
            await self.load()

    def _set_state(self, state: str, detail: str = "") -> None:
        self.state = EngineState(state, detail, self.engine_pid)
        for listener in list(self._listeners):
            try:
                listener(self.state)
            except Exception:  # a listener's bug must not stop the model's supervision
                logger.exception("engine state listener failed")


def crash_cause(code: int | None, tail: Sequence[str], *, restarting: bool) -> str:
    """One sentence: how the process ended, and the last lines it wrote."""
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        described = signal.strsignal(-code) or ""
        how = f"was killed by {name}" + (f" ({described.lower()})" if described else "")
    else:
        how = f"exited with code {code}"
    # its own INFO lines say what it did, not what went wrong: the rest (warnings, native asserts)
    lines = [line for line in tail if line.strip() and not line.startswith(("INFO ", "DEBUG "))][-3:]
    said = f"; its last lines: {' | '.join(lines)}" if lines else ""
    then = " It is being started again: ask again." if restarting else ""
    return f"The local model's process {how}{said}.{then}"


def portable(request: ModelRequest) -> ModelRequest:
    """The request as the model's process can read it: another backend's replay data left out,
    and arguments as plain dicts."""
    messages = tuple(
        dataclasses.replace(
            m,
            provider_data=None,
            tool_calls=tuple(dataclasses.replace(c, arguments=dict(c.arguments)) for c in m.tool_calls),
        )
        for m in request.messages
    )

    def plain(specs: tuple[ToolSpec, ...]) -> tuple[ToolSpec, ...]:
        return tuple(dataclasses.replace(t, input_schema=dict(t.input_schema)) for t in specs)

    return dataclasses.replace(
        request, messages=messages, tools=plain(request.tools), listed=plain(request.listed)
    )


def create_backend(**options: Any) -> ProcessBackend:
    return ProcessBackend(LocalOptions.from_settings(**options))
