"""The local backend: a GGUF model through llama.cpp, behind the neutral backend protocol.

All llama.cpp work (loading and every step) runs on one dedicated worker
thread, so generations are serialised and the event loop never blocks. Chunks
come back with ``loop.call_soon_threadsafe``. That thread, and the compute
threads llama.cpp starts from it, run below the UI's priority (``priority``).
Cancelling the consuming task (or closing the stream) raises a flag the worker
checks before every token.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import logging
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import llama_cpp

from app import paths
from app.core.backend import BackendError, Chunk, ModelRequest, ProgressCallback
from app.llm.library.offload import choose_layers
from app.llm.local import catalog, model_file, priority
from app.llm.local.decoder import DecodeResult
from app.llm.local.formats import choose_format
from app.llm.local.loader import LoadRequest, gpu_offload_supported, load_llama
from app.llm.local.prompt_cache import PromptCache
from app.llm.local.sampling import GrammarError
from app.llm.local.step import CallPolicy, StepPolicy, StepRunner

logger = logging.getLogger(__name__)

_END = object()


@dataclasses.dataclass(frozen=True)
class LocalOptions:
    """Keyword options, named like the :class:`app.settings.Settings` fields they come from."""

    model_path: str = ""  # empty: the built-in model ``builtin_model``
    builtin_model: str = ""  # an id from app.llm.local.catalog; empty: the default
    n_gpu_layers: int = 0  # 0: CPU only, -1: every layer, -2: as many as fit the free VRAM
    n_ctx: int = 4096
    n_threads: int = 0  # 0: automatic
    max_tokens: int = 512  # per step
    strict: bool = True  # Calculon mode
    call_policy: CallPolicy = "numbers"  # when the first step must call a tool: numbers, always, auto
    extra_buffers: bool | None = None  # llama.cpp CPU weight repacking; None: automatic
    max_tool_calls: int | None = None  # per user message; None: 1 for the built-in model, else no limit
    save_prompt: bool = True  # keep the prompt opening's state in the cache folder (prompt_cache.py)
    # "native": the model's own tool-call format where its template has one (native.py);
    # "calculon": Calculon's own; "auto": native outside Calculon mode (see docs/benchmarks.md)
    tool_format: str = "auto"

    @classmethod
    def from_settings(cls, **options: Any) -> LocalOptions:
        """Known keys only: the registry passes every setting, most of them not ours."""
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{key: value for key, value in options.items() if key in known})


class LocalBackend:
    """The :class:`app.core.backend.Backend` for GGUF models.

    Beyond the protocol: ``last_step`` (figures from the latest step), ``llama``
    (the loaded ``llama_cpp.Llama``) and ``prompt_text`` (the prompt a request
    becomes), for benchmarks and diagnostics.
    """

    name = "local"

    def __init__(
        self, options: LocalOptions | None = None, *, available_memory: Callable[[], int | None] | None = None
    ):
        self.options = options or LocalOptions()
        self._available_memory = available_memory or model_file.available_memory
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="llama", initializer=priority.lower_current_thread
        )
        self._load_lock = asyncio.Lock()
        self._step_lock = asyncio.Lock()
        self._closing = threading.Event()
        self._running_step: threading.Event | None = None  # the stop flag of the step in progress
        self._model: llama_cpp.Llama | None = None
        self._runner: StepRunner | None = None
        self._path: Path | None = None

    @property
    def model_label(self) -> str:
        if self._model is not None and self._path is not None:
            name = self._model.metadata.get("general.name", "")
            return f"{name} ({self._path.name})" if name else self._path.name
        if self.options.model_path:
            return Path(self.options.model_path).name
        return f"{catalog.builtin_model(self.options.builtin_model).label} (built in)"

    @property
    def context_tokens(self) -> int | None:
        return self._model.n_ctx() if self._model is not None else self.options.n_ctx

    @property
    def last_step(self) -> DecodeResult | None:
        """Figures from the latest step: tokens, timings, why it stopped."""
        return self._runner.last if self._runner else None

    @property
    def llama(self) -> llama_cpp.Llama | None:
        """The loaded llama.cpp model (for benchmarks and diagnostics); None until loaded."""
        return self._model

    def prompt_text(self, request: ModelRequest) -> str:
        """The prompt the model sees for ``request`` (before any trimming); needs a loaded model."""
        if self._runner is None:
            raise BackendError("The local model is not loaded yet.", category="model")
        return self._runner.render(request.system, request.messages, request.tools)

    async def load(self, progress: ProgressCallback | None = None) -> None:
        async with self._load_lock:
            if self._runner is not None:
                return
            report = _Reporter(asyncio.get_running_loop(), progress)
            await self._in_worker(self._load, report)

    def _load(self, report: _Reporter) -> None:
        path = model_file.resolve_model(
            self.options.model_path, report.stage(0.0, 0.3), self.options.builtin_model
        )
        choice = choose_layers(path, self.options.n_gpu_layers, self.options.n_ctx)
        gpu_layers = choice.layers
        logger.info("%s: %s", path.name, choice.estimate)
        report(0.3, choice.estimate)
        model_file.check_memory(
            path,
            gpu_offload=gpu_offload_supported(),
            n_gpu_layers=gpu_layers,
            available=self._available_memory(),
            planned=choice.ram,
        )
        request = LoadRequest(
            path,
            gpu_layers,
            self.options.n_ctx,
            self.options.n_threads,
            self.options.extra_buffers,
        )
        loading = report.stage(0.3, 1.0)

        def on_progress(value: float) -> bool:
            loading(value, "Loading the model")
            return not self._closing.is_set()  # closing the backend aborts a load in progress

        model = load_llama(request, on_progress)
        bos, eos = _token_text(model, model.token_bos()), _token_text(model, model.token_eos())
        chat_format = choose_format(model.metadata, bos_token=bos, eos_token=eos, native=self._native())
        family = "" if self.options.model_path else self.builtin.family
        policy = StepPolicy(
            self.options.max_tokens, self.options.strict, self.options.call_policy, self._call_limit(), family
        )
        self._model, self._path = model, path
        saved = (PromptCache(paths.cache_dir() / "prompt-state"), path) if self.options.save_prompt else None
        self._runner = StepRunner(model, chat_format, policy, bos_text=bos, saved=saved)
        logger.info("loaded %s with the %s chat format", path, chat_format.name)
        report(1.0, "Model ready")

    def _native(self) -> bool:
        """In Calculon mode Qwen2.5-Coder-0.5B in its own format chained calls on each result
        (12 * 7, then 84 * 7, ...) and was right on 4 of 26 conversation turns, against 25 in
        Calculon's format: so "auto" keeps Calculon's format there."""
        chosen = self.options.tool_format
        return chosen == "native" or (chosen == "auto" and not self.options.strict)

    def _call_limit(self) -> int | None:
        if self.options.max_tool_calls is not None:
            return self.options.max_tool_calls
        return None if self.options.model_path else self.builtin.max_tool_calls

    @property
    def builtin(self) -> catalog.BuiltinModel:
        """The catalogue entry in use (the default one when a custom file is loaded)."""
        return catalog.builtin_model(self.options.builtin_model)

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
                assert self._runner is not None
                tokens: int = await self._in_worker(self._runner.prefill, system, stop)
                logger.info("prefilled %d prompt tokens", tokens)
                return tokens
            finally:
                stop.set()  # a cancelled prefill stops at the next batch
                self._running_step = None

    def _step(self, request: ModelRequest, emit: Callable[[Any], None], stop: threading.Event) -> None:
        assert self._runner is not None
        try:
            self._runner.run(request, emit, stop)
        except (RuntimeError, GrammarError) as exc:  # llama.cpp failures surface as RuntimeError
            logger.exception("generation failed")
            raise BackendError(f"The local model failed: {exc}", category="model") from exc
        finally:
            emit(_END)

    async def aclose(self) -> None:
        self._closing.set()
        if self._running_step is not None:
            self._running_step.set()
        if self._model is not None:
            await self._in_worker(self._model.close)
            self._model, self._runner = None, None
        self._executor.shutdown(wait=False)

    async def _in_worker(self, function: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._executor, function, *args)


def create_backend(**options: Any) -> LocalBackend:
    return LocalBackend(LocalOptions.from_settings(**options))


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


def _token_text(model: llama_cpp.Llama, token: int) -> str:
    if token < 0:
        return ""
    return model.detokenize([token], special=True).decode("utf-8", errors="replace")


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

    def stage(self, low: float, high: float) -> Callable[[float, str], None]:
        return lambda value, message: self(low + (high - low) * max(0.0, min(1.0, value)), message)
