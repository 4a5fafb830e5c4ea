"""Descriptions that hide characters or try to instruct the model: flagged for the user, never
hidden, changed or dropped (the user decides what to trust; a flag says what to look at).

Two kinds, over every description a server gives (its tools' titles and descriptions, its
instructions, its prompts and their arguments, its resources and templates):

- **hidden characters**: zero-width and invisible formatting characters, bidi marks, embeddings,
  overrides and isolates, and tag characters. A description has no need of them, and they can
  hide text from the user that the model still reads. Each is named as an escape (``U+200B``).
- **instructs the model**: one of :data:`INSTRUCTING`, matched as whole words, in any case, with
  any run of spaces between its words, after hidden characters are taken out (so a zero-width
  space inside "ignore" does not hide it). A description says what a tool does; one that tells
  the model what to do, or what to keep from the user, is how tool poisoning works.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from typing import Any

import mcp_types

_HIDDEN = re.compile(
    "[\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\U000e0000-\U000e007f]"
)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")

# Phrases that steer the model instead of describing a tool; each is matched as whole words.
INSTRUCTING = (
    "ignore previous instructions",
    "ignore all previous instructions",
    "ignore prior instructions",
    "ignore the above",
    "disregard previous instructions",
    "disregard all previous instructions",
    "forget your instructions",
    "new instructions",
    "system prompt",
    "you must call",
    "you must always",
    "you must first",
    "always call this tool",
    "before using any other tool",
    "do not tell the user",
    "don't tell the user",
    "do not mention",
    "without telling the user",
    "never tell the user",
    "keep this secret",
)
_PHRASES = [
    (phrase, re.compile(r"(?<!\w)" + r"\s+".join(map(re.escape, phrase.split())) + r"(?!\w)", re.I))
    for phrase in INSTRUCTING
]


@dataclasses.dataclass(frozen=True)
class Flag:
    where: str  # "tool lookup", "instructions", "prompt greet", "resource file:///x"
    kind: str  # "hidden characters" or "instructs the model"
    detail: str  # "U+200B, U+202E" or '"ignore previous instructions"'

    def to_json(self) -> dict[str, str]:
        return dataclasses.asdict(self)


def code_point(char: str) -> str:
    return f"U+{ord(char):04X}"


def escaped(text: str, which: re.Pattern[str] | None = None) -> str:
    """``text`` with what ``which`` matches (by default hidden characters and controls) written
    as ``<U+200B>``: for the window, which shows text as plain text (never interpreted) but
    would show these as nothing at all."""
    if which is None:
        return escaped(escaped(text, _HIDDEN), _CONTROL)
    return which.sub(lambda m: f"<{code_point(m.group())}>", text)


def flags_in(where: str, text: str | None) -> list[Flag]:
    if not text:
        return []
    flags = []
    hidden = sorted(set(_HIDDEN.findall(text)))
    if hidden:
        flags.append(Flag(where, "hidden characters", ", ".join(code_point(c) for c in hidden)))
    plain = _HIDDEN.sub("", text)
    found = [f'"{phrase}"' for phrase, pattern in _PHRASES if pattern.search(plain)]
    if found:
        flags.append(Flag(where, "instructs the model", ", ".join(found)))
    return flags


def flags_of(catalog: Any, tools: Sequence[mcp_types.Tool]) -> list[Flag]:
    """Every flag in what one server says (``catalog``: :class:`app.mcp.catalog.Catalog`)."""
    return [flag for where, text in _texts(catalog, tools) for flag in flags_in(escaped(where), text)]


def _texts(catalog: Any, tools: Sequence[mcp_types.Tool]) -> Iterable[tuple[str, str | None]]:
    yield "instructions", catalog.instructions
    for tool in tools:
        yield f"tool {tool.name}", " ".join(filter(None, (tool.title, tool.description)))
    for prompt in catalog.prompts:
        yield f"prompt {prompt.name}", prompt.description
        for argument in prompt.arguments or ():
            yield f"prompt {prompt.name} argument {argument.name}", argument.description
    for resource in catalog.resources:
        yield f"resource {resource.uri}", resource.description
    for template in catalog.templates:
        yield f"template {template.uri_template}", template.description
