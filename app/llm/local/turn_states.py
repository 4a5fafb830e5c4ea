"""The model's state after its latest answers, so that a conversation continued in a new process
reads only what is new.

``calculon ask --continue`` starts a fresh process each turn, and the window reopens saved
conversations: each read the whole conversation again, so the twentieth turn of a chain took
4.45 times as long as the second. After each answer, llama.cpp's state (the key/value cache
of the prompt and the answer) is written beside the prompt opening's (app.llm.local.
prompt_cache, whose checks it shares: model file, context size, llama-cpp-python's version,
exact tokens, a SHA-256 of the body). An index lists the few latest, with their tokens; a
prompt that shares a long start with one of them (a continued conversation, or a new question
after the same instructions and tool list) loads it and reads only the rest. A state that does not
check out is ignored, and the prompt read as before.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import llama_cpp
import numpy as np

from app.llm.local.decoder import shared_prefix
from app.llm.local.prompt_cache import PromptCache, state_key

logger = logging.getLogger(__name__)

KEEP = 2  # states kept: each is the cache of a whole conversation (tens of MB)
MIN_GAIN = 32  # fewer tokens saved than this: reading them is as quick as loading a file


class TurnStates:
    def __init__(self, folder: Path, model_path: Path, n_ctx: int) -> None:
        self.cache = PromptCache(folder)
        # one index per model file and context size: each prunes its own states (a shared one
        # named another model's files by this model's keys, and left them on disk)
        self.index = folder / f"turns-{state_key(model_path, [], n_ctx)[:16]}.json"
        self.model_path, self.n_ctx = model_path, n_ctx

    def resume(self, model: llama_cpp.Llama, prompt: Sequence[int], have: int) -> int:
        """Load the saved state that shares the longest start with ``prompt``, where it shares
        at least MIN_GAIN tokens more than the ``have`` the model's cache already does; the
        tokens shared, or 0 where none was loaded.

        A state need not hold only the prompt's start: a new question in a fresh process
        shares the instructions and the tool list with the last conversation's state, and the
        decoder cuts the cache back to what is shared before it reads the rest."""
        best: list[int] = []
        shared = 0
        for tokens in self._entries():
            common = shared_prefix(np.asarray(tokens, dtype=np.intc), prompt)
            if common > max(shared, have + MIN_GAIN):
                best, shared = tokens, common
        if not best:
            return 0
        key = state_key(self.model_path, best, self.n_ctx)
        if not self.cache.restore(model, key, best):
            return 0
        logger.info("resumed %d tokens of a saved conversation state of %d", shared, len(best))
        return shared

    def keep(self, model: llama_cpp.Llama) -> None:
        """Save the model's state as it stands (after an answer), and forget all but the latest."""
        tokens = [int(t) for t in model.input_ids[: model.n_tokens]]
        if len(tokens) < MIN_GAIN:
            return
        self.cache.save(model, state_key(self.model_path, tokens, self.n_ctx), tokens)
        entries = [tokens, *(e for e in self._entries() if e != tokens)]
        for dropped in entries[KEEP:]:
            self.cache.path(state_key(self.model_path, dropped, self.n_ctx)).unlink(missing_ok=True)
        self._write(entries[:KEEP])

    def _entries(self) -> list[list[int]]:
        try:
            data = json.loads(self.index.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        if not isinstance(data, list):
            return []
        return [e for e in data if isinstance(e, list) and all(isinstance(t, int) for t in e)]

    def _write(self, entries: list[list[int]]) -> None:
        try:
            self.index.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", dir=self.index.parent, delete=False, suffix=".tmp") as out:
                json.dump(entries, out)
            os.replace(out.name, self.index)
        except OSError as exc:
            logger.warning("could not save the conversation state index %s: %s", self.index, exc)
