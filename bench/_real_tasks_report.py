"""The real-task bench's figures: per model and mode, tasks done and the ways calls went wrong."""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Sequence
from typing import Any

from bench import _doc


@dataclasses.dataclass
class Result:
    model: str  # the model's label
    mode: str  # "Calculon, Calculon mode on, calculon format" or "raw peer"
    runs: list[Any]


def percentile(values: Sequence[float], share: float) -> float:
    """The nearest-rank percentile (p50 is the median of an odd count)."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def figures(runs: Sequence[Any]) -> dict[str, Any]:
    seconds = [r.seconds for r in runs]
    return {
        "total": len(runs),
        "done": sum(1 for r in runs if r.done),
        "calls": sum(len(r.calls) for r in runs),
        "wrong_tool": sum(r.wrong_tool for r in runs),
        "invalid": sum(r.invalid for r in runs),
        "refused": sum(getattr(r, "refused", 0) for r in runs),
        "written": sum(1 for r in runs if r.written),
        "unapproved": sum(r.unapproved for r in runs),
        "no_call": sum(1 for r in runs if not r.calls),
        "verified_not_done": sum(1 for r in runs if r.verdict == "verified" and not r.done),
        "right_offered": sum(1 for r in runs if r.right_offered),
        "p50": percentile(seconds, 0.5),
        "p90": percentile(seconds, 0.9),
        "schema_tokens": statistics.median([r.schema_tokens for r in runs]) if runs else 0.0,
    }


HEADER = [
    "| Model | Side and mode | Done | Calls | Wrong tool | Invalid | Written as text | Unapproved changes"
    " | No call | Verified, not done | Right tool offered | p50 s | p90 s | Schema tokens / step |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
]


def row(result: Result) -> str:
    f = figures(result.runs)
    done = f"{f['done']}/{f['total']} ({f['done'] / max(1, f['total']):.0%})"
    return (
        f"| {result.model} | {result.mode} | {done} | {f['calls']} | {f['wrong_tool']} | {_invalid(f)}"
        f" | {f['written']} | {f['unapproved']} | {f['no_call']} | {f['verified_not_done']}"
        f" | {f['right_offered']}"
        f" | {f['p50']:.1f} | {f['p90']:.1f} | {f['schema_tokens']:.0f} |"
    )


def _invalid(f: dict[str, Any]) -> str:
    """Calls that came back as an error, and how many of them the app refused before any server."""
    return f"{f['invalid']} ({f['refused']} refused here)" if f["refused"] else str(f["invalid"])


def per_task(results: Sequence[Result]) -> list[str]:
    """Which side got which task done: one column per model and mode."""
    names = list(dict.fromkeys(r.task for result in results for r in result.runs))
    columns = [f"{result.model}, {result.mode}" for result in results]
    lines = ["| Task | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
    for name in names:
        cells = []
        for result in results:
            run = next((r for r in result.runs if r.task == name), None)
            cells.append("" if run is None else ("done" if run.done else _why(run)))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def _why(run: Any) -> str:
    if run.written:
        return "call as text"
    if run.unapproved:
        return "unapproved"
    if not run.calls:
        return "no call" if run.right_offered else "no call, not offered"
    if run.invalid and run.invalid == len(run.calls):
        return "calls failed"
    if run.wrong_tool:
        return "wrong tool"
    if not run.right_offered:
        return "not offered"
    if run.error.startswith("no answer within"):
        return "step limit"
    if not run.answer.strip():
        return "empty answer"
    return "wrong outcome"


def report(results: Sequence[Result], command: str, listed: int = 0) -> str:
    """``listed``: how many tasks the bench has, where a run did fewer (--limit, --budget-minutes)."""
    ran = len(results[0].runs) if results else 0
    lines = [
        "Real tasks over the official reference MCP servers (filesystem, memory, git, time, sqlite, fetch),"
        " each in a fresh workspace, judged only by what was left behind (a file, commit, row or memory"
        " entity) or by the number or time the answer states. Calls that change something are approved"
        " one at a time by the bench; one that ran unapproved fails its task, as does a call written as"
        " text where a number or time was asked for."
        + (f" This run did {ran} of the {listed} tasks." if listed > ran else ""),
        "",
        *HEADER,
        *(row(r) for r in results),
        "",
        "Wrong tool: a call no fitting tool of the task's servers (or the calculator, where arithmetic is"
        " asked); invalid: a call that came back as an error (refused before the server, or by it; the"
        " ones the app refused, which no server saw, in brackets); schema tokens: the offered tools' name,"
        " description and schema at 4 characters a token, the median per"
        " step (the raw peer offers every tool of the six servers on every step); right tool offered: the"
        " first step offered at least one tool of the task's own servers that fits it (retrieval's share).",
        "",
        *per_task(results),
        "",
        f"Command: `{command}`",
        "",
        _doc.machine(),
    ]
    return "\n".join(lines)
