"""``calculon ask`` saves its turn, ``--continue`` carries the model's history on, and
``calculon history`` lists, shows, searches, exports and deletes; a kill -9 loses nothing saved."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app import cli
from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.history import History, history_path
from app.llm import registry
from app.llm.scripted import ScriptedBackend
from app.settings import settings_path
from tests.mcp.helpers import script_entry

ASK = ["ask", "--no-strict", "--yes"]


@pytest.fixture
def basic_only(tmp_path):
    path = tmp_path / "basic.json"
    path.write_text(json.dumps({"mcpServers": {"basic": script_entry("basic", "basic.py").to_json()}}))
    return path


@pytest.fixture
def model(monkeypatch):
    """Stand a scripted backend in for the local model; returns it for its requests."""

    def install(*steps: list) -> ScriptedBackend:
        backend = ScriptedBackend(list(steps))
        monkeypatch.setitem(registry._FACTORIES, "local", lambda **options: backend)
        return backend

    return install


def add(a: int, b: int) -> ToolCallChunk:
    return ToolCallChunk(ToolCall("c1", "add", {"a": a, "b": b}))


# What the model was told of the turn "What is 2 + 40?" that called add(2, 40).
FIRST_TURN = [("user", "What is 2 + 40?"), ("assistant", ""), ("tool", "42.0")]


def seen_by(backend: ScriptedBackend) -> list[tuple[str, str]]:
    """(role, text) of the history the model got with its first request."""
    return [(m.role, m.text) for m in backend.requests[0].messages]


def ask(config: Path, *args: str) -> int:
    return cli.run(["--config", str(config), *ASK, *args])


def test_ask_saves_the_turn_and_prints_its_conversation_id(basic_only, model, capsys):
    model([add(2, 40)], ["It is 42."])
    assert ask(basic_only, "What is 2 + 40?", "--json") == 0
    captured = capsys.readouterr()
    conversation_id = json.loads(captured.out)["conversation_id"]
    assert f"saved as conversation {conversation_id}" in captured.err
    assert cli.run(["history", "list", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (row["id"], row["title"]) == (conversation_id, "What is 2 + 40?")


def test_no_save_leaves_the_history_empty(basic_only, model, capsys):
    model(["Hello."])
    assert ask(basic_only, "hi", "--no-save") == 0
    assert "saved as" not in capsys.readouterr().err
    assert cli.run(["history", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_continue_gives_the_model_the_earlier_turns(basic_only, model, capsys):
    model([add(2, 40)], ["It is 42."])
    assert ask(basic_only, "What is 2 + 40?", "--json") == 0
    first = json.loads(capsys.readouterr().out)["conversation_id"]
    backend = model(["84."])
    assert ask(basic_only, "Double it?", "--continue", "--json") == 0
    assert json.loads(capsys.readouterr().out)["conversation_id"] == first
    assert seen_by(backend) == [*FIRST_TURN, ("assistant", "It is 42."), ("user", "Double it?")]


def test_continue_with_an_unknown_id_is_a_usage_error(basic_only, model, capsys):
    model()
    assert ask(basic_only, "hi", "--continue", "nope") == 2
    assert "no conversation 'nope' to continue" in capsys.readouterr().err


def test_ask_deletes_conversations_older_than_the_retention_setting(basic_only, model, capsys):
    model(["Old."], ["New."])
    assert ask(basic_only, "an old question", "--json") == 0
    old = json.loads(capsys.readouterr().out)["conversation_id"]
    with sqlite3.connect(history_path()) as db:
        db.execute("UPDATE conversations SET updated = 0 WHERE id = ?", (old,))
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text(json.dumps({"history_keep_days": 30}))
    assert ask(basic_only, "a new question", "--json") == 0
    kept = json.loads(capsys.readouterr().out)["conversation_id"]
    assert cli.run(["history", "list", "--json"]) == 0
    assert [row["id"] for row in json.loads(capsys.readouterr().out)] == [kept]


def test_history_search_show_export_and_delete(basic_only, model, capsys):
    model([add(2, 40)], ["It is 42."])
    assert ask(basic_only, "What is 2 + 40?", "--json") == 0
    conversation_id = json.loads(capsys.readouterr().out)["conversation_id"]
    assert cli.run(["history", "search", "42.0", "--json"]) == 0
    (hit,) = json.loads(capsys.readouterr().out)
    assert hit["id"] == conversation_id and "[42.0]" in hit["snippet"]
    assert cli.run(["history", "show", conversation_id]) == 0
    assert "### Tool call `basic.add`" in capsys.readouterr().out
    assert cli.run(["history", "export", conversation_id, "--format", "json"]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert (
        exported["events"][0]["kind"] == "turn_started" and exported["events"][-1]["kind"] == "turn_finished"
    )
    assert cli.run(["history", "delete", conversation_id]) == 0
    assert cli.run(["history", "show", conversation_id]) == 2
    assert cli.run(["history", "search", "42.0"]) == 1


def test_a_kill_9_mid_turn_keeps_the_question_the_call_and_its_result(
    basic_only, model, shared_cache_dir, capsys
):
    command = [sys.executable, str(Path(__file__).with_name("stalling_ask.py")), "--config", str(basic_only)]
    env = os.environ | {"CALCULON_CACHE_DIR": str(shared_cache_dir)}
    child = subprocess.Popen([*command, *ASK, "What is 2 + 40?"], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout is not None and child.stdout.readline() == "stalled\n"
        saved = _wait_for_kind(history_path(), "tool_call_finished")
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(10)
        child.stdout.close()  # type: ignore[union-attr]
    assert saved, "the tool's result was not committed within the writer's few milliseconds"
    problems: list[str] = []
    history = History(history_path(), problems.append)
    (conversation,) = history.conversations()
    kinds = [e.kind for e in history.events(conversation.id)]
    history.close()
    assert problems == [] and kinds[0] == "turn_started" and "tool_call_finished" in kinds
    assert "turn_finished" not in kinds
    backend = model(["It was 42."])
    assert ask(basic_only, "What was it?", "--continue", conversation.id) == 0
    seen = [(m.role, m.text) for m in backend.requests[0].messages]
    assert seen == [
        ("user", "What is 2 + 40?"),
        ("assistant", ""),
        ("tool", "42.0"),
        ("user", "What was it?"),
    ]


def _wait_for_kind(path: Path, kind: str, timeout: float = 5.0) -> bool:
    """Until the file holds an event of ``kind`` (the writer commits within milliseconds)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with sqlite3.connect(path) as db:
            if db.execute("SELECT 1 FROM events WHERE kind = ?", (kind,)).fetchone():
                return True
        time.sleep(0.01)
    return False


def test_ask_still_answers_when_the_history_cannot_be_saved(basic_only, model, capsys, tmp_path, monkeypatch):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the data folder should be")
    monkeypatch.setenv("CALCULON_DATA_DIR", str(blocked))
    model(["Hello."])
    assert ask(basic_only, "hi", "--json") == 0
    captured = capsys.readouterr()
    assert "conversation_id" not in json.loads(captured.out) and "saved as" not in captured.err
    assert "The history cannot be saved" in captured.err and "goes on without saving" in captured.err
    assert blocked.read_text() == "a file where the data folder should be"
