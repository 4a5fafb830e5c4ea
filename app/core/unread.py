"""An edit whose text to replace was never read, or that would change nothing: refused before
it reaches the server.

An edit tool (the filesystem server's ``edit_file``) replaces text the model copies from the
file. Asked to change a port in config.json, Qwen2.5-Coder-1.5B edited before reading and
replaced the word "port" with "9090"; asked to add notes it replaced "old content". Each time
the server ran the edit it was given or failed on it. As editors that check their edits do,
the app runs an edit only where each text it replaces stands in a tool result of this
conversation, or in quotes in the user's words; else the model is told to read the file first.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

UNREAD_NOT_RUN = "Not run (the text it replaces was never read):"
UNCHANGED_NOT_RUN = "Not run (it changes nothing):"

NEAR_ENOUGH = 0.6  # a read text this like the edit's (difflib's ratio) is named as what it meant
MAX_LINES = 2000  # of each result, the lines compared: an edit's text comes from what a person reads
OLD_KEY = re.compile(r"^old_?(text|str|string)$", re.IGNORECASE)  # an edit's text to replace
NEW_KEY = re.compile(r"^new_?(text|str|string)$", re.IGNORECASE)  # and what replaces it
_QUOTED = re.compile(r"""'([^']+)'|"([^"]+)"|‘([^’]+)’|“([^”]+)”|`([^`]+)`""")


def unread_edit(tool: str, arguments: Mapping[str, Any], results: Iterable[str], user_text: str) -> str:
    """Why the edit is not run (the text it would replace, read nowhere), or "". ``results`` is
    read only for a call that replaces text: most calls are no edit."""
    olds = [old for old in _old_texts(arguments) if old.strip()]
    if not olds:
        return ""
    results = list(results)
    quoted = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(user_text)]
    for old in olds:
        if any(old in text for text in results) or any(old in q for q in quoted):
            continue
        shown = old if len(old) <= 60 else old[:57] + "..."
        near = nearest_text(old, results)
        if near:
            return (
                f"{tool} replaces text copied from the file, and {shown!r} is not in it as written;"
                f" the nearest text read is {near!r}. Copy the exact text to replace from what was read"
            )
        return (
            f"{tool} replaces text copied from the file, and {shown!r} is in no result of this"
            " conversation. Read the file first, then copy the exact text to replace from it"
        )
    return ""


def unchanged_edit(tool: str, arguments: Mapping[str, Any]) -> str:
    """Why an edit that replaces a text with the same text is not run, or "". Asked to add "call
    the plumber" to todo.md, the 1.5B model replaced "call the plumber" with itself three times;
    the server failed each (the text was not in the file), and nothing would have changed had it
    been."""
    same = next((old for old, new in _pairs(arguments) if old == new and old.strip()), None)
    if same is None:
        return ""
    shown = same if len(same) <= 60 else same[:57] + "..."
    return (
        f"{tool} would replace {shown!r} with the same text, which changes nothing. To add a line, "
        "replace a line that is in the file with that line followed by the new one"
    )


def edit_keys(value: Mapping[Any, Any]) -> tuple[Any, Any]:
    """The keys of an edit's text to replace and of what replaces it (each None where absent)."""
    old = next((k for k in value if OLD_KEY.match(str(k)) and isinstance(value[k], str)), None)
    new = next((k for k in value if NEW_KEY.match(str(k)) and isinstance(value[k], str)), None)
    return old, new


def _pairs(value: Any) -> Iterator[tuple[str, str]]:
    """Each edit's (old, new) texts, wherever they stand in the arguments."""
    if isinstance(value, Mapping):
        old, new = edit_keys(value)
        if old is not None and new is not None:
            yield value[old], value[new]
        for item in value.values():
            yield from _pairs(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _pairs(item)


def nearest_text(old: str, results: Iterable[str]) -> str:
    """The lines read that come nearest ``old`` (as many lines as it has), where they are near
    enough to be what it meant; else "". Having read config.json, the 1.5B model edited
    "port: 8080" three times where the file says '"port": 8080,': told only to copy the exact
    text, it copied its own again."""
    want = old.strip()
    best, best_ratio = "", NEAR_ENOUGH
    for window in (w for text in results for w in line_windows(text, want)):
        if len(window) > 4 * len(want) + 40:
            continue
        matcher = difflib.SequenceMatcher(None, want, window, autojunk=False)
        if matcher.real_quick_ratio() > best_ratio and matcher.ratio() > best_ratio:
            best, best_ratio = window, matcher.ratio()
    return best if len(best) <= 200 else ""


def line_windows(text: str, like: str) -> Iterator[str]:
    """Each run of as many lines of ``text`` as ``like`` has, stripped; the first lines only."""
    size = max(1, len(like.strip().splitlines()))
    lines = text.splitlines()[:MAX_LINES]
    for start in range(max(1, len(lines) - size + 1)):
        window = "\n".join(lines[start : start + size]).strip()
        if window:
            yield window


def unread_result(reason: str) -> str:
    return f"{UNREAD_NOT_RUN} {reason}."


def _old_texts(value: Any) -> Iterator[str]:
    if isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(item, str) and OLD_KEY.match(str(key)):
                yield item
            else:
                yield from _old_texts(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _old_texts(item)
