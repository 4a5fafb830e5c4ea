"""A place argument can only be a place the conversation gave, or something below one."""

from __future__ import annotations

import asyncio

import pytest

from app.core.backend import ModelRequest, ToolCallChunk
from app.core.messages import Message, ToolSpec
from app.llm.local.backed import backed_forms
from app.llm.local.held_places import given_places, held_to_places
from app.llm.local.schema_grammar import build_step_grammar
from app.llm.local.syntaxes import HERMES
from tests.llm.grammar_check import accepts
from tests.llm.local_fixtures import calculator_tools

LISTING = ToolSpec(
    "list_directory",
    "List a folder.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
ADD = ToolSpec(
    "git_add",
    "Stage files.",
    {
        "type": "object",
        "properties": {
            "repo_path": {"type": "string"},
            "files": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["repo_path", "files"],
    },
)
FETCH = ToolSpec(
    "fetch",
    "Fetch a page.",
    {"type": "object", "properties": {"url": {"type": "string", "format": "uri"}}, "required": ["url"]},
)


def test_the_given_places_are_absolute_paths_a_files_folder_and_addresses_origins():
    local, addresses = given_places(
        [
            "Add up the prices in /srv/task1/prices.csv and notes.txt.",
            "see http://127.0.0.1:8123/pricing.html",
        ]
    )
    assert set(local) == {"/srv/task1/prices.csv", "/srv/task1"}  # "notes.txt" alone is no place
    assert addresses == ("http://127.0.0.1:8123",)


def test_with_no_place_given_every_argument_stays_free():
    tools = (LISTING, ADD, FETCH)
    assert held_to_places(tools, ["List the files in my reports folder."]) == tools


def _call(name: str, arguments: str) -> str:
    return f'<tool_call>\n{{"name": "{name}", "arguments": {arguments}}}\n</tool_call>'


@pytest.mark.parametrize("calculon_mode", [True, False], ids=["calculon-mode", "plain"])
def test_a_place_argument_takes_a_given_place_or_below_it_and_nothing_miscopied(smol, calculon_mode):
    words = "Stage notes.txt in the repository at /srv/task1, then list /srv/task1/docs; the page is http://127.0.0.1:8123/a.html"
    tools = held_to_places((*calculator_tools(), LISTING, ADD, FETCH), [words])
    forms = backed_forms([words]) if calculon_mode else None
    grammar = build_step_grammar(tools, forced=True, thinks=False, forms=forms, syntax=HERMES).decide
    model = smol.runner.model

    def takes(name: str, arguments: str) -> bool:
        return accepts(model, grammar, _call(name, arguments))

    assert takes("list_directory", '{"path": "/srv/task1"}')
    assert takes("list_directory", '{"path": "/srv/task1/docs"}')
    assert takes("list_directory", '{"path": "/srv/task1/new folder/q3-2026.txt"}')  # a new name below it
    assert not takes("list_directory", '{"path": "/srv/task/rt"}')  # the 1.5B's copy of task1
    assert not takes("list_directory", '{"path": "/srv/task12"}')
    assert not takes("git_add", '{"repo_path": "git_repository_path", "files": ["notes.txt"]}')
    assert takes("git_add", '{"repo_path": "/srv/task1", "files": ["notes.txt", "any/other.md"]}')
    assert takes("fetch", '{"url": "http://127.0.0.1:8123/pricing.html"}')
    assert not takes("fetch", '{"url": "https://127.0.0.1:8123/a.html"}')
    assert not takes("fetch", '{"url": "http://example.com/a.html"}')


def _git(name: str, **extra: object) -> ToolSpec:
    properties = {"repo_path": {"type": "string"}, **extra}
    return ToolSpec(
        name,
        name.replace("_", " "),
        {"type": "object", "properties": properties, "required": list(properties)},
    )


def test_the_built_in_model_writes_the_given_repository_not_a_made_up_one(smol):
    # bench/bad_input's words: the built-in wrote repo_path "git_repository_path" there, and with
    # these four tools "project/project/git_commit"; either way the server's conflict error, the
    # thing the person needed to read, was never reached.
    place = "/tmp/calculon-bad-input/calculon/conflicted-repository/project"
    words = f"Commit the changes in the git repository at {place} with the message 'Finish the merge'."
    text = {"type": "string"}
    tools = (
        _git("git_status"),
        _git("git_add", files={"type": "array", "items": text}),
        _git("git_commit", message=text),
        _git("git_log"),
    )
    request = ModelRequest("", (Message("user", words),), tools, must_call=True)
    chunks = asyncio.run(_collect(smol, request))
    (call,) = [c.call for c in chunks if isinstance(c, ToolCallChunk)]
    assert call.arguments["repo_path"] == place


async def _collect(backend, request):
    return [chunk async for chunk in backend.stream(request)]
