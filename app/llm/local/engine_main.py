"""The model's own process (``calculon engine``): llama.cpp lives here, apart from the window.

A crash in native code (an AMX kernel, a malformed GGUF, a GPU driver out of memory, an
assertion in ggml) ends this process alone; the app sees the pipe close, says why, and starts
another (:mod:`app.llm.local.process`). Requests come in on stdin and replies go out on the
original stdout as frames (:mod:`app.llm.local.wire`); file descriptor 1 itself is pointed at
stderr, so whatever native code prints can never tear a frame.

One reader thread takes requests and answers ``Cancel`` at once (the step checks its stop
flag before every token); the main thread runs the jobs one at a time. The end of stdin means
the app is gone: the process exits then, whatever it was doing.
"""

from __future__ import annotations

import logging
import os
import queue
import sys
import threading
from collections.abc import Callable
from typing import BinaryIO

from app.core.backend import BackendError, Chunk
from app.llm.local import model_file, priority, wire
from app.llm.local.model import LocalModel

logger = logging.getLogger(__name__)


class _Writer:
    """Frames out, whole, from any thread."""

    def __init__(self, stream: BinaryIO):
        self._stream, self._lock = stream, threading.Lock()

    def __call__(self, message: object) -> None:
        data = wire.encode(message)
        with self._lock:
            self._stream.write(data)
            self._stream.flush()


class EngineLoop:
    def __init__(self, send: Callable[[object], None]):
        self.send = send
        self.jobs: queue.Queue[object] = queue.Queue()
        self.stops: dict[int, threading.Event] = {}
        self.model: LocalModel | None = None

    def read_requests(self, stream: BinaryIO) -> None:
        """The reader thread: queue each job, answer Cancel at once, exit when the app is gone."""
        try:
            while (message := wire.read_frame(stream)) is not None:
                job = getattr(message, "job", 0)
                if isinstance(message, wire.Cancel):
                    self.stops.get(job, threading.Event()).set()
                else:
                    self.stops[job] = threading.Event()
                    self.jobs.put(message)
        except wire.WireError:
            logger.exception("the app sent an unreadable request")
        os._exit(0)  # stdin closed: the app has gone, and so do we, mid-job or not

    def serve(self) -> None:
        while True:
            message = self.jobs.get()
            job = getattr(message, "job", 0)
            stop = self.stops.get(job, threading.Event())
            try:
                self.send(self._run(message, stop))
            except BackendError as exc:
                self.send(wire.Failed(job, exc.message, exc.category))
            except Exception as exc:  # the job's own top level: say it, keep serving
                logger.exception("model job failed")
                self.send(wire.Failed(job, f"Unexpected error in the model process: {exc}", "error"))
            finally:
                self.stops.pop(job, None)

    def _run(self, message: object, stop: threading.Event) -> wire.Finished:
        if isinstance(message, wire.Load):
            return self._load(message, stop)
        model = self._loaded()
        if isinstance(message, wire.Step):
            job = message.job

            def emit(chunk: Chunk) -> None:
                self.send(wire.Streamed(job, chunk))

            model.step(message.request, emit, stop)
            return wire.Finished(job, figures=model.last_step)
        if isinstance(message, wire.Prefill):
            return wire.Finished(message.job, model.prefill(message.system, stop))
        if isinstance(message, wire.PromptText):
            return wire.Finished(message.job, model.prompt_text(message.request))
        raise BackendError(f"The model process got a request it does not know: {message!r}", category="error")

    def _load(self, message: wire.Load, stop: threading.Event) -> wire.Finished:
        if self.model is not None:  # one model per process: a new load replaces it
            self.model.close()
            self.model = None

        def report(value: float, text: str) -> None:
            self.send(wire.Progress(message.job, value, text))

        model = LocalModel(message.options, model_file.available_memory)
        model.load(report, lambda: not stop.is_set())
        self.model = model
        return wire.Finished(message.job, (model.label, model.n_ctx, os.getpid()))

    def _loaded(self) -> LocalModel:
        if self.model is None:
            raise BackendError("The local model is not loaded yet.", category="model")
        return self.model


def main() -> int:
    frames = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # native code's prints go to stderr, never into the frames
    sys.stdout = sys.stderr
    level = os.environ.get("CALCULON_ENGINE_LOG", "INFO").upper()
    logging.basicConfig(stream=sys.stderr, level=level, format="%(levelname)s %(name)s: %(message)s")
    if priority.supported():
        os.nice(priority.BACKGROUND_NICE_STEP)  # before any thread: llama.cpp's threads inherit it
    loop = EngineLoop(_Writer(frames))
    threading.Thread(target=loop.read_requests, args=(sys.stdin.buffer,), daemon=True).start()
    loop.serve()
    return 0
