"""What one run of the token loop decided, as its own small module: the app's process
unpickles it from the model's process (:mod:`app.llm.local.wire`), and loading it must not
load llama.cpp there."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass
class DecodeResult:
    kind: str  # "answer", "call", "think" or "decide" (nothing decided yet)
    call_text: str = ""
    call_complete: bool = False
    tokens: int = 0
    stop_reason: str = ""  # end, stop-text, call, cap, loop, context, cancelled
    stop_text: str = ""  # with stop-text: which one
    tokens_after_stop: int = 0  # tokens chosen after the stop flag was raised
    closed_early: str = ""  # why a tool call was closed early: "loop", "budget", or ""
    steered: int = 0  # tokens of an answer steered to its result after a loop (see steer.py)
    prompt_tokens: int = 0
    reused_tokens: int = 0
    first_token_s: float | None = None
    total_s: float = 0.0
