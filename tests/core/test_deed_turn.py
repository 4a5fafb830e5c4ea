"""A request to add a row that carries a price and a count is done with the database's tool:
Calculon mode hands no formula, offers no calculator and asks for no calculation after it. A
question whose data came back, answered with a plan, is made to calculate.

The model is scripted (its calls are the point); the servers are real child processes: the
bundled calculator and a shop database with a write tool.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import pytest

from app.calculon import CalculonMode
from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.core.prompts import calculate_reask, system_prompt
from app.core.session import ChatSession
from app.llm.scripted import ScriptedBackend
from app.mcp.config import bundled_entry
from app.mcp.supervisor import Supervisor
from tests.mcp.helpers import script_entry, started

pytestmark = pytest.mark.anyio

ROW = (
    "Add a product named lamp in the category home, priced 19.99, with 4 in stock, to the products"
    " table of the shop database."
)
INSERT = "INSERT INTO products VALUES ('lamp', 'home', 19.99, 4)"
CALCULATOR = {"evaluate", "add", "subtract", "multiply", "divide"}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def servers(tmp_path_factory) -> AsyncIterator[Supervisor]:
    logs = tmp_path_factory.mktemp("logs")
    async with started(bundled_entry("calculator"), script_entry("shop", "shop.py"), log_dir=logs) as both:
        yield both


async def test_a_row_with_a_price_and_a_count_is_written_not_summed(servers) -> None:
    write = ToolCallChunk(ToolCall("c1", "write_query", {"query": INSERT}))
    backend = ScriptedBackend([[write], ["Added the lamp to the products table."]])
    chat = ChatSession(backend, servers, system_prompt=system_prompt(True), verifier=CalculonMode())

    with anyio.fail_after(30):
        outcome = await chat.run_turn(ROW)

    first = backend.requests[0]
    assert first.formula is None and first.worked is None  # no story read into the request
    assert not CALCULATOR & {t.name.rsplit(".", 1)[-1] for t in first.tools}
    assert "write_query" in {t.name.rsplit(".", 1)[-1] for t in first.tools}
    assert [(c.tool, c.result) for c in outcome.tool_calls] == [("write_query", "1 rows affected")]
    assert len(backend.requests) == 2  # the answer was not sent back to be calculated
    assert outcome.answer == "Added the lamp to the products table."
    assert outcome.shown_verdict != "not_calculated"


async def test_a_plan_after_the_data_came_back_is_made_to_calculate(servers) -> None:
    prices = "SELECT 12.75 AS price UNION ALL SELECT 89.9 UNION ALL SELECT 21.4 UNION ALL SELECT 6.85"
    read = ToolCallChunk(ToolCall("c1", "read_query", {"query": prices}))
    plan = (
        "To find the average price of the products in the 'tools' category, we need to follow these steps:"
        "\n\n1. **Read the query**: select the prices.\n2. **Average them**: add them and divide."
    )
    mean = ToolCallChunk(ToolCall("c2", "evaluate", {"expression": "(12.75 + 89.9 + 21.4 + 6.85) / 4"}))
    backend = ScriptedBackend([[read], [plan], [mean], ["The average price is 32.725."]])
    chat = ChatSession(backend, servers, system_prompt=system_prompt(True), verifier=CalculonMode())

    with anyio.fail_after(30):
        outcome = await chat.run_turn("What is the average price of the tools in the shop database?")

    after_plan = backend.requests[2]
    assert after_plan.messages[-1].text.startswith(calculate_reask(()))
    assert {t.name.rsplit(".", 1)[-1] for t in after_plan.tools} <= CALCULATOR | {"sqrt", "power", "mod"}
    assert after_plan.must_call
    assert outcome.answer == "The average price is 32.725." and outcome.shown_verdict == "computed"
