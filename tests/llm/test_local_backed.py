"""Numbers that cannot be invented: the backed-number grammar, alone and on the real SmolLM2."""

from __future__ import annotations

import asyncio
import json

import pytest

from app.calculon.provenance import CalculonVerifier
from app.core.backend import ModelRequest, TextChunk, ToolCallChunk
from app.core.messages import Message, ToolCall
from app.llm.local import LocalBackend, LocalOptions
from app.llm.local.backed import backed_forms
from app.llm.local.decoder import DecodeResult
from app.llm.local.schema_grammar import build_step_grammar
from tests.llm.local_fixtures import calculator_tools, step_done

pytestmark = pytest.mark.anyio


def test_backed_forms_give_calls_exact_values_and_answers_their_roundings():
    forms = backed_forms(
        ["What is 15% of 1234.5?", "1/3 ≈ 0.3333333333333333333333333333 (rounded to 28 ...)"]
    )
    assert {"15", "0.15", "1234.5"} <= forms.json and "100" in forms.arguments
    assert {"0.33", "0.333333", "1234", "1235"} <= forms.text
    assert "0.33" not in forms.json and "1235" not in forms.json  # a rounded input is another calculation
    assert "0" not in forms.text  # a rounding to zero backs nothing


def test_numbers_written_with_thousands_commas_are_backed_grouped_and_plain():
    # "81,000" once failed the whole turn: the grouping of an already grouped form
    forms = backed_forms(["an overhead of 81,000 dollars and 7,000 per performance", "9"])
    assert {"81,000", "81000", "7,000", "7000"} <= forms.text
    assert "81000" in forms.json


def test_the_strict_grammar_compiles_in_llama_cpp_for_every_calculator_tool(smol):
    forms = backed_forms(["What is 12 times 7?"])
    grammar = build_step_grammar(calculator_tools(), forced=False, thinks=False, forms=forms)
    compiles = smol.runner.decoder.picker.compiles  # type: ignore[union-attr]
    assert compiles(grammar.decide) and compiles(grammar.body) and grammar.keeps_answer


async def collect(backend: LocalBackend, request: ModelRequest) -> list[object]:
    return [chunk async for chunk in backend.stream(request)]


def numbers_in(value: object) -> set[str]:
    import re

    return set(re.findall(r"\d+(?:\.\d+)?", json.dumps(value)))


async def test_a_call_can_only_use_the_users_numbers(smol):
    question = "subtract 999 from 12345"
    request = ModelRequest("", (Message("user", question),), calculator_tools(), backed=(question,))
    chunks = await collect(smol, request)
    (call,) = [c.call for c in chunks if isinstance(c, ToolCallChunk)]
    assert numbers_in(dict(call.arguments)) <= {"999", "12345"}, call


async def test_an_answer_can_only_state_backed_numbers(smol):
    question = "What is 37 times 48?"
    call = ToolCall("c1", "multiply", {"a": 37, "b": 48})
    history = (
        Message("user", question),
        Message("assistant", "", (call,)),
        Message("tool", "1776", tool_call_id="c1", tool_name="multiply"),
        Message("user", "Now tell me a long story with many different numbers in it."),
    )
    request = ModelRequest("", history, (), backed=(question, "1776"))
    answer = "".join(c.text for c in await collect(smol, request) if isinstance(c, TextChunk))
    assert answer.strip()
    assert CalculonVerifier().check(answer, [question, "1776"]).verified, answer


async def test_an_answer_that_goes_round_in_a_loop_is_cut_off_before_the_cap(smol):
    question = "Repeat after me, without stopping: 12, 12, 12, 12, 12, 12,"
    chunks = await collect(smol, ModelRequest("", (Message("user", question),), (), backed=(question,)))
    done = step_done(chunks)
    assert done.tokens < 96 and any("went round in a loop" in n for n in done.notices), (done, chunks)


