"""A turn that ends on a failed call, or the first after a configured server went down, says so
in its answer, in the error's own words.

Told "Access denied - path outside allowed directories: /etc/hostname not in /home/me/project" by
the filesystem reference server, a small model answers "I'm sorry, but I can't access that
file.": the reason, which the person can act on (allow the folder, fix the path, start the
server), stayed in the trace. Where the turn's last call failed at its server (or the server
could not be reached) and nothing ran after it, the answer ends with a line the app writes,
quoting the error's first line, unless the answer already does. A call the person declined or
cancelled, or one the app refused as malformed, gets no line: the model was told, and the person
has nothing to act on.

A server that could not start ("npm error 404 ... could not be found") offers no tools, so a
small model asked to list a folder answered with a made-up listing (the built-in), or listed the
last commit's files through the git server instead (Qwen2.5-Coder-1.5B), and the reason stood only
in the servers panel. The next answer after a configured server went down ends with a line naming
it and its error, whatever the turn's calls did: once per session for each error, so a
conversation that does not need that server is not told again at every turn.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from app.core.records import CallRecord
from app.core.running import CANCELLED_TEXT
from app.core.toolrun import NOT_APPROVED

FAILED_NOTE = "⚠ The last call failed:"
# a deed asked for and not done, whose last failure came before a call that worked (the built-in,
# told "database is locked", went on to a call that did not add the product)
UNDONE_NOTE = "⚠ Not done; a call failed:"
# What the app itself answers a malformed call with (app.core.toolrun, app.core.calling): the
# model's mistake, told to the model; the person has nothing to act on there.
APP_SAID = ("Not run (", "Arguments for ", "Arguments do not match ", "Unknown tool ")
# How the MCP SDK wraps a tool's exception: the words after it are the tool's own.
_SDK_WRAPPER = re.compile(r"^Error executing tool [\w.-]+: ")
MAX_QUOTED = 300  # characters of the error's first line
_WHERE = re.compile(r"\s*\([^()]*\)\s*$")
MIN_SAID = 8  # characters: a shorter remainder ("Error") says too little to stand for the error
DOWN_NOTE = "⚠ Not running, so its tools were not offered:"
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
# GitPython's error for a commit over an unresolved merge is the index entry alone: mode, blob and
# stage (1 the base, 2 ours, 3 theirs), then the path. The git reference server passes it on as it
# is, and the 1.5B model, given "100644 a072... 1 notes.txt", answered "I can't assist with that".
_UNMERGED = re.compile(r"^\d{6} [0-9a-f]{40} [123]\s+(\S.*)$")
_DOWN = frozenset({"crashed", "failed", "restarting", "unauthorized"})  # not a server the person stopped


def failure_note(calls: Sequence[CallRecord], answer: str, undone: bool = False) -> str:
    """The line that ends an answer whose turn's last call failed, or, where the deed the request
    asked for was not done (``undone``), whose last failure stands unfixed by a later call of the
    same tool; else ""."""
    last = calls[-1] if calls else None
    opening = FAILED_NOTE
    if undone and last is not None and not last.failed:
        last, opening = _unfixed(calls), UNDONE_NOTE
    if last is None or not last.failed or last.result.startswith(APP_SAID):
        return ""
    if NOT_APPROVED in last.result or last.result.startswith(CANCELLED_TEXT):  # the person's own doing
        return ""
    first = _first(_SDK_WRAPPER.sub("", last.result.strip()))  # in a code span: shown, never formatted
    said = answer.lower().replace("`", "'")
    if not first or first.lower() in said or _without_where(first).lower() in said:
        return ""
    return f"{opening} {last.server}.{last.tool} said `{first}`{_meaning(first)}"


def _unfixed(calls: Sequence[CallRecord]) -> CallRecord | None:
    """The last failed call that no later call of the same tool made work, or None."""
    fixed: set[str] = set()
    for call in reversed(calls):
        if not call.failed:
            fixed.add(call.tool)
        elif call.tool not in fixed:
            return call
    return None


def _without_where(error: str) -> str:
    """The error without the place it names at its end: "division by zero (at '/', character 5)"
    is said by "134 ÷ 0 has no value (division by zero)", and a line under that right answer read
    as if something had gone wrong."""
    bare = _WHERE.sub("", error)
    return bare if len(bare) >= MIN_SAID else error


def _meaning(error: str) -> str:
    """What an error that names no problem means, where its form says it; else ""."""
    unmerged = _UNMERGED.match(error)
    if unmerged:
        return f": {unmerged[1]} is at a merge stage, so a merge conflict in it is not resolved"
    return ""


def down_note(states: Iterable[Any], told: dict[str, str]) -> str:
    """The line naming the servers down, each error once a session (``told``: server name to the
    error already named, updated here), or ""."""
    down = []
    for status in states:
        error = _first(str(getattr(status, "last_error", "")))
        name, state = str(getattr(status, "name", "")), str(getattr(status, "state", ""))
        if state in _DOWN and told.get(name) != error:
            told[name] = error
            down.append(f"{name} ({state}" + (f": `{error}`)" if error else ")"))
    return f"{DOWN_NOTE} {'; '.join(down)}" if down else ""


def with_failure_note(answer: str, calls: Sequence[CallRecord], down: str = "", undone: bool = False) -> str:
    notes = [n for n in (failure_note(calls, answer, undone), down) if n]
    if not notes:
        return answer
    return "\n\n".join([_closed(answer.rstrip()), *notes] if answer.strip() else notes)


def _closed(answer: str) -> str:
    """The answer with a code fence it left open closed, so the app's line below it is not shown
    as part of the model's code ("Here are the files:\n```\n/tmp/ws" and no closing fence)."""
    fences = _FENCE.findall(answer)
    return f"{answer}\n{fences[-1][:3]}" if len(fences) % 2 else answer


def _first(error: str) -> str:
    """The error's first line, each part said once (a server's last stderr lines come joined with
    " | ", and a server that failed on each restart wrote the same line each time)."""
    lines = error.strip().splitlines()
    parts: list[str] = []
    for part in lines[0].split(" | ") if lines else []:
        if not any(earlier.endswith(part) for earlier in parts):  # "...; last stderr: X" then "X"
            parts.append(part)
    return " | ".join(parts)[:MAX_QUOTED].replace("`", "'")
