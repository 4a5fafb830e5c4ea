"""The prompt's fixed opening is read once per machine: its llama.cpp state is saved to the
cache folder and a new process loads it instead of reading ~1,800 tokens (issue 26). A state
file that does not check out is ignored and rebuilt. Real SmolLM2, real llama.cpp."""

from __future__ import annotations

import asyncio

import pytest

from app import paths
from app.core.backend import ModelRequest, TextChunk, ToolCallChunk
from app.core.messages import Message
from app.llm.local import LocalBackend, LocalOptions
from tests.llm.local_fixtures import calculator_tools, collect

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