def test_the_prompts_fixed_opening_is_read_before_the_first_question():
    question, tools = "What is 12 times 7?", calculator_tools()
    request = ModelRequest("You are Calculon.", (Message("user", question),), tools, (question,))
    step = _step_after_prefill(request)
    # all but the tool list and the question (a few hundred tokens) came from the cache
    assert step is not None and step.prompt_tokens - step.reused_tokens < 400, step


def test_the_answer_after_the_one_call_opens_with_the_cached_examples_and_leaves_out_the_tool_list():
    question, tools = "Sam had 9 marbles. He gave 4 to Ann. How many are left?", calculator_tools()
    call = ToolCall("c1", "evaluate", {"expression": "9 - 4"})
    history = (
        Message("user", question),
        Message("assistant", "", (call,)),
        Message("tool", "5", tool_call_id="c1", tool_name="evaluate"),
    )
    step = _step_after_prefill(ModelRequest("You are Calculon.", history, tools, (question, "5")))
    assert step is not None
    assert step.prompt_tokens > 1000, step  # the worked examples are there: a base model needs them
    # read anew: the question, the call and its result; not the tool list (a few hundred tokens)
    assert step.prompt_tokens - step.reused_tokens < 120, step


def _step_after_prefill(request: ModelRequest) -> DecodeResult | None:
    """A fresh backend reads the prompt's opening ahead, then runs one step of ``request``."""
    backend = LocalBackend(LocalOptions(builtin_model="smollm2-135m-instruct", n_ctx=4096, max_tokens=24))

    async def prefill_then_step() -> DecodeResult | None:
        try:
            await backend.prefill(request.system)
            await collect(backend, request)
            return backend.last_step
        finally:
            await backend.aclose()

    return asyncio.run(prefill_then_step())


def test_digits_inside_a_string_argument_are_the_strings_while_number_fields_stay_backed(smol):
    from app.core.messages import ToolSpec
    from app.llm.local.syntaxes import HERMES
    from tests.llm.grammar_check import accepts

    listing = ToolSpec(
        "list_directory", "List a folder.", {"type": "object", "properties": {"path": {"type": "string"}}}
    )
    forms = backed_forms(["List the files in my reports folder, then multiply 12 by 7."])
    tools = (*calculator_tools(), listing)
    grammar = build_step_grammar(tools, forced=True, thinks=False, forms=forms, syntax=HERMES).decide

    def call(body: str) -> str:
        return f"<tool_call>\n{body}\n</tool_call>"

    assert accepts(
        smol.runner.model, grammar, call('{"name": "list_directory", "arguments": {"path": "/srv/task1"}}')
    )
    assert accepts(
        smol.runner.model, grammar, call('{"name": "list_directory", "arguments": {"path": "q3-2026"}}')
    )
    assert accepts(smol.runner.model, grammar, call('{"name": "multiply", "arguments": {"a": 12, "b": 7}}'))
    assert not accepts(
        smol.runner.model, grammar, call('{"name": "multiply", "arguments": {"a": 13, "b": 7}}')
    )


def test_a_number_field_may_take_what_its_tools_schema_names_and_nothing_invented(smol):
    # git_log's optional max_count (default 10): with no number in the user's words the model
    # once wrote the key and then had no value the grammar allowed, and decoding died.
    from app.core.messages import ToolSpec
    from app.llm.local.backed import with_schema_numbers
    from app.llm.local.syntaxes import HERMES
    from tests.llm.grammar_check import accepts

    log = ToolSpec(
        "git_log",
        "Show the commit logs.",
        {
            "type": "object",
            "properties": {
                "repo_path": {"type": "string"},
                "max_count": {"type": "integer", "default": 10},
                "order": {"type": "string", "enum": ["7", "oldest"]},
            },
            "required": ["repo_path"],
        },
    )
    tools = (*calculator_tools(), log)
    forms = with_schema_numbers(
        backed_forms(["How many commits are in the repository at /srv/shop?"]),
        [t.input_schema for t in tools],
    )
    grammar = build_step_grammar(tools, forced=True, thinks=False, forms=forms, syntax=HERMES).decide

    def call(arguments: str, name: str = "git_log") -> str:
        return f'<tool_call>\n{{"name": "{name}", "arguments": {arguments}}}\n</tool_call>'

    model = smol.runner.model
    assert accepts(model, grammar, call('{"repo_path": "/srv/shop", "max_count": 10}'))
    assert not accepts(model, grammar, call('{"repo_path": "/srv/shop", "max_count": 11}'))
    assert not accepts(model, grammar, call('{"a": 10, "b": 2}', name="multiply"))  # the schema's, not yours
    assert "10" not in forms.text  # nor the answer's


