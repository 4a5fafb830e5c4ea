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
from app.core.approvals import Policy, effective_policy
from app.core.tools import ToolInfo
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
        self.set(key, policy)

    def set(self, key: str, policy: Policy | None) -> None:
        """Remember ``policy`` for ``key``, or forget the choice (back to the default) with None."""
        on_disk, _ = load_settings(self.path)
        approvals = {k: v for k, v in on_disk.tool_approvals.items() if k != key}
        if policy is not None:
            approvals[key] = policy
        saved = on_disk.model_copy(update={"tool_approvals": approvals})
        live = self.current().model_copy(update={"tool_approvals": approvals})
        self.adopt(live)
        try:
            save_settings(saved, self.path)
        except (SettingsError, OSError):
            logger.exception("could not save the approval of %s; it holds until Calculon closes", key)
        if self.sink is not None:
            self.sink(ev.ApprovalRemembered(key=key, policy=policy or "default"))


class ApprovalEditor:
    """What the servers panel edits: each tool's remembered choice, beside its default."""

    def __init__(
        self,
        store: SettingsPolicies,
        resolve: Callable[[str], ToolInfo | None],
        trusted: Callable[[str], bool],
    ) -> None:
        self.store, self.resolve, self.trusted = store, resolve, trusted

    def policy_of(self, server: str, tool: str) -> tuple[str | None, str]:
        """(the remembered choice or None, the policy it would have without one)."""
        key = f"{server}.{tool}"
        policies = dict(self.store.policies())
        chosen = policies.pop(key, None)
        info = self.resolve(key)
        default = effective_policy(info, policies, self.trusted(server))[0] if info else "conversation"
        return chosen, default

    def set_policy(self, server: str, tool: str, policy: Policy | None) -> None:
        self.store.set(f"{server}.{tool}", policy)


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
