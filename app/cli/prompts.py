"""Questions on a terminal: written to stderr, answered on stdin, read without a thread.

Everything a server sent is shown as plain text, and the arguments of a call as pretty
JSON. End of input (Ctrl-D) declines whatever was being asked.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import webbrowser
from collections.abc import Callable
from typing import Any, TextIO

from app.core import asking as q
from app.core import forms
from app.core.asking import A

_DECISIONS = {"y": "allow", "c": "conversation", "a": "always", "n": "decline", "v": "never"}


class EndOfInput(Exception):
    """The terminal closed (Ctrl-D) while a question waited."""


class Terminal:
    def __init__(self, fd: int, out: TextIO, open_url: Callable[[str], object] = webbrowser.open) -> None:
        self.fd, self.out, self.open_url = fd, out, open_url
        self._buffer = b""

    @classmethod
    def attached(cls) -> Terminal | None:
        """The terminal this process runs on, when both stdin and stderr are one."""
        if sys.stdin.isatty() and sys.stderr.isatty():
            return cls(sys.stdin.fileno(), sys.stderr)
        return None

    async def readline(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        while b"\n" not in self._buffer:
            chunk = await self._read()
            if not chunk:
                raise EndOfInput
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode(errors="replace").strip()

    async def _read(self) -> bytes:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        def readable() -> None:
            if not ready.done():
                ready.set_result(None)

        loop.add_reader(self.fd, readable)
        try:
            await ready
        finally:
            loop.remove_reader(self.fd)
        return os.read(self.fd, 4096)

    def show(self, *lines: str) -> None:
        self.out.write("\n".join(lines) + "\n")
        self.out.flush()

    async def ask(self, request: q.Request[A]) -> A:
        self.show("", f"== {request.title()} ==")
        try:
            return await _ASKERS[type(request)](self, request)  # type: ignore[no-any-return]
        except EndOfInput:
            self.show("(no answer: input closed)")
            return request.declined("the terminal closed")

    async def choose(self, prompt: str, keys: str) -> str:
        while True:
            answer = (await self.readline(prompt)).lower()[:1]
            if answer and answer in keys:
                return answer


async def _approval(t: Terminal, r: q.ApprovalRequest) -> q.ApprovalAnswer:
    t.show(f"server: {r.server}", f"tool:   {r.tool}", f"why:    {r.reason}")
    t.show("arguments:", json.dumps(dict(r.arguments), indent=2, ensure_ascii=False, default=str))
    hints = json.dumps(dict(r.annotations), ensure_ascii=False) if r.annotations else "none"
    t.show(f"annotations: {hints}" + ("" if r.trusted else " (hints from an untrusted server)"))
    key = await t.choose("[y]es once, this [c]onversation, [a]lways, [n]o, ne[v]er: ", "ycanv")
    return q.ApprovalAnswer(_DECISIONS[key])  # type: ignore[arg-type]


async def _form(t: Terminal, r: q.FormRequest) -> q.FormAnswer:
    t.show(r.message, forms.NOT_FOR_SECRETS)
    key = await t.choose("Fill in the form? [y]es, [n]o (decline), [c]ancel: ", "ync")
    if key != "y":
        return q.FormAnswer("decline" if key == "n" else "cancel")
    fields = forms.form_fields(r.schema)
    content: dict[str, Any] = {}
    for field in fields:
        content[field.name] = await _field(t, field)
    while problems := forms.problems(r.schema, forms.cleaned(content)):
        for field in (f for f in fields if f.name in problems):
            t.show(f"  {field.title}: {problems[field.name]}")
            content[field.name] = await _field(t, field)
        if "" in problems:
            t.show(f"  {problems['']}")
            return q.FormAnswer("cancel", note="the form cannot be filled in")
    return q.FormAnswer("accept", forms.cleaned(content))


async def _field(t: Terminal, field: forms.FormField) -> Any:
    notes = [field.kind + (f", {field.format}" if field.format else "")]
    if field.required:
        notes.append("required")
    if field.default is not None:
        notes.append(f"Enter for {json.dumps(field.default)}")
    if field.choices:
        t.show(
            f"  {field.title}: " + ", ".join(f"{n}) {label}" for n, (_, label) in enumerate(field.choices, 1))
        )
    description = f" - {field.description}" if field.description else ""
    while True:
        text = await t.readline(f"  {field.title}{description} ({'; '.join(notes)}): ")
        try:
            value = forms.parse_text(field, text)
        except ValueError as exc:
            t.show(f"  {exc}")
            continue
        return field.default if value is None else value


async def _url(t: Terminal, r: q.UrlRequest) -> q.FormAnswer:
    t.show(r.message, f"link:   {r.url}", f"domain: {forms.domain(r.url)}")
    if await t.choose("Open it in your browser? [y]es, [n]o: ", "yn") != "y":
        return q.FormAnswer("decline")
    t.open_url(r.url)
    return q.FormAnswer("accept")


async def _sampling(t: Terminal, r: q.SamplingRequest) -> q.SamplingAnswer:
    t.show(f"system prompt: {r.system_prompt or '(none)'}", f"max tokens: {r.max_tokens}")
    t.show(*(f"{role}: {text}" for role, text in r.messages))
    if r.wants_tools:
        t.show("(it asks for tools; the completion runs without them)")
    key = await t.choose("Run it on the model? [y]es, [e]dit the last message, [n]o: ", "yen")
    if key == "n":
        return q.SamplingAnswer(False)
    if key == "e" and r.messages:
        role, _ = r.messages[-1]
        edited = await t.readline(f"new {role} message: ")
        return q.SamplingAnswer(True, messages=(*r.messages[:-1], (role, edited)))
    return q.SamplingAnswer(True)


async def _review(t: Terminal, r: q.SamplingReview) -> q.SamplingAnswer:
    t.show(f"model {r.model} answered:", r.text)
    return q.SamplingAnswer(await t.choose(f"Send it to {r.server}? [y]es, [n]o: ", "yn") == "y")


_ASKERS: dict[type, Callable[[Terminal, Any], Any]] = {
    q.ApprovalRequest: _approval,
    q.FormRequest: _form,
    q.UrlRequest: _url,
    q.SamplingRequest: _sampling,
    q.SamplingReview: _review,
}
