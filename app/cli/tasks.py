"""``calculon tasks``: the tasks this machine's Calculon has followed, newest first, with the
last status it saw of each (app.mcp.task_log). A task a stopped run left working on a remote
server is found here by its id."""

from __future__ import annotations

import argparse
import datetime
import json
import sys

from app.cli.exits import EXIT_OK
from app.cli.visible import show


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tasks = commands.add_parser("tasks", help="the tasks servers made of tool calls, and their last status")
    tasks.add_argument("--json", action="store_true", help="print JSON")


def command(args: argparse.Namespace) -> int:
    from app.mcp.task_log import records

    tasks = sorted(records(), key=lambda t: t.get("updated", 0), reverse=True)
    if args.json:
        show(json.dumps(tasks, ensure_ascii=False), as_json=True)
        return EXIT_OK
    if not tasks:
        show("no tasks yet: a tool call a server turns into a task shows here", sys.stdout)
        return EXIT_OK
    for task in tasks:
        when = datetime.datetime.fromtimestamp(task.get("updated", 0)).strftime("%Y-%m-%d %H:%M:%S")
        line = f"{task.get('server')}.{task.get('tool')}  {task.get('task_id')}  {task.get('status')}  {when}"
        message = task.get("message") or ""
        show(f"{line}  {message}".rstrip(), sys.stdout)
    return EXIT_OK
