"""Constructing ``llama_cpp.Llama`` with two model parameters its constructor does not expose.

* ``progress_callback``: llama.cpp reports real loading progress through it.
* ``use_extra_bufts``: the CPU "extra buffer types" (weight repacking, AMX). On
  CPUs that advertise AMX but run where the tile registers fault (seen in
  virtual machines: a general-protection fault in ``ggml_backend_amx_mul_mat``),
  every decode crashes the process (llama.cpp #20824). They are turned off where
  the CPU reports AMX, unless the caller asks otherwise; ``CALCULON_AMX_GUARD=on``
  or ``off`` forces the guard either way (to test both paths on any CPU).

Every load in the project goes through here, tests and benchmarks included
(``tests/llm/test_loader_guard.py`` fails on any other construction of ``Llama``).

``Llama`` builds its parameters from ``llama_model_default_params()``, so that
function is wrapped for the duration of one construction, under a lock.
llama.cpp's own log lines are routed to Python logging instead of stderr, and a
load leaves the process's standard streams alone (``_Unsuppressed``).
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import dataclasses
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import llama_cpp
import llama_cpp._internals
import llama_cpp.llama
import llama_cpp.llama_chat_format
import llama_cpp.llama_cpp as llama_c

from app.core.backend import BackendError

logger = logging.getLogger(__name__)
native_logger = logging.getLogger("llama.cpp")

_PARAMS_LOCK = threading.Lock()
_LOG_LEVELS = {3: logging.WARNING, 4: logging.ERROR}  # ggml: 1 debug, 2 info, 3 warn, 4 error, 5 cont


_ERRORS: collections.deque[str] = collections.deque(maxlen=8)  # llama.cpp's latest error lines


@llama_c.llama_log_callback
def _route_log(level: int, text: bytes, _user_data: ctypes.c_void_p) -> None:
    message = text.decode("utf-8", errors="replace").rstrip()
    if message:
        native_logger.log(_LOG_LEVELS.get(level, logging.DEBUG), "%s", message)
        if level == 4:
            _ERRORS.append(message)


llama_c.llama_log_set(_route_log, ctypes.c_void_p(0))


class _Unsuppressed:
    """Stands in for llama-cpp-python's ``suppress_stdout_stderr``, which a quiet (verbose=False)
    load enters: it points the whole process's file descriptors 1 and 2 at /dev/null and swaps
    ``sys.stdout``/``sys.stderr`` for the load's duration. In a threaded app that drops what other
    threads print meanwhile (the CLI's own progress and server lines vanished while the model
    loaded beside its imports), and a stream object taken in that window stays /dev/null for good.
    llama.cpp's log already comes to Python logging (above), so there is nothing to silence."""

    def __init__(self, disable: bool = True) -> None:
        pass

    def __enter__(self) -> _Unsuppressed:
        return self

    def __exit__(self, *_: object) -> None:
        return None


for _module in (llama_cpp.llama, llama_cpp._internals, llama_cpp.llama_chat_format):
    _module.suppress_stdout_stderr = _Unsuppressed  # type: ignore[attr-defined,misc]


@dataclasses.dataclass(frozen=True)
class LoadRequest:
    path: Path
    n_gpu_layers: int = 0
    n_ctx: int = 4096
    n_threads: int = 0  # 0: llama.cpp's choice
    extra_buffers: bool | None = None  # None: off where the CPU reports AMX


def load_llama(request: LoadRequest, progress: Callable[[float], bool] = lambda _: True) -> llama_cpp.Llama:
    """Load the model; ``progress`` gets 0..1 and returns False to abort the load."""
    callback = llama_c.llama_progress_callback(lambda value, _data: _safe_progress(progress, value))
    extra = request.extra_buffers if request.extra_buffers is not None else extra_buffers_by_default()

    def adjust(params: Any) -> None:
        params.progress_callback = callback
        params.use_extra_bufts = extra

    _ERRORS.clear()
    with _model_params(adjust):
        try:
            return llama_cpp.Llama(
                str(request.path),
                n_gpu_layers=request.n_gpu_layers,
                n_ctx=request.n_ctx,
                n_threads=request.n_threads or physical_cores(),
                verbose=False,
            )
        except ValueError as exc:
            raise BackendError(
                f"llama.cpp could not load {request.path.name}: the file is damaged, or a kind of model this"
                f" llama.cpp does not know{_why()}.",
                category="model",
            ) from exc


def _why() -> str:
    """llama.cpp's first reason for a failed load ("unknown model architecture"), not its generic one."""
    reasons = [line.split(": ", 1)[-1] for line in _ERRORS if "failed to load model" not in line]
    return f" (llama.cpp says: {reasons[0]})" if reasons else ""


def load_vocab(path: Path | str) -> llama_cpp.Llama:
    """The tokenizer and metadata alone (no weights, no compute), for templates and token counts."""
    try:
        return llama_cpp.Llama(str(path), vocab_only=True, verbose=False)
    except ValueError as exc:
        raise BackendError(f"llama.cpp could not read {Path(path).name}: {exc}", category="model") from exc


@contextlib.contextmanager
def guarded_defaults() -> Iterator[None]:
    """Any ``Llama`` built inside (llama-cpp-python's own server, say) gets the same AMX guard."""
    extra = extra_buffers_by_default()
    with _model_params(lambda params: setattr(params, "use_extra_bufts", extra)):
        yield


def extra_buffers_by_default() -> bool:
    """Whether llama.cpp may use the CPU's extra buffer types: not where the CPU reports AMX."""
    forced = os.environ.get("CALCULON_AMX_GUARD", "").strip().lower()
    if forced in ("on", "off"):
        return forced == "off"
    return not cpu_reports_amx()


def _safe_progress(progress: Callable[[float], bool], value: float) -> bool:
    try:
        return bool(progress(float(value)))
    except Exception:  # a C callback must not raise; keep loading and say why in the log
        logger.exception("load progress listener failed")
        return True


@contextlib.contextmanager
def _model_params(adjust: Callable[[Any], None]) -> Iterator[None]:
    original = llama_c.llama_model_default_params

    def adjusted() -> Any:
        params = original()
        adjust(params)
        return params

    with _PARAMS_LOCK:
        llama_c.llama_model_default_params = adjusted
        try:
            yield
        finally:
            llama_c.llama_model_default_params = original


def physical_cores() -> int:
    """The cores generation should use: one thread per physical core this process may run on.

    llama-cpp-python's own default is half the logical CPUs, which assumes two hyperthreads a
    core: on a two-core machine without them it decoded on one core, at 6.5 tokens/s against 10.9
    on both (Qwen2.5-Coder-1.5B). llama.cpp's own tools count physical cores, as here."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as handle:
            blocks = handle.read().split("\n\n")
    except OSError:
        return max(1, usable)
    cores = {_field(b, "physical id") + "/" + _field(b, "core id") for b in blocks if "core id" in b}
    siblings = len([b for b in blocks if "processor" in b])
    if not cores or not siblings:
        return max(1, usable)
    return max(1, min(usable, round(usable * len(cores) / siblings)))


def _field(block: str, name: str) -> str:
    for line in block.splitlines():
        if line.startswith(name):
            return line.split(":", 1)[-1].strip()
    return ""


def cpu_reports_amx() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as handle:
            return any(line.startswith("flags") and " amx_tile" in line for line in handle)
    except OSError:
        return False


def gpu_offload_supported() -> bool:
    return bool(llama_c.llama_supports_gpu_offload())
