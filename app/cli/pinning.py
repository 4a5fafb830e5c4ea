"""``calculon servers`` with what needs the user's eye, and ``calculon servers accept``.

calculon servers [--json]                  state, and per server its changed_tools (diffs) and flags
calculon servers accept SERVER [TOOL] [--json]   offer a changed tool again (every changed one of
                                           SERVER without TOOL), pinned as it is now
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from app.cli.exits import EXIT_FAILED, EXIT_OK
from app.cli.visible import show

if TYPE_CHECKING:  # the parser imports this module; every command, `serve` too, would load the SDK
    from app.mcp.supervisor import Supervisor


def add_parser(servers: argparse.ArgumentParser) -> None:
    actions = servers.add_subparsers(dest="servers_action", metavar="ACTION")
    accept = actions.add_parser("accept", help="offer a changed tool to the model again, pinned as it is now")
    accept.add_argument("server", metavar="SERVER")
    accept.add_argument("tool", metavar="TOOL", nargs="?", default="", help="default: every changed tool")
    accept.add_argument("--json", action="store_true", help="print JSON")


async def report(supervisor: Supervisor, as_json: bool) -> None:
    """The ``servers`` listing with each server's review, and a sentence on stderr when the pins
    file is unusable."""
    from app.cli import output
    from app.mcp.review import Review
    from app.mcp.surface import listed

    await listed(supervisor)  # instructions, prompts and resources are flagged too
    states, review = supervisor.states(), Review(supervisor)
    found = {name: review.of(name).to_json() for name in supervisor.entries}
    if problem := supervisor.pinning.store.problem:
        show(f"calculon: {problem}", sys.stderr)
    text = output.servers_json(states, found) if as_json else output.servers_text(states, found)
    show(text, as_json=as_json)


def accept(supervisor: Supervisor, args: argparse.Namespace) -> int:
    """Accept what ``servers accept`` names, on servers started for it."""
    accepted = supervisor.accept(args.server, args.tool)
    if args.json:
        show(json.dumps({"server": args.server, "accepted": accepted}), as_json=True)
    if not accepted:
        what = f"tool {args.tool}" if args.tool else "tool"
        status = next((s for s in supervisor.states() if s.name == args.server), None)
        why = f" (it is {status.state})" if status is not None and status.state != "ready" else ""
        show(f"calculon: server {args.server} has no changed {what} to accept{why}", sys.stderr)
        return EXIT_FAILED
    if not args.json:
        show("\n".join(f"accepted {args.server}.{tool}" for tool in accepted))
    return EXIT_OK
