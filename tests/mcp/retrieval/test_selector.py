from __future__ import annotations

import asyncio
import dataclasses
import time

import numpy as np
import pytest

from app.core.tools import ToolInfo
from app.mcp.retrieval import text
from app.mcp.retrieval.embed import MiniLMEncoder
from app.mcp.retrieval.selector import ToolRetriever
from app.settings import Settings

pytestmark = pytest.mark.anyio


def _names(selection: list[tuple[ToolInfo, float]] | None) -> list[str]:
    assert selection is not None
    return [tool.name for tool, _ in selection]


@pytest.mark.usefixtures("warm_cache")
async def test_every_tool_is_offered_at_or_below_the_threshold(
    tools: list[ToolInfo], encoder: MiniLMEncoder
) -> None:
    retriever = ToolRetriever(threshold=len(tools), encoder=encoder)
    await retriever.refresh(tools)
    assert retriever.select("add 2 and 3", tools) is None
    retriever.threshold = len(tools) - 1
    assert retriever.select("add 2 and 3", tools) is not None


@pytest.mark.usefixtures("warm_cache")
async def test_above_the_threshold_the_top_k_are_offered_best_first(
    tools: list[ToolInfo], encoder: MiniLMEncoder
) -> None:
    retriever = ToolRetriever(threshold=4, top_k=3, encoder=encoder)
    await retriever.refresh(tools)
    selection = retriever.select("how many kilometres is 3 miles", tools)
    assert selection is not None and len(selection) == 3
    assert selection[0][0].name == "convertUnits"
    scores = [score for _, score in selection]
    assert all(isinstance(s, float) for s in scores) and scores == sorted(scores, reverse=True)


@pytest.mark.usefixtures("warm_cache")
async def test_settings_give_threshold_top_k_and_pins(tools: list[ToolInfo], encoder: MiniLMEncoder) -> None:
    settings = Settings(tool_threshold=3, top_k=2, pinned_tools=["notes.create_note"])
    retriever = ToolRetriever.from_settings(settings, encoder=encoder)
    await retriever.refresh(tools)
    assert _names(retriever.select("multiply 6 by 7", tools))[0] == "create_note"
    assert len(_names(retriever.select("multiply 6 by 7", tools))) == 3
    retriever.apply_settings(Settings(tool_threshold=3, top_k=4, pinned_tools=[]))
    assert _names(retriever.select("multiply 6 by 7", tools))[0] == "multiply"
    assert len(_names(retriever.select("multiply 6 by 7", tools))) == 4


@pytest.mark.usefixtures("warm_cache")
async def test_pinned_tools_are_always_offered_first_with_their_real_score(
    tools: list[ToolInfo], encoder: MiniLMEncoder
) -> None:
    retriever = ToolRetriever(
        threshold=1, top_k=2, pinned=["send_email", "clock.days_between"], encoder=encoder
    )
    await retriever.refresh(tools)
    query = "what is the square root of 2"
    selection = retriever.select(query, tools)
    assert set(_names(selection)[:2]) == {"send_email", "days_between"}
    assert "sqrt" in _names(selection)[2:]
    real = {r.tool.name: r.score for r in retriever.rank(query, tools, len(tools))}
    assert selection is not None
    assert all(score == real[tool.name] for tool, score in selection)
    assert all(r.pinned for r in retriever.ranked(query, tools, 2)[:2])


@pytest.mark.usefixtures("warm_cache")
async def test_a_conditional_pin_holds_only_for_the_questions_it_accepts(
    tools: list[ToolInfo], encoder: MiniLMEncoder
) -> None:
    retriever = ToolRetriever(threshold=1, top_k=2, encoder=encoder)
    retriever.pinned_if = [("send_email", lambda query: "mail" in query)]
    await retriever.refresh(tools)
    assert _names(retriever.select("mail my boss the square root of 2", tools))[0] == "send_email"
    assert "send_email" not in _names(retriever.select("what is the square root of 2", tools))


@pytest.mark.usefixtures("warm_cache")
async def test_dense_ranks_a_paraphrase_that_shares_no_words(
    tools: list[ToolInfo], encoder: MiniLMEncoder
) -> None:
    retriever = ToolRetriever(threshold=1, encoder=encoder)
    await retriever.refresh(tools)
    rows = retriever.rank("Will it pour in Oslo on Saturday?", tools, len(tools))
    forecast = next(r for r in rows if r.tool.name == "get_forecast")
    assert forecast.bm25 == 0.0
    assert rows.index(forecast) < 3
    assert max(rows, key=lambda r: r.dense) is forecast


