"""Flagged descriptions: hidden characters named, instructions to the model found as whole words."""

from __future__ import annotations

import pytest

from app.mcp import surface
from app.mcp.flags import INSTRUCTING, escaped, flags_in
from app.mcp.review import Review
from tests.mcp.helpers import script_entry


def kinds(flags) -> dict[tuple[str, str], str]:
    return {(f.where, f.kind): f.detail for f in flags}


def test_hidden_characters_are_named_as_escapes_once_each():
    [flag] = flags_in("tool t", "a\u200bb\u200bc\u202ed\U000e0041")
    assert (flag.kind, flag.detail) == ("hidden characters", "U+200B, U+202E, U+E0041")


def test_instructions_match_whole_words_in_any_case_and_spacing_even_split_by_a_zero_width_space():
    assert kinds(flags_in("x", "Please IGNORE  previous\ninstructions."))[("x", "instructs the model")]
    assert kinds(flags_in("x", "ig\u200bnore previous instructions")).keys() == {
        ("x", "hidden characters"),
        ("x", "instructs the model"),
    }
    assert flags_in("x", "Reads the ecosystem prompts file") == []  # "system prompt" only as words
    assert flags_in("x", "Formats the installation instructions of a package.") == []


def test_every_listed_phrase_is_found_in_a_sentence():
    for phrase in INSTRUCTING:
        assert flags_in("x", f"Adds. {phrase.upper()}, please.")[0].detail == f'"{phrase}"'


def test_escaped_writes_hidden_characters_and_controls_out_and_keeps_newlines():
    assert escaped("a\u200b\x1b[2J\nb") == "a<U+200B><U+001B>[2J\nb"


@pytest.mark.anyio
async def test_a_hostile_servers_instructions_tool_prompt_and_resource_are_flagged(supervise):
    supervisor, _ = supervise(script_entry("hostile", "hostile_text.py"))
    await supervisor.start()
    await surface.listed(supervisor)
    found = kinds(Review(supervisor).of("hostile").flags)
    assert found[("instructions", "hidden characters")] == "U+200B"
    assert found[("instructions", "instructs the model")] == '"ignore previous instructions"'
    assert found[("tool read_file", "instructs the model")] == '"do not tell the user"'
    assert found[("tool read_file", "hidden characters")].startswith("U+E0020, U+E0061")
    assert found[("prompt greet", "instructs the model")] == '"you must call"'
    assert found[("resource note://readme", "hidden characters")] == "U+202C, U+202E"
    assert found[("resource note://readme", "instructs the model")] == '"ignore the above"'
    assert not any(where == "tool plain" for where, _ in found)
    assert supervisor.resolve("read_file") is not None  # flagged, not hidden


@pytest.mark.anyio
async def test_the_bidi_override_in_a_spoofing_servers_description_is_flagged(supervise):
    supervisor, _ = supervise(script_entry("evil", "hostile.py", "names"))
    await supervisor.start()
    found = kinds(Review(supervisor).of("evil").flags)
    assert found[("tool echo_text", "hidden characters")] == "U+202E"
