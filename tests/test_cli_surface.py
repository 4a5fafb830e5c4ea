"""The command line against the official reference server: progress, rich results, resources, prompts."""

from __future__ import annotations

import json

import pytest

from app import cli
from tests.everything import everything_entry


@pytest.fixture(scope="module")
def everything(tmp_path_factory):
    path = tmp_path_factory.mktemp("everything") / "servers.json"
    entry = everything_entry()
    path.write_text(json.dumps({"mcpServers": {entry.name: entry.to_json()}}))
    return path


def run_json(capsys, everything, *args: str) -> tuple[int, object]:
    code = cli.run(["--config", str(everything), *args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_call_json_reports_each_progress_update_of_a_long_running_operation(capsys, everything):
    arguments = json.dumps({"duration": 0.4, "steps": 4})
    code, body = run_json(capsys, everything, "call", "trigger-long-running-operation", arguments)
    assert code == 0 and "Steps: 4" in body["result"]
    assert [(u["progress"], u["total"]) for u in body["progress"]] == [(i, 4) for i in (1, 2, 3, 4)]