@pytest.mark.usefixtures("warm_cache")
async def test_hybrid_score_is_the_weighted_sum_of_scaled_bm25_and_cosine(
    tools: list[ToolInfo], encoder: MiniLMEncoder
) -> None:
    retriever = ToolRetriever(threshold=1, encoder=encoder)
    await retriever.refresh(tools)
    query = "email the quarterly numbers to my boss"
    rows = retriever.rank(query, tools, len(tools))
    assert rows[0].tool.name == "send_email"
    assert retriever.index is not None
    scale = retriever.index.bm25.reference(text.query_words(query), text.lead_weights(query))  # "email" leads
    for r in rows:
        weight = encoder.fusion_weight
        expected = weight * r.bm25 / scale + (1 - weight) * r.dense
        assert r.score == pytest.approx(expected, abs=1e-5)


@pytest.mark.usefixtures("warm_cache")
async def test_one_stray_shared_word_does_not_outrank_the_meaning(
    tools: list[ToolInfo], encoder: MiniLMEncoder
) -> None:
    # "many" appears only in get_forecast's parameter text; the question is about units.
    retriever = ToolRetriever(threshold=1, encoder=encoder)
    await retriever.refresh(tools)
    rows = retriever.rank("how many kilometres is 3 miles", tools, len(tools))
    assert max(rows, key=lambda r: r.bm25).tool.name == "get_forecast"
    assert rows[0].tool.name == "convertUnits"


@pytest.mark.usefixtures("warm_cache")
async def test_every_tool_is_offered_until_the_index_is_ready(
    tools: list[ToolInfo], encoder: MiniLMEncoder
) -> None:
    retriever = ToolRetriever(threshold=1, encoder=encoder)
    assert retriever.select("add 2 and 3", tools) is None  # starts a build in the background
    assert retriever.pending is not None
    await asyncio.wait_for(retriever.pending, 60)
    assert _names(retriever.select("add 2 and 3", tools))[0] == "add"


async def test_a_tool_the_index_does_not_know_means_every_tool_is_offered(
    tools: list[ToolInfo], encoder: MiniLMEncoder
) -> None:
    retriever = ToolRetriever(threshold=1, encoder=encoder)
    await retriever.refresh(tools[:-1])
    assert retriever.select("translate this", tools) is None
    assert retriever.pending is not None
    await asyncio.wait_for(retriever.pending, 60)
    assert _names(retriever.select("translate this into French", tools))[0] == "translate_text"


async def test_refresh_rebuilds_only_when_the_tool_list_changed(
    tools: list[ToolInfo], encoder: MiniLMEncoder
) -> None:
    retriever = ToolRetriever(threshold=1, encoder=encoder)
    assert await retriever.refresh(tools)
    texts = encoder.texts_encoded
    assert not await retriever.refresh(list(reversed(tools)))
    assert (retriever.builds, encoder.texts_encoded) == (1, texts)
    changed = [dataclasses.replace(tools[0], description="Sum of two numbers."), *tools[1:]]
    assert await retriever.refresh(changed)
    assert retriever.builds == 2 and encoder.texts_encoded > texts


async def test_notify_tools_changed_rebuilds_in_the_background(
    tools: list[ToolInfo], encoder: MiniLMEncoder
) -> None:
    retriever = ToolRetriever(threshold=1, encoder=encoder)
    await retriever.refresh(tools[:5])
    task = retriever.notify_tools_changed(tools)
    assert await asyncio.wait_for(task, 60)
    assert retriever.index is not None and len(retriever.index.tools) == len(tools)


async def test_background_build_does_not_block_the_loop(tools: list[ToolInfo]) -> None:
    retriever = ToolRetriever(threshold=1, encoder=MiniLMEncoder())  # unloaded: the load happens too
    build = asyncio.ensure_future(retriever.refresh(tools))
    gaps, offered_everything = [], []
    deadline = time.perf_counter() + 120
    last = time.perf_counter()
    while not retriever.ready and time.perf_counter() < deadline:
        offered_everything.append(retriever.select("add 2 and 3", tools) is None)
        await asyncio.sleep(0.01)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
    await build
    assert retriever.ready and retriever.builds == 1
    assert len(gaps) >= 5 and all(offered_everything)
    assert float(np.max(gaps)) < 0.5
    assert retriever.select("add 2 and 3", tools) is not None


async def test_before_the_static_table_exists_a_question_is_ranked_by_its_words_at_once(
    tools: list[ToolInfo], encoder: MiniLMEncoder, tmp_path
) -> None:
    # A new machine has no distilled table (half a minute of CPU); the first question used to
    # wait 10 s for it and then get every tool. A command-line answer does not distil at all.
    from app.mcp.retrieval.static import StaticEncoder

    static = StaticEncoder(encoder, root=tmp_path / "no-table-yet")
    retriever = ToolRetriever(threshold=4, top_k=3, encoder=static, prepare=False)

    covered = await retriever.settle(tools)

    assert covered
    assert retriever.index is not None and not retriever.index.dense
    assert "sqrt" in _names(retriever.select("square root of 2", tools))
    assert not static.prepared and static.distilled == 0 and not static.loaded
