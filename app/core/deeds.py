"""The deed a request opens with, and whether a call has done it.

"Commit draft.txt to the git repository at ... with the message 'Add draft'": Qwen2.5-Coder-1.5B
staged the file with git_add and answered "Files staged successfully"; the commit was never made,
and nothing in the answer read as a plan or a refusal to be asked again. A request that opens with
a verb some tool that changes things is named after (git_commit, create_directory, write_file)
asks for that deed; until a call of such a tool has worked, the answer does not end the turn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.core.declined import changes_things, name_words, only_asks
from app.core.records import CallRecord
from app.core.toolrun import NOT_APPROVED, REFUSED_HERE
from app.core.tools import ToolInfo

_LEAD = re.compile(r"^\s*(?:(?:please|now|then|also|and|just)\b[\s,]*)*([A-Za-z]+)\b", re.IGNORECASE)
_SUM = re.compile(r"\s+(?:\w+\s+)?(?:up|together)\b", re.IGNORECASE)  # "add up", "add them together"
_FIRST_WORD = re.compile(r"^\s*([A-Za-z]+)")

DEED_OPENING = "Your request asks to "
# A change is done by a tool named for any of these: asked to "change the price of the kettle in the
# shop database", the 1.5B model ran create_table ("IF NOT EXISTS", so nothing) and answered "Table
# created successfully"; no tool there is named "change", so nothing was owed. write_query is.
_CHANGE = ("change", "update", "edit", "write", "set", "modify", "replace")
_SAME_DEED = {verb: _CHANGE for verb in _CHANGE}


def asked_deed(asked: str) -> str:
    """The verb the request opens with, lower case ("commit"); "" for a question, or a sum ("Add up
    the prices": made to add, the 1.5B model wrote the total into the memory server)."""
    lead = _LEAD.match(asked)
    if lead is None or only_asks(asked) or _SUM.match(asked, lead.end()):
        return ""
    return lead[1].lower()


def deed_tools(verb: str, tools: Sequence[ToolInfo]) -> list[ToolInfo]:
    """The tools that change things and do ``verb``: named after it (git_commit for "commit"),
    or saying it first ("write_file: Create a new file ..." for "create")."""
    if not verb:
        return []
    verbs = {verb, *_SAME_DEED.get(verb, ())}
    found = []
    for tool in tools:
        if not changes_things(tool):
            continue
        first = _FIRST_WORD.match(tool.description)
        if verbs & set(name_words(tool)) or (first is not None and first[1].lower() in verbs):
            found.append(tool)
    return found


def undone_deed(asked: str, calls: Sequence[CallRecord], tools: Sequence[ToolInfo]) -> list[ToolInfo]:
    """The tools of the servers the turn has called that would do the deed the request opens
    with, where none of them has worked yet; [] where it was done, or no such tool is there.
    Only those servers': "Add an item to todo.md" is done by the filesystem's edit_file, and
    no git_add or memory's add_observations is owed."""
    if any(NOT_APPROVED in c.result for c in calls):
        return []  # the user said no to a call: the deed is not the model's to press on with
    servers = {c.server for c in calls}
    doers = deed_tools(asked_deed(asked), [t for t in tools if t.server in servers])
    if not doers:
        return []
    names = {(t.server, t.tool) for t in doers}
    worked = any(
        (c.server, c.tool) in names and not c.failed and not c.result.startswith(REFUSED_HERE) for c in calls
    )
    return [] if worked else doers


def deed_reask(verb: str, asked: str) -> str:
    return f"{DEED_OPENING}{verb}, and no tool call has done that yet. Do what I asked: {asked.strip()}"
