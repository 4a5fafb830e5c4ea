"""Calculon mode's formula hint: the local backend makes the call itself and says so."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from app.core.backend import FormulaHint, ModelRequest, StepDone, TextChunk, ToolCallChunk
from app.core.messages import Message, ToolCall, ToolSpec
from app.llm.local.backend import LocalBackend
from app.llm.local.catalog import SMOLLM2, packaged_file
from app.llm.local.hinted import composed_answer, composed_note, hint_note, hinted_call
from app.llm.local.options import LocalOptions
from tests.llm.local_fixtures import calculator_tools, collect

pytestmark = pytest.mark.anyio
STORY = "Sam had 9 marbles. He gave 4 to Ann. How many marbles does Sam have left?"
TOOLS = calculator_tools()  # read before any test's loop runs: it runs a loop of its own
RANKED = FormulaHint("9 - 4", "9 − 4", "ranked", 0.7, (("9 + 4", 0.2),))


async def test_a_hinted_formula_is_called_without_decoding_and_the_trace_says_it_is_a_reading(smol):
    request = ModelRequest("", (Message("user", STORY),), TOOLS, (STORY,), RANKED)
    chunks = await collect(smol, request)
    (call,) = [c.call for c in chunks if isinstance(c, ToolCallChunk)]
    (done,) = [c for c in chunks if isinstance(c, StepDone)]
    assert call.name == "evaluate" and dict(call.arguments) == {"expression": "9 - 4"}
    assert done.tokens == 0
    assert any("reading of the story" in n and "check it" in n and "9 + 4 20%" in n for n in done.notices)


async def test_after_the_readings_result_the_app_writes_the_answer_and_the_model_reads_nothing(smol):
    # left to write it, the built-in model named the wrong thing around the result ("66 cars.")
    call = ToolCall("c1", "evaluate", {"expression": "9 - 4"})
    history = (
        Message("user", STORY),
        Message("assistant", "", (call,)),
        Message("tool", "5", tool_call_id="c1", tool_name="evaluate"),
    )
    request = ModelRequest("", history, TOOLS, (STORY, "5"), RANKED)
    chunks = await collect(smol, request)
    assert "".join(c.text for c in chunks if isinstance(c, TextChunk)) == "9 − 4 = 5."
    (done,) = [c for c in chunks if isinstance(c, StepDone)]
    assert done.tokens == 0 and any("the story's reading" in n for n in done.notices)  # not "your formula"


async def test_without_an_evaluate_tool_the_model_writes_its_own_call(smol):
    tools = tuple(t for t in TOOLS if t.name != "evaluate")
    request = ModelRequest("", (Message("user", STORY),), tools, (STORY,), RANKED)
    chunks = await collect(smol, request)
    (done,) = [c for c in chunks if isinstance(c, StepDone)]
    assert done.tokens > 0 and not any("reading of the story" in n for n in done.notices)


ASKED = "What is 12 times 7?"
TRANSCRIBED = FormulaHint("12 * 7", "12 × 7", "transcription")


def _after(result: str, *, is_error: bool = False, hint: FormulaHint = TRANSCRIBED) -> ModelRequest:
    call = ToolCall("c1", "evaluate", {"expression": hint.expression})
    history = (
        Message("user", ASKED),
        Message("assistant", "", (call,)),
        Message("tool", result, tool_call_id="c1", tool_name="evaluate", is_error=is_error),
    )
    return ModelRequest("", history, TOOLS, (ASKED, result), hint)


async def test_a_transcriptions_answer_is_the_formula_and_its_result_written_without_the_model(smol):
    chunks = await collect(smol, _after("84"))
    assert "".join(c.text for c in chunks if isinstance(c, TextChunk)) == "12 × 7 = 84."
    (done,) = [c for c in chunks if isinstance(c, StepDone)]
    assert done.tokens == 0 and any("not the model" in n for n in done.notices)


async def test_an_inexact_result_is_written_as_its_fraction_and_a_rounding(smol):
    chunks = await collect(
        smol, _after("65/7 ≈ 9.285714285714285714285714286 (rounded to 28 significant digits)")
    )
    assert "".join(c.text for c in chunks if isinstance(c, TextChunk)) == "12 × 7 = 65/7 ≈ 9.286."


async def test_the_calculators_refusal_answers_arithmetic_that_has_no_value(smol):
    undefined = FormulaHint("134 / 0", "134 ÷ 0", "transcription", defined=False)
    refused = _after("division by zero (at '/', character 5)", is_error=True, hint=undefined)
    chunks = await collect(smol, refused)
    assert (
        "".join(c.text for c in chunks if isinstance(c, TextChunk))
        == "134 ÷ 0 has no value (division by zero)."
    )


async def test_a_failed_result_or_another_call_than_the_hints_is_answered_by_the_model(smol):
    other = _after("84")
    own = ToolCall("c1", "multiply", {"a": 12, "b": 7})
    other = ModelRequest("", (other.messages[0], Message("assistant", "", (own,)), other.messages[2]), TOOLS,
                         other.backed, TRANSCRIBED)  # fmt: skip
    for request in (_after("division by zero", is_error=True), other):
        chunks = await collect(smol, request)
        (done,) = [c for c in chunks if isinstance(c, StepDone)]
        assert done.tokens > 0 and not any("not the model" in n for n in done.notices), request.messages[-1]


@pytest.fixture(scope="module")
def smol_as_a_file():
    """SmolLM2 opened as a file of the user's own: a model that reads a story itself."""
    backend = LocalBackend(LocalOptions(model_path=str(packaged_file(SMOLLM2)), n_ctx=2048, max_tokens=96))
    asyncio.run(backend.load())
    yield backend
    asyncio.run(backend.aclose())


