"""Approvals remembered in the settings file, and which servers' hints are believed.

The engine and ``calculon call`` share these: a choice of ``always`` or ``never`` is
written to ``settings.json`` at once (over the file as it is on disk now, so a change
saved elsewhere meanwhile is kept), and bundled servers plus those the user lists in
``trusted_servers`` are trusted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path

from app.core import events as ev
from app.core.approvals import Policy
from app.mcp.config import ServersConfig
from app.settings import Settings, SettingsError, load_settings, save_settings

logger = logging.getLogger(__name__)


class SettingsPolicies:
    """A :class:`app.core.approvals.PolicyStore` over the settings; ``current`` gives the live
    settings object and ``adopt`` takes the updated one."""

    def __init__(
        self,
        current: Callable[[], Settings],
        adopt: Callable[[Settings], None],
        sink: ev.EventSink | None = None,
        path: Path | None = None,
    ) -> None:
        self.current, self.adopt, self.sink, self.path = current, adopt, sink, path

    def policies(self) -> Mapping[str, str]:
        return self.current().tool_approvals

    def remember(self, key: str, policy: Policy) -> None:
        on_disk, _ = load_settings(self.path)
        saved = on_disk.model_copy(update={"tool_approvals": {**on_disk.tool_approvals, key: policy}})
        live = self.current().model_copy(update={"tool_approvals": saved.tool_approvals})
        self.adopt(live)
        try:
            save_settings(saved, self.path)
        except (SettingsError, OSError):
            logger.exception("could not save the approval of %s; it holds until Calculon closes", key)
        if self.sink is not None:
            self.sink(ev.ApprovalRemembered(key=key, policy=policy))


def trust(config: Callable[[], ServersConfig], settings: Callable[[], Settings]) -> Callable[[str], bool]:
    """Whether a server's annotations are believed: bundled servers, and those the user trusts."""

    def trusted(server: str) -> bool:
        entry = config().servers.get(server)
        return (entry is not None and bool(entry.bundled)) or server in settings().trusted_servers

    return trusted


def roots_of(config: Callable[[], ServersConfig]) -> Callable[[str], list[str]]:
    """The folders a server's entry names in ``roots`` (a list of paths); none when absent."""

    def roots(server: str) -> list[str]:
        entry = config().servers.get(server)
        folders = entry.extra.get("roots", []) if entry is not None else []
        return [f for f in folders if isinstance(f, str)] if isinstance(folders, list) else []

    return roots
