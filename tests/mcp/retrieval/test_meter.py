from __future__ import annotations

import json
import math

from app.core.tools import ToolInfo
from app.mcp.retrieval.meter import context_meter, schema_text, schema_tokens


def test_schema_text_is_what_a_model_receives(tools: list[ToolInfo]) -> None:
    body = json.loads(schema_text(tools[0]))
    assert body == {"name": "add", "description": tools[0].description, "parameters": tools[0].input_schema}


def test_schema_tokens_estimates_four_characters_a_token(tools: list[ToolInfo]) -> None:
    expected = sum(math.ceil(len(schema_text(t)) / 4) for t in tools)
    assert schema_tokens(tools) == expected
    assert schema_tokens(tools[:5]) < schema_tokens(tools)


def test_schema_tokens_uses_the_models_tokenizer_when_given(tools: list[ToolInfo]) -> None:
    seen: list[str] = []

    def count(text: str) -> int:
        seen.append(text)
        return len(text.split(","))

    assert schema_tokens(tools[:3], count) == sum(len(schema_text(t).split(",")) for t in tools[:3])
    assert seen == [schema_text(t) for t in tools[:3]]


def test_context_meter_gives_the_share_of_the_local_context(tools: list[ToolInfo]) -> None:
    meter = context_meter(tools, 4096)
    assert meter.share == meter.tokens / 4096
    assert f"of 4096 tokens ({meter.share:.0%})" in meter.label()
    assert context_meter(tools, None).share is None
