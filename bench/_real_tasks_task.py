"""What a real task is: a request, the calls that fit it, and a judge of what it left behind.

A judge reads the workspace afterwards (a file, a commit, a row, a memory entity) or the
numbers and clock times the answer states, never its wording. ``solve`` makes the outcome by
hand, for the bench's own test: every judge must fail on an untouched workspace and pass once
a person has done the task.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterable
from decimal import Decimal
from pathlib import Path
from typing import Any

from bench._real_tasks_workspace import states_number, states_time

Judge = Callable[[Path, str], bool]

FS_READ: tuple[str, ...] = (
    "read_text_file",
    "read_file",
    "read_multiple_files",
    "list_directory",
    "list_directory_with_sizes",
    "directory_tree",
    "search_files",
    "get_file_info",
    "list_allowed_directories",
)
FS_WRITE = ("write_file", "edit_file", "create_directory", "move_file")
GIT_READ = (
    "git_status",
    "git_log",
    "git_diff",
    "git_diff_unstaged",
    "git_diff_staged",
    "git_show",
    "git_branch",
)
GIT_WRITE = ("git_add", "git_commit", "git_create_branch", "git_checkout", "git_reset")
SQL_READ = ("read_query", "list_tables", "describe_table")
SQL_WRITE = ("write_query", "create_table")
MEM_READ = ("read_graph", "search_nodes", "open_nodes")
MEM_WRITE: tuple[str, ...] = ("create_entities", "create_relations", "add_observations", "delete_entities")
MEM_WRITE += ("delete_observations", "delete_relations")
# Calls that change something: each must have been approved, whatever the server's hints say.
CHANGING = {
    "filesystem": FS_WRITE,
    "git": GIT_WRITE,
    "sqlite": SQL_WRITE,
    "memory": MEM_WRITE,
}


def changes(server: str, tool: str) -> bool:
    return tool in CHANGING.get(server, ())


@dataclasses.dataclass(frozen=True)
class Task:
    name: str
    prompt: str  # {ws}: the project folder; {url}: the local web site
    tools: frozenset[str]  # "server.tool" or "server.*": the calls that fit the task
    judge: Judge
    solve: Callable[[Path], str]
    calls: int = 1  # the calls a person would make
    arithmetic: bool = False  # the answer needs arithmetic on what the tools gave
    setup: Callable[[Path], None] | None = None
    states_value: bool = False  # judged by a value the answer states, not by a change

    def text(self, project: Path, url: str) -> str:
        return self.prompt.format(ws=project, url=url)

    def fits(self, server: str, tool: str) -> bool:
        """Whether a call is one this task can use (a wrong-tool call otherwise)."""
        return f"{server}.{tool}" in self.tools or f"{server}.*" in self.tools


def tools(
    server: str, names: Iterable[str], *, math: bool = False, more: Iterable[str] = ()
) -> frozenset[str]:
    """The fitting calls: ``names`` of ``server``, plus the calculator when arithmetic is asked."""
    return frozenset([*(f"{server}.{n}" for n in names), *(["calculator.*"] if math else []), *more])


def shown(value: Any) -> str:
    if isinstance(value, tuple):  # a day and its count: "Sat, 204"
        return ", ".join(shown(part) for part in value)
    if isinstance(value, dt.datetime):
        return value.strftime("%H:%M")
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    return str(value)


def asks(
    name: str,
    prompt: str,
    fitting: frozenset[str],
    expected: Callable[[], Any],
    *,
    calls: int = 1,
    arithmetic: bool = False,
    setup: Callable[[Path], None] | None = None,
    match: Callable[[str, Any], bool] | None = None,
) -> Task:
    """A task whose outcome is a value the answer states: a number, a version, a clock time."""
    check = match or (lambda answer, want: states_number(answer, want))

    def judge(project: Path, answer: str) -> bool:
        return bool(answer) and check(answer, expected())

    def solve(project: Path) -> str:
        return f"It is {shown(expected())}."

    return Task(name, prompt, fitting, judge, solve, calls, arithmetic, setup, states_value=True)


def does(
    name: str,
    prompt: str,
    fitting: frozenset[str],
    done: Callable[[Path], bool],
    by_hand: Callable[[Path], Any],
    *,
    calls: int = 1,
    arithmetic: bool = False,
    setup: Callable[[Path], None] | None = None,
) -> Task:
    """A task whose outcome is a change in the workspace, whatever the answer says."""

    def solve(project: Path) -> str:
        by_hand(project)
        return "Done."

    return Task(
        name, prompt, fitting, lambda project, _answer: done(project), solve, calls, arithmetic, setup
    )


def states_text(answer: str, expected: str) -> bool:
    """A value that is not a plain number (a version), as a whole token."""
    import re

    return re.search(rf"(?<![\w.]){re.escape(expected)}(?![\w]|\.\d)", answer) is not None


def states_clock(slack_minutes: int) -> Callable[[str, Any], bool]:
    return lambda answer, want: states_time(answer, want, slack_minutes)
