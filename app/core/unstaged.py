"""A commit of a file the request names, made before anything staged it: refused before it
reaches the server.

Asked to "commit draft.txt with the message 'Add launch draft'", Qwen2.5-Coder-1.5B called
git_commit first; the server refused it (nothing staged), and only then did the model look at the
status and stage the file. A commit takes what is staged, so a file the request names must be
staged (by a call of this turn, or by the user: "I staged it") before a commit can hold it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.core.named import places
from app.core.records import CallRecord

UNSTAGED_NOT_RUN = "Not run (nothing is staged for it yet):"
_WORD = re.compile(r"[a-z]+")
_STAGES = frozenset(("add", "stage"))  # a tool named so puts files in the index (git_add)
_SAID_STAGED = re.compile(r"\b(?:staged|already\s+added|in\s+the\s+index)\b", re.IGNORECASE)
_FILE = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,4}$")  # a file name's extension: draft.txt


def unstaged_commit(tool: str, user_text: str, calls: Sequence[CallRecord]) -> str:
    """Why a commit is not run (a file the request names was not staged this turn), or ""."""
    if "commit" not in _WORD.findall(tool.lower()) or _SAID_STAGED.search(user_text):
        return ""
    if any(not c.failed and _STAGES & set(_WORD.findall(c.tool.lower())) for c in calls):
        return ""
    files = [p for p in places(user_text) if _FILE.search(p)]
    if not files:
        return ""  # "commit everything that is staged": nothing here says what must be
    return (
        f"{tool} records what is staged, and no call has staged {files[0]} yet. Stage it first with"
        " the tool that adds files, then commit"
    )


def unstaged_result(reason: str) -> str:
    return f"{UNSTAGED_NOT_RUN} {reason}."
