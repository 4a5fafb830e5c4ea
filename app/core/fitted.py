"""An edit whose text to replace differs from the text read only in punctuation and spacing,
fitted to the text read.

Having read config.json, where it says '"port": 8080,', Qwen2.5-Coder-1.5B edited "port: 8080" into
"port: 9090" three times; told the nearest text read each time, it copied its own again. Editors
that apply a model's edits match such text loosely where the match is certain. Here the words and
numbers of the text to replace must be the read text's, in order, at exactly one place; the new
text must change only words or numbers, one for one; the edit is then made on the text read
('"port": 9090,'), and the trace says so. Anything less certain is refused as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from app.core.unread import OLD_KEY, edit_keys, line_windows

_TOKEN = re.compile(r"[A-Za-z0-9_.]+")


def fitted_edit(arguments: Mapping[str, Any], results: Iterable[str]) -> tuple[dict[str, Any], str] | None:
    """The arguments with each loose edit fitted to the text read, and what changed (for the
    trace); None where no edit needed fitting or one could not be fitted for certain. ``results``
    is read only for a call that replaces text: most calls are no edit."""
    if not _edits(arguments):
        return None
    texts = list(results)
    changed: list[str] = []
    fitted = _fit(arguments, texts, changed)
    if not changed or fitted is None:
        return None
    return fitted, "; ".join(changed)


def _edits(value: Any) -> bool:
    if isinstance(value, Mapping):
        return any(OLD_KEY.match(str(k)) for k in value) or any(_edits(v) for v in value.values())
    return isinstance(value, list | tuple) and any(_edits(v) for v in value)


def _fit(value: Any, texts: list[str], changed: list[str]) -> Any:
    """``value`` with its old/new text pairs fitted; None where one cannot be."""
    if isinstance(value, list | tuple):
        items = [_fit(item, texts, changed) for item in value]
        return None if any(item is None for item in items) else items
    if not isinstance(value, Mapping):
        return value
    old_key, new_key = edit_keys(value)
    if old_key is None or new_key is None:
        out = {k: _fit(v, texts, changed) for k, v in value.items()}
        return None if any(v is None for v in out.values()) else out
    old, new = value[old_key], value[new_key]
    if any(old in text for text in texts):
        return dict(value)
    pair = _fitted_pair(old, new, texts)
    if pair is None:
        return None
    changed.append(f"{old!r} was fitted to the text read, {pair[0]!r}, and {new!r} to {pair[1]!r}")
    return {**value, old_key: pair[0], new_key: pair[1]}


def _fitted_pair(old: str, new: str, texts: list[str]) -> tuple[str, str] | None:
    """The read text that ``old`` stands for, and ``new`` written the same way, or None."""
    words, renewed = _TOKEN.findall(old), _TOKEN.findall(new)
    if not words or len(words) != len(renewed):
        return None
    # each text once (a file read twice is one place), each window where it stands
    found = [
        w for text in dict.fromkeys(texts) for w in line_windows(text, old) if _TOKEN.findall(w) == words
    ]
    if len(found) != 1:
        return None
    (window,) = found
    out, last = [], 0
    for match, after in zip(_TOKEN.finditer(window), renewed, strict=True):
        out += [window[last : match.start()], after]  # each word in its place: the spacing is the read text's
        last = match.end()
    return window, "".join([*out, window[last:]])
