"""Bad input with the reference servers: a server npx cannot fetch, a path outside the allowed
folder, a database that is locked or corrupt, a repository in the middle of a conflicted merge.

    python -m bench bad_input [--model ID] [--scenario NAME ...] [--no-write] [--json FILE]

Each scenario runs one request through Calculon's engine, as :mod:`bench.real_tasks` does (the
same servers, configured as a user would, and the same approving user), and is judged by what
a person would ask of it: the turn ends (no exception, no hang), the answer states what went
wrong in words a person can act on (the error's own phrase, by the model or by the app's line
under it), the answer is not marked verified, and nothing changed without an approved call.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import hashlib
import json
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from bench import _doc
from bench import _real_tasks_servers as servers
from bench import _real_tasks_workspace as ws
from bench._real_tasks_task import Task, changes

HEADING = "## Bad input with the reference servers"
MISSING = "@modelcontextprotocol/server-filesystem-that-does-not-exist@0.0.1"
TURN_LIMIT_S = 600  # a turn still going after this did not end
ROOT = Path(tempfile.gettempdir()) / "calculon-bad-input"  # its own: real_tasks may run beside it


@dataclasses.dataclass(frozen=True)
class Scenario:
    name: str
    prompt: str  # {ws}: the project folder
    says: tuple[str, ...]  # phrases of the error, one of which the answer must hold (lower case)
    setup: Callable[[Path], None] | None = None
    config: Callable[[Path, str], dict[str, Any]] | None = None
    during: Callable[[Path], AbstractContextManager[Any]] | None = None  # held while the turn runs


def _missing_server(project: Path, site: str) -> dict[str, Any]:
    config = servers.mcp_servers(project, site)
    config["mcpServers"]["filesystem"]["args"] = ["-y", MISSING, str(project)]
    return config


@contextmanager
def _locked(project: Path) -> Iterator[None]:
    """Another program writing to the database: an exclusive lock held for the whole turn."""
    db = sqlite3.connect(project / "shop.db", isolation_level=None)
    db.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        db.execute("ROLLBACK")
        db.close()


def _corrupt(project: Path) -> None:
    (project / "shop.db").write_bytes(b"this is not a database\n" * 200)


def _conflicted(project: Path) -> None:
    """main and a branch change the same line of notes.txt; the merge stops on the conflict."""
    first = (project / "notes.txt").read_text().splitlines()[0]
    ws.run_git(project, "checkout", "-q", "-b", "reword")
    _replace_line(project / "notes.txt", first, "Reworded on the branch.")
    ws.run_git(project, "commit", "-q", "-am", "Reword the first note")
    ws.run_git(project, "checkout", "-q", "main")
    _replace_line(project / "notes.txt", first, "Reworded on main.")
    ws.run_git(project, "commit", "-q", "-am", "Reword it on main")
    ws.git(project, "merge", "reword")  # the conflict: git exits 1 (ws.git says ""), the merge half done


def _replace_line(path: Path, old: str, new: str) -> None:
    path.write_text(path.read_text().replace(old, new, 1))


SCENARIOS = (
    Scenario(
        "missing-server",
        "List the files in {ws}.",
        ("not running", "could not be found", "404"),
        config=_missing_server,
    ),
    Scenario(
        "outside-roots",
        "Read the file /etc/hostname and tell me what it says.",
        ("outside allowed", "access denied", "not allowed", "outside the allowed"),
    ),
    Scenario(
        "locked-database",
        "Add a product named lamp in the category home, priced 19.99, with 4 in stock, to the products"
        " table of the shop database.",
        ("locked",),
        during=_locked,
    ),
    Scenario(
        "corrupt-database",
        "How many products are in the products table of the shop database?",
        ("not a database", "malformed", "corrupt", "not running"),
        setup=_corrupt,
    ),
    Scenario(
        "conflicted-repository",
        "Commit the changes in the git repository at {ws} with the message 'Finish the merge'.",
        ("unmerged", "conflict", "merge"),
        setup=_conflicted,
    ),
)


@dataclasses.dataclass
class Outcome:
    scenario: str
    ended: bool  # the turn finished: no exception, no time-out
    said: bool  # the answer holds the error's phrase
    verified: bool  # marked verified (it must not be)
    unapproved: int
    changed_unasked: bool  # the workspace changed with no changing call made
    seconds: float
    answer: str
    calls: list[str]
    trace: list[str] = dataclasses.field(default_factory=list)  # what the turn did, for the JSON

    @property
    def passed(self) -> bool:
        return (
            self.ended
            and self.said
            and not self.verified
            and not self.unapproved
            and not self.changed_unasked
        )


def _snapshot(project: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(project.rglob("*")):
        if path.is_file() and ".git" not in path.relative_to(project).parts[:1]:
            digest.update(str(path.relative_to(project)).encode() + path.read_bytes())
    digest.update(ws.git(project, "rev-parse", "HEAD").encode())  # a commit changes the repository
    return digest.hexdigest()


async def run(args: argparse.Namespace, chosen: list[Scenario]) -> list[Outcome]:
    from app.settings import Settings
    from bench._real_tasks_run import CalculonSide

    shutil.rmtree(ROOT, ignore_errors=True)
    (ROOT / "calculon").mkdir(parents=True)
    ws.write_pages(ROOT / "site")
    settings = Settings(backend="local", builtin_model=args.model)
    outcomes = []
    with servers.web_site(ROOT / "site") as site:
        side = CalculonSide(settings, ROOT / "calculon", site)
        await side.start()
        try:
            for scenario in chosen:
                outcomes.append(await _one(side, scenario, settings.max_rounds))
                _print(outcomes[-1])
        finally:
            await side.aclose()
    return outcomes


async def _one(side: Any, scenario: Scenario, max_rounds: int) -> Outcome:
    held: list[AbstractContextManager[Any]] = []
    seen: dict[str, Any] = {}

    def setup(project: Path) -> None:  # run() builds the workspace, then calls this
        if scenario.setup:
            scenario.setup(project)
        seen["project"], seen["before"] = project, _snapshot(project)
        if scenario.during:
            held.append(scenario.during(project))
            held[-1].__enter__()

    task = Task(scenario.name, scenario.prompt, frozenset(), lambda *_: True, lambda _: "", setup=setup)
    started = time.perf_counter()
    try:
        result = await asyncio.wait_for(side.run(task, max_rounds, scenario.config), timeout=TURN_LIMIT_S)
    except Exception as exc:  # noqa: BLE001 - a turn that did not end is the finding, reported as such
        return Outcome(
            scenario.name, False, False, False, 0, False, time.perf_counter() - started, repr(exc), []
        )
    finally:
        for lock in held:
            lock.__exit__(None, None, None)
    changing = [c for c in result.calls if changes(*c.split("(", 1)[0].split(".", 1))]
    answer = result.answer or ""
    return Outcome(
        scenario.name,
        not result.error,
        any(phrase in answer.lower() for phrase in scenario.says),
        result.verdict == "verified",
        result.unapproved,
        _snapshot(seen["project"]) != seen["before"] and not changing,
        result.seconds,
        answer,
        result.calls,
        result.trace,
    )


def _print(outcome: Outcome) -> None:
    mark = "PASS" if outcome.passed else "FAIL"
    answer = " ".join(outcome.answer.split())[:300]
    print(f"{mark} {outcome.scenario} ({outcome.seconds:.1f} s): {answer} {outcome.calls}", flush=True)


def report(outcomes: list[Outcome], command: str, label: str) -> str:
    rows = [
        "| scenario | turn ended | answer says what went wrong | verified | unapproved changes"
        " | changed unasked | s |",
        "|---|---|---|---|---|---|---|",
    ]
    yes = {True: "yes", False: "**no**"}
    for o in outcomes:
        rows.append(
            f"| {o.scenario} | {yes[o.ended]} | {yes[o.said]} | {'**yes**' if o.verified else 'no'} | "
            f"{o.unapproved} | {'**yes**' if o.changed_unasked else 'no'} | {o.seconds:.1f} |"
        )
    passed = sum(o.passed for o in outcomes)
    return "\n".join(
        [
            f"### Run: {label}",  # the block _doc.publish replaces on the next run of this model
            "",
            f"Command: `{command}`. {_doc.machine()}",
            "",
            *rows,
            "",
            f"**{passed}/{len(outcomes)} handled** (each: the turn ends, the answer holds the error's own"
            " phrase, not verified, nothing changed without an approved call).",
        ]
    )


def main() -> int:
    from app.llm.local.catalog import DEFAULT_MODEL_ID

    parser = _doc.parser("bad_input")
    parser.add_argument("--model", default=DEFAULT_MODEL_ID, help="built-in model id")
    parser.add_argument("--scenario", action="append", help="only this scenario (repeat)")
    parser.add_argument("--json", type=Path, help="also write every outcome to this file")
    args = parser.parse_args(sys.argv[1:])
    chosen = [s for s in SCENARIOS if not args.scenario or s.name in args.scenario]
    if not servers.installed("bad_input"):
        return 1
    outcomes = asyncio.run(run(args, chosen))
    if args.json:
        args.json.write_text(
            json.dumps([dataclasses.asdict(o) for o in outcomes], indent=1), encoding="utf-8"
        )
    text = report(outcomes, "python -m bench bad_input " + " ".join(sys.argv[1:]), args.model)
    return _doc.publish(HEADING, text, write=not args.no_write)
