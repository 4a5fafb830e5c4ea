"""An argument that copies its schema's own description, refused before it reaches the server.

Asked how many products a database holds, the built-in model sent the sqlite reference server's
``read_query`` with ``"query": "SELECT SQL query to execute"``: the server's description of that
argument, word for word, which it answered with a syntax error. A value that is its parameter's
description can be no one's meaning, whatever the tool; the model is told which argument it
copied, and the server never sees the call. So is a value that is the tool's own name, the
argument's own name or the name of another tool of its server (``git_add`` of the files
``["git_commit", "git_commit_log"]``), where the user did not write it: the built-in model sent
the git reference server's ``git_branch`` with ``"branch_type": "git_branch"``, which the server answered with
"Invalid branch type". A user's "make a branch called git_branch" still runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

DESCRIBED_NOT_RUN = "Not run (it copies the tool's description):"


def described_value(
    arguments: Mapping[str, Any],
    schema: Mapping[str, Any],
    tool: str = "",
    said: str = "",
    siblings: Sequence[str] = (),
) -> str:
    """Why an argument is its own description, or a tool's or its own name ("" where none is).
    ``tool``: the tool's name; ``said``: the user's words, where a name may be meant;
    ``siblings``: the names of the other tools of its server (``git_add`` of ``["git_commit"]``)."""
    properties = schema.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    short, heard = tool.rsplit(".", 1)[-1], _plain(said)
    for key, value in arguments.items():
        spec = properties.get(key)
        described = spec.get("description") if isinstance(spec, Mapping) else None
        copied = isinstance(value, str) and isinstance(described, str) and _plain(value) == _plain(described)
        if copied and _plain(value):
            return f"{key} {value!r} is the schema's description of {key}, not a value"
        named = _echoed_name(value, (short, key, *siblings), heard)
        if named:
            lowered = named.lower()
            whose = (
                "the tool's own"
                if lowered == short.lower()
                else "the argument's own"
                if lowered == key.lower()
                else "another tool's"
            )
            return f"{key} {named!r} is {whose} name, not a value"
    return ""


def _echoed_name(value: Any, names_given: Sequence[str], said: str) -> str:
    """One of ``names_given``, where ``value`` (or an item of it) is one and the user's words do
    not hold it; else ""."""
    items = value if isinstance(value, list) else [value]
    names = {name.lower() for name in names_given if name}
    for item in items:
        if isinstance(item, str) and item.strip().lower() in names and item.strip().lower() not in said:
            return item.strip()
    return ""


def described_result(reason: str) -> str:
    return f"{DESCRIBED_NOT_RUN} {reason}. Write the {reason.split(' ', 1)[0]} the request needs."


def _plain(text: str) -> str:
    return " ".join(text.lower().strip().rstrip(".").split())
