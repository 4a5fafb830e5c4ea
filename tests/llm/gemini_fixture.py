"""A local HTTP server that speaks Gemini's REST wire format, for tests.

It stands in for generativelanguage.googleapis.com: the real google-genai SDK
is pointed at it (``GOOGLE_GEMINI_BASE_URL`` or ``http_options.base_url``) and
talks to it over real HTTP. Each test scripts the replies, in order; every
request body is recorded so a test can check what the SDK sent.

Replies: :class:`Stream` (SSE chunks, optionally cut off after N chunks),
:class:`Error` (a status with Gemini's JSON error body) and :class:`Stall`
(never answers, for timeouts). The builders below write wire-format dicts.
"""

from __future__ import annotations

import base64
import dataclasses
import http.server
import json
import socket
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

Wire = dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Stream:
    """SSE events for streamGenerateContent (or the single body for generateContent).

    ``break_after``: send that many chunks, then drop the connection mid-body.
    A string chunk is sent as it is (for malformed data).
    """

    chunks: Sequence[Wire | str]
    break_after: int | None = None


@dataclasses.dataclass(frozen=True)
class Error:
    status: int
    body: Wire
    headers: Mapping[str, str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Stall:
    """Accept the request and never answer (until the server stops)."""


Reply = Stream | Error | Stall


@dataclasses.dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    query: str
    headers: Mapping[str, str]
    body: Wire

    @property
    def model(self) -> str:
        return self.path.rsplit("/", 1)[-1].split(":", 1)[0]


class GeminiWireServer:
    """Scripted Gemini endpoint on 127.0.0.1 (an ephemeral port), served from a thread.

    Use as a context manager; ``base_url`` is what the SDK should be pointed at.
    """

    handler: type[http.server.BaseHTTPRequestHandler]  # set below, once _Handler exists

    def __init__(self, replies: Sequence[Reply] = ()) -> None:
        self.requests: list[Recorded] = []
        self._replies: list[Reply] = list(replies)
        self._lock = threading.Condition()
        self._released = threading.Event()
        self._httpd = _Httpd(("127.0.0.1", 0), self.handler)
        self._httpd.wire = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="gemini-wire", daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    @property
    def unused(self) -> int:
        with self._lock:
            return len(self._replies)

    def wait_for_requests(self, count: int, timeout: float = 10.0) -> bool:
        """Block until ``count`` requests have arrived (run it off the event loop)."""
        with self._lock:
            return self._lock.wait_for(lambda: len(self.requests) >= count, timeout)

    def __enter__(self) -> GeminiWireServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._released.set()  # let stalled handlers finish
        self._httpd.shutdown()
        self._httpd.server_close()  # joins the handler threads
        self._thread.join(timeout=5)

    # --- for the handler ---

    def take(self, recorded: Recorded) -> Reply:
        with self._lock:
            self.requests.append(recorded)
            self._lock.notify_all()
            if not self._replies:
                return Error(500, error_body(500, "INTERNAL", "the wire fixture has no scripted reply left"))
            return self._replies.pop(0)

    def wait_released(self) -> None:
        self._released.wait()


class _Httpd(http.server.ThreadingHTTPServer):
    daemon_threads = True
    wire: GeminiWireServer


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Httpd

    def log_message(self, format: str, *args: Any) -> None:
        return None  # keep test output clean

    def do_POST(self) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b"{}"
        recorded = Recorded("POST", parts.path, parts.query, dict(self.headers.items()), json.loads(raw))
        reply = self.server.wire.take(recorded)
        streaming = self.streaming(recorded)
        if isinstance(reply, Stall):
            self.server.wire.wait_released()
            self.close_connection = True
        elif isinstance(reply, Error):
            self._send_json(reply.status, reply.body, reply.headers)
        elif streaming:
            self._send_sse(reply)
        else:
            self._send_json(200, _single(reply))

    def streaming(self, recorded: Recorded) -> bool:
        return recorded.path.endswith(":streamGenerateContent")

    def _send_json(self, status: int, body: Wire, headers: Mapping[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")  # one request per connection: threads end with it
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def _send_sse(self, reply: Stream) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        for index, chunk in enumerate(reply.chunks):
            if reply.break_after is not None and index >= reply.break_after:
                self._drop()
                return
            data = chunk if isinstance(chunk, str) else json.dumps(chunk)
            self._write_chunk(f"data: {data}\r\n\r\n".encode())
        self._write_chunk(b"")  # the terminating zero-length chunk

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _drop(self) -> None:
        """Close mid-body: the client sees an incomplete chunked response."""
        self.wfile.flush()
        self.connection.shutdown(socket.SHUT_RDWR)


GeminiWireServer.handler = _Handler


def _single(reply: Stream) -> Wire:
    if len(reply.chunks) != 1 or isinstance(reply.chunks[0], str):
        raise ValueError("a generateContent reply is one body: script a Stream with exactly one dict chunk")
    return reply.chunks[0]


# --- wire-format builders ---------------------------------------------------


def signature(label: str) -> str:
    """A thought signature as it appears on the wire (opaque base64 bytes)."""
    return base64.b64encode(f"signature:{label}".encode()).decode()


def text_part(text: str, *, thought: bool = False, sig: str | None = None) -> Wire:
    part: Wire = {"text": text}
    if thought:
        part["thought"] = True
    if sig is not None:
        part["thoughtSignature"] = sig
    return part


def call_part(
    name: str, args: Mapping[str, Any], *, call_id: str | None = None, sig: str | None = None
) -> Wire:
    call: Wire = {"name": name, "args": dict(args)}
    if call_id is not None:
        call["id"] = call_id
    part: Wire = {"functionCall": call}
    if sig is not None:
        part["thoughtSignature"] = sig
    return part


def chunk(*parts: Wire, finish: str | None = None, usage: Mapping[str, int] | None = None) -> Wire:
    candidate: Wire = {"index": 0}
    if parts:
        candidate["content"] = {"role": "model", "parts": list(parts)}
    if finish is not None:
        candidate["finishReason"] = finish
    body: Wire = {"candidates": [candidate], "modelVersion": "wire-fixture"}
    if usage is not None:
        body["usageMetadata"] = dict(usage)
    return body


def usage(prompt: int, output: int, thoughts: int = 0) -> dict[str, int]:
    return {
        "promptTokenCount": prompt,
        "candidatesTokenCount": output,
        "thoughtsTokenCount": thoughts,
        "totalTokenCount": prompt + output + thoughts,
    }


def blocked_prompt(reason: str = "SAFETY") -> Wire:
    return {"promptFeedback": {"blockReason": reason}, "modelVersion": "wire-fixture"}


def error_body(code: int, status: str, message: str, details: Sequence[Wire] = ()) -> Wire:
    error: Wire = {"code": code, "message": message, "status": status}
    if details:
        error["details"] = list(details)
    return {"error": error}


def retry_info(delay: str) -> Wire:
    return {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}


def answer(text: str, *, sig: str | None = None) -> Stream:
    """A one-step plain answer, split in two chunks the way the service streams."""
    head, tail = text[: len(text) // 2], text[len(text) // 2 :]
    return Stream(
        [chunk(text_part(head)), chunk(text_part(tail, sig=sig), finish="STOP", usage=usage(10, 5))]
    )


def function_responses(request: Recorded) -> Iterator[Wire]:
    """Every functionResponse the SDK sent in one request, in order."""
    for content in request.body.get("contents", []):
        for part in content.get("parts", []):
            if "functionResponse" in part:
                yield part["functionResponse"]
