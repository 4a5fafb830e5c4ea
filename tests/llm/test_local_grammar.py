"""Tool-call grammars, call parsing and marker watching: no model needed."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from app.calculon import CalculonMode
from app.core.backend import ModelRequest
from app.core.messages import Message, ToolCall, ToolSpec
from app.core.records import earlier_result
from app.llm.local.answer_forms import calls_this_turn, repeats_earlier_call
from app.llm.local.backed import backed_forms
from app.llm.local.call_operands import operands_for
from app.llm.local.calls import parse_call
from app.llm.local.formats import ChatMLFormat
from app.llm.local.phases import Phases, PhaseSetup
from app.llm.local.sampling import RepeatGuard
from app.llm.local.schema_grammar import ANY_VALUE, answer_only, build_step_grammar, prepare_schema
from app.llm.local.step_rules import StepPolicy, forces_call, stops_for
from app.llm.local.watch import MarkerWatch
from tests.llm.local_fixtures import calculator_tools

NESTED = ToolSpec(
    "book",
    "Book a trip.",
    {
        "type": "object",
        "$defs": {
            "Place": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
        },
        "properties": {
            "to": {"$ref": "#/$defs/Place", "title": "To"},
            "seats": {"type": "integer", "minimum": 1},
            "class": {"enum": ["economy", "business"]},
            "extras": {"type": "array", "items": {"type": "string"}},
            "note": {"title": "Note"},
        },
        "required": ["to", "seats"],
    },
)
EXTERNAL = ToolSpec("lookup", "Look up.", {"type": "object", "properties": {"q": {"$ref": "other.json#/q"}}})


def test_calculator_schemas_convert_without_relaxing() -> None:
    grammar = build_step_grammar(calculator_tools(), forced=False, thinks=False)
    assert grammar.relaxed == ()
    assert grammar.decide.startswith("root ::= calculon-call | calculon-answer\n")
    for name in ("add", "multiply", "evaluate"):
        assert f'"\\"{name}\\""' in grammar.decide  # each offered name is a literal


def test_a_forced_call_grammar_has_no_answer_branch() -> None:
    grammar = build_step_grammar(calculator_tools(), forced=True, thinks=True)
    assert grammar.decide.splitlines()[0] == "root ::= calculon-call"


def test_defs_move_under_the_tools_own_names_and_annotations_go() -> None:
    schema = prepare_schema(NESTED.input_schema, scope="book")
    assert schema["properties"]["to"] == {"$ref": "#/$defs/book__Place"}
    assert set(schema["$defs"]) == {"book__Place"}
    assert schema["properties"]["note"] == ANY_VALUE  # no constraint left: any JSON value


def test_a_time_format_named_only_in_a_description_holds_the_string() -> None:
    time = {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"}
    day = {"type": "string", "description": "The day, as YYYY-MM-DD"}
    free = {"type": "string", "description": "A timestamp such as 2026-12-05T09:21"}
    schema = {"type": "object", "properties": {"time": time, "day": day, "free": free}}
    held = prepare_schema(schema, scope="convert_time")["properties"]
    assert re.fullmatch(held["time"]["pattern"].strip("^$"), "09:21")
    assert not re.fullmatch(held["time"]["pattern"].strip("^$"), "2026-12-05T09:21:20+00:00")
    assert re.fullmatch(held["day"]["pattern"].strip("^$"), "2026-12-05")
    assert "pattern" not in held["free"]


def test_two_tools_with_defs_share_one_grammar() -> None:
    other = ToolSpec("other", "", {**NESTED.input_schema, "required": ["seats"]})
    grammar = build_step_grammar((NESTED, other), forced=False, thinks=False)
    assert grammar.relaxed == ()
    lines = grammar.decide.splitlines()
    assert "alternative-0-arguments-to ::= book-Place" in lines
    assert "alternative-1-arguments-to ::= other-Place" in lines


def test_an_unconvertible_schema_is_relaxed_to_any_object_and_reported() -> None:
    grammar = build_step_grammar((EXTERNAL, *calculator_tools()[:1]), forced=False, thinks=False)
    assert grammar.relaxed == ("lookup",)


def test_a_schema_llama_cpp_rejects_is_relaxed() -> None:
    grammar = build_step_grammar(
        calculator_tools()[:2], forced=False, thinks=False, compiles=lambda text: False
    )
    assert set(grammar.relaxed) == {"add", "subtract"}


def test_a_valid_call_parses_into_a_tool_call() -> None:
    call = parse_call('{"name": "add", "arguments": {"a": 3, "b": "4"}}', calculator_tools(), complete=True)
    assert (call.name, dict(call.arguments), call.raw_arguments_error) == ("add", {"a": 3, "b": "4"}, "")
    assert call.id.startswith("call_")


@pytest.mark.parametrize(
    ("text", "complete", "expected"),
    [
        ('{"name": "add", "arguments": {"a": 3}}', True, "schema"),
        ('{"name": "add", "arguments": {"a": 3, "b":', False, "cut off"),
        ('{"name": "nope", "arguments": {}}', True, "not one of the offered tools"),
        ('{"name": "add", "arguments": [1]}', True, "JSON object"),
    ],
)
def test_a_bad_call_carries_the_reason_for_the_model(text: str, complete: bool, expected: str) -> None:
    call = parse_call(text, calculator_tools(), complete=complete)
    assert expected in call.raw_arguments_error
    assert call.name in ("add", "nope")


def test_markers_split_across_tokens_never_leak_into_the_text() -> None:
    watch = MarkerWatch(("<tool_call>", "<end_of_turn>"))
    shown = [watch.feed(piece) for piece in ("The answer", " is <", "tool", '_call>{"x')]
    assert [s[0] for s in shown] == ["The answer", " is ", "", ""]
    assert shown[-1][1:] == ("<tool_call>", '{"x')


def test_held_text_that_is_no_marker_is_released() -> None:
    watch = MarkerWatch(("<tool_call>",))
    assert watch.feed("a <to") == ("a ", None, "")
    assert watch.feed("ast>") == ("<toast>", None, "")
    assert watch.feed("<") == ("", None, "")
    assert watch.flush() == "<"


def _request(*messages: Message, tools: tuple[ToolSpec, ...] = (NESTED,)) -> ModelRequest:
    return ModelRequest("", messages, tools)


def _calculon(*messages: Message, tools: tuple[ToolSpec, ...] = (NESTED,)) -> ModelRequest:
    """A step in Calculon mode: the request carries the texts that back its numbers."""
    return ModelRequest("", messages, tools, backed=tuple(m.text for m in messages))


def test_a_numeric_question_forces_a_call_only_in_calculon_mode() -> None:
    policy = StepPolicy()
    question = Message("user", "What is 12 times 7?")
    assert forces_call(_calculon(question), policy)
    # the request says which mode the step is in, so turning it off needs no reload of the model
    assert not forces_call(_request(question), policy)
    assert not forces_call(_calculon(Message("user", "Say hello")), policy)
    assert not forces_call(_calculon(Message("user", "12 * 7"), tools=()), policy)
    after_result = _calculon(Message("user", "12 * 7"), Message("tool", "84", tool_name="multiply"))
    assert not forces_call(after_result, policy)


def test_a_story_with_its_numbers_in_words_forces_a_call_but_one_number_word_does_not() -> None:
    from app.calculon.worked import worked_answer

    def asked(text: str) -> ModelRequest:
        return ModelRequest(
            "", (Message("user", text),), (NESTED,), backed=(text,), worked=worked_answer(text)
        )

    calculon = StepPolicy()
    assert forces_call(asked("Twelve birds sat on a wire and five flew away. How many are left?"), calculon)
    assert forces_call(asked("Tom is fourteen and his sister is twice his age. How old is she?"), calculon)
    assert not forces_call(asked("Which one is the larger planet?"), calculon)
    assert not forces_call(_calculon(Message("user", "Twelve birds and five flew away.")), calculon)


def test_the_call_policy_can_force_every_first_step_or_none() -> None:
    words = _request(Message("user", "Say hello"))
    assert forces_call(words, StepPolicy(call_policy="always"))
    assert not forces_call(_request(Message("user", "12 * 7")), StepPolicy(call_policy="auto"))


def test_a_call_repeated_within_the_turn_is_recognised() -> None:
    call = ToolCall("c1", "add", {"a": 1, "b": 2})
    earlier_turn = [Message("user", "1+2"), Message("assistant", "", (call,)), Message("tool", "3")]
    this_turn = [Message("user", "again"), Message("assistant", "", (call,)), Message("tool", "3")]
    assert repeats_earlier_call(ToolCall("c2", "add", json.loads('{"b": 2, "a": 1}')), this_turn)
    assert not repeats_earlier_call(ToolCall("c2", "add", {"a": 1, "b": 3}), this_turn)
    assert not repeats_earlier_call(call, [*earlier_turn, Message("user", "new question")])


def test_a_failed_call_made_again_after_another_call_worked_is_no_repeat() -> None:
    commit = ToolCall("c1", "git_commit", {"message": "Add draft"})
    add = ToolCall("c2", "git_add", {"files": ["draft.txt"]})
    failed = Message("tool", "No changes staged for commit.", tool_call_id="c1", is_error=True)
    asked = Message("user", "Commit draft.txt")
    before_fix = [asked, Message("assistant", "", (commit,)), failed]
    assert repeats_earlier_call(dataclasses.replace(commit, id="c3"), before_fix)  # nothing changed since
    staged = Message("tool", "Files staged successfully", tool_call_id="c2")
    after_fix = [*before_fix, Message("assistant", "", (add,)), staged]
    assert not repeats_earlier_call(dataclasses.replace(commit, id="c3"), after_fix)
    assert repeats_earlier_call(dataclasses.replace(add, id="c4"), after_fix)  # it worked: a repeat


def test_calls_are_counted_from_the_latest_user_message() -> None:
    call = ToolCall("c1", "add", {"a": 1, "b": 2})
    messages = [
        Message("user", "1+2"),
        Message("assistant", "", (call, call)),
        Message("tool", "3"),
        Message("user", "Your answer had unbacked numbers."),
        Message("assistant", "", (call,)),
        Message("tool", "3"),
    ]
    assert calls_this_turn(messages) == 1
    assert calls_this_turn(messages[:3]) == 2
    assert calls_this_turn(messages[:4]) == 0
    # in Calculon mode, the turn is the user's own question's: the app's re-ask does not open one
    assert calls_this_turn(messages, backed=("1+2", "3")) == 3


def test_a_loop_is_seen_after_three_rounds_of_enough_tokens() -> None:
    guard = RepeatGuard()
    assert not guard.looping([7] * 15) and guard.looping([7] * 16)  # 1000000000000000...
    assert not guard.looping([1, 2, 3, 4, 5] * 3 + [1]) and guard.looping([9, *([1, 2, 3, 4, 5, 6] * 3)])
    assert not guard.looping(list(range(40)))  # counting up is no loop


def test_in_an_answer_a_long_run_of_digits_is_a_number_not_a_loop() -> None:
    guard = RepeatGuard()
    six, dot, equals = 6, 10, 11  # token ids: only 6 is a digit
    copied = [2, 3, dot, *([six] * 26)]  # 23.66666666666666666666666666
    assert guard.looping(copied) and not guard.looping(copied, lambda t: t == six)
    assert guard.looping([equals, 2, 3] * 6, lambda t: t == six)  # "= 23 = 23 = 23 ..." still loops


class _NoGrammar:
    """Stands in for a compiled grammar: phases only open and close it."""

    closed = False

    def close(self) -> None:
        self.closed = True


def _phases(*, tools: bool, thinks: bool = False) -> tuple[Phases, list[object]]:
    seen: list[object] = []
    grammar = build_step_grammar(calculator_tools()[:1], forced=False, thinks=thinks) if tools else None
    setup = PhaseSetup(grammar, ("<end_of_turn>",), thinks)
    return Phases(setup, seen.append, lambda text: _NoGrammar()), seen  # type: ignore[arg-type,return-value]


def test_text_that_cannot_open_a_call_becomes_an_answer_and_drops_the_grammar() -> None:
    phases, seen = _phases(tools=True)
    assert phases.kind == "decide" and phases.grammar is not None
    assert not phases.feed("Hello") and not phases.feed(" world")
    assert phases.kind == "answer" and phases.grammar is None
    assert [c.text for c in seen] == ["Hello", " world"]  # type: ignore[attr-defined]


def test_a_call_is_collected_up_to_its_end_marker() -> None:
    phases, seen = _phases(tools=True)
    for piece in ("<", "tool", "_call>", '{"name": "add", "arguments": {"a": 1, "b": 2}}', "</tool_call>"):
        done = phases.feed(piece)
    assert done and phases.call_complete and seen == []
    assert phases.call_text == '{"name": "add", "arguments": {"a": 1, "b": 2}}'


def test_thoughts_stream_apart_from_the_answer_and_a_stop_text_ends_the_step() -> None:
    phases, seen = _phases(tools=False, thinks=True)
    pieces = ("<think>", "Check the ", "numbers.", "</think>", "\n", "It is 7.", "<end_of_turn>")
    assert [phases.feed(p) for p in pieces][-1] is True
    assert [(type(c).__name__, c.text) for c in seen] == [  # type: ignore[attr-defined]
        ("ThoughtChunk", "Check the "),
        ("ThoughtChunk", "numbers."),
        ("TextChunk", "It is 7."),
    ]


def test_a_reply_that_starts_making_up_a_tool_result_ends_there() -> None:
    seen: list[object] = []
    phases = Phases(
        PhaseSetup(None, stops_for(ChatMLFormat()), False), seen.append, lambda text: _NoGrammar()
    )  # type: ignore[arg-type,return-value]
    pieces = ("12 * 7 = 84.", " <tool", '_result name="add">')
    assert [phases.feed(p) for p in pieces] == [False, False, True]
    shown = "".join(c.text for c in seen)  # type: ignore[attr-defined]
    assert shown.strip() == "12 * 7 = 84." and phases.stopped_on_text


def test_the_operands_come_from_the_users_words_never_from_the_apps_reask() -> None:
    question = "What is 12 times 7?"
    read = CalculonMode().arithmetic(question, "")
    asked = ModelRequest(
        "", (Message("user", question),), calculator_tools(), backed=(question,), arithmetic=read
    )
    ops = operands_for(asked, backed_forms([question]), one_call=True)
    assert ops is not None and sorted(f for slot in ops.slots for f in slot) == ["12", "7"]
    reask = (
        Message("assistant", "It is 85."),
        Message("user", "Your answer contains numbers no tool returned: 85."),
    )
    again = dataclasses.replace(asked, messages=(*asked.messages, *reask))
    assert operands_for(again, backed_forms([question]), one_call=True) is None


def test_a_follow_up_on_that_must_use_the_previous_result_and_a_story_need_not_use_every_number() -> None:
    # Seen on the conversation set: "Now add 16 to that." after 84 became add(16, 12).
    first = "What is 12 times 7?"
    call = ToolCall("c1", "multiply", {"a": 12, "b": 7})
    history = (
        Message("user", first),
        Message("assistant", "", (call,)),
        Message("tool", "84", tool_call_id="c1", tool_name="multiply"),
        Message("assistant", "84."),
    )
    follow = "Now add 16 to that."
    backed = (first, "84", follow)
    read = CalculonMode().arithmetic(follow, earlier_result(history))  # as the session reads it
    request = ModelRequest(
        "", (*history, Message("user", follow)), calculator_tools(), backed=backed, arithmetic=read
    )
    ops = operands_for(request, backed_forms(backed), one_call=True)
    assert ops is not None and ops.every and sorted(min(slot) for slot in ops.slots) == ["16", "84"]
    story = "Sam has 3 dogs and 12 apples. He eats 4 apples. How many apples are left?"
    read = CalculonMode().arithmetic(story, "")
    asked = ModelRequest("", (Message("user", story),), calculator_tools(), backed=(story,), arithmetic=read)
    found = operands_for(asked, backed_forms([story]), one_call=True)
    assert found is not None and not found.every


def test_a_call_written_where_none_may_be_made_ends_the_reply() -> None:
    seen: list[object] = []
    answer_only = build_step_grammar((), forced=False, thinks=False)
    setup = PhaseSetup(dataclasses.replace(answer_only, allows_calls=False), stops_for(ChatMLFormat()), False)
    phases = Phases(setup, seen.append, lambda text: _NoGrammar())  # type: ignore[arg-type,return-value]
    assert [phases.feed(p) for p in ("38 - 9 = 38. Call it: ", "<tool_call>")] == [False, True]
    assert "".join(c.text for c in seen).strip() == "38 - 9 = 38. Call it:"  # type: ignore[attr-defined]


def _answer_phases(question: str) -> tuple[Phases, list[object]]:
    """Phases of a Calculon-mode answer (its backed grammar) to ``question``, and what they show."""
    seen: list[object] = []
    grammar = answer_only(backed_forms([question]))
    phases = Phases(
        PhaseSetup(grammar, stops_for(ChatMLFormat()), False), seen.append, lambda text: _NoGrammar()
    )  # type: ignore[arg-type,return-value]
    return phases, seen


def test_a_calculon_mode_answer_ends_at_its_first_blank_line() -> None:
    phases, seen = _answer_phases("What is 134 divided by 0?")
    pieces = ("134 cannot be divided by zero.", "\n", "\nThe error message is:")
    assert [phases.feed(p) for p in pieces] == [False, False, True]
    assert "".join(c.text for c in seen) == "134 cannot be divided by zero."  # type: ignore[attr-defined]
    assert phases.stopped_on_text


def test_a_blank_line_after_an_announcing_colon_does_not_end_a_calculon_mode_answer() -> None:
    phases, seen = _answer_phases("Add up the prices in prices.csv.")
    pieces = ("To add them up:", "\n\n", "1. Read the file.", "\n\nThat is all:")
    assert [phases.feed(p) for p in pieces] == [False, False, False, True]
    shown = "".join(c.text for c in seen)  # type: ignore[attr-defined]
    assert shown == "To add them up:\n\n1. Read the file."
    assert phases.stopped_on_text
