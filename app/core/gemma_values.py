"""Gemma 4's own call syntax: ``call:name{key:value,...}``, not JSON.

Its chat template writes a call's arguments with their keys bare and in sorted order (Jinja's
``dictsort``, which ignores case), strings between its string delimiter ``<|"|>`` with nothing
escaped, booleans as ``true``/``false``, numbers as Python prints them, objects as
``{key:value}`` and lists as ``[a,b]``. This module writes a call as the template does (so a
call in the prompt is the one the model was trained on) and reads one back, for the step that
decoded it and for a reply that wrote one as text; both live in the core, which the
reading of written calls (text_calls.py) may use.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

QUOTE = '<|"|>'
CALL_OPEN, CALL_CLOSE = "<|tool_call>", "<tool_call|>"
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_NAME = re.compile(r"call:([^{\s]+)\s*\{")
_BARE_KEY = re.compile(r"[^:{}\[\],\s]+")
_WORDS: dict[str, Any] = {"true": True, "false": False, "null": None, "None": None}


def sorted_items(mapping: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The items in the template's order (``dictsort``: by key, case ignored)."""
    return sorted(mapping.items(), key=lambda item: item[0].lower())


def render_value(value: Any) -> str:
    """One argument as the template's ``format_argument`` writes it in a call (keys bare)."""
    if isinstance(value, str):
        return f"{QUOTE}{value}{QUOTE}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{key}:{render_value(item)}" for key, item in sorted_items(value)) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(render_value(item) for item in value) + "]"
    return str(value)


def render_call(name: str, arguments: Mapping[str, Any]) -> str:
    """``call:name{...}``, what stands between the call markers."""
    return f"call:{name}{render_value(dict(arguments))}"


def parse_call(text: str) -> tuple[str, dict[str, Any]]:
    """The tool's name and arguments in ``call:name{...}``; raises ValueError where it is not one."""
    text = text.strip()
    match = _NAME.match(text)
    if not match:
        raise ValueError("not a call:name{...}")
    reader = _Reader(text, match.end() - 1)
    arguments = reader.value()
    reader.skip()
    if reader.at < len(text):
        raise ValueError(f"text after the call's arguments at {reader.at}")
    assert isinstance(arguments, dict)  # the value opened with "{"
    return match.group(1), arguments


class _Reader:
    """A recursive-descent reader of the template's values, lenient about spaces."""

    def __init__(self, text: str, at: int):
        self.text, self.at = text, at

    def skip(self) -> None:
        while self.at < len(self.text) and self.text[self.at].isspace():
            self.at += 1

    def _take(self, token: str) -> bool:
        self.skip()
        if self.text.startswith(token, self.at):
            self.at += len(token)
            return True
        return False

    def _expect(self, token: str) -> None:
        if not self._take(token):
            raise ValueError(f"expected {token!r} at {self.at}")

    def value(self) -> Any:
        self.skip()
        if self._take(QUOTE):
            return self._string()
        if self._take("{"):
            return self._object()
        if self._take("["):
            return self._list()
        number = _NUMBER.match(self.text, self.at)
        if number:
            self.at = number.end()
            literal = number.group()
            return float(literal) if any(c in literal for c in ".eE") else int(literal)
        for word, meaning in _WORDS.items():
            if self._take(word):
                return meaning
        raise ValueError(f"no value at {self.at}")

    def _string(self) -> str:
        end = self.text.find(QUOTE, self.at)
        if end < 0:
            raise ValueError("a string without its closing delimiter")
        start, self.at = self.at, end + len(QUOTE)
        return self.text[start:end]

    def _object(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self._take("}"):
            return out
        while True:
            key = self._key()
            if key in out:
                raise ValueError(f"the key {key!r} twice")
            self._expect(":")
            out[key] = self.value()
            if self._take("}"):
                return out
            self._expect(",")

    def _key(self) -> str:
        if self._take(QUOTE):
            return self._string()
        match = _BARE_KEY.match(self.text, self.at)
        if not match:
            raise ValueError(f"no key at {self.at}")
        self.at = match.end()
        return match.group()

    def _list(self) -> list[Any]:
        out: list[Any] = []
        if self._take("]"):
            return out
        while True:
            out.append(self.value())
            if self._take("]"):
                return out
            self._expect(",")
