"""MCP call results as the text a model reads."""

from __future__ import annotations

import mcp_types

from app.mcp.results import tool_result


def test_text_blocks_are_joined_and_other_blocks_described():
    result = mcp_types.CallToolResult(
        content=[
            mcp_types.TextContent(type="text", text="first"),
            mcp_types.ImageContent(type="image", data="aGVsbG8=", mime_type="image/png"),
            mcp_types.EmbeddedResource(
                type="resource",
                resource=mcp_types.TextResourceContents(
                    uri="file:///a.txt", mime_type="text/plain", text="inside"
                ),
            ),
            mcp_types.ResourceLink(type="resource_link", name="doc", uri="https://example.com/doc"),
        ],
        is_error=False,
    )
    converted = tool_result(result)
    assert converted.text.split("\n") == [
        "first",
        "[image image/png, 8 base64 characters]",
        "inside",
        "[resource link https://example.com/doc]",
    ]
    assert not converted.is_error


def test_structured_content_alone_becomes_json_text():
    converted = tool_result(mcp_types.CallToolResult(content=[], structured_content={"value": "5"}))
    assert (converted.text, converted.structured) == ('{"value": "5"}', {"value": "5"})


def test_error_flag_is_kept():
    error = mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text="bad")], is_error=True)
    assert tool_result(error).is_error


def test_a_result_over_the_cap_is_cut_with_a_note_saying_how_much_there_was():
    result = mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text="y" * 2_500)])
    converted = tool_result(result, max_text=1_000)
    assert converted.text == "y" * 1_000 + "\n[result truncated: 2,500 characters, the first 1,000 shown]"
    assert tool_result(result, max_text=2_500).text == "y" * 2_500


def test_content_for_the_user_alone_is_shown_but_never_sent_to_the_model():
    private = mcp_types.Annotations(audience=["user"])
    both = mcp_types.Annotations(audience=["user", "assistant"])
    result = mcp_types.CallToolResult(
        content=[
            mcp_types.TextContent(type="text", text="public"),
            mcp_types.TextContent(type="text", text="private", annotations=private),
            mcp_types.TextContent(type="text", text="shared", annotations=both),
            mcp_types.ImageContent(type="image", data="aGVsbG8=", mime_type="image/png", annotations=private),
        ]
    )
    converted = tool_result(result)
    assert converted.text == "public\nshared"
    assert [(p["type"], p.get("audience")) for p in converted.parts] == [("text", "user"), ("image", "user")]


def test_non_text_blocks_become_parts_for_the_window_by_type():
    blob = mcp_types.BlobResourceContents(uri="file:///a.bin", mime_type="application/zip", blob="AAAA")
    link = mcp_types.ResourceLink(type="resource_link", name="doc", uri="demo://doc", description="a doc")
    result = mcp_types.CallToolResult(
        content=[mcp_types.EmbeddedResource(type="resource", resource=blob), link, TEXT_BLOCK]
    )
    assert tool_result(result).parts == (
        {"type": "resource", "uri": "file:///a.bin", "mime_type": "application/zip", "bytes": 3},
        {
            "type": "resource_link",
            "uri": "demo://doc",
            "name": "doc",
            "description": "a doc",
            "mime_type": "",
        },
    )


TEXT_BLOCK = mcp_types.TextContent(type="text", text="plain")
