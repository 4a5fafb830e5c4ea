"""Screening a server's tools: each bad one skipped with a reason naming it, the rest kept."""

from __future__ import annotations

from typing import Any

import mcp_types
import pytest

from app.mcp.screen import screen, screen_raw

OBJECT = {"type": "object", "properties": {"a": {"type": "number"}}}


def tool(name: str, schema: dict[str, Any] | None = None) -> mcp_types.Tool:
    return mcp_types.Tool(name=name, input_schema=schema or OBJECT)


@pytest.mark.parametrize(
    "name", ["", "x" * 129, "a b", "\x1b[2Jclear", "evil\u202etxt", "calcu\u200blator", "tool/slash", "é"]
)
def test_a_name_outside_the_mcp_rule_is_skipped_and_named_escaped(name):
    kept, skipped = screen([tool(name), tool("fine")])
    assert [t.name for t in kept] == ["fine"]
    assert len(skipped) == 1 and skipped[0].startswith("tool '") and "may hold only letters" in skipped[0]
    assert "\x1b" not in skipped[0] and "\u202e" not in skipped[0] and "\u200b" not in skipped[0]


@pytest.mark.parametrize("name", ["a", "x" * 128, "calculator.add", "snake_case-and.dots", "A1"])
def test_a_name_inside_the_mcp_rule_is_kept(name):
    assert [t.name for t in screen([tool(name)])[0]] == [name]


def test_a_second_tool_of_the_same_name_is_skipped_and_the_first_kept():
    first, second = tool("echo"), tool("echo", {"type": "object", "description": "second"})
    kept, skipped = screen([first, second])
    assert kept == [first] and skipped == [
        "tool 'echo' skipped: the server lists a tool of this name twice; the first is kept"
    ]


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ({"type": "object", "properties": {"a": {"type": 5}}}, "not a valid JSON Schema"),
        ({"properties": {}}, '"type": "object"'),
    ],
)
def test_a_tool_whose_schema_cannot_be_used_is_skipped_with_the_reason(schema, problem):
    kept, skipped = screen([tool("bad", schema), tool("good")])
    assert [t.name for t in kept] == ["good"]
    assert skipped[0].startswith("tool 'bad' skipped: ") and problem in skipped[0]


PAGE = {"resultType": "complete", "cacheScope": "private", "ttlMs": 0}


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_a_raw_listing_loses_only_the_tools_the_sdk_would_refuse(version):
    result = {
        **PAGE,
        "tools": [
            {"name": "null_schema", "inputSchema": None},
            {"name": "text_schema", "inputSchema": "object"},
            {"name": "array_schema", "inputSchema": {"type": "array"}},
            "not a tool",
            {"name": "good", "inputSchema": OBJECT},
        ],
    }
    skipped = screen_raw(result, [version])
    assert [t["name"] for t in result["tools"]] == ["good"]
    assert [s.split(" skipped")[0] for s in skipped] == [
        "tool 'null_schema'",
        "tool 'text_schema'",
        "tool 'array_schema'",
        "tool '?'",
    ]
    assert "inputSchema" in skipped[0]
    mcp_types.ListToolsResult.model_validate(result, by_name=False)  # what is left, the SDK takes


def test_a_listing_that_is_not_a_list_says_so():
    assert screen_raw({"tools": None}, ["2025-11-25"]) == ["the tool list is a NoneType, not a list"]
