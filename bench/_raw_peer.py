"""The raw peer: the same GGUF driven as a user would drive it without Calculon.

llama-cpp-python loads the file (through the project's loader, for its AMX guard alone), the
file's own chat template is rendered with the tools as ``llama-server --jinja`` does, decoding
is greedy, tool calls are read leniently from the text (``<tool_call>`` blocks, a fenced or bare
JSON object with a name and arguments), each runs on the bundled calculator through the
official MCP client, and the loop stops at an answer without a call or after ``MAX_STEPS``.
The tools are the calculator's four arithmetic ones (add, subtract, multiply, divide).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
import sys
import time
from typing import Any

from mcp import Client, MCPError, StdioServerParameters

MAX_STEPS = 4
STEP_TOKENS = 384
TOOLS = ("add", "subtract", "multiply", "divide")
SYSTEM = "You are a helpful assistant. Use the tools for arithmetic."
_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCE = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)


@dataclasses.dataclass
class RawRun:
    answer: str
    calls: list[str]
    seconds: float
    error: str = ""


class RawPeer:
    def __init__(self, gguf: str, n_ctx: int = 4096) -> None:
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        from app.llm.local.loader import LoadRequest, load_llama

        self.llama = load_llama(LoadRequest(gguf, n_ctx=n_ctx))
        template = str(self.llama.metadata["tokenizer.chat_template"])
        eos = self.llama.detokenize([self.llama.token_eos()], special=True).decode(errors="replace")
        self.eos = eos
        self.format = Jinja2ChatFormatter(template, eos_token=eos, bos_token="")
        self.tools: list[dict[str, Any]] = []
        self.client: Client | None = None

    async def __aenter__(self) -> RawPeer:
        params = StdioServerParameters(command=sys.executable, args=["-m", "app", "serve", "calculator"])
        self.client = Client(params)
        await self.client.__aenter__()
        listed = (await self.client.list_tools()).tools
        self.tools = [
            _function(t.name, t.description or "", t.input_schema) for t in listed if t.name in TOOLS
        ]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.client is not None
        await self.client.__aexit__(*exc)
        self.llama.close()

    async def ask(self, question: str) -> RawRun:
        started = time.perf_counter()
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": question},
        ]
        calls: list[str] = []
        text = ""
        for _ in range(MAX_STEPS):
            prompt = self.format(messages=messages, tools=self.tools).prompt  # type: ignore[arg-type]
            out = self.llama.create_completion(
                prompt, max_tokens=STEP_TOKENS, temperature=0.0, stop=[self.eos], seed=0
            )
            text = out["choices"][0]["text"]  # type: ignore[index]
            found = read_calls(text)
            if not found:
                return RawRun(strip_calls(text), calls, time.perf_counter() - started)
            # As llama-server keeps a call it parsed: in the message's tool_calls, which the
            # template renders in the model's own call format, not as the text it happened to write.
            messages.append({"role": "assistant", "content": "", "tool_calls": _tool_calls(found)})
            for name, arguments in found:
                calls.append(f"{name}({json.dumps(arguments)})")
                messages.append({"role": "tool", "content": await self._run(name, arguments)})
        return RawRun(strip_calls(text), calls, time.perf_counter() - started, "no answer within 4 steps")

    async def _run(self, name: str, arguments: Any) -> str:
        assert self.client is not None
        if name not in TOOLS:
            return f"Error: unknown tool {name!r}"
        if not isinstance(arguments, dict):
            return "Error: arguments must be an object"
        try:
            result = await self.client.call_tool(name, arguments)
        except MCPError as exc:  # reported back to the model, as a host would
            return f"Error: {exc}"
        return " ".join(getattr(c, "text", "") for c in result.content)


def _tool_calls(found: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": arguments}}
        for i, (name, arguments) in enumerate(found)
    ]


def _function(name: str, description: str, schema: Any) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": schema}}


def read_calls(text: str) -> list[tuple[str, Any]]:
    """Calls written in the text, read leniently: Hermes blocks, else a fenced or bare JSON object."""
    bodies = _BLOCK.findall(text) or _FENCE.findall(text)
    if not bodies and text.strip().startswith("{"):
        bodies = [text.strip()]
    calls = []
    for body in bodies:
        try:
            value = json.loads(body)
        except json.JSONDecodeError:
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict) and isinstance(item.get("name"), str):
                arguments = item.get("arguments", item.get("parameters", {}))
                if isinstance(arguments, str):
                    with contextlib.suppress(json.JSONDecodeError):
                        arguments = json.loads(arguments)
                calls.append((item["name"], arguments))
    return calls


_WRITTEN = re.compile(r'"name"\s*:\s*"[^"]*"\s*,\s*"(?:arguments|parameters)"\s*:')


def written_call(answer: str) -> bool:
    """Whether the answer is a call written as text (one the parser could not run): its numbers
    are a call's arguments, not a result, so it never counts as right."""
    return bool(_WRITTEN.search(answer))


def strip_calls(text: str) -> str:
    return _BLOCK.sub("", text).strip()
