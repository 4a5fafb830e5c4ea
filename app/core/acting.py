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

import json
import re
from collections.abc import Sequence

from app.core.declined import only_asks
from app.core.messages import ToolSpec
from app.core.named import places
from app.core.numbers import find_numbers
from app.core.places import takes_place
from app.core.records import CallRecord
from app.core.toolrun import NOT_APPROVED, REFUSED_HERE
from app.core.zones import named_zones

# A plan of steps still to take. After a call that worked only these count: "you can use it
# now" may close a good answer, "we need to follow these steps" does not.
_STEP_WORDS = (
    r"\b(?:we|you|i)\s+(?:will\s+)?(?:need|have)\s+to\b|\bfollow(?:ing)?\s+these\s+steps\b"
    r"|\bhere(?:'s|\s+is)\s+how\b|\bstep\s+1\b"
    # instructions for the user instead of the deed: asked to add a file's rows to a table, the
    # 1.5B model read the file and answered "you can use the following SQL query: ```sql ..."
    r"|\byou\s+can\s+use\s+the\s+following\b|\bhere(?:'s|\s+is)\s+the\s+(?:command|query|code|sql)\b"
    # a blank for the result still to find: "The total value of all orders is $[sum of all order
    # values]$" (a markdown link's "[text](url)" is none)
    r"|\[(?:[a-z]+\s+){2,8}[a-z]+\](?!\()"
)
_STEPS = re.compile(_STEP_WORDS, re.IGNORECASE)
# Before any call, also a deferral: what the model would do, or what the user should do.
_PLAN = re.compile(
    _STEP_WORDS + r"|\byou\s+(?:can|could|would|should|might)\s+(?:use|call|run|try)\b"
    r"|\b(?:i(?:'ll|\s+will|\s+would)|let(?:'s|\s+us|\s+me))\s+(?:first\s+)?"
    # "I will execute a SELECT query on the SQLite database": a plan, the query never sent
    r"(?:use|call|run|read|list|check|open|fetch|query|create|write|search|look|get|start|add|make|save|"
    r"execute|perform|retrieve|count|determine)\b",
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
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
# "On what day of March is Alice's birthday?" was answered "I found Alice's birthday in March."
# after the memory had given "14 March".
_ASKS_NUMBER = re.compile(
    r"\bhow\s+(?:many|much|old|big|long|far)\b|\bwhat(?:'s|\s+is|\s+was)\s+the\s+(?:average|mean|total|sum"
    r"|number|count)\b|\bworth\b|\bwhat\s+(?:date|year|day\s+of\s+(?:the\s+)?(?:month|" + _MONTHS + r"))\b",
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


# A deed claimed done before any call: "I have deleted all information about Bob" came back for
# "Forget everything you know about Bob." with no call made. Nothing was done; the claim is false.
_CLAIMS_DEED = re.compile(
    # the app's own claim ("I have", "has been"), not a story's past ("40 dollars were saved")
    r"\b(?:I(?:'ve|\s+have)|(?:has|have)\s+been)\s+(?:\w+\s+)?"
    r"(?:deleted|removed|created|saved|added|written|updated|changed|renamed|moved|committed|staged|"
    r"stored|noted|recorded|forgotten|erased|set|made|sent|inserted)\b",
    re.IGNORECASE,
)
NOTHING_DONE_OPENING = "No tool call was made, so nothing has been done yet."


def nothing_done_reask(asked: str) -> str:
    return f"{NOTHING_DONE_OPENING} Do what I asked with a tool call now: {asked.strip()}"


def _first_line(error: str, limit: int) -> str:
    return error.strip().splitlines()[0][:limit] if error.strip() else "an error"


FAILED_OPENING = "The last tool call failed:"
EMPTY_OPENING = "The last tool call found or changed nothing:"


def failed_reask(error: str, lookups: Sequence[str] = ()) -> str:
    first = _first_line(error, 300)
    shown = f" ({' or '.join(lookups)} can show what exists)" if lookups else ""
    return (
        f"{FAILED_OPENING} {first} Do not apologise or give up: fix what the error names "
        f"(another tool may have to run first{shown}) and make the next tool call now."
    )


def empty_reask(call: CallRecord, lookups: Sequence[str] = (), changers: Sequence[str] = ()) -> str:
    """``changers``: where the call was to make something, the tools of its server that change
    what exists (it may be there already)."""
    shown = f" ({' or '.join(lookups)} can show what exists)" if lookups else ""
    there = (
        f" What it was to make may exist already: {' or '.join(changers)} can change what exists."
        if changers
        else ""
    )
    return (
        f"{EMPTY_OPENING} {call.tool} returned {' '.join(call.result.split())[:80]}.{there} Do not "
        f"apologise or give up: try other arguments (a shorter search) or another tool{shown}, and make "
        f"the next tool call now."
    )


# A tool that makes or adds something, by its name's opening verb
_MAKES = re.compile(r"^(?:create|add|insert|write|put|set|update|append)_", re.IGNORECASE)


def _changers(call: CallRecord, specs: Sequence[ToolSpec]) -> list[str]:
    """The other tools of the call's server that make or add, where the call was to make."""
    if not _MAKES.match(call.tool):
        return []
    return [s.name for s in specs if s.server == call.server and s.name != call.tool and _MAKES.match(s.name)]


def empty_result(text: str) -> bool:
    """A result that holds nothing: ``[]``, ``{}``, ``{"entities": [], "relations": []}``. A
    search that found nothing, or a create that made nothing (the entity was there already)."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return False
    try:
        value = json.loads(stripped)
    except ValueError:
        return False
    return _hollow(value)


def _hollow(value: object) -> bool:
    if isinstance(value, dict):
        return all(_hollow(v) for v in value.values())
    if isinstance(value, list):
        return not value
    return False


# Words of a tool's name that mark a look-up: what shows what exists, so a failed call's names
# can be checked ("no such table: shop": list_tables; "no such column": describe_table).
_LOOKUP_WORDS = frozenset(
    ["list", "describe", "get", "read", "search", "show", "find", "status", "log", "info", "tree", "schema"]
)
MAX_LOOKUPS = 3


def lookups(specs: Sequence[ToolSpec], failed: str, ran: Sequence[str] = ()) -> list[str]:
    """The offered tools, other than the one that failed, whose names mark a look-up; those not
    ``ran`` yet first ("no such column" after list_tables worked: describe_table)."""
    found = [s.name for s in specs if s.name != failed and looks_up(s.name)]
    return sorted(found, key=lambda name: name in ran)[:MAX_LOOKUPS]


def looks_up(name: str) -> bool:
    """Whether a tool's name marks a look-up (``describe_table``, ``git_status``)."""
    return bool(_LOOKUP_WORDS & set(re.split(r"[_\-]", name.lower())))


RETRY_OPENING = "Earlier the "


def retry_reask(failed: CallRecord) -> str:
    first = _first_line(failed.result, 200)
    return (
        f"{RETRY_OPENING}{failed.tool} call failed ({first}) and it has not been made since. "
        f"If the request still needs it, make the {failed.tool} call again now; otherwise answer."
    )


def fix_first_reask(failed: CallRecord, fixes: Sequence[str]) -> str:
    """The retry of a failed deed whose error names the call that fixes it, not made yet."""
    first = _first_line(failed.result, 200)
    return (
        f"{RETRY_OPENING}{failed.tool} call failed ({first}) and its error names what to do first: "
        f"make the {' or '.join(fixes)} call now, then the {failed.tool} call again."
    )


def unfinished(calls: Sequence[CallRecord]) -> CallRecord | None:
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
    if not calls or not any(takes_place(s) for s in specs):
        return None
    # a call that failed used the place too: what its error asks is failed_reask's
    used = [v for c in calls if not c.result.startswith(REFUSED_HERE) for v in _strings(c.arguments)]
    for place in places(asked):
        if not _FILE_LIKE.search(place):
            continue
        if not any(place in v or (_FILE_LIKE.search(v) and v in place) for v in used):
            return place
    return None


def untouched_zone(asked: str, calls: Sequence[CallRecord]) -> str | None:
    """A time zone the request names, beside another, that no call has used, after some call:
    asked how many hours ahead of London Tokyo is, Qwen2.5-Coder-1.5B read Tokyo's time and then
    wrote how it would work the difference out. None where each was used, or one zone is named."""
    zones = named_zones(asked)
    if not calls or len(zones) < 2:
        return None
    used = {v for c in calls if not c.result.startswith(REFUSED_HERE) for v in _strings(c.arguments)}
    return next((zone for zone in zones if zone not in used), None)


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


def opens_with_call(asked: str, specs: Sequence[ToolSpec]) -> bool:
    """Whether the first step of a turn must be a call: the user named a file, a folder or a URL
    and an offered tool takes one. Qwen2.5-Coder-1.5B, asked for the mean of the visitors in
    ".../visitors.csv" with read_text_file on offer, answered "Please provide the file path"
    three times over; the place it asks for is in the question. How-to questions are exempt."""
    if _HOW_TO.search(asked) or not places(asked):
        return False
    return any(takes_place(spec) for spec in specs)


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
    answer: str,
    asked: str,
    specs: Sequence[ToolSpec],
    calls: Sequence[CallRecord],
    fixers: Sequence[ToolSpec] = (),
) -> tuple[str, bool] | None:
    """What to tell the model when ``answer`` describes or abandons a task a tool should do, and
    whether its next step must be a call; None when the answer stands. ``fixers``: the tools of
    the server whose call failed last, all of them (retrieval may not have offered its look-ups)."""
    if not specs or _HOW_TO.search(asked):
        return None
    plan = _STEPS if calls else _PLAN
    planned = bool(plan.search(answer)) or mentions_tool(answer, specs)
    gives_up = bool(_GIVES_UP.search(answer))
    failed = calls[-1] if calls and calls[-1].failed else None
    if failed is not None and NOT_APPROVED in failed.result:
        return None  # the user declined the call: not the model's to retry
    if not calls and _CLAIMS_DEED.search(answer) and not only_asks(asked):
        return nothing_done_reask(asked), True
    ran = [c.tool for c in calls if not c.failed]
    if failed is not None and not failed.result.startswith(REFUSED_HERE) and (planned or gives_up):
        return failed_reask(failed.result, lookups(fixers or specs, failed.tool, ran)), True
    last = calls[-1] if calls else None
    if last is not None and empty_result(last.result) and (planned or gives_up):
        # asked for Alice's birthday, the 1.5B model searched "Alice's birthday in March",
        # found nothing and apologised; noting that Carol works at Acme, its create_entities
        # made nothing (Carol was there) and it gave up
        tools = fixers or specs
        return empty_reask(last, lookups(tools, last.tool, ran), _changers(last, tools)), True
    place = untouched_place(asked, calls, specs)
    if place is None:
        place = untouched_zone(asked, calls)
    if place is not None:
        return untouched_reask(place, asked), True
    # a fixed failure's deed comes before any plan: staged after "No changes staged", the 1.5B
    # model answered with that error's text, which names git_add and reads as a plan
    left = unfinished(calls)
    if left is not None and (planned or gives_up or _first_line(left.result, 80) in answer):
        return retry_reask(left), False
    if planned:
        return ACT_REASK, False
    if not calls and (gives_up or _ASKS_BACK.search(answer)):
        return REFUSAL_REASK, False
    if calls and gives_up:
        return results_reask(asked), False
    if left is not None:
        return retry_reask(left), False
    if (
        calls
        and _ASKS_NUMBER.search(asked)
        and not find_numbers(answer)
        and not empty_result(calls[-1].result)
    ):
        return results_reask(asked), False  # "found nothing" after an empty search is an answer
    return None
