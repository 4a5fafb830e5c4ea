"""Images and resources as parts the window may show: checked, capped, never HTML."""

from __future__ import annotations

import base64

import mcp_types

from app.mcp import content

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 16).decode()


def test_a_valid_image_is_kept_with_its_decoded_size():
    assert content.image_part(PNG, "image/png") == {
        "type": "image",
        "mime_type": "image/png",
        "data": PNG,
        "bytes": 24,
    }


def test_an_image_that_is_not_base64_or_too_big_or_of_another_type_becomes_a_note():
    big = base64.b64encode(b"\x00" * (content.MAX_IMAGE_BYTES + 1)).decode()
    notes = [content.image_part(d, m) for d, m in [("@@not base64", "image/png"), (big, "image/png")]]
    notes.append(content.image_part(PNG, "image/svg+xml"))  # an SVG can carry script: never drawn
    assert [n["type"] for n in notes] == ["note"] * 3
    assert "not valid base64" in notes[0]["text"] and "over the" in notes[1]["text"]
    assert "image/svg+xml" in notes[2]["text"]


def test_an_embedded_image_blob_is_shown_as_an_image_and_text_as_text():
    blob = mcp_types.BlobResourceContents(uri="demo://logo", mime_type="image/png", blob=PNG)
    text = mcp_types.TextResourceContents(uri="demo://t", mime_type="text/plain", text="hello")
    assert (
        content.resource_part(blob)["type"] == "image" and content.resource_part(blob)["uri"] == "demo://logo"
    )
    assert content.resource_part(text) == {
        "type": "resource",
        "uri": "demo://t",
        "mime_type": "text/plain",
        "text": "hello",
    }