def test_an_answer_may_number_its_steps_but_not_invent_a_number(smol):
    from app.llm.local.schema_grammar import answer_only
    from tests.llm.grammar_check import accepts

    forms = backed_forms(["Add up the prices in prices.csv.", "apples,1.20\npears,2.30"])
    grammar = answer_only(forms).decide
    model = smol.runner.model
    steps = "To add them up, I will:\n1. Read the file.\n2. Add 1.20 and 2.30."
    assert accepts(model, grammar, steps, special=False)
    invented = "To add them up:\n1. Read the file.\n2. The total is 4."
    assert not accepts(model, grammar, invented, special=False)


def test_a_version_number_read_from_a_file_may_be_stated_whole(smol):
    # "Current version: 0.4.2" reads as the numbers 0.4 and 2; the answer's grammar once let the
    # model state only "0.4." and stopped it there
    from app.llm.local.schema_grammar import answer_only
    from tests.llm.grammar_check import accepts

    readme = "# tinyshop\n\nCurrent version: 0.4.2\n"
    forms = backed_forms(["What version number does README.md give?", readme])
    assert "0.4.2" in forms.text
    # its parts are no quantities to calculate with: "2.1 + 2.0" from versions 2.1.0 and 2.0.3
    assert not {"0.4", "2"} & (forms.text | forms.arguments)
    result = backed_forms([readme], parts=False).text
    grammar = answer_only(forms, result).decide
    model = smol.runner.model
    assert accepts(model, grammar, "The current version is 0.4.2.", special=False)
    assert not accepts(model, grammar, "The current version is 0.4.3.", special=False)


def test_an_optional_number_field_nothing_backs_is_not_offered_so_no_call_dead_ends(smol):
    # read_file's optional head and tail, with no number in the words: the model once wrote the key
    # and then had no value the grammar allowed; the step was decoded again without the rules
    from app.core.messages import ToolSpec
    from app.llm.local.syntaxes import HERMES
    from tests.llm.grammar_check import accepts

    numbers = {"path": {"type": "string"}, "head": {"type": "number"}, "tail": {"type": ["integer", "null"]}}
    schema = {"type": "object", "properties": numbers, "required": ["path"]}
    read = ToolSpec("read_file", "Read a file.", schema)

    def grammar(asked: str) -> str:
        forms = backed_forms([asked])
        tools = (*calculator_tools(), read)
        return build_step_grammar(tools, forced=True, thinks=False, forms=forms, syntax=HERMES).decide

    def call(arguments: str, *, whole: bool = True) -> str:
        text = f'<tool_call>\n{{"name": "read_file", "arguments": {arguments}'
        return text + "}\n</tool_call>" if whole else text

    model, unsaid = smol.runner.model, grammar("Read the file /etc/hostname and tell me what it says.")
    assert accepts(model, unsaid, call('{"path": "/etc/hostname"}'))
    assert not accepts(model, unsaid, call('{"path": "/etc/hostname", "head"', whole=False), prefix=True)
    said = grammar("Show the first 5 lines of /etc/hostname.")
    assert accepts(model, said, call('{"path": "/etc/hostname", "head": 5}'))
    assert not accepts(model, said, call('{"path": "/etc/hostname", "head": 6}'))
