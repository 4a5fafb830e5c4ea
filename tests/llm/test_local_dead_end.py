"""A step whose grammar leaves the model no next token runs again without Calculon's number
rules, and says so, instead of failing the turn.

Seen on a real task: "How many lines in .../server.log are ERROR lines?" with read_text_file on
offer, a question with no number, so Calculon's rules give a number argument ("head") nothing
to take. Here the real step and decoder run on the real 0.5B Qwen weights; only the first
grammar is scripted to dead-end after the call marker, and the runner's name says so.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import llama_cpp
import pytest

from app.core.backend import Chunk, ModelRequest, StepDone, ToolCallChunk
from app.core.messages import Message
from app.llm.local.backed import BackedForms
from app.llm.local.formats import choose_format
from app.llm.local.loader import LoadRequest, load_llama
from app.llm.local.schema_grammar import StepGrammar
from app.llm.local.step import DEAD_END_NOTICE, StepRunner
from app.llm.local.step_rules import StepPolicy
from tests.llm.local_fixtures import calculator_tools
from tests.llm.qwen_file import need_qwen

pytestmark = pytest.mark.slow
QUESTION = "Add 51 and 3."


class DeadEndScriptedRunner(StepRunner):
    """The real step, whose first grammar is scripted to allow the call marker and then nothing."""

    def _grammar(self, request: ModelRequest, forms: BackedForms | None, notices: list[str]) -> StepGrammar:
        dead = 'root ::= "<tool_call>" "\\x00"'
        return StepGrammar(dead, 'root ::= "\\x00"', keeps_answer=True)


@pytest.fixture(scope="module")
def model() -> Iterator[llama_cpp.Llama]:
    loaded = load_llama(LoadRequest(need_qwen(), n_ctx=4096))
    yield loaded
    loaded.close()


def test_a_dead_end_in_the_grammar_reruns_the_step_without_number_rules(model: llama_cpp.Llama) -> None:
    bos, eos = (model.detokenize([t], special=True).decode() for t in (model.token_bos(), model.token_eos()))
    chat = choose_format(model.metadata, bos_token=bos, eos_token=eos, native=True)
    runner = DeadEndScriptedRunner(model, chat, StepPolicy(max_tokens=96, call_policy="numbers"))
    chunks: list[Chunk] = []
    request = ModelRequest("You are Calculon.", (Message("user", QUESTION),), calculator_tools(), (QUESTION,))
    runner.run(request, chunks.append, threading.Event())
    calls = [c.call for c in chunks if isinstance(c, ToolCallChunk)]
    done = chunks[-1]
    assert isinstance(done, StepDone) and DEAD_END_NOTICE in done.notices
    assert len(calls) == 1 and calls[0].name in {"add", "evaluate"}  # the question is a call, forced
