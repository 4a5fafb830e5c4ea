"""What ``calculon call`` needs to ask the user: approvals, the servers' questions, sampling.

The same pieces as the engine's, for one call and no turn: approvals remembered in the
settings file, and sampling on the configured backend, loaded only if a server asks.
"""

from __future__ import annotations

from app import permissions
from app.cli.output import AskLog
from app.core.approvals import Approvals
from app.core.asking import Asker, User
from app.core.backend import Backend
from app.core.sampling import SamplingGate, backend_completer
from app.mcp.asking import AskingHandlers
from app.mcp.config import ServersConfig
from app.settings import Settings, load_settings


class CallPermissions:
    def __init__(self, user: User, config: ServersConfig, log: AskLog) -> None:
        self.settings, _ = load_settings()
        self.log = log
        asker = Asker(user, sink=log)
        gate = SamplingGate(
            asker, backend_completer(self._backend), per_minute=self.settings.sampling_per_minute
        )
        self.handlers = AskingHandlers(asker, gate, permissions.roots_of(lambda: config))
        store = permissions.SettingsPolicies(lambda: self.settings, self._adopt)
        self.approvals = Approvals(asker, store, permissions.trust(lambda: config, lambda: self.settings))
        self._model: Backend | None = None

    def _adopt(self, settings: Settings) -> None:
        self.settings = settings

    async def _backend(self) -> Backend:
        """The configured model, loaded the first time a server asks for a completion."""
        if self._model is None:
            from app.llm.registry import create_backend

            model = create_backend(self.settings.backend, **self.settings.to_dict())
            await model.load()
            self._model = model
        return self._model

    async def aclose(self) -> None:
        if self._model is not None:
            await self._model.aclose()
