"""Several calls in one step, through the real step and decoder on real weights.

Mistral Nemo's syntax lists its calls, ``[TOOL_CALLS][{...}, {...}]``; no Mistral weights are here,
and the small Qwen file on real tokens does not write a list of its own accord. So the step runs
with Nemo's real template (read from llama-cpp-python's source) on Qwen's weights, and its
grammar is narrowed to the one list a Mistral model would write: the tokens are still picked by
the real model under llama.cpp's grammar engine, the text read by the phases, the calls parsed
and filtered by the step itself. Only the grammar is scripted, and the runner's name says so.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Iterator, Sequence

import llama_cpp
import pytest

from app.core.backend import Chunk, ModelRequest, StepDone, ToolCallChunk
from app.core.messages import Message, ToolCall, ToolSpec
from app.llm.local.backed import BackedForms
from app.llm.local.formats import ChatFormat, choose_format
from app.llm.local.loader import LoadRequest, load_llama
from app.llm.local.operands import Operands
from app.llm.local.repeat import REPEAT_NOTICE, RETRY_NOTICE
from app.llm.local.schema_grammar import StepGrammar
from app.llm.local.step import StepRunner
from app.llm.local.step_rules import StepPolicy
from app.llm.local.syntaxes import MISTRAL, render_calls
from tests.llm.family_templates import chat_template
from tests.llm.local_fixtures import calculator_tools
from tests.llm.qwen_file import need_qwen

pytestmark = pytest.mark.slow

QUESTION = "Add 51 and 3, and 12 and 7."
FIRST = ToolCall("call_first0001", "add", {"a": 51, "b": 3})
SECOND = ToolCall("call_second002", "add", {"a": 12, "b": 7})


class ListScriptedRunner(StepRunner):
    """The real step, with its grammar narrowed to one scripted list of calls in the format's syntax."""

    script: tuple[ToolCall, ...] = ()
    fallback: tuple[ToolCall, ...] = ()
    offered: list[set[str]]  # the tools of each grammar asked for

    def grammar_for(
        self,
        tools: Sequence[ToolSpec],
        *,
        forced: bool,
        forms: BackedForms | None = None,
        ops: Operands | None = None,
    ) -> StepGrammar:
        offered = {t.name for t in tools}
        self.offered.append(offered)
        # the script's calls where their tools are offered; else the fallback's (a step that
        # withdrew a tool)
        script = self.script if {c.name for c in self.script} <= offered else self.fallback
        text = render_calls(script, self.format.syntax)
        return StepGrammar(f"root ::= {json.dumps(text)}", f"root ::= {json.dumps(text)}")


@pytest.fixture(scope="module")
def model() -> Iterator[llama_cpp.Llama]:
    loaded = load_llama(LoadRequest(need_qwen(), n_ctx=4096))
    yield loaded
    loaded.close()


def nemo() -> ChatFormat:
    metadata = {"tokenizer.chat_template": chat_template("mistralai-Mistral-Nemo-Instruct-2407")}
    chosen = choose_format(metadata, bos_token="<s>", eos_token="</s>")
    assert chosen.native and chosen.syntax is MISTRAL
    return chosen


def step(
    model: llama_cpp.Llama,
    messages: tuple[Message, ...],
    script: tuple[ToolCall, ...],
    fallback: tuple[ToolCall, ...] = (),
    *,
    must_call: bool = False,
    tools: tuple[ToolSpec, ...] | None = None,
    offered: list[set[str]] | None = None,
) -> list[Chunk]:
    runner = ListScriptedRunner(model, nemo(), StepPolicy(max_tokens=160, call_policy="auto"))
    runner.script, runner.fallback = script, fallback
    runner.offered = offered if offered is not None else []
    chunks: list[Chunk] = []
    specs = calculator_tools() if tools is None else tools
    runner.run(
        ModelRequest("You are Calculon.", messages, specs, must_call=must_call),
        chunks.append,
        threading.Event(),
    )
    return chunks


def calls(chunks: list[Chunk]) -> list[tuple[str, dict[str, object], str]]:
    return [
        (c.call.name, dict(c.call.arguments), c.call.raw_arguments_error)
        for c in chunks
        if isinstance(c, ToolCallChunk)
    ]


def test_a_step_that_writes_a_list_of_calls_returns_every_call(model) -> None:
    chunks = step(model, (Message("user", QUESTION),), (FIRST, SECOND))
    assert calls(chunks) == [("add", {"a": 51, "b": 3}, ""), ("add", {"a": 12, "b": 7}, "")]
    done = chunks[-1]
    assert isinstance(done, StepDone) and any("own format (mistral," in n for n in done.notices)


