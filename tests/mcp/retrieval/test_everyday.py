"""Everyday phrasings over the bundled tools (bench/_everyday.py): nine in ten rank the right tool first.

The tools are listed from the bundled servers running as child processes, the way the app
starts them; the ranking is the app's retriever over those tools alone.
"""

from __future__ import annotations

from collections import Counter

import pytest

from app.core.tools import ToolInfo
from bench._everyday import HELD_OUT, PHRASINGS
from bench._retrieval_everyday import TARGET, bundled_tools, miss_line, rank_everyday


@pytest.fixture(scope="module")
def bundled() -> list[ToolInfo]:
    return bundled_tools()


def test_the_labelled_set_names_real_tools_and_covers_each_with_several_phrasings(
    bundled: list[ToolInfo],
) -> None:
    names = {tool.name for tool in bundled}
    assert len(PHRASINGS) >= 60
    assert [p.text for p in PHRASINGS + HELD_OUT if not p.accepted <= names] == []
    counts = Counter(p.tool for p in PHRASINGS)
    assert {name: counts[name] for name in names if counts[name] < 2} == {}


@pytest.mark.parametrize("kind", ["static", "contextual"])
def test_nine_in_ten_everyday_phrasings_rank_the_right_bundled_tool_first(
    bundled: list[ToolInfo], kind: str
) -> None:
    run = rank_everyday(bundled, kind)
    assert run.share("top1") >= TARGET, "\n".join(miss_line(row) for row in run.misses)
