"""The command line: most behaviour in-process, a few end-to-end runs of the installed script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app import cli
from app.cli import commands, output
from app.core import events as ev
from app.core.backend import BackendError, ToolCallChunk
from app.core.messages import ToolCall
from app.llm import registry
from app.llm.scripted import ScriptedBackend
from app.mcp.config import ServerEntry
from tests.mcp.helpers import script_entry

SCRIPT = Path(sys.executable).with_name("calculon")


def calculon(
    *args: str, timeout: float = 60, stdin: int = subprocess.DEVNULL
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``calculon`` script (``python -m app`` where it is not installed); no
    terminal, so whatever needs a person is answered by the flags or declined."""
    command = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "app"]
    return subprocess.run(
        [*command, *args], capture_output=True, text=True, timeout=timeout, check=False, stdin=stdin
    )


@pytest.fixture
def servers_file(tmp_path):
    """A servers file with the test server, a server that cannot start, and a disabled one."""
    entries = [
        script_entry("basic", "basic.py"),
        ServerEntry("ghost", command="/no/such/server"),
        ServerEntry("off", url="https://example.com/mcp", disabled=True),
    ]
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {e.name: e.to_json() for e in entries}}))
    return path


@pytest.fixture
def basic_only(tmp_path):
    path = tmp_path / "basic.json"
    path.write_text(json.dumps({"mcpServers": {"basic": script_entry("basic", "basic.py").to_json()}}))
    return path


def test_tools_lists_every_bundled_tool_with_its_server_and_schema(capsys):
    assert cli.run(["tools", "--json"]) == 0
    tools = {t["name"]: t for t in json.loads(capsys.readouterr().out)}
    assert {t["server"] for t in tools.values()} == {"calculator", "converter", "clock"}
    assert tools["add"]["server"] == "calculator" and tools["add"]["input_schema"]["required"] == ["a", "b"]
    assert all(t["description"] for t in tools.values())


def test_tools_query_ranks_the_matching_tool_first_with_its_scores(capsys):
    assert cli.run(["tools", "--query", "what time is it in Tokyo", "--top", "2", "--json"]) == 0
    ranking = json.loads(capsys.readouterr().out)
    assert [row["rank"] for row in ranking] == [1, 2]
    assert ranking[0]["name"] == "get_time" and ranking[0]["server"] == "clock"
    assert ranking[0]["score"] > ranking[1]["score"]
    assert {"bm25", "dense", "pinned"} <= ranking[0].keys()


def test_tools_text_names_each_tool_and_its_server(basic_only, capsys):
    assert cli.run(["--config", str(basic_only), "tools"]) == 0
    out = capsys.readouterr().out
    assert "echo  [basic]" in out and "prefixed with this server's name" in out and '"required"' in out


def test_call_prints_the_exact_result(basic_only, capsys):
    assert cli.run(["--config", str(basic_only), "call", "basic.echo", '{"text": "hi"}']) == 0
    assert capsys.readouterr().out == "basic:hi\n"


