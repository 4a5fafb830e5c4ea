"""A calculation ran, and the model's answer states no number however often it is asked: the
answer is the calculator's last result, written as the calculation. The model is scripted (its
replies are the point); the calculator is the real bundled server."""

from __future__ import annotations

import pytest

from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from tests.core.files_turn import files_turn

pytestmark = pytest.mark.anyio

PLAN = "We need to multiply the cost per user by the number of users."
ASKED = "What would the Team plan cost per month for 6 users, at 15 dollars a user?"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_an_answer_with_no_number_after_a_calculation_is_the_calculators_result(tmp_path) -> None:
    times = ToolCallChunk(ToolCall("c1", "evaluate", {"expression": "15 * 6"}))
    notices: list[str] = []
    outcome, backend = await files_turn([[times], *[[PLAN]] * 8], ASKED, tmp_path, notices=notices)

    assert outcome.answer == "15 × 6 = 90"
    assert outcome.shown_verdict == "computed"
    assert "The model's answer stated no number; the answer is the calculator's last result." in notices
    assert len(backend.requests) < 9  # asked again a bounded number of times first


async def test_an_answer_that_states_a_number_is_left_as_it_is(tmp_path) -> None:
    times = ToolCallChunk(ToolCall("c1", "evaluate", {"expression": "15 * 6"}))
    outcome, _ = await files_turn([[times], ["It would cost 90 dollars."]], ASKED, tmp_path)

    assert outcome.answer == "It would cost 90 dollars."


async def test_with_no_calculation_made_the_answer_is_not_replaced(tmp_path) -> None:
    outcome, _ = await files_turn([*[[PLAN]] * 8], ASKED, tmp_path)

    assert outcome.answer == PLAN
    assert outcome.shown_verdict != "computed"


async def test_an_answer_whose_only_numbers_are_in_a_code_block_is_the_calculators_result(tmp_path) -> None:
    subtract = ToolCallChunk(ToolCall("c1", "subtract", {"a": 27, "b": 18}))
    plan = (
        "To find the difference we can use the `subtract` function:\n\n```json\n"
        '[["subtract", ["fetch", ["http://127.0.0.1:46409/weather.html", 50.  // Maximum length]]]]\n```'
    )
    asked = "How many degrees apart are today's high of 27 and low of 18?"
    outcome, _ = await files_turn([[subtract], *[[plan]] * 8], asked, tmp_path)

    assert outcome.answer == "27 − 18 = 9"
    assert outcome.shown_verdict == "computed"


def test_numbers_in_prose_beside_code_still_count() -> None:
    from app.calculon.stated import stated_result

    answer = "The range is 9 degrees:\n```python\nprint(27 - 18)\n```"
    assert stated_result(answer, "How far apart are 27 and 18?", []) == ""
