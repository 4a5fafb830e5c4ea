"""The local model in its own process: real processes, real crashes, the real built-in SmolLM2.

A crash is made the way native code crashes: the model's process is sent SIGSEGV (or SIGKILL)
while it streams an answer. Nothing is mocked; the tests wait on the stream and on the state
events, never on sleeps."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from app.core import events as ev
from app.core.backend import BackendError, ModelRequest, StepDone, TextChunk
from app.core.messages import Message
from app.engine import Engine
from app.llm.local import LocalOptions, ProcessBackend
from app.llm.local.process import EngineState, crash_cause
from app.settings import Settings
from tests.mcp.helpers import alive, wait_until_dead

pytestmark = pytest.mark.anyio
TIMEOUT_S = 120
STORY = ModelRequest("You tell stories.", (Message("user", "Tell me a long story about a lighthouse."),), ())
HELLO = ModelRequest("You are helpful.", (Message("user", "Say hello."),), ())


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def small_model(max_tokens: int = 120) -> ProcessBackend:
    return ProcessBackend(LocalOptions(n_ctx=1024, max_tokens=max_tokens))


async def crash_mid_answer(backend: ProcessBackend, signum: int) -> BackendError:
    """Stream a long answer and send ``signum`` to the model's process after its third piece."""
    pieces = 0
    with pytest.raises(BackendError) as raised:
        async for chunk in backend.stream(STORY):
            pieces += isinstance(chunk, TextChunk)
            if pieces == 3:
                assert backend.engine_pid is not None
                os.kill(backend.engine_pid, signum)
    return raised.value


def model_files_mapped(pid: int) -> list[str]:
    maps = Path(f"/proc/{pid}/maps").read_text()
    return sorted({line.split()[-1] for line in maps.splitlines() if line.endswith(".gguf")})


async def test_the_model_answers_from_its_own_process_and_this_one_maps_no_weights() -> None:
    backend = small_model()
    states: list[str] = []
    backend.subscribe(lambda state: states.append(state.state))
    try:
        with anyio.fail_after(TIMEOUT_S):
            chunks = [chunk async for chunk in backend.stream(HELLO)]
        assert isinstance(chunks[-1], StepDone) and any(isinstance(c, TextChunk) for c in chunks)
        assert backend.last_step is not None and backend.last_step.tokens > 0  # the child's own figures
        assert states == ["stopped", "starting", "loading", "ready"]
        assert backend.engine_pid not in (None, os.getpid())
        theirs = model_files_mapped(backend.engine_pid)
        assert theirs != []  # the weights live there...
        # ...and not here (other tests in this worker may load other model files in-process)
        assert set(theirs).isdisjoint(model_files_mapped(os.getpid()))
    finally:
        await backend.aclose()
    assert states[-1] == "stopped"


@pytest.mark.parametrize("signum", [signal.SIGSEGV, signal.SIGKILL], ids=["SIGSEGV", "SIGKILL"])
async def test_a_crash_mid_answer_fails_the_step_naming_the_signal_and_the_next_works(signum: int) -> None:
    backend = small_model()
    states: list[EngineState] = []
    backend.subscribe(states.append)
    try:
        with anyio.fail_after(TIMEOUT_S):
            error = await crash_mid_answer(backend, signum)
            assert error.category == "crash"
            assert f"was killed by {signal.Signals(signum).name}" in error.message
            assert "started again" in error.message
            chunks = [chunk async for chunk in backend.stream(HELLO)]  # loads a fresh process first
        assert isinstance(chunks[-1], StepDone)
        seen = [s.state for s in states]
        assert seen.index("crashed") < len(seen) - 1 and seen[-1] == "ready"
        assert any(signal.Signals(signum).name in s.detail for s in states if s.state == "crashed")
    finally:
        await backend.aclose()


async def test_stopping_the_consumer_stops_the_model_within_one_token() -> None:
    backend = small_model(max_tokens=400)
    try:
        with anyio.fail_after(TIMEOUT_S):
            stream = backend.stream(STORY)
            async for chunk in stream:
                if isinstance(chunk, TextChunk):
                    break
            await stream.aclose()  # as a cancelled turn does
            assert backend.last_step is not None
            assert backend.last_step.stop_reason == "cancelled"
            assert backend.last_step.tokens_after_stop <= 1
            chunks = [chunk async for chunk in backend.stream(HELLO)]  # the model is free again
        assert isinstance(chunks[-1], StepDone)
    finally:
        await backend.aclose()


@pytest.mark.parametrize(
    "content",
    [b"GGUF" + b"\x03\x00\x00\x00" + os.urandom(4096), b"not a model at all"],
    ids=["garbage-after-the-signature", "not-a-gguf"],
)
async def test_a_broken_model_file_is_one_sentence_and_the_process_survives_it(tmp_path, content) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(content)
    backend = ProcessBackend(LocalOptions(model_path=str(broken), n_ctx=512))
    try:
        with anyio.fail_after(TIMEOUT_S), pytest.raises(BackendError) as raised:
            await backend.load()
        assert raised.value.category == "model" and "broken.gguf" in raised.value.message
        assert "\n" not in raised.value.message.strip()
        assert backend.state.state == "failed"
    finally:
        await backend.aclose()


