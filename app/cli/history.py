"""``calculon history list|show|search|export|delete`` and the saving of ``calculon ask``.

calculon history list [--json]                 every conversation, pinned first, newest next
calculon history show ID [--json]              one conversation, readable (or its events)
calculon history search TEXT [--json]          conversations whose messages or tool results match
calculon history export ID --format md|json    Markdown to read, or the full event stream
calculon history delete ID [--json]            gone for good (the window has undo, not the shell)
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from typing import TYPE_CHECKING, Any

from app.cli.visible import show

if TYPE_CHECKING:
    from app.engine import Engine
    from app.history import Conversation, History

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
LATEST = "latest"


def add_ask_flags(ask: argparse.ArgumentParser) -> None:
    ask.add_argument("--no-save", action="store_true", help="do not save this turn in the history")
    ask.add_argument(
        "--continue",
        dest="continue_id",
        nargs="?",
        const=LATEST,
        metavar="ID",
        help="continue the latest conversation, or the one with this id",
    )


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    history = commands.add_parser("history", help="browse, search, export and delete saved conversations")
    actions = history.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, help_text, argument in (
        ("list", "every conversation", None),
        ("show", "one conversation", "ID"),
        ("search", "full-text search over messages and tool results", "TEXT"),
        ("export", "one conversation as Markdown or JSON", "ID"),
        ("delete", "delete one conversation", "ID"),
    ):
        action = actions.add_parser(name, help=help_text)
        if argument:
            action.add_argument("target", metavar=argument)
        action.add_argument("--json", action="store_true", help="print JSON")
        if name == "export":
            action.add_argument("--format", choices=("md", "json"), default="md")


def _say(line: str) -> None:
    show(f"calculon: {line}", sys.stderr)


def _open() -> History:
    from app.history import History

    return History.open(_say)


def command(args: argparse.Namespace) -> int:
    history = _open()
    try:
        if args.action in ("list", "search"):
            return _list(args, history)
        found = history.get(args.target)
        if found is None:
            _say(f"no conversation {args.target!r} in the history (`calculon history list` shows them)")
            return EXIT_USAGE
        return {"show": _show, "export": _export, "delete": _delete}[args.action](args, history, found)
    finally:
        history.close()


def _list(args: argparse.Namespace, history: History) -> int:
    if args.action == "list":
        rows = [(c, "") for c in history.conversations()]
    else:
        rows = [(hit.conversation, hit.marked("[", "]")) for hit in history.search(args.target)]
    if args.json:
        show(json.dumps([_row_json(c, snippet) for c, snippet in rows], ensure_ascii=False), as_json=True)
    else:
        for conversation, snippet in rows:
            show(_row_text(conversation) + (f"\n    {snippet}" if snippet else ""))
    return EXIT_OK if rows or args.action == "list" else EXIT_FAILED


def _row_json(conversation: Conversation, snippet: str) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": conversation.id,
        "title": conversation.title,
        "created": conversation.created,
        "updated": conversation.updated,
        "pinned": conversation.pinned,
        "events": conversation.events,
    }
    return row | ({"snippet": snippet} if snippet else {})


def _row_text(conversation: Conversation) -> str:
    when = datetime.datetime.fromtimestamp(conversation.updated).strftime("%Y-%m-%d %H:%M")
    pin = "* " if conversation.pinned else ""
    return f"{conversation.id}  {when}  {pin}{conversation.title}"


def _show(args: argparse.Namespace, history: History, conversation: Conversation) -> int:
    args.format = "json" if args.json else "md"
    return _export(args, history, conversation)


def _export(args: argparse.Namespace, history: History, conversation: Conversation) -> int:
    from app.history.export import to_json, to_markdown

    bodies = history.event_bodies(conversation.id)
    if args.format == "json":
        show(to_json(conversation, bodies), as_json=True)
    else:
        show(to_markdown(conversation, bodies))
    return EXIT_OK


def _delete(args: argparse.Namespace, history: History, conversation: Conversation) -> int:
    history.delete(conversation.id)
    history.purge()
    history.flush()
    show(
        json.dumps({"deleted": conversation.id}) if args.json else f"deleted {conversation.id}",
        as_json=args.json,
    )
    return EXIT_OK


# --- calculon ask ----------------------------------------------------------


class AskSaving:
    """The history behind one ``calculon ask``: the turn's events go in as they happen."""

    def __init__(self, history: History, conversation_id: str | None, *, save: bool) -> None:
        from app.history import Recorder

        self.history, self.save = history, save
        self.recorder = Recorder(history, conversation_id)

    @classmethod
    def start(cls, args: argparse.Namespace, engine: Engine) -> AskSaving | None:
        """None with ``--no-save``; raises LookupError when ``--continue ID`` names no conversation."""
        if args.no_save and args.continue_id is None:
            return None
        history = _open()
        history.purge(engine.settings.history_keep_days)
        try:
            saving = cls(history, cls._continued(args, history, engine), save=not args.no_save)
        except LookupError:
            history.close()
            raise
        if saving.save:
            engine.subscribe(saving.recorder.sink)
        return saving

    @staticmethod
    def _continued(args: argparse.Namespace, history: History, engine: Engine) -> str | None:
        from app.history.restore import earlier_result, model_history

        if args.continue_id is None:
            return None
        found = history.latest() if args.continue_id == LATEST else history.get(args.continue_id)
        if found is None:
            raise LookupError(f"no conversation {args.continue_id!r} to continue")
        events = history.events(found.id)
        engine.restore_history(*model_history(events), earlier_result(events))
        return found.id

    @property
    def conversation_id(self) -> str | None:
        return self.recorder.conversation_id if self.save and self.history.saving else None

    def close(self) -> None:
        self.history.flush()
        if saved := self.conversation_id:
            _say(f"saved as conversation {saved} (continue it with --continue {saved})")
        self.history.close()
