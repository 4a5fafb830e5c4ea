"""Every broken servers or settings file is one sentence naming the file and the problem, exit 2.

The corpus is tests/data/broken/: ``servers-*.json`` are given as ``--config``, ``settings-*.json``
are put where the settings live. Cases a file in git cannot hold (a folder, 100,000 levels of
nesting, a file over the size cap, a FIFO) are made here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app import cli
from app.mcp import config
from app.settings import MAX_FILE_BYTES as SETTINGS_MAX_BYTES
from app.settings import settings_path

CORPUS = Path(__file__).parent / "data" / "broken"

# What the one line must say for each file of the corpus (besides the file's path).
EXPECTED = {
    "servers-latin1.json": "is not UTF-8 text (byte 0xe9 at offset 20)",
    "servers-utf16.json": "is UTF-16 text; save it as UTF-8",
    "servers-utf32.json": "is UTF-32 text; save it as UTF-8",
    "servers-empty.json": "holds invalid JSON at line 1, column 1",
    "servers-truncated.json": "holds invalid JSON at line 1",
    "servers-nan.json": "holds NaN, which is not a JSON number",
    "servers-infinity.json": "holds -Infinity, which is not a JSON number",
    "servers-huge-float.json": "holds the number 1e999, too large",
    "servers-huge-int.json": "holds an integer with 5,000 digits (the limit is 4,300)",
    "servers-lone-surrogate.json": "holds \\ud800, a lone surrogate",
    "servers-array.json": "the file must hold a JSON object",
    "servers-list-of-servers.json": '"mcpServers" must be an object',
    "servers-escape-name.json": "server '\\x1b[2Jevil': the name may hold only letters",
    "servers-bidi-name.json": "server 'evil\\u202etxt.exe': the name may hold only letters",
    "servers-zero-width-name.json": "server 'calcu\\u200blator': the name may hold only letters",
    "servers-dotted-name.json": "server 'calculator.add': the name may hold only letters",
    "servers-long-name.json": "...: the name may hold only letters, digits, '_' and '-', at most 128",
    "servers-empty-name.json": "a server has an empty name",
    "servers-empty-command.json": '"command" must be a non-empty string',
    "servers-args-not-list.json": '"args" must be a list of strings',
    "servers-nul-bytes.json": "holds invalid JSON at line 1, column 1",
    "settings-latin1.json": "is not UTF-8 text (byte 0xe9 at offset 21)",
    "settings-utf16.json": "is UTF-16 text; save it as UTF-8",
    "settings-nan.json": "holds NaN, which is not a JSON number",
    "settings-infinity.json": "holds Infinity, which is not a JSON number",
    "settings-negative-timeout.json": "setting 'tool_timeout_s': input should be greater than 0, got -5",
    "settings-zero-timeout.json": "setting 'tool_timeout_s': input should be greater than 0, got 0",
    "settings-huge-timeout.json": "holds the number 1e999, too large",
    "settings-huge-int.json": "holds an integer with 5,000 digits",
    "settings-context-out-of-range.json": "setting 'n_ctx': input should be less than or equal to 1048576",
    "settings-string-number.json": "setting 'tool_timeout_s': input should be a valid number, got '30'",
    "settings-array.json": "does not hold a JSON object",
    "settings-truncated.json": "holds invalid JSON at line 1",
    "settings-lone-surrogate.json": "holds \\udfff, a lone surrogate",
}


def test_every_file_of_the_corpus_has_an_expected_message():
    assert sorted(p.name for p in CORPUS.iterdir()) == sorted(EXPECTED)


def place(source: Path) -> tuple[Path, list[str]]:
    """Where the command will find ``source`` (the settings file, or --config), and the options."""
    if source.name.startswith("settings-"):
        settings_path().parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, settings_path())
        return settings_path(), []
    return source, ["--config", str(source)]


def one_sentence(capsys: pytest.CaptureFixture[str], code: int, path: Path) -> str:
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"calculon: {path}"), captured.err
    assert "Traceback" not in captured.err and "Error:" not in captured.err
    return lines[0]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_broken_file_is_one_sentence_naming_it_and_exit_2(name, capsys):
    path, options = place(CORPUS / name)
    line = one_sentence(capsys, cli.run([*options, "servers"]), path)
    assert EXPECTED[name] in line


@pytest.mark.parametrize("command", [["tools"], ["call", "add", '{"a": 1, "b": 2}'], ["ask", "hi"]])
def test_every_command_refuses_a_broken_settings_file_the_same_way(command, capsys):
    path, _ = place(CORPUS / "settings-nan.json")
    assert "holds NaN" in one_sentence(capsys, cli.run(command), path)


def deep(path: Path) -> Path:
    path.write_text("[" * 100_000 + "]" * 100_000)
    return path


def oversized(path: Path) -> Path:
    path.write_text('{"mcpServers": {}, "pad": "' + "x" * config.MAX_FILE_BYTES + '"}')
    return path


def folder(path: Path) -> Path:
    path.mkdir()
    return path


def fifo(path: Path) -> Path:
    os.mkfifo(path)  # opening it would wait for a writer forever
    return path


MADE = {
    deep: "nests objects or arrays deeper than 64 levels",
    oversized: f"is too large: {config.MAX_FILE_BYTES + 29:,} bytes or more (the limit is 1,048,576)",
    folder: "is a folder, not a file",
    fifo: "is not a regular file",
}


@pytest.mark.parametrize("make", list(MADE), ids=lambda make: make.__name__)
def test_a_servers_file_no_repository_can_hold_is_one_sentence_too(make, tmp_path, capsys):
    path = make(tmp_path / "servers.json")
    line = one_sentence(capsys, cli.run(["--config", str(path), "tools"]), path)
    assert MADE[make] in line


@pytest.mark.parametrize("make", [deep, folder, fifo], ids=lambda make: make.__name__)
def test_a_settings_file_no_repository_can_hold_is_one_sentence_too(make, capsys):
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    path = make(settings_path())
    assert MADE[make] in one_sentence(capsys, cli.run(["servers"]), path)


def test_an_oversized_settings_file_is_refused_before_it_is_read(capsys):
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_bytes(b" " * (SETTINGS_MAX_BYTES + 1))
    assert "is too large" in one_sentence(capsys, cli.run(["servers"]), settings_path())


def test_the_installed_command_prints_one_line_and_no_traceback_for_deep_nesting(tmp_path):
    path = deep(tmp_path / "servers.json")
    run = subprocess.run(
        [sys.executable, "-m", "app", "--config", str(path), "servers"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == f"calculon: {path} nests objects or arrays deeper than 64 levels\n"


def test_a_5000_digit_integer_in_call_arguments_is_a_sentence_suggesting_a_string(capsys):
    code = cli.run(["call", "add", '{"a": ' + "9" * 5000 + ', "b": 1}'])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err == (
        "calculon: JSON_ARGS holds an integer with 5,000 digits (the limit is 4,300);"
        " pass a long number as a string\n"
    )


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [("[" * 10_000 + "]" * 10_000, "nests objects or arrays deeper"), ('{"a": NaN}', "holds NaN")],
)
def test_call_arguments_are_read_as_strictly_as_files(arguments, problem, capsys):
    assert cli.run(["call", "add", arguments]) == 2
    assert problem in capsys.readouterr().err
