"""A stand-in for the Hugging Face Hub's file API on 127.0.0.1, for tests that must not
reach the internet.

It answers ``HEAD`` and ``GET`` on ``/{repo_id}/resolve/{revision}/{file}`` with the headers
``huggingface_hub`` reads: ``X-Repo-Commit``, ``ETag`` and ``X-Linked-Etag`` (the file's
SHA-256, as the real Hub gives for LFS files), ``X-Linked-Size``, ``Content-Length``,
and ``Range`` requests answered ``206`` with ``Content-Range``. Each file can be served
slowly (so a download can be killed in the middle), with a size or SHA-256 that lies
(so the client's checks can be seen to refuse it). Every request is recorded.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMMIT = "0123456789abcdef0123456789abcdef01234567"
_PATH = re.compile(r"^/(?P<repo>[^/]+/[^/]+)/resolve/(?P<revision>[^/]+)/(?P<file>.+)$")
_RANGE = re.compile(r"^bytes=(\d+)-(\d*)$")


@dataclasses.dataclass
class HostedFile:
    data: bytes
    chunk: int = 64 * 1024
    pause_s: float = 0.0  # between chunks: the pace of a slow connection, not a wait in a test
    claimed_size: int | None = None  # what X-Linked-Size says, when it should lie
    claimed_sha256: str | None = None  # what the ETags say, when they should lie

    @property
    def sha256(self) -> str:
        return self.claimed_sha256 or hashlib.sha256(self.data).hexdigest()


@dataclasses.dataclass(frozen=True)
class Seen:
    method: str
    path: str
    range: str | None


class StandinHub:
    def __init__(self) -> None:
        self.files: dict[tuple[str, str], HostedFile] = {}
        self.seen: list[Seen] = []
        self.url = ""

    def host(self, repo_id: str, file_name: str, hosted: HostedFile) -> None:
        self.files[(repo_id, file_name)] = hosted

    def ranges(self) -> list[str]:
        return [s.range for s in self.seen if s.method == "GET" and s.range]


def _handler(hub: StandinHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = (
            "HTTP/1.0"  # one request per connection: closing the hub never waits on a kept-alive client
        )

        def log_message(self, *_args: object) -> None:
            pass

        def do_HEAD(self) -> None:
            self._answer(body=False)

        def do_GET(self) -> None:
            self._answer(body=True)

        def _answer(self, body: bool) -> None:
            hub.seen.append(Seen(self.command, self.path, self.headers.get("Range")))
            match = _PATH.match(self.path)
            hosted = hub.files.get((match["repo"], match["file"])) if match else None
            if hosted is None:
                self.send_response(404)
                self.send_header("X-Error-Code", "EntryNotFound")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            start = self._range_start()
            part = hosted.data[start:]
            self.send_response(206 if start else 200)
            self.send_header("X-Repo-Commit", COMMIT)
            self.send_header("ETag", f'"{hosted.sha256}"')
            self.send_header("X-Linked-Etag", f'"{hosted.sha256}"')
            self.send_header("X-Linked-Size", str(hosted.claimed_size or len(hosted.data)))
            self.send_header("Accept-Ranges", "bytes")
            if start:
                self.send_header("Content-Range", f"bytes {start}-{len(hosted.data) - 1}/{len(hosted.data)}")
            self.send_header("Content-Length", str(len(part)))
            self.end_headers()
            if body:
                self._send(part, hosted)

        def _range_start(self) -> int:
            found = _RANGE.match(self.headers.get("Range") or "")
            return int(found[1]) if found else 0

        def _send(self, part: bytes, hosted: HostedFile) -> None:
            try:
                for offset in range(0, len(part), hosted.chunk):
                    self.wfile.write(part[offset : offset + hosted.chunk])
                    self.wfile.flush()
                    if hosted.pause_s:
                        time.sleep(hosted.pause_s)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client was killed or cancelled: exactly what some tests do

    return Handler


@contextmanager
def running_hub() -> Iterator[StandinHub]:
    hub = StandinHub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(hub))
    server.daemon_threads = False
    server.block_on_close = True
    hub.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, name="hub-standin", daemon=True)
    thread.start()
    try:
        yield hub
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def gguf_bytes(
    size: int, *, layers: int = 4, context: int = 2048, name: str = "Standin", head_size: int | None = None
) -> bytes:
    """A small GGUF header (architecture, name, layers, context, Q4_K_M) padded to ``size``
    with bytes that differ per size, so two hosted files never hash alike."""
    values = [
        ("general.architecture", 8, "llama"),
        ("general.name", 8, name),
        ("general.file_type", 4, 15),
        ("llama.context_length", 4, context),
        ("llama.block_count", 4, layers),
        ("llama.embedding_length", 4, 64),
        ("llama.attention.head_count", 4, 4),
        ("llama.attention.head_count_kv", 4, 2),
    ]
    if head_size is not None:
        values.append(("llama.attention.key_length", 4, head_size))
    out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, 0, len(values)))
    for key, kind, value in values:
        out += struct.pack("<Q", len(key)) + key.encode() + struct.pack("<I", kind)
        if kind == 8:
            out += struct.pack("<Q", len(str(value))) + str(value).encode()
        else:
            out += struct.pack("<I", int(value))
    filler = hashlib.sha256(str(size).encode()).digest()
    out += (filler * (size // len(filler) + 1))[: max(size - len(out), 0)]
    return bytes(out)