def test_call_json_names_the_file_that_keeps_a_result_cut_for_the_model(tmp_path, capsys):
    path = tmp_path / "servers.json"
    path.write_text(
        json.dumps({"mcpServers": {"replies": script_entry("r", "hostile.py", "replies").to_json()}})
    )
    assert cli.run(["--config", str(path), "call", "sized", '{"mb": 2}', "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["result"].endswith(f"the whole result is kept in {body['kept']}]")
    assert len(Path(body["kept"]).read_text()) == 2 * 1024 * 1024


def test_call_json_reports_server_tool_and_structured_result(basic_only, capsys):
    assert cli.run(["--config", str(basic_only), "call", "add", '{"a": 2, "b": 40}', "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body == {
        "server": "basic",
        "tool": "add",
        "arguments": {"a": 2, "b": 40},
        "result": "42.0",
        "is_error": False,
        "structured": {"result": 42.0},
        "parts": [],
        "kept": None,
        "asked": [],
        "progress": [],
    }


def test_tool_error_goes_to_stderr_and_exits_1(basic_only, capsys):
    assert cli.run(["--config", str(basic_only), "call", "fail", '{"message": "no can do"}']) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.strip() == "calculon: Error executing tool fail: no can do"


@pytest.mark.parametrize(
    ("arguments", "problem"), [('{"a": 1', "invalid JSON"), ("[1, 2]", "must be a JSON object, not list")]
)
def test_bad_json_args_exit_2_before_any_server_starts(basic_only, capsys, arguments, problem):
    assert cli.run(["--config", str(basic_only), "call", "add", arguments]) == 2
    assert problem in capsys.readouterr().err


def test_servers_reports_state_pid_tool_count_and_last_error(servers_file, capsys):
    assert cli.run(["--config", str(servers_file), "servers", "--json"]) == 0
    states = {s["name"]: s for s in json.loads(capsys.readouterr().out)}
    assert (
        states["basic"]["state"] == "ready" and states["basic"]["pid"] and states["basic"]["tool_count"] == 6
    )
    assert states["ghost"]["state"] in ("crashed", "restarting", "failed")
    assert "command not found: /no/such/server" in states["ghost"]["last_error"]
    assert states["off"]["state"] == "disabled" and states["off"]["pid"] is None


def test_malformed_config_exits_2_naming_file_server_and_problem(tmp_path, capsys):
    path = tmp_path / "servers.json"
    path.write_text('{"mcpServers": {"calc": {"command": "x", "url": "https://a/mcp"}}}')
    assert cli.run(["--config", str(path), "tools"]) == 2
    assert capsys.readouterr().err.strip() == (
        f'calculon: {path}: server \'calc\': has both "command" and "url"; give one'
    )


@pytest.fixture
def local_backend(monkeypatch):
    """Stand a scripted backend (or a failing one) in for the local model."""

    def install(backend) -> None:
        monkeypatch.setitem(registry._FACTORIES, "local", lambda **options: backend)

    return install


def test_ask_json_prints_the_turn_and_streams_events_to_stderr(basic_only, local_backend, capsys):
    add = ToolCallChunk(ToolCall("c1", "add", {"a": 2, "b": 40}))
    local_backend(ScriptedBackend([[add], ["It is ", "42."]]))
    command = ["--config", str(basic_only), "ask", "what is 2 + 40?", "--json", "--no-strict", "--yes"]
    assert cli.run(command) == 0
    captured = capsys.readouterr()
    body = json.loads(captured.out)
    assert body["answer"] == "It is 42."
    (record,) = body["tool_calls"]
    assert record.pop("ms") >= 0
    expected = {"server": "basic", "tool": "add", "arguments": {"a": 2, "b": 40}, "result": "42.0"}
    assert record == expected | {"is_error": False}
    assert body["events"][0]["kind"] == "turn_started" and body["events"][-1]["kind"] == "turn_finished"
    assert '  -> basic.add {"a": 2, "b": 40}' in captured.err
    assert "  model: It is 42.\n" in captured.err and "turn finished in" in captured.err


def test_ask_prints_just_the_answer_on_stdout(basic_only, local_backend, capsys):
    local_backend(ScriptedBackend([["Hello there."]]))
    assert cli.run(["--config", str(basic_only), "ask", "hi"]) == 0
    assert capsys.readouterr().out == "Hello there.\n"


def test_a_second_ask_starts_a_known_server_only_when_it_calls_it(basic_only, local_backend, capsys):
    command = ["--config", str(basic_only), "ask", "hi", "--no-strict", "--yes"]
    local_backend(ScriptedBackend([["Hello."]]))
    assert cli.run(command) == 0  # the first run lists the server's tools, and they are kept
    assert "server basic: ready" in capsys.readouterr().err
    local_backend(ScriptedBackend([["Hello again."]]))
    assert cli.run(command) == 0
    err = capsys.readouterr().err
    assert "server basic: idle" in err and "server basic: starting" not in err
    add = ToolCallChunk(ToolCall("c1", "add", {"a": 2, "b": 40}))
    local_backend(ScriptedBackend([[add], ["It is 42."]]))
    assert cli.run([*command[:3], "what is 2 + 40?", *command[4:], "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["tool_calls"][0]["result"] == "42.0"
    assert captured.err.index("server basic: idle") < captured.err.index("server basic: starting")


class UnloadableBackend(ScriptedBackend):
    async def load(self, progress=None) -> None:
        raise BackendError("The model file is not a GGUF file.", category="model")


def test_ask_with_a_backend_that_cannot_load_exits_3_with_its_message(basic_only, local_backend, capsys):
    local_backend(UnloadableBackend([]))
    assert cli.run(["--config", str(basic_only), "ask", "hi"]) == 3
    assert "calculon: The model file is not a GGUF file." in capsys.readouterr().err


def test_ask_flags_override_the_saved_settings(tmp_path):
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF")
    args = cli.build_parser().parse_args(["ask", "hi", "--model", str(model), "--no-strict"])
    settings = commands.ask_settings(args)
    assert (settings.backend, settings.model_path, settings.strict) == ("local", str(model), False)
    args = cli.build_parser().parse_args(["ask", "hi", "--backend", "gemini", "--model", "gemini-x"])
    settings = commands.ask_settings(args)
    assert (settings.backend, settings.gemini_model, settings.strict) == ("gemini", "gemini-x", True)
    args = cli.build_parser().parse_args(
        ["ask", "hi", "--backend", "openai", "--model", "m", "--base-url", "http://127.0.0.1:1234/v1"]
    )
    settings = commands.ask_settings(args)
    assert (settings.backend, settings.openai_model, settings.openai_base_url) == (
        "openai",
        "m",
        "http://127.0.0.1:1234/v1",
    )


def test_backend_choices_on_the_command_line_come_from_the_registry(monkeypatch, capsys):
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["ask", "hi", "--backend", "plugin"])
    assert "--backend {local,gemini,openai}" in capsys.readouterr().err
    monkeypatch.setitem(registry._FACTORIES, "plugin", "somewhere:create_backend")
    assert cli.build_parser().parse_args(["ask", "hi", "--backend", "plugin"]).backend == "plugin"


def test_a_server_log_prints_as_one_line_naming_server_and_level():
    logged = ev.ServerLog(server="logs", level="warning", message="disk\nnearly full")
    assert output.describe(logged) == "server logs log (warning): disk nearly full"


def test_an_mcp_app_prints_as_one_line_without_its_page():
    app = ev.AppReady(
        call_id="c1",
        server="apps",
        tool="show_sum",
        uri="ui://sum/app.html",
        html="<p>" + "x" * 5000 + "</p>",
        csp={},
        permissions={},
        prefers_border=None,
        arguments={},
        result={},
        definition={},
    )
    line = "     app ui://sum/app.html from apps: 5,007 characters (the window renders it)"
    assert output.describe(app) == line


def test_missing_model_file_is_a_usage_error(capsys):
    assert cli.run(["ask", "hi", "--model", "/no/such/model.gguf"]) == 2
    assert "model file not found: /no/such/model.gguf" in capsys.readouterr().err


def test_no_subcommand_without_a_window_explains_and_exits_1(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "app.ui.main", None)  # as if the window could not be imported
    assert cli.run([]) == 1
    assert "the window is not available" in capsys.readouterr().err


def test_installed_script_calls_a_bundled_tool():
    done = calculon("call", "calculator.add", '{"a": 2, "b": 40}')
    assert (done.returncode, done.stdout) == (0, "42\n")


def test_installed_script_serves_only_bundled_servers():
    done = calculon("serve", "nonesuch")
    assert done.returncode == 2 and "no bundled server named 'nonesuch'" in done.stderr


def test_installed_script_reports_a_broken_config_file(tmp_path):
    path = tmp_path / "servers.json"
    path.write_text("{not json")
    done = calculon("--config", str(path), "servers")
    assert done.returncode == 2 and f"{path} holds invalid JSON at line 1, column 2" in done.stderr


def test_installed_script_exits_with_the_commands_code_after_its_output_is_out():
    # a command-line run skips the interpreter's teardown: its code and its last words still arrive
    done = calculon("call", "calculator.divide", '{"a": 1, "b": 0}')
    assert done.returncode == 1 and "division by zero" in done.stderr.lower(), done
    done = calculon("call", "calculator.add", "not json")
    assert done.returncode == 2 and done.stderr.strip(), done


def test_a_fresh_ask_process_saves_its_turn_before_it_exits(tmp_path, shared_cache_dir):
    # the run's distilled tool table, so the child need not distil its own (half a minute each)
    env = {**os.environ, "CALCULON_DATA_DIR": str(tmp_path), "CALCULON_CACHE_DIR": str(shared_cache_dir)}
    command = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "app"]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([*command, *args], capture_output=True, text=True, timeout=300, env=env)
        return done

    asked = run("ask", "--backend", "local", "What is 12 times 7?")
    assert asked.returncode == 0 and "84" in asked.stdout, asked
    assert "model: GPU offload: " in asked.stderr  # the estimate, from the load begun before the imports
    listed = run("history", "list", "--json")
    assert listed.returncode == 0 and "What is 12 times 7?" in listed.stdout, listed


def test_a_conversion_asked_in_so_many_words_is_the_converters_call_not_the_models(
    tmp_path, shared_cache_dir
):
    # Left to the built-in model, the first became convert("98.6 C", "Celsius") and "98.6 °C";
    # the second, with no digit, was offered no converter at all.
    # the run's distilled tool table, so the child need not distil its own (half a minute each)
    env = {**os.environ, "CALCULON_DATA_DIR": str(tmp_path), "CALCULON_CACHE_DIR": str(shared_cache_dir)}
    command = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "app"]

    def ask(question: str) -> dict:
        done = subprocess.run(
            [*command, "ask", "--backend", "local", "--json", "--no-save", question],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
        assert done.returncode == 0, done
        return json.loads(done.stdout)

    fever = ask("Convert 98.6 degrees Fahrenheit to Celsius")
    assert [(c["tool"], c["arguments"]) for c in fever["tool_calls"]] == [
        ("convert", {"quantity": "98.6 °F", "to_unit": "°C"})
    ]
    assert fever["answer"] == "98.6 degrees Fahrenheit is 37 °C." and fever["verdict"] == "verified"
    cups = ask("How many cups are in a gallon?")
    assert [c["arguments"] for c in cups["tool_calls"]] == [{"quantity": "1 gal", "to_unit": "cup"}]
    assert "16" in cups["answer"]


def test_the_time_asked_in_a_named_city_is_the_clocks_call_and_its_answer(tmp_path, shared_cache_dir):
    # Left to the built-in model: no call, and "The time in Tokyo is TOKITADASADA".
    # the run's distilled tool table, so the child need not distil its own (half a minute each)
    env = {**os.environ, "CALCULON_DATA_DIR": str(tmp_path), "CALCULON_CACHE_DIR": str(shared_cache_dir)}
    command = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "app"]
    asked = [*command, "ask", "--backend", "local", "--json", "--no-save", "What time is it in Tokyo?"]
    done = subprocess.run(asked, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done
    body = json.loads(done.stdout)
    (call,) = body["tool_calls"]
    assert (call["tool"], call["arguments"]) == ("get_time", {"timezone": "Asia/Tokyo"})
    assert body["answer"].startswith("In Tokyo it is ") and "(Asia/Tokyo, UTC+09:00)" in body["answer"]
    assert body["verdict"] == "verified"


def test_everyday_stories_are_read_as_their_words_name_them_and_answered_in_whole_groups(
    tmp_path, shared_cache_dir
):
    # Before: "How many full bags ..." was 3 × 29 = 87, and a 15% tip on $12 came to 12.15.
    # the run's distilled tool table, so the child need not distil its own (half a minute each)
    env = {**os.environ, "CALCULON_DATA_DIR": str(tmp_path), "CALCULON_CACHE_DIR": str(shared_cache_dir)}
    command = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "app"]

    def ask(question: str) -> dict:
        asked = [*command, "ask", "--backend", "local", "--json", "--no-save", question]
        done = subprocess.run(asked, capture_output=True, text=True, timeout=300, env=env)
        assert done.returncode == 0, done
        return json.loads(done.stdout)

    bags = ask("How many full bags of 3 apples can I make from 29 apples?")
    assert bags["answer"] == "29 ÷ 3 = 29/3 ≈ 9.667: 9 whole, 2 left over." and bags["verdict"] == "computed"
    tip = ask("A pizza costs $12 and I tip 15%. How much do I pay in total?")
    assert tip["answer"] == "12 + 15% = 13.8." and tip["verdict"] == "computed"
