"""The token loop, run on the backend's worker thread.

It reuses the key/value cache for the prompt prefix the previous step already
decoded, then picks tokens greedily until the end-of-turn token, a stop text, a
finished tool call, the token cap or a stop request. The stop flag is checked
before every token and between prompt batches, so a cancelled step ends within
one token.
"""

from __future__ import annotations

import codecs
import threading
import time
from collections.abc import Sequence

import llama_cpp
import numpy as np

from app.llm.local.decoded import DecodeResult
from app.llm.local.phases import Emit, Phases, PhaseSetup
from app.llm.local.sampling import RepeatGuard, TokenPicker
from app.llm.local.steer import MAX_STEERED, ResultSteer, Vocabulary

CLOSING_RESERVE = 24  # tokens kept to close an open tool call (brackets, quotes, the end marker)


class Decoder:
    """Owns one loaded model's generation state. Not thread-safe: one run at a time."""

    def __init__(self, model: llama_cpp.Llama):
        self.model = model
        self.picker = TokenPicker(model)
        # inside tool calls and Calculon-mode answers only: free text is the model's own business
        self.guard = RepeatGuard()
        self._pieces: dict[int, bytes] = {}
        self._vocabulary: Vocabulary | None = None

    @property
    def n_ctx(self) -> int:
        return self.model.n_ctx()

    def run(
        self, prompt: Sequence[int], setup: PhaseSetup, max_tokens: int, emit: Emit, stop: threading.Event
    ) -> DecodeResult:
        started = time.perf_counter()
        result = DecodeResult(kind="answer", prompt_tokens=len(prompt))
        result.reused_tokens = self._prime(prompt, stop)
        phases = Phases(setup, emit, self.picker.grammar)
        try:
            result.stop_reason = self._loop(phases, max_tokens, stop, result, started)
        finally:
            phases.finish()
        result.kind, result.call_text, result.call_complete = (
            phases.kind,
            phases.call_text,
            phases.call_complete,
        )
        result.stop_text = phases.stop_text
        result.total_s = time.perf_counter() - started
        return result

    def _loop(
        self, phases: Phases, max_tokens: int, stop: threading.Event, result: DecodeResult, started: float
    ) -> str:
        text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        produced: list[int] = []
        steer: ResultSteer | None = None
        while result.tokens < max_tokens:
            if stop.is_set():
                return "cancelled"
            if self.model.n_tokens >= self.n_ctx:
                return "context"
            if phases.kind == "call" and not result.closed_early:
                result.closed_early = self._should_close(produced, max_tokens - result.tokens)
            elif phases.kind == "answer" and phases.grammar is not None and self._answer_loops(produced):
                # a constrained answer repeating itself ("= 26 * 7 + 10 = 26 * 7 ..."): once, if it
                # has a result still to state, it is steered there; otherwise it ends
                if steer is not None or not phases.setup.grammar or not phases.setup.grammar.result:
                    return "loop"
                steer, produced = ResultSteer(phases.setup.grammar.result, self._vocab()), []
            token = self._next(phases, steer, closing=bool(result.closed_early))
            if token is None:
                return "loop"
            produced.append(token)
            result.tokens_after_stop += stop.is_set()
            if self.picker.is_end(token):
                return "end"
            result.tokens += 1
            if result.first_token_s is None:
                result.first_token_s = time.perf_counter() - started
            piece = text.decode(self._piece(token))
            if steer is not None and not steer.done:
                steer.fed(piece)
                result.steered += 1
            if phases.feed(piece):
                return "stop-text" if phases.stopped_on_text else "call"
            self.model.eval([token])
        return "cap"

    def _next(self, phases: Phases, steer: ResultSteer | None, *, closing: bool) -> int | None:
        """The next token: steered while a steer is spelling the result, else greedy."""
        if steer is None or steer.done or phases.grammar is None:
            return self.picker.pick(phases.grammar, closing=closing)
        if steer.steered >= MAX_STEERED:
            return None
        token = steer.pick(phases.grammar, self.picker.logits())
        if token is not None:
            phases.grammar.accept(token)
        return token

    def _vocab(self) -> Vocabulary:
        if self._vocabulary is None:
            self._vocabulary = Vocabulary(self.picker.n_vocab, self._piece)
        return self._vocabulary

    def _answer_loops(self, produced: Sequence[int]) -> bool:
        return self.guard.looping(produced, self.picker.is_digits)

    def _should_close(self, produced: Sequence[int], left: int) -> str:
        """Close a call that loops, or that would otherwise not finish within the token cap."""
        if left <= CLOSING_RESERVE:
            return "budget"
        return "loop" if self.guard.looping(produced) else ""

    def prime(self, prompt: Sequence[int], stop: threading.Event) -> int:
        """Decode ``prompt`` into the cache without generating (the opening shared by every
        prompt); the tokens newly decoded."""
        kept = self._prime(prompt, stop)
        return len(prompt) - kept

    def _prime(self, prompt: Sequence[int], stop: threading.Event) -> int:
        """Decode the prompt, keeping the cached prefix it shares with the last run."""
        model = self.model
        keep = shared_prefix(model.input_ids[: model.n_tokens], prompt)
        keep = min(keep, len(prompt) - 1)  # the last prompt token must be decoded afresh for its logits
        if keep < model.n_tokens:
            memory = llama_cpp.llama_get_memory(model.ctx)
            if keep > 0 and not llama_cpp.llama_memory_seq_rm(memory, -1, keep, -1):
                keep = 0  # this model's cache cannot be cut in the middle; start over
        model.n_tokens = keep
        batch = max(1, model.n_batch)
        for start in range(keep, len(prompt), batch):
            if stop.is_set():
                break
            model.eval(prompt[start : start + batch])
        return keep

    def _piece(self, token: int) -> bytes:
        piece = self._pieces.get(token)
        if piece is None:
            piece = self._pieces[token] = self.picker.piece(token)
        return piece


def shared_prefix(cached: np.ndarray, prompt: Sequence[int]) -> int:
    size = min(len(cached), len(prompt))
    if size == 0:
        return 0
    differs = np.nonzero(cached[:size] != np.asarray(prompt[:size], dtype=cached.dtype))[0]
    return int(differs[0]) if len(differs) else size
