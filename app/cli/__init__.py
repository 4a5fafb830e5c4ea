"""The headless command line: the same engine as the window, driven from a shell.

    calculon [--config FILE]                       the window
    calculon tools [--json] [--query TEXT --top K] every discovered tool, or their ranking for TEXT
    calculon call TOOL [JSON_ARGS] [--json]        one tool, called directly
              [--yes] [--decline] [--elicit JSON] (also on ask): how requests for a person are answered
    calculon servers [--json]                      each configured server's state, changed tools, flags
    calculon servers accept SERVER [TOOL]          offer a changed tool again (app.cli.pinning)
    calculon ask PROMPT [--backend B] [--model M] [--base-url URL] [--json] [--strict/--no-strict]
                 [--no-save] [--continue [ID]]      saved in the history unless --no-save
    calculon resources|read|prompts|prompt|complete  what servers offer besides tools (app.cli.surface)
    calculon history list|show|search|export|delete   the saved conversations (app.cli.history)
    calculon models list|pull|rm [--json]          local GGUFs: list, download, remove (app.cli.models)
    calculon auth login|status|logout [SERVER]     OAuth sign-in to remote servers (app.cli.auth)
    calculon tasks [--json]                        tasks servers made of calls, last status (app.cli.tasks)
    calculon serve NAME                            one bundled server over stdio
    calculon --self-test                           check this installation, then exit 0 or 1

Imports stay inside the commands so each one loads only what it uses.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from app.cli import history as cli_history
from app.cli.exits import EXIT_FAILED, EXIT_UNAVAILABLE
from app.llm.registry import backend_names


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="calculon", description="A language model with MCP tools that never does its own arithmetic."
    )
    parser.add_argument("--config", type=Path, metavar="FILE", help="the mcpServers JSON file to use")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="log more (repeat for debug)")
    parser.add_argument(
        "--self-test", action="store_true", help="start the bundled servers, call one tool of each, and exit"
    )
    # The window closes itself this long after it is ready: for smoke tests of packaged builds.
    parser.add_argument("--quit-after", type=float, metavar="SECONDS", help=argparse.SUPPRESS)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    tools = commands.add_parser("tools", help="list every tool the configured servers offer")
    tools.add_argument("--json", action="store_true", help="print JSON")
    tools.add_argument("--query", metavar="TEXT", help="rank the tools for TEXT, as tool retrieval would")
    tools.add_argument("--top", type=int, default=5, metavar="K", help="with --query: how many (default 5)")
    call = commands.add_parser("call", help="call one tool directly")
    call.add_argument("tool", metavar="TOOL", help="tool name, or SERVER.TOOL")
    call.add_argument("arguments", metavar="JSON_ARGS", nargs="?", default="{}", help="e.g. '{\"a\": 1}'")
    call.add_argument("--json", action="store_true", help="print the result as JSON")
    add_flags(call)
    servers = commands.add_parser("servers", help="start the configured servers and show their state")
    servers.add_argument("--json", action="store_true", help="print JSON")
    from app.cli import pinning

    pinning.add_parser(servers)
    _add_ask(commands)
    from app.cli import surface  # here, not above: only a command that needs it loads it

    surface.add_parsers(commands)
    cli_history.add_parser(commands)
    from app.cli import models

    models.add_parser(commands)
    from app.cli import tasks

    tasks.add_parser(commands)
    from app.cli import auth

    auth.add_parser(commands)
    serve = commands.add_parser("serve", help="run one bundled MCP server over stdio")
    serve.add_argument("name", metavar="NAME")
    return parser


def _add_ask(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ask = commands.add_parser("ask", help="run one turn and print the answer")
    ask.add_argument("prompt", metavar="PROMPT")
    ask.add_argument("--backend", choices=backend_names(), help="override the configured backend")
    ask.add_argument("--model", metavar="PATH", help="GGUF file (local) or model name (gemini, openai)")
    ask.add_argument("--base-url", metavar="URL", help="the OpenAI-compatible server (openai), e.g. .../v1")
    ask.add_argument("--json", action="store_true", help="print the turn as JSON on stdout")
    ask.add_argument(
        "--strict", action=argparse.BooleanOptionalAction, default=None, help="Calculon mode (number checks)"
    )
    add_flags(ask)
    cli_history.add_ask_flags(ask)


def add_flags(parser: argparse.ArgumentParser) -> None:
    """How requests that need a person are answered (see :mod:`app.cli.asking`)."""
    parser.add_argument("--yes", action="store_true", help="approve every tool call and sampling request")
    parser.add_argument(
        "--decline", action="store_true", help="decline every elicitation and sampling request"
    )
    parser.add_argument(
        "--elicit", metavar="JSON", help="answer every form elicitation with this JSON object"
    )


def run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    level = (logging.WARNING, logging.INFO, logging.DEBUG)[min(args.verbose, 2)]
    handler = logging.StreamHandler()
    handler.setFormatter(_VisibleFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler])
    if args.self_test:
        from app.selftest import run_self_test

        return run_self_test()
    if args.command is None:
        return _gui(argv)
    from app.cli import commands

    return commands.dispatch(args)


class _VisibleFormatter(logging.Formatter):
    """Log lines quote what servers said: escapes in them are shown, not acted on."""

    def format(self, record: logging.LogRecord) -> str:
        from app.cli.visible import visible

        return visible(super().format(record))


def _gui(argv: list[str]) -> int:
    from app.ui.system_libs import window_problem

    # Before PySide6 is imported: a missing system library makes Qt abort without naming it.
    problem = window_problem()
    if problem is not None:
        print(f"calculon: the window cannot open. {problem}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    try:
        from app.ui.main import main as ui_main
    except ImportError as exc:
        print(f"calculon: the window is not available ({exc}); try `calculon --help`", file=sys.stderr)
        return EXIT_FAILED
    return int(ui_main(argv) or 0)