def test_a_call_already_made_this_turn_is_dropped_from_the_list_and_the_new_one_kept(model) -> None:
    earlier = (
        Message("user", QUESTION),
        Message("assistant", "", (FIRST,)),
        Message("tool", "54", tool_call_id=FIRST.id, tool_name="add"),
    )
    chunks = step(model, earlier, (FIRST, SECOND))
    assert calls(chunks) == [("add", {"a": 12, "b": 7}, "")]
    done = chunks[-1]
    assert isinstance(done, StepDone) and REPEAT_NOTICE not in done.notices


def test_a_list_of_calls_all_made_already_is_decoded_again_as_an_answer(model) -> None:
    earlier = (
        Message("user", QUESTION),
        Message("assistant", "", (FIRST, SECOND)),
        Message("tool", "54", tool_call_id=FIRST.id, tool_name="add"),
        Message("tool", "19", tool_call_id=SECOND.id, tool_name="add"),
    )
    chunks = step(model, earlier, (SECOND, FIRST))
    assert calls(chunks) == []
    done = chunks[-1]
    assert isinstance(done, StepDone) and REPEAT_NOTICE in done.notices


def test_a_call_that_failed_and_is_made_again_gives_way_to_a_call_of_another_tool(model) -> None:
    other = ToolCall("call_other0003", "multiply", {"a": 51, "b": 3})
    earlier = (
        Message("user", QUESTION),
        Message("assistant", "", (FIRST,)),
        Message("tool", "Error: the adder is down", tool_call_id=FIRST.id, tool_name="add", is_error=True),
    )
    chunks = step(model, earlier, (FIRST,), fallback=(other,))
    assert calls(chunks) == [("multiply", {"a": 51, "b": 3}, "")]
    done = chunks[-1]
    assert isinstance(done, StepDone) and RETRY_NOTICE in done.notices and REPEAT_NOTICE not in done.notices


def test_a_failed_call_made_again_gives_way_to_its_own_servers_look_up_not_yet_made(model) -> None:
    path = {"type": "object", "properties": {"path": {"type": "string"}}}
    tools = (
        *(dataclasses.replace(t, server="calculator") for t in calculator_tools()),
        ToolSpec("search_files", "Search files", path, server="files"),
        ToolSpec("list_rates", "List the adder's rates", {"type": "object"}, server="calculator"),
    )
    other = ToolCall("call_other0005", "list_rates", {})
    earlier = (
        Message("user", QUESTION),
        Message("assistant", "", (FIRST,)),
        Message("tool", "Error: the adder is down", tool_call_id=FIRST.id, tool_name="add", is_error=True),
    )
    offered: list[set[str]] = []
    chunks = step(model, earlier, (FIRST,), fallback=(other,), tools=tools, offered=offered)
    assert calls(chunks) == [("list_rates", {}, "")]
    # the retry offered the failed call's server's look-up, not the other server's search
    assert offered[-1] == {"list_rates"}


def test_a_call_that_worked_made_again_where_a_call_is_required_gives_way_to_another_tool(model) -> None:
    other = ToolCall("call_other0004", "multiply", {"a": 12, "b": 7})
    earlier = (
        Message("user", QUESTION),
        Message("assistant", "", (FIRST,)),
        Message("tool", "54", tool_call_id=FIRST.id, tool_name="add"),
    )
    chunks = step(model, earlier, (FIRST,), fallback=(other,), must_call=True)
    assert calls(chunks) == [("multiply", {"a": 12, "b": 7}, "")]
    done = chunks[-1]
    assert isinstance(done, StepDone) and RETRY_NOTICE in done.notices


def test_a_narrowed_step_shows_the_turns_whole_tool_list_and_calls_only_its_own_tools(model) -> None:
    every = calculator_tools()
    adding = tuple(t for t in every if t.name == "add")
    runner = ListScriptedRunner(model, nemo(), StepPolicy(max_tokens=160, call_policy="auto"))
    runner.script, runner.offered = (FIRST,), []
    request = ModelRequest("You are Calculon.", (Message("user", QUESTION),), adding, listed=every)
    prompt, _ = runner.fit(request)
    shown = model.detokenize(prompt).decode("utf-8")
    # the prompt lists what earlier steps listed (read once, its cache kept); the grammar narrows
    assert all(f'"{t.name}"' in shown for t in every)
    chunks: list[Chunk] = []
    runner.run(request, chunks.append, threading.Event())
    assert runner.offered == [{"add"}]
    assert calls(chunks) == [("add", {"a": 51, "b": 3}, "")]
