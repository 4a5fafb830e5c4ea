"""The engine facade: servers, lazy backend, turns and shutdown, composed."""

from __future__ import annotations

import asyncio
import json
import threading

import anyio
import pytest

from app.calculon import CalculonMode
from app.calculon.provenance import CalculonVerifier
from app.core import events as ev
from app.core import prompts
from app.core.backend import BackendError, ToolCallChunk
from app.core.messages import ToolCall
from app.engine import Engine
from app.llm import registry
from app.llm.scripted import ScriptedBackend
from app.mcp.config import ConfigError
from app.settings import Settings
from tests.mcp.helpers import EventLog, alive, script_entry, wait_until_dead

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def servers_file(tmp_path):
    path = tmp_path / "servers.json"
    body = {"mcpServers": {"basic": script_entry("basic", "basic.py").to_json()}}
    path.write_text(json.dumps(body))
    return path


@pytest.fixture
def use_backend(monkeypatch):
    """Register a backend under a test-only name; returns the options it was built with."""
    built: list[dict] = []

    def install(backend) -> Settings:
        def factory(**options):
            built.append(options)
            return backend

        monkeypatch.setitem(registry._FACTORIES, "under-test", factory)
        return Settings(backend="under-test")

    install.built = built  # type: ignore[attr-defined]
    return install


