"""A commit of a file the request names, made before anything staged it: refused before it
reaches the server, in the words the server would have used.

Asked to "commit draft.txt with the message 'Add launch draft'", Qwen2.5-Coder-1.5B called
git_commit first; the server refused it (nothing staged), and only then did the model stage the
file. A commit takes what is staged, so a file the request names must be staged (by a call of
this turn, by one of an earlier turn that no commit has taken since, or by the user: "I staged
it") before a commit can hold it.

The refusal names the server's own staging tool, as git's error does ("Use git_add to stage
changes first"): the re-ask that makes the fix a failed deed's error names
(app.core.acting.fix_first_reask) reads the refusal as it reads the server's error. An earlier
refusal said "the tool that adds files" and named none, and that re-ask never came.
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
_STAGING = re.compile(r"\bstag(?:e|ed|es|ing)\b|\bindex\b", re.IGNORECASE)
_FILE = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,4}$")  # a file name's extension: draft.txt


def _words(name: str) -> set[str]:
    return set(_WORD.findall(name.lower()))


def _stages(name: str, description: str) -> bool:
    """A tool that puts files in the index: named so (git_add, stage_file), and saying so, since
    "add" alone names many other deeds (add_observations, add_row)."""
    words = _words(name)
    return (
        bool(_STAGES & words)
        and "commit" not in words
        and _STAGING.search(f"{name} {description}") is not None
    )


def unstaged_commit(
    tool: str,
    user_text: str,
    calls: Sequence[CallRecord],
    tools: Sequence[tuple[str, str]],
    earlier: Sequence[CallRecord] = (),
) -> str:
    """Why a commit is not run, or "": a file the request names was not staged by a call of this
    turn (``calls``) nor by one of an earlier turn (``earlier``) that no commit took since, and
    ``tools`` (the commit's server's tools, as name and description) hold one that stages it."""
    if "commit" not in _words(tool) or _SAID_STAGED.search(user_text):
        return ""
    staging = [name for name, description in tools if _stages(name, description)]
    if (
        not staging
        or any(not c.failed and c.tool in staging for c in calls)
        or _left_staged(earlier, staging)
    ):
        return ""
    files = [p for p in places(user_text) if _FILE.search(p)]
    if not files:
        return ""  # "commit everything that is staged": nothing here says what must be
    return (
        f"{tool} records what is staged, and no call has staged {files[0]} yet. Use {staging[0]} to"
        f" stage it first, then make the {tool} call again"
    )


def _left_staged(earlier: Sequence[CallRecord], staging: Sequence[str]) -> bool:
    """Whether an earlier turn staged something that no later commit took: "Stage draft.txt",
    then, in the next message, "Commit draft.txt" (refused, until this, as never staged)."""
    for call in reversed(earlier):
        if call.failed:
            continue
        if "commit" in _words(call.tool):
            return False
        if call.tool in staging:
            return True
    return False


def unstaged_result(reason: str) -> str:
    return f"{UNSTAGED_NOT_RUN} {reason}."
