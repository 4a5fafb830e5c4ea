"""``calculon resources|read|prompts|prompt|complete``: what servers offer besides tools.

calculon resources [--json]                         every resource and resource template
calculon read URI [key=value ...] [--server S] [--json]   one resource (a template is expanded)
calculon prompts [--json]                           every prompt and its arguments
calculon prompt NAME [key=value ...] [--json]       a prompt's messages
calculon complete REF ARG [VALUE] [key=value ...] [--server S] [--json]
                                                    completion/complete for a prompt or template argument
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from app.cli.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from app.cli.visible import show


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    listing = {"resources": "list every resource and resource template", "prompts": "list every prompt"}
    for name, text in listing.items():
        commands.add_parser(name, help=text).add_argument("--json", action="store_true", help="print JSON")
    read = _with_values(
        commands.add_parser("read", help="read one resource"), "URI", "resource URI or template"
    )
    read.add_argument("--server", default="", help="the server to ask (default: the one that lists URI)")
    _with_values(
        commands.add_parser("prompt", help="print one prompt's messages"), "NAME", "prompt or SERVER.NAME"
    )
    complete = commands.add_parser("complete", help="suggest values for an argument (completion/complete)")
    complete.add_argument("ref", metavar="REF", help="a prompt name, or a resource template URI")
    complete.add_argument("argument", metavar="ARG")
    _with_values(complete, "VALUE", "what is typed so far", nargs="?", default="")
    complete.add_argument("--server", default="", help="the server to ask (default: the one that lists REF)")


def _with_values(
    parser: argparse.ArgumentParser, first: str, text: str, **extra: Any
) -> argparse.ArgumentParser:
    parser.add_argument(first.lower(), metavar=first, help=text, **extra)
    parser.add_argument("values", metavar="key=value", nargs="*", help="arguments")
    parser.add_argument("--json", action="store_true", help="print JSON")
    return parser


def run(args: argparse.Namespace) -> int:
    """The body of each of these commands, with the servers started and stopped around it."""
    from app.cli import running  # here, not above: building the parser should not load the servers' code

    try:
        values = _pairs(getattr(args, "values", []))
    except ValueError as exc:
        show(f"calculon: {exc}", sys.stderr)
        return EXIT_USAGE
    return running.run(_with_servers(args, values))


async def _with_servers(args: argparse.Namespace, values: dict[str, str]) -> int:
    from app.cli import running
    from app.cli import surface_output as out
    from app.mcp import surface

    async with running.running_servers(args.config) as supervisor:
        running.warn_unavailable(supervisor)
        try:
            body = await _answer(args, values, supervisor)
        except surface.SurfaceError as exc:
            show(f"calculon: {exc}", sys.stderr)
            return EXIT_FAILED
    text = json.dumps(body, ensure_ascii=False, indent=2) if args.json else out.as_text(args.command, body)
    show(text, as_json=args.json)
    return EXIT_OK


async def _answer(args: argparse.Namespace, values: dict[str, str], supervisor: Any) -> Any:
    from app.cli import surface_output as out
    from app.mcp import surface
    from app.mcp.uritemplate import expand

    await surface.listed(supervisor)
    if args.command == "resources":
        return out.resources_dict(surface.resources(supervisor), surface.templates(supervisor))
    if args.command == "prompts":
        return [out.prompt_dict(listed) for listed in surface.prompts(supervisor)]
    if args.command == "read":
        return out.read_dict(await surface.read_resource(supervisor, expand(args.uri, values), args.server))
    if args.command == "prompt":
        return out.messages_dict(await surface.get_prompt(supervisor, args.name, values))
    server = args.server or out.server_of(supervisor, args.ref)
    found = await surface.complete(supervisor, server, args.ref, args.argument, args.value, values)
    return {"server": server, "ref": args.ref, "argument": args.argument, "values": found}


def _pairs(values: list[str]) -> dict[str, str]:
    pairs = {}
    for value in values:
        key, equals, rest = value.partition("=")
        if not equals or not key:
            raise ValueError(f"arguments are key=value, not {value!r}")
        pairs[key] = rest
    return pairs


COMMANDS = dict.fromkeys(("resources", "read", "prompts", "prompt", "complete"), run)
