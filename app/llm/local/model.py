"""One loaded GGUF and its step runner, driven synchronously from one thread.

Both homes of the model use it: the engine process the app supervises
(:mod:`app.llm.local.engine_main`), and the in-process :class:`LocalBackend` that the
step's own tests and benchmarks drive. Nothing here touches an event loop.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

import llama_cpp

from app import paths
from app.core.backend import BackendError, Chunk, ModelRequest
from app.llm.library.offload import choose_layers
from app.llm.local import model_file
from app.llm.local.decoded import DecodeResult
from app.llm.local.formats import choose_format
from app.llm.local.loader import LoadRequest, gpu_offload_supported, load_llama
from app.llm.local.options import LocalOptions
from app.llm.local.prompt_cache import PromptCache
from app.llm.local.sampling import GrammarError
from app.llm.local.step import StepRunner
from app.llm.local.step_rules import StepPolicy
from app.llm.local.turn_states import TurnStates

logger = logging.getLogger(__name__)
NATIVE_FROM_PARAMETERS = 1_000_000_000  # see LocalModel._native

Report = Callable[[float, str], None]


class LocalModel:
    """Load once, then run steps one at a time; ``close`` frees the weights."""

    def __init__(self, options: LocalOptions, available_memory: Callable[[], int | None]):
        self.options = options
        self._available_memory = available_memory
        self.llama: llama_cpp.Llama | None = None
        self.runner: StepRunner | None = None
        self.path: Path | None = None

    @property
    def label(self) -> str:
        if self.llama is not None and self.path is not None:
            name = self.llama.metadata.get("general.name", "")
            return f"{name} ({self.path.name})" if name else self.path.name
        return self.options.label()

    @property
    def n_ctx(self) -> int:
        return self.llama.n_ctx() if self.llama is not None else self.options.n_ctx

    @property
    def last_step(self) -> DecodeResult | None:
        return self.runner.last if self.runner else None

    def load(self, report: Report, keep_going: Callable[[], bool]) -> None:
        """``report`` gets progress 0..1; ``keep_going`` returning False aborts the load."""
        options = self.options
        path = model_file.resolve_model(options.model_path, _stage(report, 0.0, 0.3), options.builtin_model)
        n_ctx = fitted_context(path, options.n_ctx)
        choice = choose_layers(path, options.n_gpu_layers, n_ctx)
        logger.info("%s: %s", path.name, choice.estimate)
        report(0.3, choice.estimate)
        model_file.check_memory(
            path,
            gpu_offload=gpu_offload_supported(),
            n_gpu_layers=choice.layers,
            available=self._available_memory(),
            planned=choice.ram,
        )
        request = LoadRequest(path, choice.layers, n_ctx, options.n_threads, options.extra_buffers)
        loading = _stage(report, 0.3, 1.0)

        def on_progress(value: float) -> bool:
            loading(value, "Loading the model")
            return keep_going()

        model = load_llama(request, on_progress)
        bos, eos = _token_text(model, model.token_bos()), _token_text(model, model.token_eos())
        native = self._native(llama_cpp.llama_model_n_params(model.model))
        chat_format = choose_format(model.metadata, bos_token=bos, eos_token=eos, native=native)
        family = "" if options.model_path else options.builtin.family
        reader = "model" if options.model_path else options.builtin.reader
        limit = self._call_limit()
        policy = StepPolicy(options.max_tokens, options.call_policy, limit, family, reader=reader)
        self.llama, self.path = model, path
        saved = (PromptCache(paths.cache_dir() / "prompt-state"), path) if options.save_prompt else None
        keeps = options.keep_conversations
        turns = TurnStates(paths.cache_dir() / "turn-state", path, n_ctx) if keeps else None
        self.runner = StepRunner(model, chat_format, policy, bos_text=bos, saved=saved, turns=turns)
        logger.info("loaded %s with the %s chat format", path, chat_format.name)
        report(1.0, "Model ready")

    def _native(self, parameters: int) -> bool:
        """Whether the model gets its own tool-call format. In Calculon mode ("auto"), only from
        a billion parameters: Qwen2.5-Coder-0.5B in its own format chained calls on each result
        (12 * 7, then 84 * 7, ...) and was right on 5 of 26 conversation turns against 25 in
        Calculon's format, while the 1.5B was as right in its own (26/26 turns, 26/30 MAWPS
        stories, either way) and only there called the reference servers' tools (2 of 21
        everyday tasks done against 0; docs/benchmarks.md)."""
        chosen = self.options.tool_format
        if chosen != "auto":
            return chosen == "native"
        return not self.options.strict or parameters >= NATIVE_FROM_PARAMETERS

    def _call_limit(self) -> int | None:
        if self.options.max_tool_calls is not None:
            return self.options.max_tool_calls
        return None if self.options.model_path else self.options.builtin.max_tool_calls

    def step(self, request: ModelRequest, emit: Callable[[Chunk], None], stop: threading.Event) -> None:
        try:
            self._loaded().run(request, emit, stop)
        except (RuntimeError, GrammarError) as exc:  # llama.cpp failures surface as RuntimeError
            logger.exception("generation failed")
            raise BackendError(f"The local model failed: {exc}", category="model") from exc

    def prefill(self, system: str, stop: threading.Event) -> int:
        return self._loaded().prefill(system, stop)

    def prompt_text(self, request: ModelRequest) -> str:
        return self._loaded().render(request.system, request.messages, request.prompt_tools)

    def _loaded(self) -> StepRunner:
        if self.runner is None:
            raise BackendError("The local model is not loaded yet.", category="model")
        return self.runner

    def close(self) -> None:
        if self.llama is not None:
            self.llama.close()
        self.llama, self.runner = None, None


def _stage(report: Report, low: float, high: float) -> Report:
    return lambda value, message: report(low + (high - low) * max(0.0, min(1.0, value)), message)


def _token_text(model: llama_cpp.Llama, token: int) -> str:
    if token < 0:
        return ""
    return model.detokenize([token], special=True).decode("utf-8", errors="replace")


def fitted_context(path: Path, wanted: int) -> int:
    """The context to load ``path`` with: the setting, but no more than the model was trained on
    (past it a model's answers fall apart; llama.cpp only warns). An unreadable header keeps it."""
    from app.llm.library.gguf_info import GgufError, read_info

    try:
        trained = read_info(path).context_length
    except (OSError, GgufError):
        return wanted
    if trained and trained < wanted:
        logger.info("%s was trained on %d tokens of context: loading it with %d", path.name, trained, trained)
        return trained
    return wanted
