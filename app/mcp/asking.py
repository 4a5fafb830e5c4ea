"""The SDK callbacks that ask the user: elicitation and sampling, plus the server's roots.

Each turns the server's request into a plain request of :mod:`app.core.asking`, awaits
the user's answer through the :class:`Asker` while the server's call deadlines stand
still (:class:`app.mcp.pause.CallClock`), and turns the answer back into the protocol's
result. The same callbacks serve both protocol paths: the SDK calls them for an older
server's server-to-client requests and for a 2026-07-28 server's input-required rounds.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import mcp_types
from mcp.client.session import ClientRequestContext

from app.core import events as ev
from app.core import forms
from app.core.asking import Asker, FormRequest, SamplingRequest, UrlRequest
from app.core.backend import BackendError
from app.core.sampling import SamplingGate, SamplingRefused
from app.mcp.handlers import ClientHandlers, server_handlers
from app.mcp.pause import CallClock

logger = logging.getLogger(__name__)

USER_REJECTED = -1  # the code MCP's examples use for "the user rejected the request"


@dataclasses.dataclass(frozen=True)
class Elicitation:
    """``elicitation_callback``: a form or a link, put to the user."""

    server: str
    asker: Asker
    clock: CallClock

    async def __call__(
        self, context: ClientRequestContext, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult | mcp_types.ErrorData:
        if isinstance(params, mcp_types.ElicitRequestURLParams):
            return await self._url(params)
        request = FormRequest(server=self.server, message=params.message, schema=params.requested_schema)
        with self.clock.paused():
            answer = await self.asker.ask(request)
        if answer.action != "accept":
            return mcp_types.ElicitResult(action=answer.action)
        content = forms.cleaned(answer.content or {})
        if problems := forms.problems(params.requested_schema, content):
            # The window and the terminal check first; this is the last line, never sending bad data.
            why = "; ".join(f"{name or 'form'}: {problem}" for name, problem in problems.items())
            return mcp_types.ErrorData(
                code=mcp_types.INVALID_PARAMS, message=f"the answer does not fit: {why}"
            )
        return mcp_types.ElicitResult(action="accept", content=content)

    async def _url(self, params: mcp_types.ElicitRequestURLParams) -> mcp_types.ElicitResult:
        request = UrlRequest(
            server=self.server,
            message=params.message,
            url=params.url,
            elicitation_id=params.elicitation_id or "",
        )
        with self.clock.paused():
            answer = await self.asker.ask(request)
        return mcp_types.ElicitResult(action=answer.action)


@dataclasses.dataclass(frozen=True)
class Sampling:
    """``sampling_callback``: the host's model answers, the user approves both ways."""

    server: str
    gate: SamplingGate
    clock: CallClock

    async def __call__(
        self, context: ClientRequestContext, params: mcp_types.CreateMessageRequestParams
    ) -> mcp_types.CreateMessageResult | mcp_types.ErrorData:
        request = SamplingRequest(
            server=self.server,
            system_prompt=params.system_prompt or "",
            messages=tuple((m.role, _text(m.content)) for m in params.messages),
            max_tokens=params.max_tokens,
            wants_tools=bool(params.tools),
        )
        # The host's model runs inside the pause too: that time is ours, not the server's.
        with self.clock.paused():
            try:
                completion = await self.gate.sample(request)
            except SamplingRefused as exc:
                return mcp_types.ErrorData(code=USER_REJECTED, message=str(exc))
            except BackendError as exc:
                return mcp_types.ErrorData(code=mcp_types.INTERNAL_ERROR, message=f"the model failed: {exc}")
        return mcp_types.CreateMessageResult(
            role="assistant",
            content=mcp_types.TextContent(type="text", text=completion.text),
            model=completion.model,
            stop_reason=completion.stop_reason,
        )


def _text(content: Any) -> str:
    blocks = content if isinstance(content, list) else [content]
    return "\n".join(getattr(b, "text", None) or f"[{getattr(b, 'type', 'content')}]" for b in blocks)


@dataclasses.dataclass(frozen=True)
class Roots:
    """``list_roots_callback``: the folders the server's config entry names (``roots``)."""

    folders: Callable[[], Sequence[str]]

    async def __call__(self, context: ClientRequestContext) -> mcp_types.ListRootsResult:
        return mcp_types.ListRootsResult(roots=[_root(folder) for folder in self.folders()])


def _root(folder: str) -> mcp_types.Root:
    path = Path(folder).expanduser().resolve()
    return mcp_types.Root(uri=path.as_uri(), name=path.name or str(path))  # type: ignore[arg-type]


@dataclasses.dataclass(frozen=True)
class AskingHandlers:
    """A supervisor's handlers factory: logs as before, plus the callbacks that ask the user.

    ``sampling`` None leaves sampling undeclared (the server is told the client cannot);
    ``roots`` gives a server's folders by its name."""

    asker: Asker
    sampling: SamplingGate | None = None
    roots: Callable[[str], Sequence[str]] = lambda _server: ()

    def __call__(self, server: str, sink: ev.EventSink) -> ClientHandlers:
        base, clock = server_handlers(server, sink), CallClock()
        return dataclasses.replace(
            base,
            clock=clock,
            elicitation_callback=Elicitation(server, self.asker, clock),
            sampling_callback=Sampling(server, self.sampling, clock) if self.sampling else None,
            list_roots_callback=Roots(lambda: self.roots(server)),
        )
