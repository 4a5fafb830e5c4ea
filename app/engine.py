"""The engine facade: MCP servers, the model and the turn loop, composed once.

The window and the CLI both drive this object and nothing deeper: ``start()``,
``ask(text)``, ``cancel()``, ``aclose()``, and ``subscribe(sink)`` for events.
It knows no widgets and prints nothing; what needs a person goes to the ``user``
it is given (:mod:`app.core.asking`), and to nobody (declined) without one.

Events (to every subscriber): ``ModelLoading`` while the backend loads,
``ServerStateChanged`` from the supervisor, every turn event of the session,
``UserAsked``/``UserAnswered`` for each question and ``ApprovalRemembered``.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Collection
from fractions import Fraction
from pathlib import Path
from typing import Any

from app import permissions
from app.core import events as ev
from app.core import prompts
from app.core.app_context import AppContexts
from app.core.approvals import Approvals
from app.core.asking import Asker, User
from app.core.backend import Backend, BackendError, ProgressCallback
from app.core.messages import Message
from app.core.outcome import TurnOutcome
from app.core.sampling import SamplingGate, backend_completer
from app.core.session import ChatSession
from app.core.tools import AnswerVerifier, Source, ToolSelector
from app.mcp.app_bridge import AppBridge
from app.mcp.apps import AppOpener
from app.mcp.asking import AskingHandlers
from app.mcp.config import load_config
from app.mcp.early import EarlyStarts
from app.mcp.supervisor import Supervisor
from app.settings import Settings


class Engine:
    def __init__(
        self,
        settings: Settings,
        *,
        servers_path: Path | None = None,
        backend: Backend | None = None,
        sink: ev.EventSink | None = None,
        verifier: AnswerVerifier | None = None,
        selector: ToolSelector | None = None,
        system_prompt: str | None = None,
        supervisor: Supervisor | None = None,
        user: User | None = None,
        early: EarlyStarts | None = None,
        on_demand: Collection[str] = (),
    ) -> None:
        """Reads the servers file now, so a malformed one fails here (``ConfigError``)."""
        self.settings = settings
        self.config = load_config(servers_path)
        self.asker = Asker(user, sink=self._emit)
        self.supervisor = supervisor or Supervisor(
            self.config,
            tool_timeout_s=settings.tool_timeout_s,
            handlers=self._asking_handlers(),
            early=early,
            on_demand=on_demand,
        )
        store = permissions.SettingsPolicies(lambda: self.settings, self._adopt, self._emit)
        self.trusted = trusted = permissions.trust(lambda: self.config, lambda: self.settings)
        self.approvals = Approvals(self.asker, store, trusted)
        self.approval_editor = permissions.ApprovalEditor(store, self.supervisor.resolve, trusted)
        self.verifier, self.selector = verifier, selector
        self._verifier_from_settings = False  # True: Calculon mode follows settings.strict
        self._background: set[asyncio.Task[Any]] = set()
        self._system_prompt = system_prompt
        self._backend = backend
        self._loaded = False
        self._load_lock = asyncio.Lock()
        self._sinks: list[ev.EventSink] = []
        self._session: ChatSession | None = None
        self._restored: tuple[list[Message], list[Source], Fraction | None] = ([], [], None)
        self._started = False
        self.supervisor.subscribe(self._emit)
        self.subscribe(self.asker.watch)
        self.apps = AppOpener(self.supervisor.connections, self._emit)
        self.app_contexts = AppContexts()  # what apps' pages set for the model, sent with the next question
        self.subscribe(self.apps)
        if sink is not None:
            self.subscribe(sink)
        if backend is not None:
            self._watch_model(backend)

    def _asking_handlers(self) -> AskingHandlers:
        gate = SamplingGate(
            self.asker, backend_completer(self.ensure_backend), per_minute=self.settings.sampling_per_minute
        )
        return AskingHandlers(self.asker, gate, permissions.roots_of(lambda: self.config))

    def _adopt(self, settings: Settings) -> None:
        """Settings changed from inside (an approval remembered): the model needs no reload."""
        self.settings = settings

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        servers_path: Path | None = None,
        backend: Backend | None = None,
        sink: ev.EventSink | None = None,
        user: User | None = None,
        early: EarlyStarts | None = None,
        on_demand: Collection[str] = (),
        prepare_retrieval: bool = True,
    ) -> Engine:
        """The engine as the window and the CLI run it: Calculon mode's check when
        ``strict`` is on, and tool retrieval kept current with the servers' tools (its
        once-per-machine table distilled in the background where ``prepare_retrieval``)."""
        from app.mcp.retrieval import ToolRetriever

        retriever = ToolRetriever.from_settings(settings, prepare=prepare_retrieval)
        engine = cls(
            settings,
            servers_path=servers_path,
            backend=backend,
            sink=sink,
            selector=retriever,
            user=user,
            early=early,
            on_demand=on_demand,
        )
        engine.verifier, engine._verifier_from_settings = _verifier(settings), True
        engine._pin_calculator()
        engine.subscribe(engine._refresh_tools_on_change)
        return engine

    def _pin_calculator(self) -> None:
        """Calculon mode sends every step to the calculator, so it is always offered, whatever
        retrieval ranks. Only the bundled one: a third-party server named "calculator" is not it."""
        from app.mcp.retrieval import ToolRetriever

        if isinstance(self.selector, ToolRetriever):
            strict = self.settings.strict
            calculators = self.config.running_bundled("calculator") if strict else []
            self.selector.pinned_servers = calculators
            # a conversion is arithmetic too: "109 °F in Celsius" ranked the six fixed-direction
            # temperature tools above convert, and the model took the wrong direction of them.
            # Only where the question names a unit: offered always, Qwen2.5-Coder-1.5B converted
            # a visitor count to km and a port number to miles (docs/benchmarks.md).
            from app.servers.units import names_unit

            converters = self.config.running_bundled("converter") if strict else []
            self.selector.pinned = list(self.settings.pinned_tools)
            self.selector.pinned_if = [(f"{c}.convert", names_unit) for c in converters]

    def _refresh_tools_on_change(self, event: ev.Event) -> None:
        notify = getattr(self.selector, "notify_tools_changed", None)
        if isinstance(event, ev.ServerStateChanged) and event.state == "ready" and notify is not None:
            task = notify(self.supervisor.list_tools())
            self._background.add(task)  # kept until done, and cancelled if the engine closes first
            task.add_done_callback(self._background.discard)

    # --- events ---

    def subscribe(self, sink: ev.EventSink) -> None:
        self._sinks.append(sink)

    def unsubscribe(self, sink: ev.EventSink) -> None:
        self._sinks.remove(sink)

    def _emit(self, event: ev.Event) -> None:
        ev.deliver(self._sinks, event)

    # --- servers ---

    async def start(self, *, wait: bool = True, timeout: float | None = None) -> None:
        """Start every enabled server. With ``wait``, return once each is ready or has failed
        once, or after ``timeout`` (the start-up wait setting): a slow server does not hold
        the rest up; it is named in a ``Notice`` and its tools join when it is ready."""
        self._started = True
        limit = self.settings.startup_wait_s if timeout is None else timeout
        await self.supervisor.start(wait=wait, timeout=limit)
        if wait:
            self._say_still_starting()

    def _say_still_starting(self) -> None:
        for status in self.supervisor.states():
            if status.state in ("starting", "restarting"):
                message = f"server {status.name} is still starting; its tools join when it is ready"
                self._emit(ev.Notice(message=message))

    async def reload_servers(self) -> None:
        """Read the servers file again and apply it: changed servers restart, others keep running."""
        self.config = load_config(self.config.path)
        self._pin_calculator()
        await self.supervisor.update(self.config, wait=self._started)

    # --- the model ---

    @property
    def backend(self) -> Backend | None:
        return self._backend

    async def ensure_backend(self) -> Backend:
        """Build the backend if needed and load it, reporting progress as ``ModelLoading``.

        Raises :class:`BackendError` with a message for the user when it cannot load."""
        async with self._load_lock:
            if self._backend is not None and self._loaded:
                return self._backend
            try:
                backend = self._backend or self._create_backend()
                if backend is not self._backend:
                    self._backend = backend
                    self._watch_model(backend)
                self._emit(ev.ModelLoading(progress=0.0, message=f"Loading {backend.model_label}"))
                await backend.load(self._progress_callback())
            except BackendError as exc:
                self._emit(ev.ModelLoading(progress=0.0, done=True, error=exc.message))
                raise
            self._loaded = True
            self._emit(ev.ModelLoading(progress=1.0, done=True, message=f"{backend.model_label} ready"))
            self._prefill(backend)
            return backend

    def _watch_model(self, backend: Backend) -> None:
        """A backend with a process of its own (the local model) tells its state as it changes."""
        subscribe = getattr(backend, "subscribe", None)
        if subscribe is not None:
            subscribe(lambda s: self._emit(ev.ModelStateChanged(state=s.state, detail=s.detail, pid=s.pid)))

    def _prefill(self, backend: Backend) -> None:
        """Let a backend that can read the prompt's fixed opening ahead of time do so now."""
        prefill = getattr(backend, "prefill", None)
        if prefill is not None:
            task = asyncio.create_task(self._prefilled(prefill))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def _prefilled(self, prefill: Callable[[str], Awaitable[int]]) -> None:
        """Read the opening, then say how it was made ready: the latency bench and a person
        wondering why the first question waits both read this line."""
        started = time.perf_counter()
        decoded = await prefill(self.system_prompt)
        how = f"read {decoded} tokens" if decoded else "restored the saved state"
        seconds = time.perf_counter() - started
        message = f"Prompt opening ready ({how}, {seconds:.1f} s)"
        self._emit(ev.ModelLoading(progress=1.0, done=True, message=message))

    def _create_backend(self) -> Backend:
        from app.llm.registry import create_backend

        return create_backend(self.settings.backend, **self.settings.to_dict())

    def _progress_callback(self) -> ProgressCallback:
        loop, loop_thread = asyncio.get_running_loop(), threading.get_ident()

        def report(progress: float, message: str) -> None:
            event = ev.ModelLoading(progress=min(max(progress, 0.0), 1.0), message=message)
            if threading.get_ident() == loop_thread:
                self._emit(event)
            else:  # llama.cpp reports from its worker thread: hand the event to the loop
                loop.call_soon_threadsafe(self._emit, event)

        return report

    async def reconfigure(self, settings: Settings) -> None:
        """Adopt new settings; a different model is loaded again on the next turn."""
        changed = not settings.same_model(self.settings)
        self.settings = settings
        apply_settings = getattr(self.selector, "apply_settings", None)
        if apply_settings is not None:
            apply_settings(settings)
            self._pin_calculator()
        if self._verifier_from_settings:
            self.verifier = _verifier(settings)
        if self._session is not None:
            self._session.max_rounds = settings.max_rounds
            self._session.system_prompt = self.system_prompt
            self._session.verifier = self.verifier
        self.supervisor.limits.tool_timeout_s = settings.tool_timeout_s
        if changed and self._backend is not None:
            old, self._backend, self._loaded = self._backend, None, False
            await old.aclose()

    # --- turns ---

    @property
    def session(self) -> ChatSession | None:
        return self._session

    def restore_history(
        self, history: list[Message], sources: list[Source], earlier: Fraction | None = None
    ) -> None:
        """The next turn continues a saved conversation (empty: a new one); "that" is its last result."""
        self._restored = (history, sources, earlier)
        self.approvals.new_conversation()  # "allow for this conversation" ends with it
        self.app_contexts.clear()
        if self._session is not None:
            self._session.restore(list(history), list(sources), earlier)

    async def ask(self, text: str) -> TurnOutcome:
        """Run one turn (starting servers and loading the model first if needed)."""
        backend = await self._ready_to_ask()
        session = self._session or self._new_session(backend)
        session.backend = backend
        asked: list[ev.Event] = []  # the user's questions and answers belong to the turn's record

        def keep(event: ev.Event) -> None:
            if isinstance(event, ev.UserAsked | ev.UserAnswered):
                asked.append(event)

        self.subscribe(keep)
        context = self.app_contexts.take()
        outcome: TurnOutcome | None = None
        try:
            outcome = await session.run_turn(text, context)
        finally:
            self.unsubscribe(keep)
            if outcome is None or outcome.cancelled or outcome.error:  # its messages were dropped
                self.app_contexts.give_back(context)  # so the pages' context goes with the next question
        outcome.events = sorted([*outcome.events, *asked], key=lambda e: e.ts)
        return outcome

    async def _ready_to_ask(self) -> Backend:
        if self._started:
            return await self.ensure_backend()
        # Servers start while the model loads: both take a while, neither needs the other.
        started, loaded = await asyncio.gather(self.start(), self.ensure_backend(), return_exceptions=True)
        for outcome in (loaded, started):
            if isinstance(outcome, BaseException):
                raise outcome
        assert not isinstance(loaded, BaseException)
        return loaded

    def _new_session(self, backend: Backend) -> ChatSession:
        session = ChatSession(
            backend,
            self.supervisor,
            system_prompt=self.system_prompt,
            max_rounds=self.settings.max_rounds,
            verifier=self.verifier,
            selector=self.selector,
            approve=self.approvals,
            trusted=self.trusted,
        )
        session.restore(list(self._restored[0]), list(self._restored[1]), self._restored[2])
        session.subscribe(self._emit)
        self._session = session
        return session

    @property
    def system_prompt(self) -> str:
        """The prompt given at construction, else the one for the current mode (strict or plain)."""
        if self._system_prompt is not None:
            return self._system_prompt
        return prompts.system_prompt(self.settings.strict)

    def app_bridge(self, app: ev.AppReady, post_message: Callable[[str], bool] | None = None) -> AppBridge:
        """The host side of a rendered MCP App: its tool calls go through the model's approvals."""
        connections, contexts = self.supervisor.connections, self.app_contexts
        return AppBridge(app, connections, self.approvals, self.asker, post_message, self._emit, contexts.set)

    def cancel(self) -> None:
        if self._session is not None:
            self._session.cancel()

    def cancel_call(self, call_id: str) -> bool:
        """Stop one running tool call alone: the model hears it was cancelled, the turn goes on."""
        return self._session is not None and self._session.cancel_call(call_id)

    async def aclose(self) -> None:
        """Stop the turn, every server process tree, and the backend."""
        self.cancel()
        for task in self._background:  # index builds the app no longer needs
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        await self.apps.aclose()
        closing = [self.supervisor.aclose()]
        if self._backend is not None:
            closing.append(self._backend.aclose())
        # Each waits on its processes' grace: side by side, not in turn, and both to the end.
        for result in await asyncio.gather(*closing, return_exceptions=True):
            if isinstance(result, BaseException):
                raise result


def _verifier(settings: Settings) -> AnswerVerifier | None:
    from app.calculon.mode import CalculonMode

    return CalculonMode() if settings.strict else None
