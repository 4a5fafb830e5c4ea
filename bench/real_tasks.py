"""Real tasks with real servers: the official reference MCP servers, a local model, judged by outcome.

Each task ("add up the prices in prices.csv", "commit draft.txt", "add a lamp to the products
table", "remember that Dana's birthday is 3 October", "what time is it in Tokyo?") runs in a
fresh workspace with the reference servers configured as a user would in ``mcpServers``
(:mod:`bench._real_tasks_servers`), through Calculon's own engine in-process, and, with
``--peer``, through the raw peer on the same GGUF right after (:mod:`bench._real_tasks_peer`).
It is judged only by what it left behind or the value its answer states
(:mod:`bench._real_tasks_task`).

    python -m bench real_tasks [--model ID | --gguf FILE] [--strict | --no-strict]
                               [--tool-format auto|native|calculon] [--peer | --peer-only]
                               [--skip N] [--limit N] [--task NAME ...] [--budget-minutes M]
                               [--no-write] [--json FILE]

The first run installs the PyPI servers into venvs of their own under
``~/.cache/calculon-bench/servers/`` and fetches the npm ones into npx's cache.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import _doc
from bench import _real_tasks_report as report
from bench import _real_tasks_servers as servers
from bench import _real_tasks_workspace as ws
from bench._real_tasks_files import FILE_TASKS
from bench._real_tasks_more import MORE_TASKS
from bench._real_tasks_stores import STORE_TASKS
from bench._real_tasks_task import Task

HEADING = "## Real tasks"
# Taken in turn from each list, so that the first N tasks (--limit, --budget-minutes) span every server.
TASKS: list[Task] = [
    t for group in itertools.zip_longest(FILE_TASKS, STORE_TASKS, MORE_TASKS) for t in group if t
]
ROOT = Path(tempfile.gettempdir()) / "calculon-real-tasks"  # no digits in it: a path the model copies


def chosen(limit: int, names: list[str] | None, skip: int = 0) -> list[Task]:
    tasks = [t for t in TASKS if not names or t.name in names][skip:]
    return tasks[:limit] if limit else tasks


def mode_label(strict: bool, tool_format: str) -> str:
    return f"Calculon, mode {'on' if strict else 'off'}, format {tool_format}"


async def run_model(args: argparse.Namespace, tasks: list[Task]) -> list[report.Result]:
    from app.settings import Settings
    from bench._real_tasks_run import CalculonSide, PeerSide

    shutil.rmtree(ROOT, ignore_errors=True)
    ROOT.mkdir(parents=True)
    ws.write_pages(ROOT / "site")
    settings = Settings(
        backend="local",
        strict=args.strict,
        builtin_model=args.model,
        model_path=args.gguf,
        tool_format=args.tool_format,
    )
    ours: list[Any] = []
    raw: list[Any] = []
    with servers.web_site(ROOT / "site") as site:
        calculon = CalculonSide(settings, _folder("calculon"), site)
        peer = None
        try:
            await calculon.start()
            peer = PeerSide(_gguf(args), _folder("raw"), site) if args.peer or args.peer_only else None
            deadline = time.monotonic() + args.budget_minutes * 60 if args.budget_minutes else None
            for number, task in enumerate(tasks, 1):
                if deadline is not None and time.monotonic() > deadline:
                    print(f"stopped after {number - 1} tasks: --budget-minutes {args.budget_minutes} spent")
                    break
                if not args.peer_only:
                    ours.append(await calculon.run(task, settings.max_rounds))
                    _progress(number, len(tasks), ours[-1])
                if peer is not None:
                    raw.append(await peer.run(task, settings.max_rounds))
                    _progress(number, len(tasks), raw[-1])
                _save(args.json, _results(args, calculon.label, ours, raw))
        finally:
            await calculon.aclose()
            if peer is not None:
                await peer.aclose()
    return _results(args, calculon.label, ours, raw)


def _results(args: argparse.Namespace, label: str, ours: list[Any], raw: list[Any]) -> list[report.Result]:
    label = label or args.model
    results = [report.Result(label, mode_label(args.strict, args.tool_format), ours)] if ours else []
    if raw:
        results.append(report.Result(label, "raw peer (own template, lenient parse)", raw))
    return results


def _save(path: Path | None, results: list[report.Result]) -> None:
    """Every run so far, rewritten after each task: a run stopped early keeps what it did."""
    _doc.dump_runs(path, [({"model": r.model, "mode": r.mode}, r.runs) for r in results])


def _folder(side: str) -> Path:
    folder = ROOT / side
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _gguf(args: argparse.Namespace) -> str:
    from app.llm.local.model_file import resolve_model

    return args.gguf or str(resolve_model("", lambda *_: None, args.model))


def _progress(number: int, total: int, run: Any) -> None:
    mark = "DONE" if run.done else "not done"
    answer = " ".join((run.answer or run.error).split())[:110]
    print(
        f"[{number}/{total}] {run.side} {mark} {run.seconds:.1f}s {run.task}: {answer} {run.calls}",
        flush=True,
    )


def parse(argv: list[str]) -> argparse.Namespace:
    from app.llm.local.catalog import DEFAULT_MODEL_ID

    parser = _doc.parser("real_tasks")
    parser.add_argument("--model", default=DEFAULT_MODEL_ID, help="built-in model id")
    parser.add_argument("--gguf", default="", help="a GGUF file of your own instead of a built-in model")
    parser.add_argument(
        "--strict", action=argparse.BooleanOptionalAction, default=True, help="Calculon mode (default on)"
    )
    parser.add_argument("--tool-format", choices=("auto", "native", "calculon"), default="auto")
    parser.add_argument("--peer", action="store_true", help="the raw peer on the same GGUF after each task")
    parser.add_argument(
        "--peer-only",
        action="store_true",
        help="the raw peer alone (its figures do not depend on Calculon's code)",
    )
    parser.add_argument("--limit", type=int, default=0, help="the first N tasks only")
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N tasks")
    parser.add_argument("--task", action="append", help="only the task of this name (repeat)")
    parser.add_argument("--json", type=Path, help="also write every run to this file (after each task)")
    parser.add_argument(
        "--budget-minutes",
        type=float,
        default=0,
        help="start no new task after this many minutes (0: no limit)",
    )
    return parser.parse_args(argv)


def main() -> int:
    args = parse(sys.argv[1:])
    tasks = chosen(args.limit, args.task, args.skip)
    if not tasks:
        print(f"no task named {args.task}", file=sys.stderr)
        return 2
    if not servers.installed("real_tasks"):
        return 1
    results = asyncio.run(run_model(args, tasks))
    text = report.report(results, "python -m bench real_tasks " + " ".join(sys.argv[1:]), len(TASKS))
    print("\n" + text)
    _save(args.json, results)
    if not args.no_write:
        _doc.write_section(HEADING, text)
    return 0
