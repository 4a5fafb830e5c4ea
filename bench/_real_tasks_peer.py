"""The raw peer on real tasks: bench/_raw_peer.py's loop, over the reference servers' tools.

The same GGUF through llama-cpp-python, its own chat template rendered with every tool of the
configured servers (as ``llama-server --jinja`` would with a host offering them all), greedy
decoding, calls read leniently from the text with :func:`bench._raw_peer.read_calls`, each run
through the official MCP client, and the same step limit as Calculon. Like any host it asks
before a call that changes something; the bench approves, and each approval is recorded.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client

from bench._raw_peer import RawPeer, _function, _tool_calls, read_calls
from bench._real_tasks_task import changes

STEP_TOKENS = 512  # as Calculon's local model per step


@dataclasses.dataclass
class Call:
    server: str
    tool: str
    arguments: Any
    result: str
    is_error: bool
    approved: bool  # a person was asked and said yes before it ran

    def label(self) -> str:
        return f"{self.server}.{self.tool}({json.dumps(self.arguments, ensure_ascii=False)[:200]})"


@dataclasses.dataclass
class PeerRun:
    answer: str
    calls: list[Call]
    seconds: float
    error: str = ""
    schema_tokens: int = 0


class ServersPeer(RawPeer):
    """:class:`RawPeer`'s model and template; tools from every server of an ``mcpServers`` map."""

    def __init__(self, gguf: str, errlog: Path, n_ctx: int = 16384) -> None:
        super().__init__(gguf, n_ctx)
        self.errlog = errlog.open("a")  # the servers' stderr, as a host keeps it: out of the bench's output
        self.owner: dict[str, tuple[str, Client, Mapping[str, Any]]] = {}
        self._stack: contextlib.AsyncExitStack | None = None
        self.approve: Callable[[str, str, Any], bool] = lambda server, tool, arguments: True

    async def connect(self, servers: Mapping[str, Mapping[str, Any]]) -> None:
        """Start each server as its entry says, and offer every tool it lists."""
        from app.mcp.retrieval.meter import estimate_tokens

        self._stack = contextlib.AsyncExitStack()
        self.tools, self.owner = [], {}
        for name, entry in servers.items():
            params = StdioServerParameters(
                command=entry["command"], args=list(entry.get("args", [])), env=entry.get("env")
            )
            client = await self._stack.enter_async_context(Client(stdio_client(params, errlog=self.errlog)))
            for tool in (await client.list_tools()).tools:
                hints = (
                    tool.annotations.model_dump(by_alias=True, exclude_none=True) if tool.annotations else {}
                )
                self.owner[tool.name] = (name, client, hints)
                self.tools.append(_function(tool.name, tool.description or "", tool.input_schema))
        self.schema_tokens = sum(
            estimate_tokens(json.dumps(t["function"], separators=(",", ":"))) for t in self.tools
        )

    async def disconnect(self) -> None:
        if self._stack is not None:
            await self._stack.aclose()
            self._stack = None

    async def __aexit__(self, *exc: object) -> None:
        await self.disconnect()
        self.llama.close()
        self.errlog.close()

    async def run_task(self, question: str, max_steps: int) -> PeerRun:
        started = time.perf_counter()
        messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
        calls: list[Call] = []
        for _ in range(max_steps):
            try:
                text = self._complete(messages)
            except ValueError as exc:  # the prompt outgrew the context
                return PeerRun("", calls, time.perf_counter() - started, str(exc), self.schema_tokens)
            found = calls_in(text)
            if not found:  # shown as written, with any call block the parser could not read
                return PeerRun(text.strip(), calls, time.perf_counter() - started, "", self.schema_tokens)
            messages.append({"role": "assistant", "content": "", "tool_calls": _tool_calls(found)})
            for name, arguments in found:
                calls.append(await self._call(name, arguments))
                messages.append({"role": "tool", "content": calls[-1].result})
        # the last step was a call, which a host shows as a call: there is no answer to show
        seconds = time.perf_counter() - started
        return PeerRun("", calls, seconds, f"no answer within {max_steps} steps", self.schema_tokens)

    def _complete(self, messages: list[dict[str, Any]]) -> str:
        prompt = self.format(messages=messages, tools=self.tools).prompt  # type: ignore[arg-type]
        out = self.llama.create_completion(
            prompt, max_tokens=STEP_TOKENS, temperature=0.0, stop=[self.eos], seed=0
        )
        return str(out["choices"][0]["text"])  # type: ignore[index]

    async def _call(self, name: str, arguments: Any) -> Call:
        if name not in self.owner:
            return Call("?", name, arguments, f"Error: unknown tool {name!r}", True, False)
        server, client, hints = self.owner[name]
        if not isinstance(arguments, dict):
            return Call(server, name, arguments, "Error: arguments must be an object", True, False)
        approved = False
        if changes(server, name) or hints.get("destructiveHint") is True:
            if not self.approve(server, name, arguments):
                return Call(server, name, arguments, "Error: the user declined this call", True, False)
            approved = True
        try:
            result = await client.call_tool(name, arguments)
        except MCPError as exc:  # reported back to the model, as a host would
            return Call(server, name, arguments, f"Error: {exc}", True, approved)
        text = " ".join(getattr(c, "text", "") for c in result.content)
        return Call(server, name, arguments, text, bool(result.is_error), approved)


def calls_in(text: str) -> list[tuple[str, Any]]:
    """:func:`read_calls`, and where it finds none, JSON call objects written one after another
    (Qwen2.5-Coder writes several in a row, which one ``json.loads`` cannot read)."""
    found = read_calls(text)
    if found:
        return found
    body, decoder = text.strip(), json.JSONDecoder()
    while body.startswith("{"):
        try:
            value, end = decoder.raw_decode(body)
        except json.JSONDecodeError:
            break
        found += read_calls(json.dumps(value)) if isinstance(value, dict) else []
        body = body[end:].strip()
    return found
