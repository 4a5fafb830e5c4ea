"""The local backend on the real built-in Gemma 3 270M: structure, not quality."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from app.core.backend import BackendError, ModelRequest, StepDone, TextChunk, ToolCallChunk
from app.core.messages import Message, ToolCall, ToolSpec
from app.llm.local import LocalBackend, LocalOptions, ProcessBackend, priority
from app.llm.registry import create_backend
from app.settings import Settings
from tests.llm.local_fixtures import calculator_tools, collect, gemma, gemma_path, step_done  # noqa: F401

pytestmark = pytest.mark.anyio
# A hang guard, not a speed check: a Gemma step under its schema grammar takes 50-100 s on a quiet
# 2-core machine (262k-token vocabulary) and ran past 120 s with another bench beside it.
TIMEOUT_S = 240
CAP = 40  # the small backend's tokens per step

TRIP = ToolSpec(
    "book_trip",
    "Book seats on a trip to a city.",
    {
        "type": "object",
        "$defs": {
            "Place": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
        },
        "properties": {
            "to": {"$ref": "#/$defs/Place"},
            "seats": {"type": "integer", "description": "How many seats."},
            "cabin": {"enum": ["economy", "business"]},
        },
        "required": ["to", "seats"],
        "additionalProperties": False,
    },
)
PROMPTS = (
    ("What is 12 times 7?", calculator_tools()),
    ("Divide 100 by 8, please.", calculator_tools()),
    ("What is the square root of 2?", calculator_tools()),
    ("Book 2 business seats to Paris.", (TRIP, *calculator_tools()[:2])),
    ("Please book one seat to Rome for me.", (TRIP,)),
)


@pytest.fixture(scope="module")
def small(gemma_path: Path) -> Iterator[tuple[LocalBackend, list[tuple[float, str]]]]:  # noqa: F811
    """A second backend with a tiny context and token cap, and the progress its load reported."""
    backend = LocalBackend(LocalOptions(model_path=str(gemma_path), n_ctx=512, max_tokens=CAP))
    progress: list[tuple[float, str]] = []
    asyncio.run(backend.load(lambda value, text: progress.append((value, text))))
    yield backend, progress
    asyncio.run(backend.aclose())


@pytest.mark.parametrize(("prompt", "tools"), PROMPTS, ids=[p for p, _ in PROMPTS])
async def test_every_tool_call_validates_against_its_schema(
    gemma: LocalBackend,  # noqa: F811
    prompt: str,
    tools: tuple[ToolSpec, ...],
) -> None:
    # Calculon mode: the request carries the texts that back its numbers
    request = ModelRequest("", (Message("user", prompt),), tools, backed=(prompt,))
    chunks = await asyncio.wait_for(collect(gemma, request), TIMEOUT_S)
    calls = [c.call for c in chunks if isinstance(c, ToolCallChunk)]
    done = step_done(chunks)
    assert not any("decoding grammar" in n for n in done.notices)  # every schema became a grammar
    if any(ch.isdigit() for ch in prompt):
        assert len(calls) == 1  # Calculon mode: a numeric question must start with a tool call
    for call in calls:
        spec = next(t for t in tools if t.name == call.name)
        assert call.raw_arguments_error == ""
        jsonschema.validate(dict(call.arguments), spec.input_schema)


async def test_free_text_streams_token_by_token(small) -> None:  # type: ignore[no-untyped-def]
    backend, _ = small
    chunks = await asyncio.wait_for(
        collect(backend, ModelRequest("", (Message("user", "Tell me a story."),), ())), TIMEOUT_S
    )
    texts = [c for c in chunks if isinstance(c, TextChunk)]
    assert len(texts) > 1
    assert all(isinstance(c, TextChunk) for c in chunks[:-1])
    step_done(chunks)


async def test_a_model_that_will_not_stop_is_cut_off_at_the_token_cap(small) -> None:  # type: ignore[no-untyped-def]
    backend, _ = small
    chunks = await asyncio.wait_for(
        collect(backend, ModelRequest("", (Message("user", "Count to 1000."),), ())), TIMEOUT_S
    )
    done = step_done(chunks)
    assert done.tokens == CAP
    assert any(f"cut off at {CAP} tokens" in notice for notice in done.notices)


async def test_cancelling_the_consumer_stops_generation_within_one_token(gemma: LocalBackend) -> None:  # noqa: F811
    started = asyncio.Event()
    seen: list[object] = []

    async def consume() -> None:
        async for chunk in gemma.stream(ModelRequest("", (Message("user", "Write a long story."),), ())):
            seen.append(chunk)
            if sum(isinstance(c, TextChunk) for c in seen) == 3:
                started.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(started.wait(), TIMEOUT_S)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.wait_for(task, TIMEOUT_S)
    step = gemma.last_step
    assert step is not None and step.stop_reason == "cancelled"
    assert step.tokens_after_stop <= 1
    assert step.tokens < gemma.options.max_tokens
    assert not any(isinstance(c, StepDone) for c in seen)

    # the backend is free again at once
    asked = "What is 2 plus 3?"  # in Calculon mode (backed set): a numeric question starts with a call
    request = ModelRequest("", (Message("user", asked),), calculator_tools(), backed=(asked,))
    chunks = await asyncio.wait_for(collect(gemma, request), TIMEOUT_S)
    assert any(isinstance(c, ToolCallChunk) for c in chunks)


async def test_a_call_that_would_outrun_the_token_cap_is_closed_in_time(small) -> None:  # type: ignore[no-untyped-def]
    backend, _ = small
    states = ToolSpec(
        "record_states",
        "Record a list of states.",
        {
            "type": "object",
            "properties": {"states": {"type": "array", "items": {"type": "string"}}},
            "required": ["states"],
        },
    )
    asked = "Record all 50 US states."  # in Calculon mode: the digit makes the first step a call
    request = ModelRequest("", (Message("user", asked),), (states,), backed=(asked,))
    chunks = await asyncio.wait_for(collect(backend, request), TIMEOUT_S)
    calls = [c.call for c in chunks if isinstance(c, ToolCallChunk)]
    assert len(calls) == 1 and calls[0].raw_arguments_error == ""
    jsonschema.validate(dict(calls[0].arguments), states.input_schema)
    assert any("closed early" in n for n in step_done(chunks).notices)
    assert backend.last_step is not None and backend.last_step.closed_early == "budget"


async def test_an_overlong_history_is_trimmed_from_the_oldest_exchange(small) -> None:  # type: ignore[no-untyped-def]
    backend, _ = small
    filler = "This sentence is here to take up room in the context window. " * 12
    history = []
    for n in range(6):
        history += [Message("user", f"Question {n}: {filler}"), Message("assistant", f"Answer {n}.")]
    request = ModelRequest("Be brief.", (*history, Message("user", "And now?")), ())
    chunks = await asyncio.wait_for(collect(backend, request), TIMEOUT_S)
    done = step_done(chunks)
    assert any("trimmed to fit the model's 512-token context" in n for n in done.notices)
    assert backend.last_step is not None and backend.last_step.prompt_tokens <= 512 - CAP


async def test_a_tool_result_too_long_for_the_context_is_cut_in_its_middle_not_the_turn(small) -> None:  # type: ignore[no-untyped-def]
    backend, _ = small
    lines = "".join(f"line {n}: the quick brown fox jumps over the lazy dog\n" for n in range(200))
    read = ToolCall("r1", "read_text", {"path": "notes.txt"})
    request = ModelRequest(
        "Be brief.",
        (
            Message("user", "How many lines does notes.txt have?"),
            Message("assistant", "", (read,)),
            Message("tool", lines + "[Counted by the app: this result has 200 lines.]", tool_call_id="r1"),
        ),
        (),
    )
    chunks = await asyncio.wait_for(collect(backend, request), TIMEOUT_S)
    done = step_done(chunks)
    assert any("cut in its middle to fit the model's 512-token context" in n for n in done.notices)
    assert backend.last_step is not None and backend.last_step.prompt_tokens <= 512 - CAP


async def test_a_message_too_long_for_the_context_is_a_clear_error(small) -> None:  # type: ignore[no-untyped-def]
    backend, _ = small
    request = ModelRequest("", (Message("user", "word " * 800),), ())
    with pytest.raises(BackendError) as caught:
        await asyncio.wait_for(collect(backend, request), TIMEOUT_S)
    assert caught.value.category == "context"
    assert "too long for the model's context" in caught.value.message


def test_loading_reports_progress_up_to_ready(small) -> None:  # type: ignore[no-untyped-def]
    backend, progress = small
    values = [value for value, _ in progress]
    assert len(progress) > 2 and values == sorted(values)
    assert progress[-1] == (1.0, "Model ready")
    assert backend.context_tokens == 512
    assert "gemma-3-270m" in backend.model_label


def test_the_registry_builds_the_model_process_from_every_setting(gemma_path: Path) -> None:  # noqa: F811
    backend = create_backend("local", **Settings(model_path=str(gemma_path), n_ctx=1024).to_dict())
    assert isinstance(backend, ProcessBackend)
    assert (backend.options.model_path, backend.options.n_ctx, backend.options.strict) == (
        str(gemma_path),
        1024,
        True,
    )
    assert backend.context_tokens == 1024


def _raised_threads(base: int) -> set[int]:
    """Native ids of this process's threads running below ``base`` priority."""
    ids = set()
    for entry in Path("/proc/self/task").iterdir():
        with contextlib.suppress(OSError):  # a thread may end while we look
            if priority.thread_nice(int(entry.name)) > base:
                ids.add(int(entry.name))
    return ids


@pytest.mark.skipif(not priority.supported(), reason="per-thread nice values are Linux only")
async def test_generation_threads_run_below_the_ui_threads_priority(gemma_path: Path) -> None:  # noqa: F811
    main_nice = priority.thread_nice(threading.get_native_id())
    before = _raised_threads(main_nice)
    backend = LocalBackend(LocalOptions(model_path=str(gemma_path), n_ctx=512, max_tokens=8, n_threads=2))
    try:
        await backend.load()
        request = ModelRequest("", (Message("user", "Tell me a long story about a lighthouse."),), ())
        await asyncio.wait_for(collect(backend, request), TIMEOUT_S)
        lowered = _raised_threads(main_nice) - before
    finally:
        await backend.aclose()
    assert priority.thread_nice(threading.get_native_id()) == main_nice  # the caller keeps its priority
    # The worker itself, and the compute thread llama.cpp started from it for the second core.
    assert len(lowered) >= 2
    assert {priority.thread_nice(tid) for tid in lowered if Path(f"/proc/self/task/{tid}").exists()} <= {
        min(priority.MAX_NICE, main_nice + priority.BACKGROUND_NICE_STEP)
    }
