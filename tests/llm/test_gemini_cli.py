"""``calculon ask --backend gemini --json`` as a child process against the wire fixture."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.llm import gemini_fixture as g

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def wire() -> Iterator[g.GeminiWireServer]:
    with g.GeminiWireServer() as server:
        yield server


@pytest.fixture(autouse=True)
def child_cache(shared_cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CALCULON_CACHE_DIR", str(shared_cache_dir))


@pytest.fixture
def servers_file(tmp_path: Path) -> Path:
    path = tmp_path / "servers.json"
    calculator = {"command": "calculon", "args": ["serve", "calculator"]}
    path.write_text(json.dumps({"mcpServers": {"calculator": calculator}}), encoding="utf-8")
    return path


def ask(
    servers_file: Path, env: dict[str, str], question: str = "What is 2 + 3?"
) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "app", "--config", str(servers_file)]
    argv += ["ask", question, "--backend", "gemini", "--json"]
    # No OS keyring in the child, whatever the machine has: only the environment may supply a key.
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring", **env}
    return subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True, timeout=120, check=False)


def test_ask_with_the_gemini_backend_runs_the_tool_and_prints_the_turn_as_json(wire, servers_file):
    wire.script(
        g.Stream([g.chunk(g.call_part("add", {"a": 2, "b": 3}, call_id="c-1"), finish="STOP")]),
        g.answer("2 + 3 = 5."),
    )

    done = ask(servers_file, {"GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": wire.base_url})

    assert done.returncode == 0, done.stderr
    turn = json.loads(done.stdout)
    assert turn["answer"] == "2 + 3 = 5."
    (call,) = turn["tool_calls"]
    assert (call["server"], call["tool"], call["arguments"], call["is_error"]) == (
        "calculator",
        "add",
        {"a": 2, "b": 3},
        False,
    )
    assert [r.headers["x-goog-api-key"] for r in wire.requests] == ["test-key", "test-key"]
    (sent,) = g.function_responses(wire.requests[1])
    response = {"result": {"value": "5", "exact": True}, "text": call["result"]}  # structured content as JSON
    assert sent == {"id": "c-1", "name": "add", "response": response}


def test_ask_without_a_key_fails_and_says_how_to_set_one(wire, servers_file):
    done = ask(servers_file, {"GOOGLE_GEMINI_BASE_URL": wire.base_url})

    assert done.returncode != 0
    assert "GEMINI_API_KEY" in done.stderr
    assert wire.requests == []


def test_a_wrong_gemini_answer_is_reasked_with_the_calculator_on_offer_and_ends_verified(wire, tmp_path):
    # All three bundled servers: 17 tools, over the retrieval threshold, so tools are ranked. In
    # Calculon mode the calculator is pinned: the re-ask step offers multiply whatever ranks
    # first. The converter's convert is pinned only where the question names a unit.
    servers = tmp_path / "bundled.json"
    bundled = {n: {"command": "calculon", "args": ["serve", n]} for n in ("calculator", "converter", "clock")}
    servers.write_text(json.dumps({"mcpServers": bundled}), encoding="utf-8")
    wire.script(
        g.answer("1234 times 5678 is 7006000."),
        g.Stream([g.chunk(g.call_part("multiply", {"a": 1234, "b": 5678}, call_id="m-1"), finish="STOP")]),
        g.answer("1234 × 5678 = 7006652."),
    )

    env = {"GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": wire.base_url}
    done = ask(servers, env, "What is 1234 times 5678?")

    assert done.returncode == 0, done.stderr
    turn = json.loads(done.stdout)
    offered = [{d["name"] for t in r.body.get("tools", []) for d in t.get("functionDeclarations", [])}
               for r in wire.requests]  # fmt: skip
    assert all({"multiply", "add", "evaluate"} <= names for names in offered), offered
    assert [c["tool"] for c in turn["tool_calls"]] == ["multiply"]
    assert turn["tool_calls"][0]["result"] == "7006652"
    assert (turn["answer"], turn["verified"], turn["verdict"]) == ("1234 × 5678 = 7006652.", True, "verified")
    assert {"text": "7006652", "source": "multiply(1234, 5678)"} in turn["numbers"]
