"""Greedy token choice, optionally under a GBNF grammar, on llama.cpp's C API.

Applying a grammar to every candidate costs tens of milliseconds per token with
Gemma's 262k-token vocabulary, more than the model itself on a laptop CPU. So,
as llama.cpp's own samplers do, the grammar first checks only the greedy pick;
the full vocabulary is filtered only when that pick is not allowed. The result
is the same token a fully constrained greedy search would choose.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable, Sequence

import llama_cpp
import numpy as np

_CLOSING = set('"]} ')
_TOKEN_DATA = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True)


class GrammarError(ValueError):
    """llama.cpp could not parse a grammar."""


class TokenPicker:
    """Greedy choice over the last decoded position's logits."""

    def __init__(self, model: llama_cpp.Llama):
        self._ctx = model.ctx
        self._vocab = llama_cpp.llama_model_get_vocab(model.model)
        self.n_vocab = model.n_vocab()
        self._ids = np.arange(self.n_vocab, dtype=np.intc)
        self._closers: np.ndarray | None = None
        self._digits: np.ndarray | None = None

    def logits(self) -> np.ndarray:
        pointer = llama_cpp.llama_get_logits_ith(self._ctx, -1)
        return np.ctypeslib.as_array(pointer, shape=(self.n_vocab,))

    def pick(self, grammar: GrammarSampler | None = None, *, closing: bool = False) -> int:
        """The greedy token (under ``grammar``). ``closing``: prefer tokens that only close
        strings, arrays and objects, wherever the grammar allows one."""
        logits = self.logits()
        token = self._closer(grammar, logits) if closing and grammar is not None else None
        if token is None:
            token = int(logits.argmax())
            if grammar is not None and not grammar.allows(token):
                token = grammar.best_allowed(self._ids, logits)
        if grammar is not None:
            grammar.accept(token)
        return token

    def _closer(self, grammar: GrammarSampler, logits: np.ndarray) -> int | None:
        masked = np.where(self._closer_mask(), logits, -np.inf)
        token = int(masked.argmax())
        if grammar.allows(token):
            return token
        try:
            return grammar.best_allowed(self._ids, masked)
        except GrammarError:
            return None  # no closing token fits here (a value must come first)

    def _closer_mask(self) -> np.ndarray:
        """Tokens made only of quotes, closing brackets and spaces; worked out on first use."""
        if self._closers is None:
            pieces = (self.piece(t).decode("utf-8", errors="ignore") for t in range(self.n_vocab))
            self._closers = np.fromiter(
                (bool(p.strip()) and set(p) <= _CLOSING for p in pieces), dtype=bool, count=self.n_vocab
            )
        return self._closers

    def piece(self, token: int) -> bytes:
        size = 64
        while True:
            buffer = ctypes.create_string_buffer(size)
            written = llama_cpp.llama_token_to_piece(self._vocab, token, buffer, size, 0, True)
            if written >= 0:
                return buffer.raw[:written]
            size = -written

    def is_digits(self, token: int) -> bool:
        """Whether the token is only digits (worked out for the whole vocabulary on first use)."""
        if self._digits is None:
            pieces = (self.piece(t) for t in range(self.n_vocab))
            self._digits = np.fromiter((p.isdigit() for p in pieces), dtype=bool, count=self.n_vocab)
        return bool(self._digits[token])

    def is_end(self, token: int) -> bool:
        return bool(llama_cpp.llama_vocab_is_eog(self._vocab, token))

    def grammar(self, text: str) -> GrammarSampler:
        return GrammarSampler(self._vocab, text)

    def compiles(self, text: str) -> bool:
        try:
            GrammarSampler(self._vocab, text).close()
        except GrammarError:
            return False
        return True


class GrammarSampler:
    """One grammar's state across a generation; ``accept`` every chosen token."""

    def __init__(self, vocab: llama_cpp.llama_vocab_p, text: str):
        self._ptr = llama_cpp.llama_sampler_init_grammar(vocab, text.encode("utf-8"), b"root")
        if not self._ptr:
            raise GrammarError("llama.cpp could not parse the tool-call grammar")
        self._one = (llama_cpp.llama_token_data * 1)()
        self._one_array = llama_cpp.llama_token_data_array(data=self._one, size=1, selected=-1, sorted=False)

    def allows(self, token: int) -> bool:
        self._one[0] = llama_cpp.llama_token_data(token, 0.0, 0.0)
        self._one_array.size, self._one_array.selected = 1, -1
        llama_cpp.llama_sampler_apply(self._ptr, ctypes.byref(self._one_array))
        return not math.isinf(self._one[0].logit)

    def best_allowed(self, ids: np.ndarray, logits: np.ndarray) -> int:
        candidates = np.empty(len(ids), dtype=_TOKEN_DATA)
        candidates["id"], candidates["logit"], candidates["p"] = ids, logits, 0.0
        array = llama_cpp.llama_token_data_array(
            data=candidates.ctypes.data_as(llama_cpp.llama_token_data_p),
            size=len(ids),
            selected=-1,
            sorted=False,
        )
        llama_cpp.llama_sampler_apply(self._ptr, ctypes.byref(array))
        # the grammar sampler masks with -inf in place; it never reorders or shrinks the array
        best = int(candidates["logit"].argmax())
        if math.isinf(candidates["logit"][best]):
            raise GrammarError("the tool-call grammar allows no next token")
        return int(candidates["id"][best])

    def accept(self, token: int) -> None:
        llama_cpp.llama_sampler_accept(self._ptr, token)

    def close(self) -> None:
        if self._ptr:
            llama_cpp.llama_sampler_free(self._ptr)
            self._ptr = None

    def __del__(self) -> None:
        self.close()


class RepeatGuard:
    """Spots output that has begun to go round in a loop (``0.0, 0.0, 0.0, ...``,
    ``"a", "b", "a", "b", ...``, ``1000000...``). Small models fall into such loops
    inside tool arguments and would run into the token cap with an unfinished call;
    once one is seen, the decoder closes the call as soon as the grammar lets it.
    A loop counts from ``repeats`` rounds spanning at least ``min_span`` tokens.
    """

    def __init__(self, *, repeats: int = 3, min_span: int = 16, max_period: int = 32):
        self.repeats, self.min_span, self.max_period = repeats, min_span, max_period

    def looping(self, tokens: Sequence[int], digits: Callable[[int], bool] | None = None) -> bool:
        """Whether ``tokens`` end in a loop; with ``digits``, a run of digit tokens is not one:
        in a backed answer it is a number copied from a result ("23.666666666666666667")."""
        for period in range(1, self.max_period + 1):
            span = period * max(self.repeats, -(-self.min_span // period))
            if span > len(tokens):
                continue
            tail = tokens[len(tokens) - span :]
            if all(tail[i] == tail[i - period] for i in range(period, span)):
                return digits is None or not all(digits(t) for t in tail[:period])
        return False
