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


def test_call_json_carries_structured_content_checked_against_the_output_schema(capsys, everything):
    arguments = json.dumps({"location": "New York"})
    code, body = run_json(capsys, everything, "call", "get-structured-content", arguments)
    assert code == 0 and not body["is_error"]
    assert body["structured"] == {"temperature": 33, "conditions": "Cloudy", "humidity": 82}


def test_call_json_carries_the_tiny_image_as_a_checked_part(capsys, everything):
    code, body = run_json(capsys, everything, "call", "get-tiny-image", "{}")
    (image,) = [p for p in body["parts"] if p["type"] == "image"]
    assert code == 0 and image["mime_type"] == "image/png" and image["bytes"] > 1000


def test_resources_json_lists_the_demo_resources_and_templates(capsys, everything):
    code, body = run_json(capsys, everything, "resources")
    uris = [r["uri"] for r in body["resources"]]
    assert code == 0 and "demo://resource/static/document/architecture.md" in uris
    assert {r["server"] for r in body["resources"]} == {"everything"}
    assert "demo://resource/dynamic/text/{resourceId}" in [t["uri_template"] for t in body["templates"]]


def test_read_returns_a_listed_resource_and_expands_a_template(capsys, everything):
    code, body = run_json(capsys, everything, "read", "demo://resource/static/document/architecture.md")
    (document,) = body["contents"]
    assert code == 0 and document["mime_type"] == "text/markdown" and "Architecture" in document["text"]
    code, body = run_json(
        capsys, everything, "read", "demo://resource/dynamic/text/{resourceId}", "resourceId=3"
    )
    assert (
        body["contents"][0]["uri"] == "demo://resource/dynamic/text/3"
        and "Resource 3" in body["contents"][0]["text"]
    )


def test_a_resource_no_server_has_fails_with_the_servers_words(capsys, everything):
    assert cli.run(["--config", str(everything), "read", "demo://nothing"]) == 1
    assert "not found" in capsys.readouterr().err


def test_prompts_json_lists_the_four_prompts_with_their_arguments(capsys, everything):
    code, body = run_json(capsys, everything, "prompts")
    prompts = {p["name"]: p for p in body}
    assert code == 0 and set(prompts) == {
        "simple-prompt",
        "args-prompt",
        "completable-prompt",
        "resource-prompt",
    }
    assert [(a["name"], a["required"]) for a in prompts["args-prompt"]["arguments"]] == [
        ("city", True),
        ("state", False),
    ]


def test_prompt_fills_in_its_arguments(capsys, everything):
    code, body = run_json(capsys, everything, "prompt", "args-prompt", "city=Paris")
    (message,) = body["messages"]
    assert code == 0 and message["role"] == "user" and "Paris" in message["content"]["text"]


def test_complete_suggests_values_narrowed_by_the_arguments_already_given(capsys, everything):
    code, body = run_json(capsys, everything, "complete", "completable-prompt", "department", "E")
    assert code == 0 and body["values"] == ["Engineering"]
    code, body = run_json(
        capsys, everything, "complete", "completable-prompt", "name", "", "department=Engineering"
    )
    assert body["values"] == ["Alice", "Bob", "Charlie"]


def test_arguments_that_are_not_key_value_pairs_are_a_usage_error(capsys, everything):
    assert cli.run(["--config", str(everything), "prompt", "args-prompt", "Paris"]) == 2
    assert "key=value" in capsys.readouterr().err
