from __future__ import annotations

import dataclasses
from pathlib import Path

from app.core.tools import ToolInfo
from app.mcp.retrieval.embed import MiniLMEncoder
from app.mcp.retrieval.index import build_index, cache_root, fingerprint, index_key


def test_fingerprint_ignores_order_but_sees_every_schema_change(tools: list[ToolInfo]) -> None:
    key = fingerprint(tools, "model")
    assert fingerprint(list(reversed(tools)), "model") == key
    renamed = dataclasses.replace(tools[0], description=tools[0].description + " Now faster.")
    assert fingerprint([renamed, *tools[1:]], "model") != key
    reschemed = dataclasses.replace(tools[0], input_schema={"type": "object", "properties": {}})
    assert fingerprint([reschemed, *tools[1:]], "model") != key
    assert fingerprint(tools[1:], "model") != key
    assert fingerprint(tools, "another model") != key  # vectors from another encoder are not reused


def test_index_is_cached_under_the_app_cache_folder(tools: list[ToolInfo], encoder: MiniLMEncoder) -> None:
    build_index(tools, encoder)
    assert (cache_root() / f"{index_key(tools, encoder)}.npy").is_file()


def test_cache_hit_skips_the_embedding(tools: list[ToolInfo], encoder: MiniLMEncoder) -> None:
    first = build_index(tools, encoder)
    calls = encoder.calls
    assert calls > 0
    second = build_index(list(reversed(tools)), encoder)
    assert encoder.calls == calls
    assert second.vectors is not None and first.vectors is not None
    assert (second.vectors == first.vectors).all()


def test_changed_tool_list_is_embedded_again(tools: list[ToolInfo], encoder: MiniLMEncoder) -> None:
    build_index(tools, encoder)
    texts = encoder.texts_encoded
    build_index(tools[:-1], encoder)
    assert encoder.texts_encoded == texts + len(tools) - 1


def test_corrupt_cache_file_is_rebuilt(tools: list[ToolInfo], encoder: MiniLMEncoder) -> None:
    build_index(tools, encoder)
    path = cache_root() / f"{index_key(tools, encoder)}.npy"
    path.write_bytes(b"not an array")
    calls = encoder.calls
    index = build_index(tools, encoder)
    assert encoder.calls > calls
    assert index.vectors is not None and index.vectors.shape == (len(tools), encoder.dim)


def test_without_a_model_the_index_is_bm25_only(tools: list[ToolInfo], tmp_path: Path) -> None:
    index = build_index(tools, MiniLMEncoder(tmp_path / "no-model-here"))
    assert not index.dense
    scores = index.scores("send an email", None)
    assert index.tools[int(scores.hybrid.argmax())].name == "send_email"


def test_word_order_tells_apart_two_tools_with_the_same_words() -> None:
    def tool(name: str, description: str) -> ToolInfo:
        return ToolInfo("converter", name, name, description, {"type": "object", "properties": {}})

    index = build_index(
        [
            tool("celsius_to_fahrenheit", "Celsius to Fahrenheit."),
            tool("fahrenheit_to_celsius", "Fahrenheit to Celsius."),
        ],
        None,  # BM25 alone: the words are the same, only their order differs
    )
    for query, best in [
        ("72 fahrenheit in celsius", "fahrenheit_to_celsius"),
        ("100 °C to °F", "celsius_to_fahrenheit"),
    ]:
        scores = dict(zip((t.name for t in index.tools), index.scores(query, None).hybrid, strict=True))
        other = next(name for name in scores if name != best)
        assert scores[best] > scores[other], query
