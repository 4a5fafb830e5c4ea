from __future__ import annotations

import json

import pytest

from app.core.tools import ToolInfo
from app.mcp.retrieval.embed import MiniLMEncoder
from app.mcp.retrieval.ranking import format_ranking, rank

pytestmark = pytest.mark.usefixtures("warm_cache")


def test_rank_reports_both_score_parts(tools: list[ToolInfo], encoder: MiniLMEncoder) -> None:
    rows = rank("convert 3 miles to kilometres", tools, 3, encoder=encoder)
    assert len(rows) == 3
    assert rows[0].tool.name == "convertUnits"
    assert rows[0].bm25 > 0 and rows[0].dense > 0
    assert [r.score for r in rows] == sorted((r.score for r in rows), reverse=True)


def test_rank_puts_pins_first(tools: list[ToolInfo], encoder: MiniLMEncoder) -> None:
    rows = rank("convert 3 miles to kilometres", tools, 2, pinned=["music.play_song"], encoder=encoder)
    assert [r.tool.name for r in rows][:1] == ["play_song"] and rows[0].pinned
    assert len(rows) == 3


def test_json_ranking_lists_every_row(tools: list[ToolInfo], encoder: MiniLMEncoder) -> None:
    rows = rank("what is the time in Tokyo", tools, 4, encoder=encoder)
    parsed = json.loads(format_ranking(rows, as_json=True))
    assert [p["name"] for p in parsed] == [r.tool.name for r in rows]
    assert [p["rank"] for p in parsed] == [1, 2, 3, 4]
    assert set(parsed[0]) == {"rank", "name", "server", "score", "bm25", "dense", "pinned"}


def test_table_ranking_has_a_line_per_tool(tools: list[ToolInfo], encoder: MiniLMEncoder) -> None:
    rows = rank("what is the time in Tokyo", tools, 4, encoder=encoder)
    lines = format_ranking(rows).splitlines()
    assert len(lines) == 5
    assert "get_current_time" in lines[1]
