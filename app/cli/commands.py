"""The CLI subcommands. Each returns the process exit code."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from app.cli import history as cli_history
from app.cli import output, running, surface
from app.cli.exits import EXIT_FAILED, EXIT_OK, EXIT_UNAVAILABLE, EXIT_USAGE
from app.cli.visible import show
from app.core import events as ev
from app.core import progress
from app.core.tools import ToolInfo, ToolResult
from app.jsonfile import JsonProblem, loads
from app.mcp.config import SERVER_NAME, TOOL_NAME, ConfigError, load_config, shown
from app.mcp.early import EarlyStarts
from app.settings import Settings, SettingsError, strict_settings

if TYPE_CHECKING:  # the SDK loads only once the servers' processes are started (app.mcp.early)
    from app.cli.calling import CallPermissions


# The commands that connect to servers, and so may read a sign-in's tokens.
SIGNS_IN = ("tools", "call", "servers", "ask", "serve", "auth", *surface.COMMANDS)


def dispatch(args: argparse.Namespace) -> int:
    handlers = {
        "tools": tools,
        "call": call,
        "servers": servers,
        "ask": ask,
        "serve": serve,
        "history": cli_history.command,
        "models": _models,
        "tasks": _tasks,
        "auth": _auth,
        **surface.COMMANDS,
    }
    try:
        if args.command in SIGNS_IN:
            from app.cli.token_store import unlock

            unlock()
        return handlers[args.command](args)
    except (ConfigError, SettingsError) as exc:
        return _fail(str(exc), EXIT_USAGE)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `calculon tools | head`: the reader left, which is fine
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def _models(args: argparse.Namespace) -> int:
    from app.cli import models  # the library and huggingface_hub load only for this command

    return models.command(args)


def _tasks(args: argparse.Namespace) -> int:
    from app.cli import tasks

    return tasks.command(args)


def _auth(args: argparse.Namespace) -> int:
    from app.cli import auth

    return auth.command(args)


def _fail(message: str, code: int = EXIT_FAILED) -> int:
    show(f"calculon: {message}", sys.stderr)
    return code


# --- servers and tools ---------------------------------------------------


def tools(args: argparse.Namespace) -> int:
    async def body() -> int:
        async with running.running_servers(args.config) as supervisor:
            running.warn_unavailable(supervisor)
            found = supervisor.list_tools()
        if args.query:
            show(_ranking(args, found), as_json=args.json)
        else:
            show(output.tools_json(found) if args.json else output.tools_text(found), as_json=args.json)
        return EXIT_OK

    return running.run(body())


def _ranking(args: argparse.Namespace, found: list[ToolInfo]) -> str:
    """The tools ranked for ``--query`` with their scores; pinned tools (settings) come first."""
    from app.mcp.retrieval import StaticEncoder, format_ranking, rank, shared_encoder

    settings = strict_settings()
    encoder = shared_encoder(settings.tool_encoder)
    if isinstance(encoder, StaticEncoder) and not encoder.table_path().is_file():
        print("Preparing tool matching: once per machine, about half a minute...", file=sys.stderr)
    rows = rank(args.query, found, max(args.top, 1), pinned=settings.pinned_tools, encoder=encoder)
    return format_ranking(rows, as_json=args.json)


def servers(args: argparse.Namespace) -> int:
    from app.cli import pinning

    accepting = getattr(args, "servers_action", None) == "accept"
    if accepting and args.server not in load_config(args.config).servers:
        return _fail(f"server {shown(args.server)} is not configured", EXIT_USAGE)

    async def body() -> int:
        async with running.running_servers(args.config, args.server if accepting else "") as supervisor:
            if accepting:
                return pinning.accept(supervisor, args)
            await pinning.report(supervisor, args.json)
        return EXIT_OK

    return running.run(body())


def call(args: argparse.Namespace) -> int:
    try:
        arguments = loads(args.arguments)
    except JsonProblem as exc:
        hint = "; pass a long number as a string" if "digits" in str(exc) else ""
        return _fail(f"JSON_ARGS {exc}{hint}", EXIT_USAGE)
    if not isinstance(arguments, dict):
        return _fail(f"JSON_ARGS must be a JSON object, not {type(arguments).__name__}", EXIT_USAGE)
    if not _addressable(args.tool):
        return _fail(f"TOOL must be a tool name or SERVER.TOOL, not {shown(args.tool)}", EXIT_USAGE)
    from app.cli.asking import CliUser

    try:
        user = CliUser.from_args(args)
    except ValueError as exc:
        return _fail(f"--elicit: {exc}", EXIT_USAGE)
    return running.run(_call(args, arguments, user))


async def _call(args: argparse.Namespace, arguments: dict[str, Any], user: Any) -> int:
    async with running.early_servers(args.config, _server_named_in(args)) as early:
        from app.cli.calling import CallPermissions  # the SDK loads now, while the servers start

        permissions = CallPermissions(user, load_config(args.config), output.AskLog(sys.stderr))
        return await _call_on(early, permissions, args, arguments)


async def _call_on(
    early: EarlyStarts, permissions: CallPermissions, args: argparse.Namespace, arguments: dict[str, Any]
) -> int:
    updates: list[progress.ProgressUpdate] = []
    try:
        async with running.supervising(early, permissions.handlers, wait=False) as supervisor:
            await supervisor.wait_for_tool(args.tool, strict_settings().startup_wait_s)
            info = supervisor.resolve(args.tool)
            if info is not None:  # naming the tool on the command line is asking for this call
                permissions.approvals.grant(info)
            refusal = await permissions.approvals(info, arguments) if info else None
            with progress.reporting_to(updates.append):
                result = (
                    ToolResult(refusal, True) if refusal else await supervisor.call_tool(args.tool, arguments)
                )
    finally:
        await permissions.aclose()
    if args.json:
        answered = permissions.log.answered
        show(output.call_json(info, args.tool, arguments, result, answered, updates), as_json=True)
    elif not result.is_error:
        show(result.text)
    if result.is_error:
        return _fail(result.text)
    return EXIT_OK


def _addressable(name: str) -> bool:
    """A bare tool name, or SERVER.TOOL with both parts valid ("evil." names no tool)."""
    server, dot, tool = name.partition(".")
    if not dot:
        return bool(TOOL_NAME.fullmatch(name))
    return bool(SERVER_NAME.fullmatch(server) and TOOL_NAME.fullmatch(tool))


def _server_named_in(args: argparse.Namespace) -> str:
    """For ``SERVER.TOOL``, only that server needs starting."""
    prefix = args.tool.partition(".")[0] if "." in args.tool else ""
    return prefix if prefix in load_config(args.config).servers else ""


def serve(args: argparse.Namespace) -> int:
    from app.servers import serve_command

    return serve_command(args.name)


# --- ask ----------------------------------------------------------------


_MODEL_FIELDS = {"gemini": "gemini_model", "openai": "openai_model"}  # which setting --model sets


def ask_settings(args: argparse.Namespace) -> Settings:
    """Saved settings with the command line's overrides, validated."""
    settings = strict_settings()
    changes: dict[str, Any] = {}
    if args.backend:
        changes["backend"] = args.backend
    if args.strict is not None:
        changes["strict"] = args.strict
    backend = changes.get("backend", settings.backend)
    if args.model:
        changes[_MODEL_FIELDS.get(backend, "model_path")] = args.model
    if args.base_url:
        changes["openai_base_url"] = args.base_url
    if getattr(args, "no_save", False):  # a turn that is not kept is not continued: no state to keep
        changes["keep_conversations"] = False
    settings = Settings.from_dict({**settings.to_dict(), **changes})
    settings.check_usable()
    return settings


