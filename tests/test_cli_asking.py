"""The command line answers requests for a person: flags, a terminal (a real pty), or a clear
decline. Each test runs the real ``calculon`` as a child process."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import time

import pytest

from app import cli
from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.llm import registry
from app.llm.scripted import ScriptedBackend
from app.settings import load_settings
from tests.everything import everything_entry
from tests.mcp.helpers import script_entry
from tests.test_cli import SCRIPT, calculon


def servers(tmp_path, *entries) -> str:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {e.name: e.to_json() for e in entries}}))
    return str(path)


@pytest.fixture
def asking(tmp_path) -> str:
    return servers(tmp_path, script_entry("asking", "asking.py"))


@pytest.fixture
def everything(tmp_path) -> str:
    return servers(tmp_path, everything_entry())


def test_a_destructive_tool_without_a_terminal_or_yes_is_declined_and_exits_1(asking):
    done = calculon("--config", asking, "call", "wipe", '{"what": "disk"}')
    assert done.returncode == 1 and done.stdout == ""
    assert "calculon: declined: needs approval" in done.stderr


def test_yes_approves_a_destructive_tool(asking):
    done = calculon("--config", asking, "call", "wipe", '{"what": "disk"}', "--yes")
    assert done.returncode == 0 and done.stdout == "wiped disk\n"


def test_decline_json_prints_the_servers_answer_to_the_decline(everything):
    done = calculon(
        "--config", everything, "call", "trigger-elicitation-request", "{}", "--decline", "--json"
    )
    body = json.loads(done.stdout)
    assert done.returncode == 0 and "User declined" in body["result"]
    assert body["asked"][0]["request"] == "elicitation" and body["asked"][0]["answer"].startswith("decline")


def test_elicit_answers_a_form_with_the_given_object(everything):
    answer = json.dumps({"name": "Ada", "check": True, "integer": 7})
    done = calculon("--config", everything, "call", "trigger-elicitation-request", "{}", "--elicit", answer)
    assert done.returncode == 0
    assert "- Name: Ada" in done.stdout and "- Favorite Integer: 7" in done.stdout


def test_an_elicit_object_that_does_not_fit_the_form_is_not_sent(asking):
    done = calculon("--config", asking, "call", "book", "{}", "--elicit", '{"seats": 40}')
    assert done.stdout == "no booking: cancel\n"
    assert "name: required" in done.stderr and "seats:" in done.stderr


def test_elicit_fills_in_the_forms_defaults_for_the_fields_it_leaves_out(asking):
    done = calculon("--config", asking, "call", "seat", "{}", "--elicit", '{"name": "Ada"}')
    assert done.returncode == 0 and done.stdout == "seated Ada by the window\n", done.stderr
    chosen = calculon("--config", asking, "call", "seat", "{}", "--elicit", '{"name": "Ada", "area": "bar"}')
    assert chosen.stdout == "seated Ada by the bar\n"


def test_without_a_terminal_or_flag_a_form_is_declined_at_once(asking):
    started = time.monotonic()
    done = calculon("--config", asking, "call", "book", "{}", timeout=30)
    assert done.stdout == "no booking: decline\n" and "needs your answer" in done.stderr
    assert time.monotonic() - started < 30


def test_decline_refuses_sampling_before_the_model_loads(everything):
    done = calculon(
        "--config", everything, "call", "trigger-sampling-request", '{"prompt": "hi"}', "--decline"
    )
    assert done.returncode == 1 and "declined the sampling request" in done.stderr
    assert "model:" not in done.stderr


@pytest.mark.slow
def test_yes_runs_sampling_on_the_configured_local_model(everything):
    arguments = '{"prompt": "Say hello", "maxTokens": 8}'
    done = calculon(
        "--config", everything, "call", "trigger-sampling-request", arguments, "--yes", timeout=240
    )
    assert done.returncode == 0, done.stderr
    assert "LLM sampling result" in done.stdout and '"role": "assistant"' in done.stdout
    assert "SmolLM2" in done.stdout or "smollm2" in done.stdout.lower()


class Pty:
    """The CLI on a real terminal: stdin and stderr on a pty, stdout on a pipe."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.master, slave = pty.openpty()
        command = [str(SCRIPT)] if SCRIPT.exists() else ["python", "-m", "app"]
        self.child = subprocess.Popen(
            [*command, *args],
            stdin=slave,
            stderr=slave,
            stdout=subprocess.PIPE,
            text=True,
            env=env or os.environ,
            start_new_session=True,  # no controlling terminal but this one: getpass must not find another
        )
        os.close(slave)
        self.seen = ""

    def expect(self, text: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            left = deadline - time.monotonic()
            assert left > 0, f"never saw {text!r}; saw {self.seen[-500:]!r}"
            if select.select([self.master], [], [], left)[0]:
                self.seen += os.read(self.master, 4096).decode(errors="replace")

    def answer(self, prompt: str, line: str) -> None:
        self.expect(prompt)
        self.seen = self.seen[self.seen.index(prompt) + len(prompt) :]
        os.write(self.master, (line + "\n").encode())

    def finish(self, timeout: float = 60) -> tuple[int, str]:
        out, _ = self.child.communicate(timeout=timeout)
        os.close(self.master)
        return self.child.returncode, out


def test_on_a_terminal_a_destructive_call_shows_its_arguments_and_always_is_remembered(asking):
    term = Pty("--config", asking, "call", "wipe", '{"what": "disk"}')
    term.expect('"what": "disk"')
    term.answer("ne[v]er: ", "a")
    code, out = term.finish()
    assert code == 0 and out == "wiped disk\n"
    assert load_settings()[0].tool_approvals == {"asking.wipe": "always"}
    again = calculon("--config", asking, "call", "wipe", '{"what": "more"}')
    assert again.returncode == 0 and again.stdout == "wiped more\n"


def test_on_a_terminal_a_form_is_filled_in_and_checked_field_by_field(asking):
    term = Pty("--config", asking, "call", "book", "{}")
    term.expect("Never enter passwords")
    term.answer("[c]ancel: ", "y")
    term.answer("Your name", "Ada")
    term.answer("Seats", "nine")
    term.answer("not an integer: nine", "")  # Enter takes the default
    term.answer("email", "")
    code, out = term.finish()
    assert code == 0 and out == "booked 2 seats for Ada\n"


def test_ask_without_a_terminal_declines_a_destructive_call_and_the_turn_goes_on(asking, monkeypatch, capsys):
    wipe = ToolCallChunk(ToolCall("c1", "wipe", {"what": "disk"}))
    backend = ScriptedBackend([[wipe], ["I could not wipe it."]])
    monkeypatch.setitem(registry._FACTORIES, "local", lambda **options: backend)
    assert cli.run(["--config", asking, "ask", "wipe the disk", "--json", "--no-strict"]) == 0
    body = json.loads(capsys.readouterr().out)
    (record,) = body["tool_calls"]
    assert record["is_error"] and "declined: needs approval" in record["result"]
    assert body["answer"] == "I could not wipe it."
    kinds = [e["kind"] for e in body["events"]]
    assert kinds.index("tool_call_started") < kinds.index("tool_call_finished")