REASK = "Your answer states no calculated result. Send the calculation to the calculator, then answer."


async def test_a_model_whose_own_reading_computed_nothing_gets_the_rankers_call_and_answer(smol_as_a_file):
    said = Message("assistant", "Sam has some marbles left.")
    asked = (Message("user", STORY), said, Message("user", REASK))
    due = ModelRequest("", asked, TOOLS, (STORY,), RANKED, reading_due=True)
    chunks = await collect(smol_as_a_file, due)
    (call,) = [c.call for c in chunks if isinstance(c, ToolCallChunk)]
    assert dict(call.arguments) == {"expression": "9 - 4"}
    result = Message("tool", "5", tool_call_id=call.id, tool_name="evaluate")
    after = ModelRequest("", (*asked, Message("assistant", "", (call,)), result), TOOLS, (STORY, "5"), RANKED)
    chunks = await collect(smol_as_a_file, after)
    assert "".join(c.text for c in chunks if isinstance(c, TextChunk)) == "9 − 4 = 5."


def test_a_worked_answers_inline_call_is_never_answered_for_the_model():
    # the model that reads the story itself goes on from its own "9 - 4 = 5"
    inline = ToolCall("c1", "evaluate", {"expression": "9 - 4"}, inline=True)
    result = Message("tool", "5", tool_call_id="c1", tool_name="evaluate")
    worked = (Message("user", STORY), Message("assistant", "Sam has 9 - 4 ", (inline,)), result)
    assert composed_answer(ModelRequest("", worked, TOOLS, (STORY, "5"), RANKED)) is None


FEVER = "Convert 98.6 degrees Fahrenheit to Celsius"
CONVERTED = FormulaHint(
    "",
    "98.6 degrees Fahrenheit",
    "transcription",
    call=(("convert",), (("quantity", "98.6 °F"), ("to_unit", "°C"))),
)


def test_a_transcribed_conversion_is_named_by_its_call_and_answered_from_the_converters_result():
    assert hint_note(CONVERTED) == (
        'The call convert("98.6 °F", "°C") was transcribed from your words, not written by the model.'
    )
    assert composed_note(CONVERTED) == "The answer was written from convert's result, not the model."
    call = ToolCall("c1", "convert", {"quantity": "98.6 °F", "to_unit": "°C"})
    history = (
        Message("user", FEVER),
        Message("assistant", "", (call,)),
        Message("tool", "37 °C", tool_call_id="c1", tool_name="convert"),
    )
    request = ModelRequest("", history, TOOLS, (FEVER, "37 °C"), CONVERTED)
    assert composed_answer(request) == "98.6 degrees Fahrenheit is 37 °C."
    inexact = "1000000000/45359237 ≈ 22.04622621848775807229738013 lb (rounded to 28 significant digits)"
    pounds = dataclasses.replace(
        CONVERTED, shown="10 kg", call=(("convert",), (("quantity", "10 kg"), ("to_unit", "lb")))
    )
    call = ToolCall("c1", "convert", {"quantity": "10 kg", "to_unit": "lb"})
    history = (
        history[0],
        Message("assistant", "", (call,)),
        Message("tool", inexact, tool_call_id="c1", tool_name="convert"),
    )
    answer = composed_answer(ModelRequest("", history, TOOLS, (FEVER, inexact), pounds))
    assert answer == "10 kg is about 22.05 lb (1000000000/45359237 lb exactly)."


def test_the_time_in_a_named_city_calls_whichever_clock_is_offered():
    asked = FormulaHint(
        "", "Tokyo", "transcription", call=(("get_time", "get_current_time"), (("timezone", "Asia/Tokyo"),))
    )
    schema = {"type": "object", "properties": {"timezone": {"type": "string"}}, "required": ["timezone"]}
    # the shape of the reference time server's tool (mcp-server-time), as a plain spec
    reference = ToolSpec("time.get_current_time", "Get current time in a specific timezone", schema, "time")
    made = hinted_call(asked, (*TOOLS, reference))
    assert made is not None and made[0].name == "time.get_current_time"
    assert dict(made[0].arguments) == {"timezone": "Asia/Tokyo"}
    assert made[1].startswith('The call get_current_time("Asia/Tokyo") was transcribed from your words')
    assert hinted_call(asked, TOOLS) is None  # no clock offered: the model answers as before
