"""JSON from files and the command line, read so that every way it can be broken is one sentence.

The standard library accepts things a config must not hold (NaN, a lone surrogate escape)
and fails on others with an exception that is not a ``JSONDecodeError`` (nesting that
exhausts the recursion limit, an integer past Python's 4,300-digit conversion limit, a
file in another encoding). Here each of those is a :class:`JsonProblem` worded for the
user, and a file is size-checked before a byte of it is read into memory.
"""

from __future__ import annotations

import codecs
import json
import math
import stat
import sys
from pathlib import Path
from typing import Any

MAX_DEPTH = 64  # objects and arrays inside one another; a config needs about five
MAX_INT_DIGITS = sys.get_int_max_str_digits() or 4300

# Byte order marks of the encodings a text editor may save JSON in, longest first.
_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


class JsonProblem(ValueError):
    """JSON that cannot be used; the message is a predicate ("is not UTF-8 text...") for the
    caller to put its subject before: the file, or the command-line argument."""


def read_json(path: Path, max_bytes: int) -> Any:
    """The JSON document in ``path``. ``FileNotFoundError`` passes through (callers have a
    default for a missing file); any other problem is a :class:`JsonProblem`."""
    return loads(decode(read_bounded(path, max_bytes)))


def read_bounded(path: Path, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``; never opens a FIFO or a device."""
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise JsonProblem("is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise JsonProblem("is not a regular file")
        _check_size(info.st_size, max_bytes)
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)  # the file may have grown since the stat
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise JsonProblem(f"cannot be read: {exc.strerror or exc}") from exc
    _check_size(len(data), max_bytes)
    return data


def _check_size(size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise JsonProblem(f"is too large: {size:,} bytes or more (the limit is {max_bytes:,})")


def decode(data: bytes) -> str:
    """UTF-8 text (a UTF-8 byte order mark is allowed), or a problem naming the first bad byte."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            raise JsonProblem(f"is {encoding} text; save it as UTF-8")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        byte = data[exc.start]
        raise JsonProblem(
            f"is not UTF-8 text (byte 0x{byte:02x} at offset {exc.start}); save it as UTF-8"
        ) from None


def loads(text: str) -> Any:
    """Parse ``text`` as strict JSON: finite numbers, bounded nesting, real text in every string."""
    try:
        value = json.loads(text, parse_constant=_constant, parse_int=_integer, parse_float=_float)
    except json.JSONDecodeError as exc:
        raise JsonProblem(f"holds invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise JsonProblem(f"nests objects or arrays deeper than {MAX_DEPTH} levels") from None
    _check_tree(value)
    return value


def _constant(name: str) -> Any:
    raise JsonProblem(f"holds {name}, which is not a JSON number")


def _integer(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise JsonProblem(f"holds an integer with {digits:,} digits (the limit is {MAX_INT_DIGITS:,})")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonProblem(f"holds the number {text[:40]}, too large for a floating-point number")
    return value


def _check_tree(value: Any) -> None:
    """Depth and text checks, iteratively: the tree may be as deep as the parser allowed."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item)
            continue
        if not isinstance(item, dict | list):
            continue
        if depth > MAX_DEPTH:
            raise JsonProblem(f"nests objects or arrays deeper than {MAX_DEPTH} levels")
        children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children)


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        raise JsonProblem(f"holds \\u{code:04x}, a lone surrogate that is not text") from None
