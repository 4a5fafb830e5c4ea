"""A place that cannot be the one meant, refused before it reaches the server.

On the real-task bench (docs/benchmarks.md) the built-in model filled place arguments with
placeholders made of the schema's own words ("repo_path": "git_repository_path", "path":
"path_to_search_files"), wrote Windows paths on a POSIX machine ("c:\\Users\\user\\..."),
turned the user's "http://127.0.0.1:46097/pricing.html" into "https://...", gave a GitHub
address as a local repository's path, and searched or listed "notes.txt" as a folder. Each went
to its server and failed there: 19 of its 25 failed calls. None of them can be right, whatever
the task, so the app answers them itself, saying what was wrong and what was given instead.
Nor can a file or folder a call makes outside every folder the conversation gave, where one was
given ("create_directory" of ".../project.json" beside the ".../project" the user named): the
filesystem server refuses it as outside its allowed folders. Anything else a model writes (a new
file inside a given folder, a folder it inferred) still runs: only a place that cannot be meant
is refused, and a place that stands in the user's words or a tool result only where it names a
file and the call takes a folder.
"""

from __future__ import annotations

import difflib
import posixpath
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit

from app.core.named import origin, places
from app.core.no_file import FOLDER_ARGUMENT

UNGROUNDED_NOT_RUN = "Not run (no such place was given):"
MAX_NAMED = 3  # places a refusal names where none is near
PLACE_KEY = re.compile(r"path|file|dir|folder|repo|url|uri|location", re.IGNORECASE)
_ADDRESS_KEY = re.compile(r"url|uri", re.IGNORECASE)  # an address; the other place keys are local
_WINDOWS = re.compile(r"^[A-Za-z]:[\\/]|\\")
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)
_WORD = re.compile(r"[a-z]+|[0-9]+", re.IGNORECASE)
# words a placeholder is made of, beside the tool's and its arguments' own names
_FILLER = (
    "path paths to file files name dir directory folder repo repository your my the a of url uri "
    "example here some location target source destination"
)
# one of which a placeholder names ("file_name.txt" may be a name a model chose for a new file)
_NAMING = "path paths dir directory folder repo repository url uri location"
_SUFFIXES = (
    "txt md csv json py js ts html css xml yaml yml log db sqlite ini toml cfg "
    "ico png jpg jpeg gif svg pdf zip gz"
)
_PLACEHOLDER_WORDS, _PLACE_WORDS, _EXTENSIONS = (frozenset(w.split()) for w in (_FILLER, _NAMING, _SUFFIXES))
_FOLDER_TOOL = re.compile(r"list|tree|director|search", re.IGNORECASE)  # a tool whose "path" is one
_MAKES = re.compile(r"create|make|mkdir", re.IGNORECASE)  # a new folder may be named anything
_WRITES = re.compile(r"write|save|move|copy|rename", re.IGNORECASE)  # a new name may be of given words
_PLACEHOLDER_HOSTS = re.compile(r"(?:^|\.)example\.(?:com|org|net)$", re.IGNORECASE)


def ungrounded_place(tool: str, arguments: Mapping[str, Any], given: Iterable[str]) -> str:
    """Why the call's place cannot be the one meant (and what was given instead), or "".
    ``given``: the user's words and the tool results of this conversation."""
    places_in = list(_place_values(arguments))
    if not places_in:
        return ""
    texts = [t for t in given if t]
    named: list[str] | None = None  # the places the texts name, read once a call and only if needed
    for key, value in places_in:
        folder = _file_for_folder(tool, key, value)
        if folder:
            return folder
        # a place as given runs, except a web address as a local one: asked to fetch a page and
        # write a file, the 1.5B wrote to the page's address, and the server made it a file name
        if any(value in text for text in texts) and not (_URL.match(value) and not _ADDRESS_KEY.search(key)):
            continue
        if named is None:
            named = list(dict.fromkeys(p for text in texts for p in places(text)))
        why = _why(tool, key, value, arguments, named)
        if why:
            return why + _given_instead(value, named)
    return ""


def ungrounded_result(reason: str) -> str:
    return f"{UNGROUNDED_NOT_RUN} {reason}. Use a place from the request or from a tool's result."


def _why(tool: str, key: str, value: str, arguments: Mapping[str, Any], named: list[str]) -> str:
    if sys.platform != "win32" and _WINDOWS.search(value):
        return f"{key} {value!r} is a Windows path, and this machine's paths are written with '/'"
    below = _placeholder_below(tool, key, value, arguments, named)
    if below:
        return below
    if _URL.match(value):
        return _address(key, value, named)
    if _placeholder(tool, value, arguments, named):
        return f"{key} {value!r} is a placeholder made of the tool's own words, not a place"
    return _made_outside(tool, key, value, named)


def _made_outside(tool: str, key: str, value: str, named: list[str]) -> str:
    """A new place made outside every folder the conversation gave: "project.json" beside the
    "project" folder the user named. A file or folder a call makes goes inside a folder of the
    request or of a tool's result (or a given file's folder); where none is given, anywhere."""
    if not (_MAKES.search(tool) or _WRITES.search(tool)) or not value.startswith("/"):
        return ""
    folders = set()
    for place in named:
        if place.startswith("/"):
            trimmed = place.rstrip("/") or "/"
            a_file = posixpath.splitext(trimmed)[1][1:].lower() in _EXTENSIONS
            folders.add(posixpath.dirname(trimmed) if a_file else trimmed)
    if not folders:
        return ""
    made = posixpath.normpath(value)
    if any(made == f or made.startswith(f.rstrip("/") + "/") for f in folders):
        return ""
    return f"{key} {value!r} is outside every folder given, and {tool} would make it there"


