"""Whether a tool call may run: the user's remembered choice, else a default from annotations.

Policies, per ``server.tool`` (or ``server.*`` for every tool of a server):

- ``ask``: ask before every call;
- ``conversation``: ask once, then allow the tool for the rest of the conversation;
- ``always``: run without asking;
- ``never``: refuse without asking.

With no choice remembered the default comes from the tool's annotations: read-only tools
run, destructive ones ask every time, the others ask once per conversation. A server's
annotations are hints: ``readOnlyHint`` (which would skip asking) is believed only for
trusted servers, while ``destructiveHint`` (which only adds caution) is believed from any.
A server-wide ``always`` never covers a destructive tool: that needs its own ``always``.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping
from typing import Any, Literal, Protocol

from app.core.asking import ApprovalAnswer, ApprovalRequest, Asker
from app.core.tools import ToolInfo

logger = logging.getLogger(__name__)

Policy = Literal["ask", "conversation", "always", "never"]
POLICIES: tuple[Policy, ...] = ("ask", "conversation", "always", "never")


class PolicyStore(Protocol):
    """Where choices are remembered (the settings file, in the app)."""

    def policies(self) -> Mapping[str, str]: ...

    def remember(self, key: str, policy: Policy) -> None: ...


@dataclasses.dataclass
class MemoryStore:
    """Choices kept in memory only: for `calculon call` runs that must not save, and tests."""

    saved: dict[str, str] = dataclasses.field(default_factory=dict)

    def policies(self) -> Mapping[str, str]:
        return self.saved

    def remember(self, key: str, policy: Policy) -> None:
        self.saved[key] = policy


def tool_key(info: ToolInfo) -> str:
    return f"{info.server}.{info.tool}"


def is_destructive(annotations: Mapping[str, Any]) -> bool:
    return annotations.get("destructiveHint") is True and annotations.get("readOnlyHint") is not True


def effective_policy(info: ToolInfo, policies: Mapping[str, str], trusted: bool) -> tuple[Policy, str]:
    """The policy for ``info`` and why (for the prompt and the trace)."""
    own = policies.get(tool_key(info))
    if own in POLICIES:
        return own, "your choice for this tool"  # type: ignore[return-value]
    destructive = is_destructive(info.annotations)
    server_wide = policies.get(f"{info.server}.*")
    if server_wide in POLICIES and not (destructive and server_wide == "always"):
        return server_wide, "your choice for this server"  # type: ignore[return-value]
    if destructive:
        return "ask", "the server marks this tool destructive"
    if trusted and info.annotations.get("readOnlyHint") is True:
        return "always", "read-only tool of a trusted server"
    return "conversation", "first use in this conversation"


class Approvals:
    """The session's approval seam (:data:`app.core.tools.ApprovalPolicy`): None runs the
    call, a string refuses it and says why (the model reads it as a tool error)."""

    def __init__(
        self, asker: Asker, store: PolicyStore | None = None, trusted: Callable[[str], bool] = lambda _: False
    ) -> None:
        self.asker = asker
        self.store: PolicyStore = store or MemoryStore()
        self.trusted = trusted
        self._conversation: set[str] = set()

    def grant(self, info: ToolInfo) -> None:
        """Allow ``info`` for this conversation as if the user had been asked (``calculon call TOOL``
        names the tool itself). A tool whose policy is ``ask`` or ``never`` is not covered."""
        self._conversation.add(tool_key(info))

    def new_conversation(self) -> None:
        """Forget "allow for this conversation" choices."""
        self._conversation.clear()

    async def __call__(self, info: ToolInfo, arguments: Mapping[str, Any]) -> str | None:
        key, trusted = tool_key(info), self.trusted(info.server)
        policy, why = effective_policy(info, self.store.policies(), trusted)
        if policy == "always" or (policy == "conversation" and key in self._conversation):
            return None
        if policy == "never":
            return f"declined: you chose never to run {key}"
        request = ApprovalRequest(
            server=info.server,
            tool=info.tool,
            arguments=dict(arguments),
            annotations=dict(info.annotations),
            trusted=trusted,
            reason=why,
        )
        return self._apply(key, await self.asker.ask(request))

    def _apply(self, key: str, answer: ApprovalAnswer) -> str | None:
        if answer.decision == "conversation":
            self._conversation.add(key)
        elif answer.decision in ("always", "never"):
            self.store.remember(key, answer.decision)  # type: ignore[arg-type]
        if answer.allowed:
            return None
        if answer.note:
            return f"declined: {answer.note}"
        return "declined: the user declined this call"
