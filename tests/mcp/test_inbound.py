"""Stdout of a server into messages: lines from any chunking, and replies the SDK cannot use
turned into an error for the request they answer, at once."""

from __future__ import annotations

import json

import mcp_types
import pytest

from app.mcp.inbound import BAD_REPLY, Inbound


def request(request_id: int | str, method: str = "tools/call") -> mcp_types.JSONRPCRequest:
    return mcp_types.JSONRPCRequest(jsonrpc="2.0", id=request_id, method=method, params={})


def reply(request_id: int | str, text: str = "ok") -> bytes:
    body = {"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": text}]}}
    return json.dumps(body).encode() + b"\n"


def wired(*pending: int | str, max_line: int = 1024 * 1024) -> tuple[Inbound, list[str]]:
    tail: list[str] = []
    inbound = Inbound(tail.append, max_line=max_line)
    for request_id in pending:
        inbound.sent(request(request_id))
    return inbound, tail


def errors(messages: list) -> list[tuple[object, str]]:
    return [
        (m.message.id, m.message.error.message)
        for m in messages
        if isinstance(m.message, mcp_types.JSONRPCError)
    ]


@pytest.mark.parametrize("size", [1, 7, 4096, 10**6])
def test_lines_come_out_whole_however_the_chunks_fall(size):
    inbound, _ = wired(1, 2)
    data = reply(1, "a" * 5000) + reply(2, "b")
    messages = [m for start in range(0, len(data), size) for m in inbound.feed(data[start : start + size])]
    assert [m.message.id for m in messages] == [1, 2]
    assert messages[0].message.result["content"][0]["text"] == "a" * 5000


def test_a_line_that_is_not_json_rpc_is_garbage_for_the_tail_and_fails_nothing():
    inbound, tail = wired(1)
    assert inbound.feed(b'Starting server v1\n{"half": "json"}\n') == []
    assert tail == ["[stdout garbage] Starting server v1", '[stdout garbage] {"half": "json"}']


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (b"caf\xe9", "invalid unicode code point"),
        (b"\\ud800 alone", "hex escape"),
        (b'", "x": ' + b"[" * 10_000 + b"]" * 10_000 + b', "y": "', "recursion limit exceeded"),
    ],
)
def test_a_reply_the_sdk_cannot_use_becomes_an_error_for_its_request(text, why):
    inbound, _ = wired(1, 7)
    line = (
        b'{"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "' + text + b'"}]}}\n'
    )
    [(request_id, message)] = errors(inbound.feed(line))
    assert request_id == 7 and why in message


def test_the_error_reply_carries_the_bad_reply_code():
    inbound, _ = wired("abc")
    [message] = inbound.feed(b'{"jsonrpc": "2.0", "id": "abc", "result": {"x": "\xff"}}\n')
    assert message.message.error.code == BAD_REPLY


def test_a_line_over_the_cap_fails_its_request_as_it_streams_and_the_rest_is_dropped():
    inbound, tail = wired(3, max_line=1000)
    head = b'{"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "'
    assert errors(inbound.feed(head + b"x" * 2000)) == [(3, "it is over 0 MiB")]
    assert inbound.feed(b"y" * 5000) == []  # still the same line: nothing kept, nothing parsed
    assert [m.message.id for m in inbound.feed(b'"}]}}\n' + reply(4))] == [4]  # the next line is read
    assert len(inbound._buffer) == 0 and not any("garbage" in line for line in tail)


def test_a_broken_notification_fails_no_request():
    inbound, tail = wired(1)
    line = b'{"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "\xff"}}\n'
    assert inbound.feed(line) == []
    assert tail[-1].startswith("[stdout garbage]")


def test_a_broken_reply_with_no_id_goes_to_the_only_request_waiting():
    inbound, _ = wired(5)
    [(request_id, _why)] = errors(inbound.feed(b'{"jsonrpc": "2.0", "result": {"x": "\xff"}}\n'))
    assert request_id == 5


def test_a_cancelled_request_is_no_longer_waiting():
    inbound, tail = wired(5)
    cancel = mcp_types.JSONRPCNotification(
        jsonrpc="2.0", method="notifications/cancelled", params={"requestId": 5}
    )
    inbound.sent(cancel)
    assert inbound.feed(b'{"jsonrpc": "2.0", "result": {"x": "\xff"}}\n') == []
    assert tail == ['[stdout garbage] {"jsonrpc": "2.0", "result": {"x": "\ufffd"}}']