def _file_for_folder(tool: str, key: str, value: str) -> str:
    """A file's name where the call takes a folder: a listing, a tree, a search, a repository
    ("search_files" in "notes.txt"; a repository at "project/prices.csv"). Said even of a file
    the user named: it is still a file."""
    takes_folder = FOLDER_ARGUMENT.search(key) or (key.lower() == "path" and _FOLDER_TOOL.search(tool))
    if not takes_folder or _MAKES.search(tool):
        return ""
    trimmed = value.rstrip("/")
    name = posixpath.basename(trimmed)
    if "." not in name or name.rsplit(".", 1)[1].lower() not in _EXTENSIONS:
        return ""
    parent = posixpath.dirname(trimmed)
    return f"{key} {value!r} names a file, and {tool} takes a folder there" + (
        f"; the folder it is in is {parent!r}" if parent else ""
    )


def _address(key: str, value: str, named: list[str]) -> str:
    if not _ADDRESS_KEY.search(key):
        return f"{key} {value!r} is a web address, and {key} takes a place on this machine"
    try:
        parts = urlsplit(value)
        host, port = parts.hostname or "", parts.port
    except ValueError:
        return f"{key} {value!r} is not a well-formed address"
    for given in named:
        if not _URL.match(given):
            continue
        try:
            other = urlsplit(given)
            same_host = (other.hostname or "") == host
            if same_host and (other.scheme != parts.scheme or other.port != port):
                return f"{key} {value!r} changes the address given ({given!r})"
        except ValueError:
            continue
    if _PLACEHOLDER_HOSTS.search(host):
        return f"{key} {value!r} is on {host}, a name kept for examples"
    return ""


def _placeholder(
    tool: str, value: str, arguments: Mapping[str, Any], named: list[str], *, near: bool = False
) -> bool:
    """A name made only of the schema's own words ("git_repository_path", "path_to_file_info.csv"),
    or, in a call that makes nothing, of those and the names of the places given
    ("file_path_to_project_file_size" where a path through "project" was given; a folder made may be
    "project_folder"): no place of the conversation. ``near``: a word one letter off the tool's
    own counts as one of them ("lisst")."""
    if "/" in value:
        return False
    words = [w.lower() for w in _WORD.findall(value)]
    if not words or any(w.isdigit() for w in words):  # "." or "-" names no words at all
        return False
    own = {w.lower() for name in (tool, *arguments) for w in _WORD.findall(str(name))}
    makes = _MAKES.search(tool) or _WRITES.search(tool)
    given = set() if makes else {w.lower() for p in named for w in _WORD.findall(p)}
    allowed = own | given | _PLACEHOLDER_WORDS
    if words[-1] in _EXTENSIONS and "." in value:
        words = words[:-1]

    def own_word(w: str) -> bool:
        if w in allowed or _singular(w) in allowed or w + "s" in allowed:
            return True
        return near and len(w) >= 4 and bool(difflib.get_close_matches(w, own, n=1, cutoff=0.85))

    if not all(own_word(w) for w in words):
        return False
    named_as_tool = words == [w.lower() for w in _WORD.findall(tool)]  # "git_add", "git-add"
    return bool(_PLACE_WORDS.intersection(words)) or named_as_tool


def _placeholder_below(
    tool: str, key: str, value: str, arguments: Mapping[str, Any], named: list[str]
) -> str:
    """A given place with a placeholder put below it, in a call that makes nothing: with its place
    arguments held to the given places (app/llm/local/held_places.py), the built-in wrote
    ".../src/lisst_directory/lisst_directory" and "http://127.0.0.1:46301/fetch"."""
    if _MAKES.search(tool) or _WRITES.search(tool):
        return ""
    bases = [
        origin(p) if _URL.match(p) else p.rstrip("/") for p in named if p.startswith("/") or _URL.match(p)
    ]
    base = max((b for b in bases if b and value.startswith(b + "/")), key=len, default="")
    segments = [part for part in value[len(base) :].split("/") if part] if base else []
    if segments and all(_placeholder(tool, part, arguments, [], near=True) for part in segments):
        return f"{key} {value!r} puts a placeholder made of the tool's own words below {base!r}"
    return ""


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") else word


def _place_values(arguments: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    for key, value in arguments.items():
        if not PLACE_KEY.search(str(key)):
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and item.strip():
                yield str(key), item.strip()


def _given_instead(value: str, given: list[str]) -> str:
    """The place of the conversation nearest ``value``, or else the first few given (the user's
    words first), as the refusal names them."""
    found = difflib.get_close_matches(value, given, n=1, cutoff=0.5)
    if found:
        return f"; the nearest place given is {found[0]!r}"
    if given:
        return "; the places given: " + ", ".join(repr(p) for p in given[:MAX_NAMED])
    return ""