async def test_a_truncated_model_file_fails_its_load_without_taking_this_process_down(tmp_path) -> None:
    from app.llm.local import catalog

    whole = catalog.packaged_file(catalog.SMOLLM2)
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 3])
    backend = ProcessBackend(LocalOptions(model_path=str(cut), n_ctx=512))
    try:
        with anyio.fail_after(TIMEOUT_S), pytest.raises(BackendError) as raised:
            await backend.load()
        assert "cut.gguf" in raised.value.message or "process" in raised.value.message
        assert backend.state.state == "failed"
    finally:
        await backend.aclose()


def test_the_crash_sentence_names_the_signal_and_the_last_lines_that_are_not_routine() -> None:
    tail = ["INFO app.llm.local.model: loaded x.gguf", "GGML_ASSERT(n > 0) failed", "ggml.c:123: abort"]
    said = crash_cause(-signal.SIGABRT, tail, restarting=True)
    assert said.startswith("The local model's process was killed by SIGABRT (aborted")
    assert "GGML_ASSERT(n > 0) failed | ggml.c:123: abort" in said and "INFO" not in said
    assert crash_cause(3, [], restarting=False) == "The local model's process exited with code 3."


async def test_a_turn_broken_by_a_crash_keeps_the_conversation_and_the_next_question_is_answered(
    tmp_path,
) -> None:
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {}}))
    settings = Settings(strict=False, max_tokens=120)
    engine = Engine.from_settings(settings, servers_path=servers)
    seen: list[ev.Event] = []
    armed, killed = anyio.Event(), anyio.Event()

    def watch(event: ev.Event) -> None:
        seen.append(event)
        backend = engine.backend
        if not armed.is_set() or killed.is_set() or not isinstance(event, ev.TextDelta):
            return
        if isinstance(backend, ProcessBackend) and backend.engine_pid:
            killed.set()
            os.kill(backend.engine_pid, signal.SIGSEGV)

    engine.subscribe(watch)
    try:
        with anyio.fail_after(TIMEOUT_S):
            first = await engine.ask("Say hello in one short sentence.")
            assert not first.error and engine.session is not None
            history = list(engine.session.history)
            armed.set()
            broken = await engine.ask("Tell me a long story about a lighthouse.")
            assert killed.is_set() and "SIGSEGV" in broken.error
            assert engine.session.history == history  # the broken turn left the conversation as it was
            errors = [e for e in seen if isinstance(e, ev.TurnError)]
            assert errors and errors[-1].category == "crash"
            again = await engine.ask("Say hello again.")
        assert not again.error and again.answer
        assert len(engine.session.history) > len(history)
        states = [e.state for e in seen if isinstance(e, ev.ModelStateChanged)]
        assert "crashed" in states and states[-1] == "ready"
    finally:
        await engine.aclose()


async def test_closing_leaves_no_model_process_behind() -> None:
    backend = small_model()
    with anyio.fail_after(TIMEOUT_S):
        await backend.load()
    pids = [p for p in (backend.pid, backend.engine_pid) if p]
    assert pids and all(alive(pid) for pid in pids)
    await backend.aclose()
    assert await wait_until_dead(pids) == []


def test_a_finished_step_read_in_the_app_loads_no_llama_cpp_here() -> None:
    """The step's figures cross the pipe pickled; reading them must not import llama.cpp (and
    numpy) into the app's process in the middle of a turn, as the decoder's module would."""
    from app.llm.local import wire
    from app.llm.local.decoded import DecodeResult

    frame = wire.encode(wire.Finished(7, figures=DecodeResult("answer", tokens=10)))
    probe = (
        "import sys; from app.llm.local import wire; "
        f"m = wire.decode({frame[wire.HEADER.size :]!r}); "
        "assert m.figures.tokens == 10, m; print('llama_cpp' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


async def test_the_command_line_goes_on_importing_only_once_the_models_process_is_started() -> None:
    """``calculon ask`` starts the load as a task and imports the engine meanwhile: the child
    must exist by then, or llama.cpp starts only after those imports."""
    import asyncio

    from app.core.backend import load_under_way

    backend = ProcessBackend(command=[sys.executable, "-c", "import sys; sys.stdin.buffer.read()"])
    loading = asyncio.create_task(backend.load())
    try:
        await load_under_way(backend, loading)
        assert backend.pid is not None and alive(backend.pid)
    finally:
        loading.cancel()
        await backend.aclose()


def test_an_app_that_ends_while_the_model_loads_exits_at_once_and_leaves_no_model_process() -> None:
    """asyncio.run cancels a pending load together with the tasks that read the model's answers
    (a SIGTERM in a fresh ``calculon ask``'s first second): the load must not then wait the
    whole settle time for an answer nobody can read any more."""
    from app.llm.local.process import SETTLE_S

    script = (
        "import asyncio, sys\n"
        "from app.llm.local import ProcessBackend\n"
        "async def main():\n"
        "    silent = [sys.executable, '-c', 'import sys; sys.stdin.buffer.read()']  # never answers\n"
        "    backend = ProcessBackend(command=silent)\n"
        "    asyncio.create_task(backend.load())\n"
        "    await backend.spawned()\n"
        "    while backend.state.state != 'loading':  # its request is on its way\n"
        "        await asyncio.sleep(0)\n"
        "    print(backend.pid, flush=True)\n"
        "asyncio.run(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=SETTLE_S / 2
    )
    assert done.returncode == 0, done.stderr
    assert anyio.run(wait_until_dead, [int(done.stdout)]) == []
