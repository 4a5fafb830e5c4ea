"""Everyday phrasings over the official reference servers beside the bundled ones
(bench/_everyday_reference.py): the right tool is among the five the model is offered, and
first for most of them.

The issue's target is the right tool first for 95%: 26/26 on both encoders (the static one is
the app's default). A second set, written before the retriever was mended for the first set's
misses, checks the mends reach questions they were not made on: 17/18 static, 18/18
contextual; its floor is a little lower (docs/benchmarks.md, "Everyday phrasings over the
reference servers").

The 61 tools are the servers' own lists (filesystem, memory, git, time, sqlite, fetch and the
bundled calculator, converter and clock), snapshotted by ``python -m bench.reference_tools`` so
the test needs neither Node nor the network; the ranking is the app's retriever over all of them.
"""

from __future__ import annotations

import pytest

from app.core.offer import ranked_offer, ruled_out
from app.core.tools import ToolInfo
from app.mcp.retrieval.selector import ToolRetriever
from bench._everyday_reference import REFERENCE, REFERENCE_HELD_OUT
from bench._retrieval_everyday import miss_line, rank_everyday
from bench.reference_tools import snapshot_tools

CLOCKS = {"convert_time"}
FLOORS = {"reference": (0.95, 0.95), "held out": (0.9, 0.95)}  # top-1, top-5, on either encoder


@pytest.fixture(scope="module")
def reference_tools() -> list[ToolInfo]:
    return snapshot_tools()


def test_the_phrasings_name_tools_the_reference_servers_really_list(reference_tools: list[ToolInfo]) -> None:
    names = {tool.name for tool in reference_tools}
    assert len(REFERENCE) >= 20
    assert [p.text for p in REFERENCE if not p.accepted & names] == []
    assert {t.server for t in reference_tools} >= {"filesystem", "memory", "git", "time", "sqlite", "fetch"}


@pytest.mark.parametrize("kind", ["static", "contextual"])
@pytest.mark.parametrize("name", ["reference", "held out"])
def test_the_right_reference_tool_ranks_first_for_nearly_every_phrasing_and_the_converter_for_a_given_time(
    reference_tools: list[ToolInfo], kind: str, name: str
) -> None:
    phrasings = REFERENCE if name == "reference" else REFERENCE_HELD_OUT
    run = rank_everyday(reference_tools, kind, name=name, phrasings=phrasings, top=5)
    top1, top5 = FLOORS[name]
    misses = "\n".join(miss_line(row) for row in run.misses)
    assert run.share("top1") >= top1, misses
    assert run.share("top5") >= top5, misses
    # get_current_time ranked first for "If it's 9:30 in New York ...", and a call of it leaves the
    # 9:30 unused; convert_time ranked first for "What hour is it in Tokyo right now?" (before
    # "what hour" said "current"), and a model had to pass it over.
    clock_misses = [row for row in run.misses if row.phrasing.tool in CLOCKS or "hour" in row.phrasing.text]
    assert clock_misses == [], misses


@pytest.mark.parametrize(
    ("question", "server"),
    [
        ("On what day of March is Alice's birthday? Check my memory.", "memory"),
        ("Remember that my sister Dana's birthday is on 3 October.", "memory"),
        ("What is the total value of all orders in the shop database?", "sqlite"),
    ],
)
@pytest.mark.anyio
async def test_a_server_the_question_names_has_its_best_tools_offered(
    reference_tools: list[ToolInfo], question: str, server: str
) -> None:
    # Before: the words that match nothing (march, alice, birthday) shrank the one that matched,
    # and git_log, fetch and get_time ranked above every memory tool.
    retriever = ToolRetriever(threshold=1, top_k=5, pinned_servers=["calculator"])
    await retriever.refresh(reference_tools)
    offered = [r.tool for r in retriever.ranked(question, reference_tools, 5) if not r.pinned]
    assert sum(1 for t in offered if t.server == server) >= 3, [t.name for t in offered]


@pytest.mark.anyio
async def test_tools_a_question_rules_out_give_their_places_to_the_next_of_their_server(
    reference_tools: list[ToolInfo],
) -> None:
    retriever = ToolRetriever(threshold=16, top_k=5)
    await retriever.refresh(reference_tools)
    asked = "How many commits are in the git repository at /work/repo?"
    out = ruled_out(asked)

    offered, selected = ranked_offer(retriever, reference_tools, asked, lambda tool: not out(tool))

    callable_ = [t.name for t, _ in offered if not out(t)]
    assert selected and len(callable_) == 5  # five to choose from, not every tool of the server
    assert "git_log" in callable_ and {t.server for t, _ in offered} == {"git"}
    assert "git_commit" in {t.name for t, _ in offered if out(t)}  # kept for the narrowing to name
