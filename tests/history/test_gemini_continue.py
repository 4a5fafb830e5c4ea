"""A continued Gemini conversation sends the earlier turn's thought signatures back on the wire:
``calculon ask --continue`` against the Gemini wire fixture, with the real calculator child."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from app import cli
from app.history import History
from tests.llm import gemini_fixture as g

ASK = ["ask", "--backend", "gemini", "--no-strict", "--yes", "--json"]


@pytest.fixture
def wire(monkeypatch) -> Iterator[g.GeminiWireServer]:
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    with g.GeminiWireServer() as server:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.base_url)
        yield server


@pytest.fixture
def servers_file(tmp_path):
    path = tmp_path / "servers.json"
    calculator = {"command": "calculon", "args": ["serve", "calculator"]}
    path.write_text(json.dumps({"mcpServers": {"calculator": calculator}}), encoding="utf-8")
    return str(path)


def signatures(request: g.Recorded) -> list[str]:
    """Every thought signature one request carried, in order."""
    parts = [p for content in request.body.get("contents", []) for p in content.get("parts", [])]
    return [p["thoughtSignature"] for p in parts if "thoughtSignature" in p]


def test_continue_sends_the_earlier_gemini_turns_thought_signatures_back(wire, servers_file, capsys):
    # A signature that looks like a Google key (AIza + 35) is no key: it must come back byte for byte.
    call_sig, answer_sig = "AIza" + "B" * 36, g.signature("answer-1")
    thought = g.text_part("Add with the tool.", thought=True)
    called = g.call_part("add", {"a": 2, "b": 3}, call_id="c-1", sig=call_sig)
    wire.script(g.Stream([g.chunk(thought, called, finish="STOP")]), g.answer("2 + 3 = 5.", sig=answer_sig))
    assert cli.run(["--config", servers_file, *ASK, "What is 2 + 3?"]) == 0
    first = json.loads(capsys.readouterr().out)["conversation_id"]
    wire.script(g.answer("It was 5."))
    assert cli.run(["--config", servers_file, *ASK, "What was it?", "--continue"]) == 0
    assert json.loads(capsys.readouterr().out)["conversation_id"] == first
    assert len(wire.requests) == 3
    assert signatures(wire.requests[2]) == [call_sig, answer_sig]


def test_a_gemini_turns_record_is_stored_with_its_step_and_no_secret(wire, servers_file, capsys, monkeypatch):
    monkeypatch.setenv("SOME_SERVICE_TOKEN", "tok-1234567890")
    wire.script(g.answer("The token is tok-1234567890.", sig=g.signature("a")))
    assert cli.run(["--config", servers_file, *ASK, "Hi"]) == 0
    conversation = json.loads(capsys.readouterr().out)["conversation_id"]
    history = History.open(print)
    try:
        bodies = [e for e in history.event_bodies(conversation) if e["kind"] == "step_finished"]
    finally:
        history.close()
    [record] = [b["provider_data"] for b in bodies]
    assert record["role"] == "model" and record["parts"][-1]["thought_signature"] == g.signature("a")
    assert "tok-1234567890" not in json.dumps(record)
