"""A tool result too long for the local model's context is cut to fit, not the turn ended.

Dropping older exchanges is how a long conversation fits (app.llm.local.step.fit); the newest
exchange cannot be dropped, and one long result in it (a whole file read, a table listed) ended the
turn with "too long for the model's context" before the model saw any of it. The longest result
is cut in its middle instead, with a line that says so: its opening is what a model reads first,
and its end holds what the app added (its counts of lines or items, app.calculon.counts).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from app.core.messages import Message

MIN_KEPT = 200  # characters: a result cut below this says nothing, and the error is clearer
TAIL_SHARE = 4  # at most a quarter of what is kept comes from the end
MAX_TAIL = 400
ROUNDS = 4  # tries at a length, each shorter by the tokens the last had too many

Count = Callable[[tuple[Message, ...]], int]  # the prompt's tokens with these messages


def cut_to_fit(
    messages: tuple[Message, ...], limit: int, count: Count, n_ctx: int
) -> tuple[Message, ...] | None:
    """``messages`` with their longest tool result cut until the prompt has at most ``limit``
    tokens, or None where no cut of it does."""
    index = _longest_result(messages)
    if index is None:
        return None
    whole = messages[index].text
    base = count(_with_text(messages, index, ""))  # the prompt around the result
    if base >= limit:
        return None
    chars_per_token = len(whole) / max(count(messages) - base, 1)
    keep = int((limit - base) * chars_per_token * 0.9)  # a little under: the mark takes room too
    for _ in range(ROUNDS):
        if keep < MIN_KEPT:
            return None
        cut = _with_text(messages, index, _shortened(whole, keep, n_ctx))
        over = count(cut) - limit
        if over <= 0:
            return cut
        keep -= int(over * chars_per_token) + 16
    return None


def _with_text(messages: tuple[Message, ...], index: int, text: str) -> tuple[Message, ...]:
    return (*messages[:index], dataclasses.replace(messages[index], text=text), *messages[index + 1 :])


def cut_notice(n_ctx: int) -> str:
    return f"A tool result was cut in its middle to fit the model's {n_ctx}-token context."


def _longest_result(messages: Sequence[Message]) -> int | None:
    results = [(len(m.text), i) for i, m in enumerate(messages) if m.role == "tool"]
    return max(results)[1] if results and max(results)[0] > MIN_KEPT else None


def _shortened(text: str, keep: int, n_ctx: int) -> str:
    tail = min(keep // TAIL_SHARE, MAX_TAIL)
    head = keep - tail
    left_out = len(text) - head - tail
    mark = f"\n[... {left_out} characters cut here to fit the model's {n_ctx}-token context ...]\n"
    return text[:head] + mark + text[len(text) - tail :]
