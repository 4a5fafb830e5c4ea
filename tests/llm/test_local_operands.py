"""Each of the user's numbers used once: the operand grammar, checked by llama.cpp itself.

Each case feeds a whole candidate text through llama.cpp's grammar sampler, token by
token on SmolLM2's real vocabulary, and asks whether the grammar accepts it and may end.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
from collections.abc import Sequence

import numpy as np

from app.calculon import CalculonMode
from app.core.backend import ModelRequest
from app.core.messages import Message, ToolCall, ToolSpec
from app.llm.local import LocalBackend
from app.llm.local.answer_forms import answer_units, formulas, head_forms, last_result_forms
from app.llm.local.backed import backed_forms
from app.llm.local.operands import operands
from app.llm.local.schema_grammar import answer_only, compose, tool_rules
from app.llm.local.steer import MAX_STEERED, ResultSteer, Vocabulary
from app.servers.clock import server as clock_server
from app.servers.converter import server as converter_server
from tests.llm.grammar_check import accepts as grammar_accepts
from tests.llm.local_fixtures import calculator_tools


@functools.cache
def tools() -> tuple[ToolSpec, ...]:
    converter = asyncio.run(converter_server.list_tools())
    convert = [
        ToolSpec(t.name, t.description or "", t.input_schema) for t in converter if t.name == "convert"
    ]
    clock = [
        ToolSpec(t.name, t.description or "", t.input_schema) for t in asyncio.run(clock_server.list_tools())
    ]
    return (*calculator_tools(), *convert, *clock)


def call_grammar(question: str, *, every: bool = True, earlier: Sequence[str] = ()) -> str:
    forms = backed_forms([*earlier, question])
    free = backed_forms(earlier).arguments | ({"100"} if forms.percent else set())
    ops = operands(CalculonMode().arithmetic(question, ""), free, every=every)
    assert ops is not None
    return compose(tool_rules(tools()), forced=True, thinks=False, forms=forms, ops=ops).decide


def accepts(backend: LocalBackend, grammar: str, text: str, *, prefix: bool = False) -> bool:
    assert backend.runner is not None
    return grammar_accepts(backend.runner.model, grammar, text, special=False, prefix=prefix)


def call(name: str, **arguments: object) -> str:
    body = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)  # "°" as a model writes it
    return "<tool_call>" + body + "</tool_call>"


def test_a_call_uses_each_of_the_users_numbers_exactly_once(smol):
    grammar = call_grammar("What is 12 and 7 together?")
    assert accepts(smol, grammar, call("evaluate", expression="12 * 7"))
    assert accepts(smol, grammar, call("multiply", a=12, b=7))
    assert not accepts(smol, grammar, call("evaluate", expression="12 * 12"))
    assert not accepts(smol, grammar, call("evaluate", expression="12 * 7 * 7"))
    assert not accepts(smol, grammar, call("multiply", a=7, b=7))


def test_the_numbers_go_in_the_order_written_with_the_operator_the_words_name(smol):
    grammar = call_grammar("What is 12 times 7?")
    assert accepts(smol, grammar, call("evaluate", expression="12 * 7"))
    assert not accepts(smol, grammar, call("evaluate", expression="7 * 12"))
    assert not accepts(smol, grammar, call("evaluate", expression="12 + 7"))
    mixed = call_grammar("What is 38 minus 9 times 9?")
    assert accepts(smol, mixed, call("evaluate", expression="38 - 9 * 9"))
    assert accepts(smol, mixed, call("evaluate", expression="38 - (9 * 9)"))
    assert not accepts(smol, mixed, call("evaluate", expression="38 - 9 + 9"))


def test_english_that_turns_the_numbers_round_is_followed(smol):
    less = call_grammar("What is 40 less than 110?")
    assert accepts(smol, less, call("evaluate", expression="110 - 40"))
    assert not accepts(smol, less, call("evaluate", expression="40 - 110"))
    taken = call_grammar("Subtract 999 from 12345.")
    assert accepts(smol, taken, call("evaluate", expression="12345 - 999"))
    assert not accepts(smol, taken, call("subtract", a=999, b=12345))
    half = call_grammar("What is half of 30?")
    assert accepts(smol, half, call("evaluate", expression="30 / 2"))
    assert not accepts(smol, half, call("evaluate", expression="2 / 30"))


def test_a_word_problem_takes_the_one_operation_its_words_name(smol):
    shared = call_grammar("273 apples are shared equally among 6 children. How many does each child get?")
    assert accepts(smol, shared, call("evaluate", expression="273 / 6"))
    assert not accepts(smol, shared, call("evaluate", expression="273 * 6"))
    spent = call_grammar("I had $346 and spent $10. How much is left?")
    assert accepts(smol, spent, call("evaluate", expression="346 - 10"))
    assert not accepts(smol, spent, call("evaluate", expression="346 + 10"))
    silent = call_grammar("Tickets cost $5 each. How much do 3 tickets cost?")
    assert accepts(smol, silent, call("evaluate", expression="5 * 3"))
    assert accepts(smol, silent, call("evaluate", expression="3 * 5"))  # nothing orders them either
    assert accepts(smol, silent, call("multiply", a=5, b=3))


def test_where_the_words_name_every_operator_a_named_operation_tool_is_left_out(smol):
    big = call_grammar("What is 9426773649463482887834 minus 241255886323749462657?")
    assert accepts(smol, big, call("evaluate", expression="9426773649463482887834 - 241255886323749462657"))
    assert not accepts(smol, big, call("divide", a=9426773649463482887834, b=241255886323749462657))
    assert not accepts(smol, big, call("subtract", a=9426773649463482887834, b=241255886323749462657))


def test_no_operand_may_be_dropped_from_a_bracketed_expression(smol):
    grammar = call_grammar("What is (80 + 20) * 9?")
    assert accepts(smol, grammar, call("evaluate", expression="(80 + 20) * 9"))
    assert not accepts(smol, grammar, call("evaluate", expression="80 + 20"))
    assert not accepts(smol, grammar, call("add", a=80, b=20))  # two fields cannot take three numbers


def test_a_bracket_the_user_wrote_around_numbers_is_kept(smol):
    grammar = call_grammar("What is (80 + 20) * 9?")
    assert accepts(smol, grammar, call("evaluate", expression="(80 + 20) * 9"))
    assert not accepts(smol, grammar, call("evaluate", expression="80 + 20 * 9"))
    assert not accepts(smol, grammar, call("evaluate", expression="(-80 + 20) * 9"))  # no sign of its own
    assert not accepts(smol, grammar, call("evaluate", expression="80 + (20 * 9)"))
    assert not accepts(smol, grammar, call("evaluate", expression="9 * (80 + 20)%"))


def test_one_number_and_nothing_else_steers_the_call_away_from_arithmetic(smol):
    grammar = call_grammar("How many km is 144 miles?")
    assert accepts(smol, grammar, call("convert", quantity="144 miles", to_unit="km"))
    assert not accepts(
        smol, grammar, call("convert", quantity="144", to_unit="km")
    )  # a number needs its unit
    assert not accepts(smol, grammar, call("evaluate", expression="144 * 144"))
    assert not accepts(smol, grammar, call("multiply", a=144, b=144))
    assert not accepts(smol, grammar, call("sqrt", x=144))  # a quantity with a unit is not a bare number
    assert not accepts(smol, grammar, call("get_time", timezone="UTC"))  # it would take no operand


def test_a_conversion_goes_to_a_unit_the_user_named_never_back_to_its_own(smol):
    grammar = call_grammar("How many feet is 2 metres?")
    assert accepts(smol, grammar, call("convert", quantity="2 metres", to_unit="feet"))
    assert not accepts(smol, grammar, call("convert", quantity="2 metres", to_unit="metres"))
    assert not accepts(smol, grammar, call("convert", quantity="2 metres", to_unit="yards"))
    assert not accepts(smol, grammar, call("convert", quantity="2 metres", to_unit="many"))
    fahrenheit = call_grammar("What is 109 °F in Celsius?")
    assert accepts(smol, fahrenheit, call("convert", quantity="109 °F", to_unit="Celsius"))
    assert not accepts(smol, fahrenheit, call("convert", quantity="109 °F", to_unit="°F"))


def test_words_that_stand_for_numbers_count_as_operands(smol):
    squares = call_grammar("What is 25 squared plus 22 squared?")
    assert accepts(smol, squares, call("evaluate", expression="25^2 + 22^2"))
    assert not accepts(smol, squares, call("evaluate", expression="25 + 22"))
    assert not accepts(smol, squares, call("evaluate", expression="25 * 25 + 22 * 22"))
    assert not accepts(smol, squares, call("evaluate", expression="25 + 22*2 + 2"))
    average = call_grammar("What is the average of 43, 18 and 10?")
    assert accepts(smol, average, call("evaluate", expression="(43 + 18 + 10) / 3"))
    assert not accepts(smol, average, call("evaluate", expression="43 + 18 + 10"))
    assert not accepts(smol, average, call("evaluate", expression="43 + 18 + 10 / 3"))
    speed = call_grammar("A 330 km trip takes 12 hours. What is the average speed in km per hour?")
    assert accepts(smol, speed, call("evaluate", expression="330 / 12"))
    root = call_grammar("What is the square root of 1444?")
    assert accepts(smol, root, call("sqrt", x=1444))


def test_a_percentage_may_use_a_hundred_and_earlier_results_stay_free(smol):
    sale = call_grammar("A $40 coat is 50% off. What is the sale price?")
    assert accepts(smol, sale, call("evaluate", expression="40 - 50%"))  # 20: the calculator's percent
    assert not accepts(smol, sale, call("evaluate", expression="40 - 0.5"))
    assert not accepts(smol, sale, call("evaluate", expression="40 - 50"))
    # "off" names the one operator: a free hundred would only be a way round it
    assert not accepts(smol, sale, call("evaluate", expression="100% - 40% + 100% - 50%"))
    tip = call_grammar("How much is a 20% tip on a $95 bill?")  # the words name no operator
    assert accepts(smol, tip, call("evaluate", expression="20% * 95"))
    follow_up = call_grammar("And that times 3?", earlier=["What is 12 times 7?", "84"])
    assert accepts(smol, follow_up, call("multiply", a=84, b=3))
    assert not accepts(smol, follow_up, call("multiply", a=3, b=3))


def test_a_later_call_may_leave_operands_out_but_not_repeat_them(smol):
    grammar = call_grammar("What is 85 + 30 + 5?", every=False)
    assert accepts(smol, grammar, call("add", a=85, b=30))
    assert not accepts(smol, grammar, call("add", a=85, b=85))


def test_an_answer_after_a_result_must_state_it(smol):
    question, result, ran = "What is 38 minus 9 times 9?", "-43", frozenset({"38 - 9 * 9", "38 - 9 × 9"})
    forms = backed_forms([question, result])
    grammar = answer_only(forms, backed_forms([result], parts=False).text, formulas=ran).decide
    assert accepts(smol, grammar, "38 - 9 × 9 = -43.")
    assert accepts(smol, grammar, "-43")
    assert not accepts(smol, grammar, "38 - 9 = 38.")
    assert not accepts(smol, grammar, "38 - 9 × 9 = -43, not 38 - 9.")  # it ends with the result's sentence
    assert accepts(smol, grammar, "-43 is the result.")
    assert not accepts(smol, grammar, "-43 - ( )")  # words after the result, not a formula
    # a reply that turns to a made-up call would end at the marker, before the result
    assert accepts(smol, grammar, "38 is 38. You can call this tool: ", prefix=True)
    assert not accepts(smol, grammar, "38 is 38. You can call this tool: <", prefix=True)


def test_an_answer_states_its_result_on_one_short_line(smol):
    question, result, ran = "What is 38 minus 9 times 9?", "-43", frozenset({"38 - 9 * 9", "38 - 9 × 9"})
    forms, said = backed_forms([question, result]), backed_forms([result], parts=False).text
    grammar = answer_only(forms, said, formulas=ran).decide
    assert accepts(smol, grammar, "The result of 38 - 9 × 9 is -43.")
    assert not accepts(smol, grammar, "You can use the following tools:\n", prefix=True)
    assert not accepts(smol, grammar, "You can use the following tools: " * 6, prefix=True)  # > MAX_HEAD
    assert not accepts(smol, grammar, "38 - 9 = 38", prefix=True)  # "=" leads to the result only
    assert accepts(smol, grammar, "38 - 9 × 9 ≈ -43")
    eggs, total = "A box holds 331 eggs. How many eggs are in 18 boxes?", "5958"
    said, ran = backed_forms([total], parts=False).text, frozenset({"18 * 331"})
    grammar = answer_only(backed_forms([eggs, total]), said, formulas=ran).decide
    assert accepts(smol, grammar, "18 boxes hold 5958 eggs.")
    assert accepts(smol, grammar, "18 * 331 = 5958.")
    assert not accepts(smol, grammar, "331 * 18 = 5958.")  # a formula only as it ran
    assert not accepts(smol, grammar, "18 - 331 = 5958.")
    without = answer_only(backed_forms([eggs, total]), said).decide
    assert not accepts(smol, without, "18 * 331 = 5958.")  # no formula ran: none is written
    assert not accepts(smol, grammar, "18 * 5958")  # straight after an operator it reads as a formula
    assert not accepts(smol, grammar, "5958 - ~~ ~~", prefix=True)  # nor markup after it
    assert not accepts(smol, grammar, "5958 is ½ of it", prefix=True)  # "½" is a number too
    assert not accepts(smol, grammar, "18² eggs", prefix=True)


def test_an_answer_ends_with_the_result_and_one_word_of_its_unit_or_of_what_was_counted(smol):
    question, result = "How many feet is 2 metres?", "2500/381 ≈ 6.561679790026246719160104987 ft"
    messages = (
        Message("user", question),
        Message("assistant", "", (ToolCall("c1", "convert", {"quantity": "2 metres", "to_unit": "feet"}),)),
        Message("tool", result, tool_call_id="c1", tool_name="convert"),
    )
    read = CalculonMode().arithmetic(question, "")  # what the session sends: "feet" is asked for
    request = ModelRequest("", messages, (), backed=(question, result), arithmetic=read)
    reasked = dataclasses.replace(request, messages=(*messages, Message("user", "Only backed numbers.")))
    assert answer_units(request) == answer_units(reasked) == {"ft", "feet"}
    forms = backed_forms([question, result])
    grammar = answer_only(
        forms, backed_forms([result], parts=False).text, head_forms(reasked), answer_units(reasked)
    )
    assert accepts(smol, grammar.decide, "2 metres is 6.56 ft.")
    assert accepts(smol, grammar.decide, "6.56 feet.")
    assert accepts(smol, grammar.decide, "6.56.")
    assert not accepts(smol, grammar.decide, "6.56 metres.")  # the unit converted from
    assert not accepts(smol, grammar.decide, "6.56 ft is exactly one-sixth of it.", prefix=True)
    assert not accepts(smol, grammar.decide, "6.56 is a unit of length", prefix=True)


def test_the_parts_of_a_results_fraction_are_not_written_before_it(smol):
    question, result = "What is the average of 43, 18 and 10?", "71/3 ≈ 23.66666666666666666666666667"
    made = ToolCall("c1", "evaluate", {"expression": "(43 + 18 + 10) / 3"})
    messages = (
        Message("user", question),
        Message("assistant", "", (made,)),
        Message("tool", result, tool_call_id="c1", tool_name="evaluate"),
    )
    request = ModelRequest("", messages, (), backed=(question, result))
    forms = backed_forms(request.backed or ())
    grammar = answer_only(forms, backed_forms([result], parts=False).text, head_forms(request)).decide
    assert accepts(smol, grammar, "The average of 43, 18 and 10 is 23.67.")
    assert not accepts(smol, grammar, "The average of 43, 18 and 10 is 71", prefix=True)
    reasked = dataclasses.replace(request, messages=(*messages, Message("user", "Only backed numbers.")))
    assert last_result_forms(reasked) == backed_forms([result], parts=False).text  # the re-ask opens no turn
    assert "71" not in head_forms(reasked)


def test_an_answer_may_copy_the_calculators_rounding_note_as_written(smol):
    question, result = (
        "What is 1 divided by 3?",
        "1/3 ≈ 0.3333333333333333333333333333 (rounded to 28 significant digits)",
    )
    made = ToolCall("c1", "evaluate", {"expression": "1 / 3"})
    messages = (
        Message("user", question),
        Message("assistant", "", (made,)),
        Message("tool", result, tool_call_id="c1", tool_name="evaluate"),
    )
    ran = formulas(ModelRequest("", messages, (), backed=(question, result)))
    assert ran == {"1 / 3", "1 ÷ 3", "1/3"}  # as it ran, as it is shown, and the exact result
    forms = backed_forms([question, result])
    grammar = answer_only(forms, backed_forms([result], parts=False).text, formulas=ran).decide
    assert accepts(smol, grammar, "1/3 ≈ 0.333 (rounded to 28 significant digits)")
    assert accepts(smol, grammar, "1 ÷ 3 ≈ 0.3333333333333333333333333333")
    assert not accepts(smol, grammar, "1/3 ≈ 0.333 (rounded to 29 significant digits)")


def test_an_answer_that_loops_before_its_result_is_steered_to_spell_it(smol):
    question, result = "How many feet is 2 metres?", "2500/381 ≈ 6.561679790026246719160104987 ft"
    stated = backed_forms([result], parts=False).text
    grammar = answer_only(backed_forms([question, result]), stated)
    runner = smol.runner
    assert runner is not None
    picker = runner.decoder.picker
    sampler = picker.grammar(grammar.decide)
    steer = ResultSteer(grammar.result, Vocabulary(picker.n_vocab, picker.piece))
    try:
        for token in runner.model.tokenize(b"2. 2. 2. ", add_bos=False, special=False):
            sampler.accept(token)  # the loop so far, as the model wrote it
        logits = np.zeros(picker.n_vocab, dtype=np.float32)
        logits[runner.model.tokenize(b"2", add_bos=False, special=False)[0]] = 10.0  # it would go round again
        while not steer.done:
            token = steer.pick(sampler, logits)
            assert token is not None and steer.steered < MAX_STEERED
            sampler.accept(token)
            steer.fed(picker.piece(token).decode())
        assert steer.text.strip().lstrip("=≈ ") in stated
    finally:
        sampler.close()


def test_an_answer_never_writes_a_tool_call_out_as_json(smol):
    # Qwen2.5-Coder, shown its own call in the history, answered with it written out:
    # '{"name": "evaluate", "arguments": {"expression": "84"}}', 35 times in 126 questions
    question, result = "What is 12 times 7?", "84"
    forms = backed_forms([question, result])
    called = '{"name": "evaluate", "arguments": {"expression": "84"}}'
    after_result = answer_only(forms, backed_forms([result], parts=False).text).decide
    free = answer_only(forms).decide
    for grammar in (after_result, free):
        assert not accepts(smol, grammar, called, prefix=True)
        assert not accepts(smol, grammar, 'Here it is: {"name": "evaluate"', prefix=True)
    assert accepts(smol, after_result, "The answer is 84.") and accepts(smol, free, "It is 84.")


def test_only_tools_that_take_quantities_are_held_to_the_users_numbers() -> None:
    from app.llm.local.typed import field_kinds, takes_operands

    def text(description: str) -> dict[str, str]:
        return {"type": "string", "description": description}

    def takes(properties: dict[str, dict[str, str]]) -> bool:
        schema = {"type": "object", "properties": properties, "required": list(properties)}
        fields = field_kinds(schema)
        return fields is not None and takes_operands(schema, fields)

    quantity = text("The amount with its unit, as written: '144 miles'.")
    assert takes({"quantity": quantity, "to_unit": text("The unit to convert to.")})
    assert takes({"a": {"type": "number"}, "b": {"type": "number"}})
    # mcp-server-time's convert_time: "9:30" is a time, not 9 and 30 to place one per field
    time = text("Time to convert in 24-hour format (HH:MM)")
    zone = text("Source IANA timezone name")
    assert not takes({"source_timezone": zone, "time": time, "target_timezone": zone})
    assert not takes({"query": text("SELECT SQL query to execute")})
