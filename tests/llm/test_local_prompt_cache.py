"""The prompt's fixed opening is read once per machine: its llama.cpp state is saved to the
cache folder and a new process loads it instead of reading ~1,800 tokens (issue 26). A state
file that does not check out is ignored and rebuilt. Real SmolLM2, real llama.cpp."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from app import paths
from app.core.backend import ModelRequest, TextChunk, ToolCallChunk
from app.core.messages import Message, ToolSpec
from app.llm.local import LocalBackend, LocalOptions
from tests.llm.local_fixtures import calculator_tools, collect
from tests.llm.qwen_file import need_qwen

pytestmark = pytest.mark.slow

SYSTEM = "You are Calculon."
QUESTION = "What is 12 times 7?"


def fresh_process_turn() -> tuple[int, str, int]:
    """As a new process would: load, read the opening, ask. (tokens decoded for the opening,
    what the step wrote, the prompt tokens it had to read itself)."""
    backend = LocalBackend(LocalOptions(builtin_model="smollm2-135m-instruct", n_ctx=4096, max_tokens=24))
    request = ModelRequest(SYSTEM, (Message("user", QUESTION),), calculator_tools(), (QUESTION,))

    async def run() -> tuple[int, str, int]:
        try:
            decoded = await backend.prefill(SYSTEM)
            chunks = await collect(backend, request)
            step = backend.last_step
            assert step is not None
            text = "".join(c.text for c in chunks if isinstance(c, TextChunk))
            calls = [(c.call.name, dict(c.call.arguments)) for c in chunks if isinstance(c, ToolCallChunk)]
            return decoded, f"{text} {calls}", step.prompt_tokens - step.reused_tokens
        finally:
            await backend.aclose()

    return asyncio.run(run())


def test_a_second_process_loads_the_saved_opening_and_answers_the_same():
    first_decoded, first_said, _ = fresh_process_turn()
    saved = list((paths.cache_dir() / "prompt-state").glob("*.state"))
    assert first_decoded > 1000 and len(saved) == 1
    second_decoded, second_said, read_itself = fresh_process_turn()
    assert second_decoded == 0 and read_itself < 400
    assert second_said == first_said  # greedy decoding from the same state: the same call


def test_a_damaged_state_file_is_ignored_and_rebuilt():
    fresh_process_turn()
    (state,) = (paths.cache_dir() / "prompt-state").glob("*.state")
    data = bytearray(state.read_bytes())
    data[-100] ^= 0xFF
    state.write_bytes(bytes(data))
    decoded, _, _ = fresh_process_turn()
    assert decoded > 1000  # read afresh, not trusted
    decoded_again, _, _ = fresh_process_turn()
    assert decoded_again == 0  # and written again, whole


FIRST = "Tell me about the moon in two sentences."


def process_reading(
    messages: tuple[Message, ...], *, keep: bool, model_path: str = "", tools: Sequence[ToolSpec] = ()
) -> tuple[str, int, int]:
    """As a new process would answer ``messages`` (on the built-in, without tools unless
    given): (what it wrote, the prompt's tokens, those it read itself)."""
    builtin = "" if model_path else "smollm2-135m-instruct"
    options = LocalOptions(
        model_path=model_path, builtin_model=builtin, n_ctx=4096, max_tokens=40, keep_conversations=keep
    )
    backend = LocalBackend(options)
    request = ModelRequest(SYSTEM, messages, tuple(tools))

    async def run() -> tuple[str, int, int]:
        try:
            await backend.prefill(SYSTEM)
            chunks = await collect(backend, request)
            step = backend.last_step
            assert step is not None
            text = "".join(c.text for c in chunks if isinstance(c, TextChunk))
            return text, step.prompt_tokens, step.prompt_tokens - step.reused_tokens
        finally:
            await backend.aclose()

    return asyncio.run(run())


def test_a_conversation_continued_in_a_new_process_reads_only_what_is_new():
    answer, _, _ = process_reading((Message("user", FIRST),), keep=True)
    assert list((paths.cache_dir() / "turn-state").glob("*.state"))
    continued = (Message("user", FIRST), Message("assistant", answer), Message("user", "And the sun?"))
    said, prompt, read_itself = process_reading(continued, keep=True)
    said_afresh, _, read_afresh = process_reading(continued, keep=False)
    assert read_afresh > 40 and read_itself < 24  # "And the sun?" and the template's markers
    # the saved state decoded the first answer a token at a time, a fresh read in one batch: the
    # sums differ in their last bits, and greedy decoding may part ways after a while
    assert said.split()[:4] == said_afresh.split()[:4]
    assert prompt - read_itself > 40  # the first exchange came from the saved state


def test_a_new_question_in_a_new_process_reads_only_the_question_after_the_tool_list():
    # A model shown no worked examples has no saved opening: its instructions and tool list
    # are the start of every prompt. The last conversation's state holds them, and a new
    # question shares them even though the question differs.
    qwen = {"model_path": str(need_qwen()), "tools": calculator_tools()}
    process_reading((Message("user", FIRST),), keep=True, **qwen)
    assert list((paths.cache_dir() / "turn-state").glob("*.state"))
    asked = (Message("user", "Tell me about the sun in one sentence."),)
    said, prompt, read_itself = process_reading(asked, keep=True, **qwen)
    said_afresh, _, read_afresh = process_reading(asked, keep=False, **qwen)
    assert read_itself < 40 and prompt - read_itself > 200, (read_itself, prompt)
    assert read_afresh == prompt
    assert said.split()[:3] == said_afresh.split()[:3]


def worked_reading(story: str) -> tuple[str, int, int]:
    """As a new process answers a story itself in Calculon mode (a model that reads stories:
    instruction and worked examples first): (what it wrote and called, the prompt's tokens, those
    it read itself)."""
    from app.calculon.worked import worked_answer

    backend = LocalBackend(LocalOptions(model_path=str(need_qwen()), n_ctx=4096, max_tokens=60))
    request = ModelRequest(
        SYSTEM, (Message("user", story),), calculator_tools(), (story,), worked=worked_answer(story)
    )

    async def run() -> tuple[str, int, int]:
        try:
            chunks = await collect(backend, request)
            step = backend.last_step
            assert step is not None
            text = "".join(c.text for c in chunks if isinstance(c, TextChunk))
            calls = [dict(c.call.arguments) for c in chunks if isinstance(c, ToolCallChunk) and c.call.inline]
            return f"{text} {calls}", step.prompt_tokens, step.prompt_tokens - step.reused_tokens
        finally:
            await backend.aclose()

    return asyncio.run(run())


def test_a_worked_answer_in_a_new_process_reads_only_the_story_after_the_saved_examples():
    story = "Twelve birds sat on a wire and five flew away. How many are left?"
    said, prompt, read_first = worked_reading(story)
    assert "12 - 5" in said and read_first == prompt > 300, (said, prompt, read_first)
    assert list((paths.cache_dir() / "prompt-state").glob("*.state"))
    said_again, _, read_again = worked_reading(story)
    assert read_again < 40, read_again  # the story and the template's markers
    assert said_again == said
