"""Neutral history to google-genai contents: what goes back to Gemini and in which shape."""

from __future__ import annotations

import json

from google.genai import types

from app.core.backend import ModelRequest
from app.core.messages import Message, ToolCall, ToolSpec
from app.llm.gemini.convert import build_config, build_contents

ADD_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": ["number", "string"]}, "b": {"type": ["number", "string"]}},
    "required": ["a", "b"],
}


def _gemini_turn(*calls: tuple[str, str | None]) -> types.Content:
    parts = [types.Part(text="thinking", thought=True, thought_signature=b"sig-1")]
    parts += [
        types.Part(function_call=types.FunctionCall(id=i, name=n, args={"a": 1, "b": 2})) for n, i in calls
    ]
    return types.Content(role="model", parts=parts)


def test_model_content_from_provider_data_is_replayed_as_the_same_object():
    content = _gemini_turn(("add", "id-1"))
    history = (Message("user", "1+2?"), Message("assistant", provider_data=content))

    contents = build_contents(history)

    assert contents[1] is content


def test_provider_data_stored_as_json_is_replayed_with_its_signature():
    content = _gemini_turn(("add", "id-1"))
    stored = content.model_dump(mode="json", exclude_none=True)

    replayed = build_contents((Message("user", "q"), Message("assistant", provider_data=stored)))[1]

    assert replayed == content
    assert replayed.parts[0].thought_signature == b"sig-1"


def test_consecutive_tool_results_become_one_user_content_with_matching_ids():
    history = (
        Message("user", "q"),
        Message("assistant", provider_data=_gemini_turn(("add", "id-1"), ("add", "id-2"))),
        Message("tool", "3", tool_call_id="id-1", tool_name="add"),
        Message("tool", "bad", tool_call_id="id-2", tool_name="add", is_error=True),
    )

    contents = build_contents(history)

    assert [c.role for c in contents] == ["user", "model", "user"]
    responses = [p.function_response for p in contents[2].parts]
    assert [(r.id, r.name, r.response) for r in responses] == [
        ("id-1", "add", {"result": "3"}),
        ("id-2", "add", {"error": "bad"}),
    ]


def test_ids_gemini_did_not_issue_are_not_sent_back():
    history = (
        Message("user", "q"),
        Message("assistant", provider_data=_gemini_turn(("add", None))),
        Message("tool", "3", tool_call_id="call_generated", tool_name="add"),
    )

    response = build_contents(history)[2].parts[0].function_response

    assert response.id is None
    assert response.name == "add"


def test_history_from_another_backend_is_rebuilt_from_text_and_calls():
    history = (
        Message("user", "q"),
        Message("assistant", "Let me add.", (ToolCall("call_0", "add", {"a": 1, "b": 2}),)),
        Message("tool", "3", tool_call_id="call_0", tool_name="add"),
        Message("assistant", "It is 3."),
        Message("user", "thanks"),
    )

    contents = build_contents(history)

    assert [c.role for c in contents] == ["user", "model", "user", "model", "user"]
    text_part, call_part = contents[1].parts
    assert text_part.text == "Let me add."
    assert (call_part.function_call.name, call_part.function_call.args) == ("add", {"a": 1, "b": 2})
    assert contents[3].parts[0].text == "It is 3."


def test_empty_messages_are_left_out_because_gemini_rejects_empty_contents():
    contents = build_contents((Message("user", "q"), Message("assistant", ""), Message("user", "")))

    assert [c.role for c in contents] == ["user"]


def test_config_offers_json_schemas_and_leaves_function_calls_to_the_turn_loop():
    request = ModelRequest("Be exact.", (Message("user", "q"),), (ToolSpec("add", "Add.", ADD_SCHEMA),))

    config = build_config(request, include_thoughts=True)

    declaration = config.tools[0].function_declarations[0]
    assert declaration.parameters_json_schema == ADD_SCHEMA
    assert declaration.parameters is None
    assert config.automatic_function_calling.disable is True
    assert config.thinking_config.include_thoughts is True
    assert config.system_instruction == "Be exact."


def test_config_without_tools_or_system_sends_neither():
    config = build_config(ModelRequest("", (Message("user", "q"),), ()), include_thoughts=False)

    assert config.tools is None
    assert config.system_instruction is None
    assert config.thinking_config is None


def test_a_structured_result_reaches_gemini_as_json_with_any_text_the_json_lacks():
    weather = {"temperature": 33, "conditions": "Cloudy"}
    history = (
        Message("user", "q"),
        Message("assistant", provider_data=_gemini_turn(("weather", "id-1"), ("divide", "id-2"))),
        Message("tool", json.dumps(weather), tool_call_id="id-1", tool_name="weather", structured=weather),
        Message("tool", "1/3", tool_call_id="id-2", tool_name="divide", structured={"fraction": "1/3"}),
    )
    responses = [p.function_response.response for p in build_contents(history)[2].parts]
    assert responses == [{"result": weather}, {"result": {"fraction": "1/3"}, "text": "1/3"}]


def test_an_apps_context_after_the_last_answer_joins_that_model_turn_so_turns_alternate():
    from app.core.app_context import AppContext, context_messages

    context = context_messages([AppContext("t1-c1", "apps", "show_sum", "The slider is at 7.")])
    earlier = (Message("user", "2+3?"), Message("assistant", "It is 5."))
    history = (*earlier, *context, Message("user", "And now?"))

    contents = build_contents(history)

    assert [c.role for c in contents] == ["user", "model", "user", "user"]
    answer, response = contents[1], contents[2]
    assert answer.parts[0].text == "It is 5." and answer.parts[1].function_call.name == "app_context"
    assert response.parts[0].function_response.name == "app_context"
    assert "The slider is at 7." in json.dumps(response.parts[0].function_response.response)
