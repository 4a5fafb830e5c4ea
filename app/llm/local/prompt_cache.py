"""The fixed opening of every prompt, read once per machine instead of once per process.

The instructions and worked examples are the same for every question on a given model and
tool set: about 1,800 tokens that a 135M model on two cores reads in 10 to 15 seconds. After
the first read, llama.cpp's state (its key/value cache for those tokens) is written to the
cache folder; a new process (``calculon ask``, the window at start-up) loads it instead.

The file is keyed by what the state depends on: the model file (path, size, modification
time), the exact prompt tokens, the context size and llama-cpp-python's version. It carries a
SHA-256 of its body. Anything that does not match (another key, a short or altered file, a
state llama.cpp refuses) is ignored and rebuilt, never trusted: the prompt is then read as
before and the file written afresh.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import llama_cpp

logger = logging.getLogger(__name__)

MAGIC = b"CALCULON-PROMPT-STATE-1\n"
MAX_HEADER = 4096


def state_key(model_path: Path, tokens: Sequence[int], n_ctx: int) -> str:
    """What a saved state is valid for, as one hash."""
    stat = model_path.stat()
    parts = [str(model_path.resolve()), str(stat.st_size), str(stat.st_mtime_ns), str(n_ctx)]
    parts += [llama_cpp.__version__, ",".join(map(str, tokens))]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


class PromptCache:
    """One saved state per key, in ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, key: str) -> Path:
        return self.folder / f"prompt-{key[:32]}.state"

    def restore(self, model: llama_cpp.Llama, key: str, tokens: Sequence[int]) -> bool:
        """Load the saved state for ``tokens`` into ``model``; False (and the model's cache
        cleared) where there is none or it does not check out."""
        body = self._read(self.path(key), key, len(tokens))
        if body is None:
            return False
        buffer = (ctypes.c_uint8 * len(body)).from_buffer_copy(body)
        if llama_cpp.llama_state_set_data(model.ctx, buffer, len(body)) != len(body):
            logger.warning("the saved prompt state was refused; reading the prompt afresh")
            llama_cpp.llama_memory_clear(llama_cpp.llama_get_memory(model.ctx), True)
            model.n_tokens = 0
            return False
        model.input_ids[: len(tokens)] = tokens
        model.n_tokens = len(tokens)
        return True

    def save(self, model: llama_cpp.Llama, key: str, tokens: Sequence[int]) -> None:
        """Write the model's state, which must hold exactly ``tokens``; a failure is only logged."""
        if model.n_tokens != len(tokens) or list(model.input_ids[: len(tokens)]) != list(tokens):
            return
        size = llama_cpp.llama_state_get_size(model.ctx)
        buffer = (ctypes.c_uint8 * size)()
        written = llama_cpp.llama_state_get_data(model.ctx, buffer, size)
        body = bytes(buffer)[:written]
        header = json.dumps({"key": key, "tokens": len(tokens), "sha256": hashlib.sha256(body).hexdigest()})
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self.folder, delete=False, suffix=".tmp") as handle:
                handle.write(MAGIC + header.encode() + b"\n" + body)
            os.replace(handle.name, self.path(key))
        except OSError as exc:
            logger.warning("could not save the prompt state to %s: %s", self.folder, exc)

    def _read(self, path: Path, key: str, count: int) -> bytes | None:
        try:
            data = path.read_bytes()
        except OSError:
            return None
        end = data.find(b"\n", len(MAGIC), len(MAGIC) + MAX_HEADER)
        if not data.startswith(MAGIC) or end < 0:
            logger.warning("ignoring %s: not a prompt state file", path)
            return None
        try:
            header = json.loads(data[len(MAGIC) : end])
        except ValueError:
            header = {}
        body = data[end + 1 :]
        fits = header.get("key") == key and header.get("tokens") == count
        if not fits or header.get("sha256") != hashlib.sha256(body).hexdigest():
            logger.warning("ignoring %s: it does not match this model and prompt, or is damaged", path)
            return None
        return body