def ask(args: argparse.Namespace) -> int:
    return running.run(_ask(args, ask_settings(args)))


async def _ask(args: argparse.Namespace, settings: Settings) -> int:
    # The servers' processes start first, so their start-up overlaps the SDK's import here and,
    # through Engine.ask, the model's load: a fresh ask waits for the slowest of the three, not their sum.
    from app.mcp.known import started_later

    later = started_later(load_config(args.config), settings.strict)
    async with running.early_servers(args.config, later=later) as early:
        return await _ask_with(args, settings, early, later)


def _reporting_to(printer: output.EventPrinter) -> Callable[[float, str], None]:
    """The early load's progress (the GPU offload estimate first) on stderr, from its worker."""
    loop = asyncio.get_running_loop()

    def report(progress: float, message: str) -> None:
        event = ev.ModelLoading(progress=min(max(progress, 0.0), 1.0), message=message)
        loop.call_soon_threadsafe(printer, event)

    return report


def _quietly(task: asyncio.Task[None]) -> None:
    if not task.cancelled():
        task.exception()


async def _ask_with(
    args: argparse.Namespace, settings: Settings, early: EarlyStarts, later: frozenset[str]
) -> int:
    from app.core.backend import BackendError, load_under_way
    from app.llm.registry import create_backend

    try:
        backend = create_backend(settings.backend, **settings.to_dict())
    except BackendError as exc:
        return _fail(exc.message, EXIT_UNAVAILABLE)
    printer = output.EventPrinter(sys.stderr)
    loading = asyncio.create_task(backend.load(_reporting_to(printer)))
    loading.add_done_callback(_quietly)  # a failed load fails again, worded, in Engine.ask
    try:
        await load_under_way(backend, loading)  # llama.cpp starts while the engine is imported below
        from app.cli.asking import CliUser
        from app.engine import Engine

        user = CliUser.from_args(args)
    except ValueError as exc:
        await backend.aclose()
        return _fail(f"--elicit: {exc}", EXIT_USAGE)
    except BaseException:  # a SIGTERM before the engine owns the backend: its process is ours to stop
        await backend.aclose()
        raise
    engine = Engine.from_settings(
        settings,
        servers_path=args.config,
        backend=backend,
        sink=printer,
        user=user,
        early=early,
        on_demand=later,
        prepare_retrieval=False,  # a table distilled here would outlive the answer by half a minute
    )
    try:
        saving = cli_history.AskSaving.start(args, engine)
    except LookupError as exc:
        await engine.aclose()
        return _fail(str(exc), EXIT_USAGE)
    try:
        outcome = await engine.ask(args.prompt)  # starts the servers while the model loads
    except BackendError as exc:
        return _fail(exc.message, EXIT_UNAVAILABLE)
    finally:
        await engine.aclose()
        if saving is not None:
            saving.close()
    saved = {"conversation_id": saving.conversation_id} if saving and saving.conversation_id else {}
    show(
        json.dumps(outcome.to_dict() | saved, ensure_ascii=False)
        if args.json
        else output.answer_text(outcome),
        as_json=args.json,
    )
    if outcome.cancelled:
        return 130
    return EXIT_FAILED if outcome.error else EXIT_OK
