from __future__ import annotations

from app.mcp.retrieval import text
from app.mcp.retrieval.bm25 import BM25
from tests.mcp.retrieval.catalogue import catalogue


def _rank(query: str) -> list[str]:
    tools = catalogue()
    scores = BM25([text.document_words(t) for t in tools]).scores(text.words(query))
    return [tools[i].name for i in sorted(range(len(tools)), key=lambda i: -scores[i])]


def test_obviously_matching_tool_ranks_first() -> None:
    assert _rank("what is the weather forecast for Paris")[0] == "get_forecast"
    assert _rank("send an email to Bob")[0] == "send_email"


def test_camel_and_snake_case_names_are_split_into_words() -> None:
    assert text.split_identifier("convertUnits") == ["convert", "units"]
    assert text.split_identifier("get_stock_price") == ["get", "stock", "price"]
    assert text.split_identifier("ChaDri.change_drink") == ["cha", "dri", "change", "drink"]
    assert text.split_identifier("parseHTTPResponse2") == ["parse", "http", "response", "2"]


def test_a_word_found_only_in_the_name_still_matches() -> None:
    assert _rank("units")[0] == "convertUnits"


def test_parameter_descriptions_are_searched() -> None:
    # "subtrahend" appears only in subtract's parameter description.
    assert _rank("subtrahend")[0] == "subtract"


def test_a_rare_word_outweighs_a_common_one() -> None:
    index = BM25([["file", "read"], ["file", "write"], ["file", "list"], ["email", "send"]])
    scores = index.scores(["file", "email"])
    assert scores.argmax() == 3


def test_query_with_no_known_word_scores_zero_everywhere() -> None:
    index = BM25([["add", "number"], ["weather", "city"]])
    assert not index.scores(["zebra"]).any()


def test_plural_and_singular_forms_match() -> None:
    assert text.words("triangles batteries") == text.words("triangle battery")
