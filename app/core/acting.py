"""An answer that tells the user how a task would be done, where a tool could do it.

Small models asked to do something with a tool ("Add up the prices in prices.csv") often answer
with the plan instead ("We need to follow these steps: 1. Read the CSV file ..."), before their
first call or after it, or give up after a call that failed ("I'm sorry, I can't access that
file") where the error said what to do first. Either way the user asked for the task, and the
tools to do it were on offer. Such an answer is asked again; after a failed call the next step
must be a call (``ModelRequest.must_call``: the error says what to call). A plan is not made to
call with every tool on offer: forced, Qwen2.5-Coder-1.5B called the converter with its schema's
example numbers, and 10 of 51 real tasks got done against 12 asked without forcing
(docs/benchmarks.md); a plan that names offered tools is made to call one of those
(app.core.answer_check). What the model then does is shown as it is, so a turn still always ends.

A refusal before any call ("I'm sorry, I can't assist with that"), or a request to the user for
what the task already names ("Please provide the CSV file contents."), is asked again too, but
not made to call: the tools on offer may not fit. Not asked again: a question about how to do
something (the plan is then the answer), an answer with no tools on offer, and a worked answer
whose calculations already ran. An apology after calls that worked is asked again with the
request written out after the results (``results_reask``). At most ``MAX_ACT_REASKS`` such
requests a turn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.core.messages import ToolSpec
from app.core.named import places
from app.core.numbers import find_numbers
from app.core.records import CallRecord
from app.core.toolrun import NOT_APPROVED, REFUSED_HERE
from app.core.tools import ToolInfo

# A plan of steps still to take. After a call that worked only these count: "you can use it
# now" may close a good answer, "we need to follow these steps" does not.
_STEP_WORDS = (
    r"\b(?:we|you|i)\s+(?:will\s+)?(?:need|have)\s+to\b|\bfollow(?:ing)?\s+these\s+steps\b"
    r"|\bhere(?:'s|\s+is)\s+how\b|\bstep\s+1\b"
)
_STEPS = re.compile(_STEP_WORDS, re.IGNORECASE)
# Before any call, also a deferral: what the model would do, or what the user should do.
_PLAN = re.compile(
    _STEP_WORDS + r"|\byou\s+(?:can|could|would|should|might)\s+(?:use|call|run|try)\b"
    r"|\b(?:i(?:'ll|\s+will|\s+would)|let(?:'s|\s+us|\s+me))\s+(?:first\s+)?"
    r"(?:use|call|run|read|list|check|open|fetch|query|create|write|search|look|get|start|add|make|save)\b",
    re.IGNORECASE,
)
# Words of giving up: an apology, or the model's own inability. "That cannot be done: it is
# undefined" after a division by zero is the answer, not a give-up.
_GIVES_UP = re.compile(
    r"\b(?:sorry|apolog\w*|unfortunately)\b"
    r"|\bI(?:'m|\s+am)?\s+(?:can(?:'t|not|\s+not)|couldn't|could\s+not|unable|not\s+able)\b",
    re.IGNORECASE,
)
# Before any call, handing the task back: asking the user for what the request already names
# ("Please provide the CSV file contents." for "Add up the prices in prices.csv"), or only
# saying it is ready ("I'm ready to help you with that!"). Seen in 9 of 51 real tasks of the
# 1.5B model; asked again like a refusal, not made to call: the request may truly lack a detail.
_ASKS_BACK = re.compile(
    r"\b(?:please|could\s+you|can\s+you|would\s+you)\s+(?:please\s+)?"
    r"(?:provide|share|give|send|upload|paste|specify)\b"
    r"|\bI(?:'m|\s+am)\s+ready\s+to\b|\bI\s+(?:need|would\s+need)\s+(?:to\s+know|to\s+see|the|more)\b",
    re.IGNORECASE,
)
# A question whose answer is a number. After calls, an answer with none is no answer: "This is
# the final answer." came back twice in 51 real tasks, for a mean and a count the results held.
_ASKS_NUMBER = re.compile(
    r"\bhow\s+(?:many|much)\b|\bwhat(?:'s|\s+is|\s+was)\s+the\s+(?:average|mean|total|sum|number|count)\b"
    r"|\bworth\b",
    re.IGNORECASE,
)
# A question about how a thing is done wants the explanation, not the deed.
_HOW_TO = re.compile(
    r"^\s*(?:how\s+(?:do|does|can|could|would|should|to)\b|what(?:'s|\s+is)\s+the\s+(?:command|way|best\s+way)\b"
    r"|explain\b|why\b|describe\b|tell\s+me\s+how\b)",
    re.IGNORECASE,
)

MAX_ACT_REASKS = 2  # a recovery can itself fail: a commit's missing staging, then its own error
# No sentence here that a model could repeat as its answer: "I will send you its result" came
# back word for word as one.
ACT_REASK = (
    "Do not describe the steps or tell me how to do it: do the task yourself, with the next tool call."
)


# A refusal before any call, where tools are on offer: asked once more, but not made to call,
# for the tools offered may not fit ("book me a flight" with only a calculator).
REFUSAL_REASK = (
    "You have tools for this. If one of them fits the request, do the task with it now; "
    "if none fits, say which tool would be needed."
)


def _first_line(error: str, limit: int) -> str:
    return error.strip().splitlines()[0][:limit] if error.strip() else "an error"


def failed_reask(error: str, lookups: Sequence[str] = ()) -> str:
    first = _first_line(error, 300)
    shown = f" ({' or '.join(lookups)} can show what exists)" if lookups else ""
    return (
        f"The last tool call failed: {first} Do not apologise or give up: fix what the error names "
        f"(another tool may have to run first{shown}) and make the next tool call now."
    )


# Words of a tool's name that mark a look-up: what shows what exists, so a failed call's names
# can be checked ("no such table: shop": list_tables; "no such column": describe_table).
_LOOKUP_WORDS = frozenset(
    ["list", "describe", "get", "read", "search", "show", "find", "status", "log", "info", "tree", "schema"]
)
MAX_LOOKUPS = 3


def lookups(specs: Sequence[ToolSpec], failed: str) -> list[str]:
    """The offered tools, other than the one that failed, whose names mark a look-up."""
    found = [
        s.name for s in specs if s.name != failed and _LOOKUP_WORDS & set(re.split(r"[_\-]", s.name.lower()))
    ]
    return found[:MAX_LOOKUPS]


def retry_reask(failed: CallRecord) -> str:
    first = _first_line(failed.result, 200)
    return (
        f"Earlier the {failed.tool} call failed ({first}) and it has not been made since. "
        f"If the request still needs it, make the {failed.tool} call again now; otherwise answer."
    )


def _unfinished(calls: Sequence[CallRecord]) -> CallRecord | None:
    """A call that failed, after which another tool's call worked and this tool was not called
    again: the fix the error asked for is made, the deed itself is not. Told "No changes staged
    for commit", Qwen2.5-Coder-1.5B staged the file and answered "Files staged successfully",
    its commit never made."""
    for i, call in enumerate(calls):
        if not call.failed or NOT_APPROVED in call.result or call.result.startswith(REFUSED_HERE):
            continue
        later = calls[i + 1 :]
        if any(c.tool == call.tool for c in later):
            continue
        if any(not c.failed for c in later):
            return call
    return None


UNTOUCHED_OPENING = "Your request also names "


def untouched_reask(place: str, asked: str) -> str:
    return f"{UNTOUCHED_OPENING}{place}, and no tool call has used it yet. Do what I asked: {asked.strip()}"


def untouched_place(asked: str, calls: Sequence[CallRecord], specs: Sequence[ToolSpec]) -> str | None:
    """A file, folder or page the request names that no call has used, after some
    call: asked for the lines of notes.txt and todo.md together, Qwen2.5-Coder-1.5B read notes.txt
    and answered its 13; asked to save a count in errors.txt, it counted and stopped. None where
    every named place was used, or no offered tool takes one."""
    if not calls or not any(_takes_place(s) for s in specs):
        return None
    # a call that failed used the place too: what its error asks is failed_reask's
    used = [v for c in calls if not c.result.startswith(REFUSED_HERE) for v in _strings(c.arguments)]
    for place in places(asked):
        if not _FILE_LIKE.search(place):
            continue
        if not any(place in v or (_FILE_LIKE.search(v) and v in place) for v in used):
            return place
    return None


# A place that is a file, a folder or a page ("/srv/notes", "todo.md", "http://..."), not "km/h".
# Its extension is short and lower case: "Mr.Smith" in a story is no file.
_FILE_LIKE = re.compile(r"://|^[~./]|\.[a-z][a-z0-9]{0,3}$")


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


def results_reask(asked: str) -> str:
    """The request written again after the results. After calls that worked, an apology ("I'm
    sorry, but I can't assist with that.") is the model losing the request behind the long results:
    Qwen2.5-Coder-1.5B did so after reading the very file it was asked about. Asked with the
    request after the results, it answered (13 lines, from the app's count); without it, it
    apologised or called the calculator. Also told after a calculation that was not run."""
    return f"Using the tool results above, do what I asked: {asked.strip()}"


# A tool argument that takes a place: a path, a URL, a file, a folder, a repository.
_PLACE_ARGUMENT = re.compile(r"path|url|uri|file|dir|folder|repo", re.IGNORECASE)


def opens_with_call(asked: str, specs: Sequence[ToolSpec]) -> bool:
    """Whether the first step of a turn must be a call: the user named a file, a folder or a URL
    and an offered tool takes one. Qwen2.5-Coder-1.5B, asked for the mean of the visitors in
    ".../visitors.csv" with read_text_file on offer, answered "Please provide the file path"
    three times over; the place it asks for is in the question. How-to questions are exempt."""
    if _HOW_TO.search(asked) or not places(asked):
        return False
    return any(_takes_place(spec) for spec in specs)


def place_servers(offered: Sequence[tuple[ToolInfo, float]]) -> set[str]:
    """The servers of which some offered tool takes a place. A turn that must open with a call
    offers only their tools: asked "How many lines in server.log are ERROR lines?", made to call
    with the calculator on offer, Qwen2.5-Coder-1.5B called evaluate("0") before reading the log."""
    return {tool.server for tool, _ in offered if _takes_place(ToolSpec(tool.name, "", tool.input_schema))}


def _takes_place(spec: ToolSpec) -> bool:
    properties = spec.input_schema.get("properties") if isinstance(spec.input_schema, dict) else None
    if not isinstance(properties, dict):
        return False
    for name, schema in properties.items():
        kind = schema.get("type", "string") if isinstance(schema, dict) else "string"
        kinds = kind if isinstance(kind, list) else [kind]
        if _PLACE_ARGUMENT.search(str(name)) and ("string" in kinds or "array" in kinds):
            return True
    return False


def mentions_tool(answer: str, specs: Sequence[ToolSpec]) -> bool:
    """The answer names an offered tool by its identifier ("read_file", "git_commit"), or as a
    function or tool ("we can use the add function")."""
    return bool(mentioned_tools(answer, specs))


def mentioned_tools(answer: str, specs: Sequence[ToolSpec]) -> list[str]:
    """The offered tools the answer names, as :func:`mentions_tool` reads them."""
    found: list[str] = []
    for spec in specs:
        name = re.escape(spec.name)
        if ("_" in spec.name or "-" in spec.name) and re.search(rf"(?<![\w-]){name}(?![\w-])", answer):
            found.append(spec.name)
            continue
        named = rf"\b(?:{name}`?\s+(?:function|tool)|(?:function|tool)\s+`?{name})\b"
        if re.search(named, answer, re.IGNORECASE):
            found.append(spec.name)
    return found


def act_reask(
    answer: str, asked: str, specs: Sequence[ToolSpec], calls: Sequence[CallRecord]
) -> tuple[str, bool] | None:
    """What to tell the model when ``answer`` describes or abandons a task a tool should do, and
    whether its next step must be a call; None when the answer stands."""
    if not specs or _HOW_TO.search(asked):
        return None
    plan = _STEPS if calls else _PLAN
    planned = bool(plan.search(answer)) or mentions_tool(answer, specs)
    gives_up = bool(_GIVES_UP.search(answer))
    failed = calls[-1] if calls and calls[-1].failed else None
    if failed is not None and NOT_APPROVED in failed.result:
        return None  # the user declined the call: not the model's to retry
    if failed is not None and not failed.result.startswith(REFUSED_HERE) and (planned or gives_up):
        return failed_reask(failed.result, lookups(specs, failed.tool)), True
    place = untouched_place(asked, calls, specs)
    if place is not None:
        return untouched_reask(place, asked), True
    if planned:
        return ACT_REASK, False
    if not calls and (gives_up or _ASKS_BACK.search(answer)):
        return REFUSAL_REASK, False
    if calls and gives_up:
        return results_reask(asked), False
    unfinished = _unfinished(calls)
    if unfinished is not None:
        return retry_reask(unfinished), False
    if calls and _ASKS_NUMBER.search(asked) and not find_numbers(answer):
        return results_reask(asked), False
    return None
