"""A fake OpenAI-compatible endpoint for the failures a real server will not produce on cue.

It is the Gemini wire fixture's scripted HTTP server with the Chat Completions shapes:
``POST /v1/chat/completions`` streams when the body says ``"stream": true`` (SSE ending in
``[DONE]``, or cut off with ``break_after``), ``GET /v1/models`` lists ``FAKE_MODEL``. Everything
that works end to end is tested against the real ``llama_cpp.server`` instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from tests.llm.gemini_fixture import Error, GeminiWireServer, Recorded, Stream, Wire, _Handler

FAKE_MODEL = "fake-model"


class _ChatHandler(_Handler):
    def streaming(self, recorded: Recorded) -> bool:
        return recorded.body.get("stream") is True

    def do_GET(self) -> None:
        self._send_json(200, {"object": "list", "data": [{"id": FAKE_MODEL, "object": "model"}]})


class FakeOpenAIServer(GeminiWireServer):
    """Scripted replies in order; ``base_url`` ends in /v1 as the SDK expects."""

    handler = _ChatHandler

    @property
    def base_url(self) -> str:
        return super().base_url + "/v1"


def delta(**fields: Any) -> Wire:
    """One streamed chunk: a delta (content, reasoning_content, tool_calls) and its finish."""
    finish = fields.pop("finish", None)
    choice = {"index": 0, "delta": fields, "finish_reason": finish}
    return {"id": "c1", "object": "chat.completion.chunk", "model": FAKE_MODEL, "choices": [choice]}


def call_piece(index: int, *, call_id: str = "", name: str = "", arguments: str = "") -> Wire:
    function = {key: value for key, value in (("name", name), ("arguments", arguments)) if value}
    piece: Wire = {"index": index, "type": "function", "function": function}
    if call_id:
        piece["id"] = call_id
    return piece


def streamed(*chunks: Wire | str, break_after: int | None = None) -> Stream:
    ending: Sequence[str] = () if break_after is not None else ("[DONE]",)
    return Stream([*chunks, *ending], break_after=break_after)


def whole(message: Mapping[str, Any], finish: str = "stop") -> Stream:
    choice = {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}
    return Stream([{"id": "c1", "object": "chat.completion", "model": FAKE_MODEL, "choices": [choice]}])


def error(status: int, message: str, headers: Mapping[str, str] | None = None) -> Error:
    return Error(
        status, {"error": {"message": message, "type": "error", "code": status}}, dict(headers or {})
    )


def sent_messages(request: Recorded) -> list[Wire]:
    return list(json.loads(json.dumps(request.body["messages"])))
