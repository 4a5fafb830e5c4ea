"""A read of a file that is not there to read: a folder, or the new file the request asks for.
Refused before it reaches the server.

Asked to "save the count in a new file errors.txt", Qwen2.5-Coder-1.5B read errors.txt first;
asked to commit a change "in the git repository at /w", it called read_text_file on /w. The
server refused each (no such file; a directory), and the model spent a step on the error. The
request itself said what the path was: a file still to write, a folder. Such a read is answered
by the app with what the request said, and what to do instead. A later call may make the new
file: once any call that names it has worked, it is read like any other.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from app.core.named import places
from app.core.records import CallRecord

NO_FILE_NOT_RUN = "Not run (there is no file to read there):"
# read_file, read_text_file, read_multiple_files (the filesystem server's), read_text: a reader of
# what is at a path; read_query and read_graph take none, so nothing here holds them
READS = re.compile(r"^read(?:_|$)", re.IGNORECASE)
_BEFORE = 40  # characters before a path where the words that say what it is stand
_NEW_FILE = re.compile(r"\bnew\s+(?:\w+\s+)?file\s*(?:(?:called|named)\s*)?:?\s*$", re.IGNORECASE)
_CREATE = re.compile(r"\bcreate\s+(?:a\s+file\s+)?(?:called\s+|named\s+)?$", re.IGNORECASE)
_FOLDER = re.compile(
    r"\b(?:folder|directory|repository|repo)\s*(?:(?:at|in|called|named)\s*)?:?\s*$", re.IGNORECASE
)
# a successful call with a place in one of these arguments was given a folder
FOLDER_ARGUMENT = re.compile(r"dir|folder|repo", re.IGNORECASE)
_LISTS = re.compile(r"list|tree|director", re.IGNORECASE)  # a tool that takes a folder as its path


def no_file_read(tool: str, arguments: Mapping[str, Any], user_text: str, calls: Sequence[CallRecord]) -> str:
    """Why a read of a file is not run (its path is a folder, or the new file the request
    asks to write), or ""."""
    if not READS.match(tool):
        return ""
    said = _said(user_text)
    folders = {*said["folder"], *_listed(calls)}
    made = {p for call in calls if not call.failed for p in _paths(call.arguments)}
    for path in _paths(arguments):
        if any(_same(path, f) for f in folders):
            return (
                f"{path} is a folder, not a file: {tool} cannot read it. List the folder to see"
                " its files, or read a file inside it"
            )
        new = next((n for n in said["new"] if _same(path, n)), None)
        if new is not None and not any(_same(new, m) for m in made):
            return (
                f"{path} is the new file the request asks for: it does not exist yet, so there is"
                " nothing in it to read. Work out what to write from the other results, then write it"
            )
    return ""


def no_file_result(reason: str) -> str:
    return f"{NO_FILE_NOT_RUN} {reason}."


def _said(text: str) -> dict[str, list[str]]:
    """The places the request calls a folder, and the ones it calls a new file."""
    found: dict[str, list[str]] = {"folder": [], "new": []}
    at = 0
    for place in places(text):
        start = text.find(place, at)
        if start < 0:
            continue
        at = start + len(place)
        before = text[max(0, start - _BEFORE) : start]
        if _FOLDER.search(before):
            found["folder"].append(place)
        elif _NEW_FILE.search(before) or _CREATE.search(before):
            found["new"].append(place)
    return found


def _listed(calls: Sequence[CallRecord]) -> Iterator[str]:
    """Places a call that worked took as a folder: a listing's path, a repository's."""
    for call in calls:
        if call.failed:
            continue
        for key, value in call.arguments.items():
            folder = FOLDER_ARGUMENT.search(str(key)) or (key == "path" and _LISTS.search(call.tool))
            if folder and isinstance(value, str) and value.strip():
                yield value


def _paths(arguments: Mapping[str, Any]) -> Iterator[str]:
    for key, value in arguments.items():
        if not re.search(r"path|file", str(key), re.IGNORECASE):
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and item.strip():
                yield item


def _same(path: str, named: str) -> bool:
    """The same place, or ``path`` written relative to where ``named`` stands ("errors.txt" for
    "/w/errors.txt")."""
    a, b = posixpath.normpath(path.strip()), posixpath.normpath(named.strip())
    if a == b:
        return True
    return not a.startswith("/") and a != "." and b.endswith("/" + a)
