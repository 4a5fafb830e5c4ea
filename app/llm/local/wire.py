"""What the app and its model process say to each other, and how it travels.

Each message is a frozen dataclass, pickled, behind a 4-byte big-endian length. Pickle
because every message is already a dataclass of plain values (requests, chunks, figures)
and both ends are this program at the same version, over a pipe only the two of them hold:
nothing to describe twice, and a chunk costs tens of microseconds against the milliseconds
of the token it carries (docs/engine-process.md has the figures and the alternatives).

Requests carry a job number; every reply to one names it, and every job ends with exactly one
:class:`Finished` or :class:`Failed`.
"""

from __future__ import annotations

import dataclasses
import pickle
import struct
from typing import Any, BinaryIO

from app.core.backend import Chunk, ModelRequest

HEADER = struct.Struct(">I")
MAX_FRAME = 256 * 1024**2  # a request with a long conversation and many tools stays far below


class WireError(Exception):
    """The other side sent something that is not a frame of ours."""


# --- app -> model process ---


@dataclasses.dataclass(frozen=True)
class Load:
    job: int
    options: Any  # LocalOptions: kept as Any so the app side need not import the model's modules


@dataclasses.dataclass(frozen=True)
class Step:
    job: int
    request: ModelRequest


@dataclasses.dataclass(frozen=True)
class Prefill:
    job: int
    system: str


@dataclasses.dataclass(frozen=True)
class PromptText:
    job: int
    request: ModelRequest


@dataclasses.dataclass(frozen=True)
class Cancel:
    """Stop job ``job`` at its next token; it still ends with Finished or Failed."""

    job: int


# --- model process -> app ---


@dataclasses.dataclass(frozen=True)
class Progress:
    job: int
    value: float
    message: str


@dataclasses.dataclass(frozen=True)
class Streamed:
    job: int
    chunk: Chunk


@dataclasses.dataclass(frozen=True)
class Finished:
    job: int
    value: Any = None  # Load: (label, n_ctx, its pid); Prefill: tokens decoded; PromptText: the text
    figures: Any = None  # Step: the DecodeResult of its last decode


@dataclasses.dataclass(frozen=True)
class Failed:
    job: int
    message: str
    category: str = "model"


def encode(message: object) -> bytes:
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(payload)) + payload


def decode(payload: bytes) -> object:
    try:
        return pickle.loads(payload)
    except Exception as exc:  # a torn or foreign frame, whatever pickle makes of it
        raise WireError(f"an unreadable frame ({len(payload)} bytes): {exc}") from exc


def frame_length(header: bytes) -> int:
    (length,) = HEADER.unpack(header)
    if length > MAX_FRAME:
        raise WireError(f"a frame of {length} bytes, more than {MAX_FRAME}")
    return length


def read_frame(stream: BinaryIO) -> object | None:
    """The next message from a blocking stream; None at its end."""
    header = _read_exactly(stream, HEADER.size)
    if header is None:
        return None
    payload = _read_exactly(stream, frame_length(header))
    if payload is None:
        raise WireError("the stream ended inside a frame")
    return decode(payload)


def _read_exactly(stream: BinaryIO, size: int) -> bytes | None:
    parts, left = [], size
    while left:
        part = stream.read(left)
        if not part:
            return None
        parts.append(part)
        left -= len(part)
    return b"".join(parts)
