"""Tool calls written as text, read back as calls: every format a model or server may leave in
the text, and replies that only look like one."""

from __future__ import annotations

import json

from app.core.messages import Message, ToolCall, ToolSpec
from app.core.text_calls import calls_in_text, read_written

EVALUATE = ToolSpec(
    "evaluate",
    "Evaluate an arithmetic expression.",
    {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]},
)
TOOLS = (EVALUATE,)
CALL = {"name": "evaluate", "arguments": {"expression": "51 / 3"}}


def only_call(text: str) -> ToolCall:
    found = calls_in_text(text, TOOLS)
    assert found is not None, text
    assert len(found.calls) == 1
    return found.calls[0]


def test_bare_json_with_name_and_arguments_is_a_call() -> None:
    call = only_call(json.dumps(CALL))
    assert (call.name, dict(call.arguments), call.raw_arguments_error) == (
        "evaluate",
        {"expression": "51 / 3"},
        "",
    )


def test_every_format_a_model_writes_is_read_as_the_same_call() -> None:
    body = json.dumps(CALL)
    texts = [
        f"<tool_call>\n{body}\n</tool_call>",  # Hermes / Qwen2.5 / Qwen3
        f"<tool_call>{body}",  # cut off before its closing tag
        f"[TOOL_CALLS][{body}]",  # Mistral
        '<|python_tag|>{"name": "evaluate", "parameters": {"expression": "51 / 3"}}',  # Llama 3.1
        f"```json\n{body}\n```",
        f"```\n{body}\n```",
        'evaluate(expression="51 / 3")',  # as Python, seen from Qwen2.5-Coder
        "```python\nevaluate('51 / 3')\n```",  # positional, to the tool's only property
        json.dumps({"type": "function", "function": {**CALL, "arguments": json.dumps(CALL["arguments"])}}),
    ]
    for text in texts:
        call = only_call(text)
        assert (call.name, dict(call.arguments), call.raw_arguments_error) == (
            "evaluate",
            {"expression": "51 / 3"},
            "",
        ), text


def test_prose_before_a_tagged_call_is_kept_apart_from_it() -> None:
    found = calls_in_text(f"Let me work it out.\n<tool_call>\n{json.dumps(CALL)}\n</tool_call>", TOOLS)
    assert found is not None
    assert found.prose == "Let me work it out."
    assert [c.name for c in found.calls] == ["evaluate"]


def test_several_calls_one_per_line_are_each_read() -> None:
    other = {"name": "evaluate", "arguments": {"expression": "17 * 3"}}
    found = calls_in_text(f"{json.dumps(CALL)}\n{json.dumps(other)}", TOOLS)
    assert found is not None
    assert [c.arguments["expression"] for c in found.calls] == ["51 / 3", "17 * 3"]


def test_a_call_of_a_tool_not_offered_or_with_wrong_arguments_is_refused_with_the_reason() -> None:
    unknown = only_call('{"name": "get_time", "arguments": {}}')
    assert "not an offered tool" in unknown.raw_arguments_error
    wrong = only_call('{"name": "evaluate", "arguments": {"expression": 51}}')
    assert "does not match the schema" in wrong.raw_arguments_error


def test_answers_that_only_look_like_calls_are_answers() -> None:
    for text in (
        "Each box holds 17 cookies.",
        '{"answer": 17}',
        '{"name": "Bob", "age": 17}',  # no arguments: data the user may have asked for
        "The result is {17}.",
        f"I would call {json.dumps(CALL)} here, and the answer is 17.",
        'solve(expression="51 / 3")',  # Python, but no offered tool of that name
        "evaluate(expression=__import__('os').getcwd())",  # not a literal: never evaluated
        'The answer is evaluate(expression="51 / 3").',
        "",
    ):
        assert calls_in_text(text, TOOLS) is None, text


def test_a_written_call_already_made_this_turn_is_refused_and_a_new_one_is_run() -> None:
    made = ToolCall("c1", "evaluate", {"expression": "51 / 3"})
    turn = [Message("user", "51 / 3?"), Message("assistant", "", (made,)), Message("tool", "17")]
    again = read_written(json.dumps(CALL), TOOLS, turn, 2)
    assert again is not None and again.calls == ()
    assert "again as text" in again.notice
    fresh = read_written('{"name": "evaluate", "arguments": {"expression": "17 * 3"}}', TOOLS, turn, 2)
    assert fresh is not None and [c.arguments for c in fresh.calls] == [{"expression": "17 * 3"}]
    assert "it was run" in fresh.notice
    assert read_written("It is 17.", TOOLS, turn, 2) is None


def test_a_call_in_the_fenced_block_that_ends_a_reply_is_read_with_its_prose_apart() -> None:
    read = ToolSpec(
        "read_file",
        "Read a file.",
        {
            "type": "object",
            "properties": {"path": {"type": "string"}, "head": {"type": "number"}},
            "required": ["path"],
        },
    )
    reply = (
        "To find the version number, you can use the `read_file` function. Here's how you can do it:\n\n"
        '```json\nread_file("/tmp/project/README.md")\n```'
    )
    found = calls_in_text(reply, (read,))
    assert found is not None
    assert [(c.name, dict(c.arguments)) for c in found.calls] == [
        ("read_file", {"path": "/tmp/project/README.md"})
    ]
    assert found.prose.startswith("To find the version number") and "```" not in found.prose
    # words after the block, on what it "will return", are no answer: the call is read, they go
    amid = (
        "To convert the time, you can use the `read_file` function. Here's how you can do it:\n\n"
        '```json\n{\n  "name": "read_file",\n  "arguments": {"path": "/tmp/a.txt", "head": 2}\n}\n```\n\n'
        "This will return the first two lines."
    )
    found = calls_in_text(amid, (read,))
    assert found is not None
    assert [(c.name, dict(c.arguments)) for c in found.calls] == [
        ("read_file", {"path": "/tmp/a.txt", "head": 2})
    ]
    assert found.prose.endswith("Here's how you can do it:") and "return" not in found.prose
    # a fenced block of data, or of code that calls nothing offered, ends an answer and stays one
    assert calls_in_text('The data:\n\n```json\n{"name": "Bob", "age": 17}\n```', (read,)) is None
    assert calls_in_text("Try:\n\n```python\nprint(open('x').read())\n```", (read,)) is None
    data_amid = 'The data:\n\n```json\n{"name": "Bob", "age": 17}\n```\n\nBob is 17.'
    assert calls_in_text(data_amid, (read,)) is None
    assert calls_in_text('The data:\n{"name": "Bob", "age": 17}\nBob is 17.', (read,)) is None


def test_json_calls_that_open_a_line_after_prose_are_read_once_each_and_the_cut_off_one_dropped() -> None:
    read = ToolSpec(
        "read_file", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}}
    )
    call = '{"name": "read_file", "arguments": {"path": "/tmp/a.txt"}}'
    reply = f"Here's how you can do it:\n{call}\n{call}\n{call}\n" + call[:30]
    found = calls_in_text(reply, (read,))
    assert found is not None and found.prose == "Here's how you can do it:"
    assert [(c.name, dict(c.arguments)) for c in found.calls] == [("read_file", {"path": "/tmp/a.txt"})]