class SlowLoadingBackend(ScriptedBackend):
    """Reports load progress from a worker thread, as llama.cpp does."""

    def __init__(self, *args, fail: str = "", **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fail = fail
        self.closed = False

    async def load(self, progress=None) -> None:
        def work() -> None:
            for step in (0.25, 0.5, 1.0):
                progress(step, f"loaded {step:.0%}")
            if self.fail:
                raise BackendError(self.fail, category="model")

        await asyncio.to_thread(work)

    async def aclose(self) -> None:
        self.closed = True


async def test_ask_starts_the_servers_and_runs_a_turn_through_them(servers_file):
    backend = ScriptedBackend([[ToolCallChunk(ToolCall("c1", "add", {"a": 2, "b": 40}))], ["It is 42."]])
    log = EventLog()
    allowed = Settings(tool_approvals={"basic.*": "always"})  # approvals are tested in test_engine_asking
    engine = Engine(allowed, servers_path=servers_file, backend=backend, sink=log)
    outcome = await engine.ask("what is 2 + 40?")
    pid = engine.supervisor.states()[0].pid
    await engine.aclose()
    assert outcome.answer == "It is 42." and outcome.tool_calls[0].result == "42.0"
    kinds = [e.kind for e in log.events]
    ready = next(i for i, e in enumerate(log.events) if getattr(e, "state", "") == "ready")
    loaded = next(i for i, e in enumerate(log.events) if getattr(e, "done", False))
    assert max(ready, loaded) < kinds.index("turn_started")
    assert kinds[-1] == "server_state" and log.states("basic")[-1] == "stopped"
    assert await wait_until_dead([pid]) == []


@pytest.mark.parametrize("trusted", [False, True])
async def test_a_number_only_an_untrusted_server_gave_is_from_that_server_not_verified(servers_file, trusted):
    backend = ScriptedBackend([[ToolCallChunk(ToolCall("c1", "add", {"a": 2, "b": 40}))], ["It is 42."]])
    settings = Settings(
        tool_approvals={"basic.*": "always"}, trusted_servers=["basic"] if trusted else [], strict=True
    )
    log = EventLog()
    verifier = CalculonVerifier()
    engine = Engine(settings, servers_path=servers_file, backend=backend, sink=log, verifier=verifier)
    outcome = await engine.ask("what is 2 + 40?")
    await engine.aclose()
    ready = next(e for e in log.events if isinstance(e, ev.AnswerReady))
    body = outcome.to_dict()
    if trusted:
        assert ready.untrusted == () and body["verified"] is True and "from_servers" not in body
    else:
        assert ready.verified is True and ready.untrusted == (("42", "basic"),)  # every number backed...
        assert body["verified"] is False and body["from_servers"] == ["basic"]  # ...but not verified
        assert body["numbers"][-1] == {"text": "42", "source": "add(2, 40)", "from_server": "basic"}


async def test_a_result_only_an_untrusted_server_gave_is_shown_as_such_not_as_computed(servers_file):
    backend = ScriptedBackend([[ToolCallChunk(ToolCall("c1", "add", {"a": 2, "b": 40}))], ["It is 42."]])
    settings = Settings(tool_approvals={"basic.*": "always"}, strict=True)
    log = EventLog()
    engine = Engine(settings, servers_path=servers_file, backend=backend, sink=log, verifier=CalculonMode())
    outcome = await engine.ask("what is 2 + 40?")
    await engine.aclose()
    ready = next(e for e in log.events if isinstance(e, ev.AnswerReady))
    assert outcome.verdict == "verified"  # every number backed, the formula established...
    assert ready.verdict == outcome.to_dict()["verdict"] == "untrusted"  # ...by a server nobody vouched for


async def test_backend_is_built_from_the_registry_on_first_use_with_the_settings(servers_file, use_backend):
    backend = SlowLoadingBackend([["hi"]])
    settings = use_backend(backend)
    log = EventLog()
    engine = Engine(settings, servers_path=servers_file, sink=log)
    assert engine.backend is None
    try:
        assert await engine.ensure_backend() is backend
        assert await engine.ensure_backend() is backend  # loaded once
    finally:
        await engine.aclose()
    assert len(use_backend.built) == 1 and use_backend.built[0]["n_ctx"] == settings.n_ctx
    loading = [e for e in log.events if isinstance(e, ev.ModelLoading)]
    assert [e.progress for e in loading] == [0.0, 0.25, 0.5, 1.0, 1.0]
    assert loading[-1].done and not loading[-1].error
    assert backend.closed


async def test_progress_from_a_worker_thread_reaches_subscribers_on_the_loop(servers_file, use_backend):
    settings = use_backend(SlowLoadingBackend([["hi"]]))
    threads: set[int] = set()
    engine = Engine(settings, servers_path=servers_file, sink=lambda e: threads.add(threading.get_ident()))
    await engine.ensure_backend()
    await engine.aclose()
    assert threads == {threading.get_ident()}


async def test_backend_that_cannot_load_raises_and_reports_why(servers_file, use_backend):
    settings = use_backend(SlowLoadingBackend([["hi"]], fail="model file is damaged"))
    log = EventLog()
    engine = Engine(settings, servers_path=servers_file, sink=log)
    try:
        with pytest.raises(BackendError, match="model file is damaged"):
            await engine.ask("hello")
    finally:
        await engine.aclose()
    last_loading = [e for e in log.events if isinstance(e, ev.ModelLoading)][-1]
    assert last_loading.done and last_loading.error == "model file is damaged"
    assert not any(isinstance(e, ev.TurnStarted) for e in log.events)


async def test_a_backend_gone_from_the_registry_is_a_backend_error(servers_file, monkeypatch):
    monkeypatch.setitem(registry._FACTORIES, "nonesuch", "app.llm.nonesuch:create_backend")
    settings = Settings(backend="nonesuch")
    monkeypatch.delitem(registry._FACTORIES, "nonesuch")  # settings checked, then the plugin went away
    engine = Engine(settings, servers_path=servers_file)
    with pytest.raises(BackendError, match="Unknown backend 'nonesuch'"):
        await engine.ensure_backend()
    await engine.aclose()


async def test_malformed_servers_file_fails_when_the_engine_is_built(tmp_path):
    path = tmp_path / "servers.json"
    path.write_text('{"mcpServers": {"x": {"args": []}}}')
    with pytest.raises(ConfigError, match="'x'"):
        Engine(Settings(), servers_path=path)


async def test_changing_the_model_rebuilds_the_backend_on_the_next_turn(servers_file, use_backend):
    first = SlowLoadingBackend([["one"]])
    settings = use_backend(first)
    engine = Engine(settings, servers_path=servers_file)
    await engine.ensure_backend()
    await engine.reconfigure(Settings(backend=settings.backend, n_ctx=2048))
    assert first.closed and engine.backend is None
    await engine.ensure_backend()
    await engine.aclose()
    assert [options["n_ctx"] for options in use_backend.built] == [8192, 2048]


async def test_the_system_prompt_follows_calculon_mode(servers_file):
    backend = ScriptedBackend([["Hi."], ["Hi again."]])
    engine = Engine(Settings(strict=True), servers_path=servers_file, backend=backend)
    await engine.ask("hello")
    await engine.reconfigure(Settings(strict=False))
    assert engine.backend is backend  # the mode is sent with each step: the model is not loaded again
    await engine.ask("hello again")
    await engine.aclose()
    assert [r.system for r in backend.requests] == [prompts.system_prompt(True), prompts.system_prompt(False)]
    assert prompts.system_prompt(True) != prompts.system_prompt(False)


async def test_reloading_the_servers_file_applies_the_edit(servers_file):
    engine = Engine(Settings(), servers_path=servers_file, backend=ScriptedBackend([]))
    await engine.start()
    body = json.loads(servers_file.read_text())
    body["mcpServers"]["noisy"] = script_entry("noisy", "noisy.py").to_json()
    servers_file.write_text(json.dumps(body))
    await engine.reload_servers()
    states = {s.name: s.state for s in engine.supervisor.states()}
    await engine.aclose()
    assert states == {"basic": "ready", "noisy": "ready"}


async def test_aclose_stops_every_server_process(servers_file):
    engine = Engine(Settings(), servers_path=servers_file, backend=ScriptedBackend([]))
    await engine.start()
    pid = engine.supervisor.states()[0].pid
    assert pid is not None and alive(pid)
    await engine.aclose()
    assert await wait_until_dead([pid]) == []


@pytest.fixture
def beside_hung(tmp_path):
    """The basic server beside one that never answers initialize."""
    path = tmp_path / "servers.json"
    entries = [script_entry("basic", "basic.py"), script_entry("hung", "hostile.py", "hung")]
    path.write_text(json.dumps({"mcpServers": {e.name: e.to_json() for e in entries}}))
    return path


async def test_ask_waits_only_the_start_up_wait_and_names_the_server_still_starting(beside_hung):
    backend = ScriptedBackend([[ToolCallChunk(ToolCall("c1", "add", {"a": 2, "b": 40}))], ["It is 42."]])
    settings = Settings(tool_approvals={"basic.*": "always"}, startup_wait_s=8)  # basic starts in it
    log = EventLog()
    engine = Engine(settings, servers_path=beside_hung, backend=backend, sink=log)
    try:
        outcome = await engine.ask("what is 2 + 40?")  # the hung server's connect limit is 60 s
        states = {s.name: s.state for s in engine.supervisor.states()}
    finally:
        await engine.aclose()
    assert outcome.tool_calls[0].result == "42.0" and states == {"basic": "ready", "hung": "starting"}
    notices = [e.message for e in log.events if isinstance(e, ev.Notice)]
    assert notices == ["server hung is still starting; its tools join when it is ready"]
    assert next(i for i, e in enumerate(log.events) if isinstance(e, ev.Notice)) < [
        e.kind for e in log.events
    ].index("turn_started")


async def test_started_without_waiting_a_turn_runs_at_once_and_tools_join_as_servers_are_ready(beside_hung):
    backend = ScriptedBackend([["Nothing to add yet."], ["hi"]])
    log = EventLog()
    engine = Engine(Settings(startup_wait_s=600), servers_path=beside_hung, backend=backend, sink=log)
    try:
        await engine.start(wait=False)  # as the window does
        with anyio.fail_after(30):  # waiting for the hung server would take its 60 s connect limit
            first = await engine.ask("hello")
        await log.wait_state("basic", "ready")
        second = await engine.ask("hello again")
    finally:
        await engine.aclose()
    assert first.answer == "Nothing to add yet." and second.answer == "hi"
    offered = [e for e in log.events if isinstance(e, ev.StepStarted)]
    assert "add" in dict(offered[-1].offered)  # basic's, offered once it was ready
    assert not any(isinstance(e, ev.Notice) for e in log.events)  # nothing waited, so nothing to say
