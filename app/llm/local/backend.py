"""The local model in this process: a :class:`LocalModel` driven from one worker thread.

The app runs its model in a process of its own (:mod:`app.llm.local.process`), so a crash in
llama.cpp cannot take the window down; this in-process form is what that process runs, and
what the step's own tests and benchmarks drive directly.

All llama.cpp work (loading and every step) runs on one dedicated worker thread, so
generations are serialised and the event loop never blocks. Chunks come back with
``loop.call_soon_threadsafe``. That thread, and the compute threads llama.cpp starts from
it, run below the caller's priority (``priority``). Cancelling the consuming task (or
closing the stream) raises a flag the worker checks before every token.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

import llama_cpp

from app.core.backend import BackendError, Chunk, ModelRequest, ProgressCallback
from app.llm.local import model_file, priority
from app.llm.local.decoded import DecodeResult
from app.llm.local.model import LocalModel
from app.llm.local.options import LocalOptions
from app.llm.local.step import StepRunner

logger = logging.getLogger(__name__)

_END = object()


class LocalBackend:
    """The :class:`app.core.backend.Backend` for GGUF models, in this process.

    Beyond the protocol: ``last_step`` (figures from the latest step), ``llama``
    (the loaded ``llama_cpp.Llama``) and ``prompt_text`` (the prompt a request
    becomes), for benchmarks and diagnostics.
    """

    name = "local"

    def __init__(
        self, options: LocalOptions | None = None, *, available_memory: Callable[[], int | None] | None = None
    ):
        self.options = options or LocalOptions()
        self._model = LocalModel(self.options, available_memory or model_file.available_memory)
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="llama", initializer=priority.lower_current_thread
        )
        self._load_lock = asyncio.Lock()
        self._step_lock = asyncio.Lock()
        self._closing = threading.Event()
        self._running_step: threading.Event | None = None  # the stop flag of the step in progress

    @property
    def model_label(self) -> str:
        return self._model.label

    @property
    def context_tokens(self) -> int | None:
        return self._model.n_ctx

    @property
    def last_step(self) -> DecodeResult | None:
        """Figures from the latest step: tokens, timings, why it stopped."""
        return self._model.last_step

    @property
    def runner(self) -> StepRunner | None:
        """The step runner of the loaded model (for tests of the step); None until loaded."""
        return self._model.runner

    @property
    def llama(self) -> llama_cpp.Llama | None:
        """The loaded llama.cpp model (for benchmarks and diagnostics); None until loaded."""
        return self._model.llama

    def prompt_text(self, request: ModelRequest) -> str:
        """The prompt the model sees for ``request`` (before any trimming); needs a loaded model."""
        return self._model.prompt_text(request)

    async def load(self, progress: ProgressCallback | None = None) -> None:
        async with self._load_lock:
            if self._model.runner is not None:
                return
            report = _Reporter(asyncio.get_running_loop(), progress)
            await self._in_worker(self._model.load, report, lambda: not self._closing.is_set())

    async def stream(self, request: ModelRequest) -> AsyncIterator[Chunk]:
        await self.load()
        async with self._step_lock:
            loop = asyncio.get_running_loop()
            queue: asyncio.Queue[Any] = asyncio.Queue()
            stop = self._running_step = threading.Event()
            job = loop.run_in_executor(self._executor, self._step, request, _post(loop, queue), stop)
            try:
                while (item := await queue.get()) is not _END:
                    yield item
                await job  # raises what the worker raised
            finally:
                stop.set()
                await _settle(job)
                self._running_step = None

    async def prefill(self, system: str) -> int:
        """Read the opening every prompt shares into the cache, ahead of the first question;
        the tokens it had to decode (0 where a saved state was loaded). A question asked
        meanwhile waits for it and then starts from it."""
        await self.load()
        async with self._step_lock:
            stop = self._running_step = threading.Event()
            try:
                tokens: int = await self._in_worker(self._model.prefill, system, stop)
                logger.info("prefilled %d prompt tokens", tokens)
                return tokens
            finally:
                stop.set()  # a cancelled prefill stops at the next batch
                self._running_step = None

    def _step(self, request: ModelRequest, emit: Callable[[Any], None], stop: threading.Event) -> None:
        try:
            self._model.step(request, emit, stop)
        finally:
            emit(_END)

    async def aclose(self) -> None:
        self._closing.set()
        if self._running_step is not None:
            self._running_step.set()
        if self._model.llama is not None:
            await self._in_worker(self._model.close)
        self._executor.shutdown(wait=False)

    async def _in_worker(self, function: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._executor, function, *args)


def _post(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[Any]) -> Callable[[Any], None]:
    def post(item: Any) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, item)

    return post


async def _settle(job: asyncio.Future[Any]) -> None:
    """Wait for the worker to notice the stop flag, so the model is free for the next step."""
    if not job.done():
        await asyncio.wait({job})
    if not job.cancelled() and job.exception() is not None and not isinstance(job.exception(), BackendError):
        logger.error("stopped step ended with %r", job.exception())


class _Reporter:
    """Load progress from the worker thread to the caller's callback, on the event loop,
    at most once per percent."""

    def __init__(self, loop: asyncio.AbstractEventLoop, progress: ProgressCallback | None):
        self._loop, self._progress = loop, progress
        self._last = -1

    def __call__(self, value: float, message: str) -> None:
        percent = int(value * 100)
        if self._progress is None or (percent == self._last and value < 1.0):
            return
        self._last = percent
        self._loop.call_soon_threadsafe(self._progress, value, message)
