"""One turn of a scripted model over real servers (the calculator and a files server) with
retrieval on: what the turn offers and asks at each step is the point, not the model."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import anyio

from app.calculon import CalculonMode
from app.core import events as ev
from app.core.backend import Chunk
from app.core.outcome import TurnOutcome
from app.core.prompts import system_prompt
from app.core.session import ChatSession
from app.llm.scripted import ScriptedBackend
from app.mcp.config import bundled_entry
from app.mcp.retrieval.selector import ToolRetriever
from tests.mcp.helpers import script_entry, started


async def files_turn(
    steps: Sequence[Sequence[Chunk | str]],
    asked: str,
    log_dir: Path,
    *,
    selector: ToolRetriever | None = None,
    server: str = "files",
    script: str = "files.py",
    calculator: bool = True,
    notices: list[str] | None = None,
    before: Sequence[str] = (),
) -> tuple[TurnOutcome, ScriptedBackend]:
    """``asked`` once, in Calculon mode, after the messages ``before`` in the same conversation;
    every tool offered unless a ``selector`` is given (its index built before the turn)."""
    backend = ScriptedBackend(steps)
    selector = selector or ToolRetriever(threshold=100, dense=False)
    entries = (bundled_entry("calculator"),) * calculator + (script_entry(server, script),)
    async with started(*entries, log_dir=log_dir) as servers:
        await selector.refresh(servers.list_tools())  # ranked from the first step
        chat = ChatSession(
            backend, servers, system_prompt=system_prompt(True), verifier=CalculonMode(), selector=selector
        )
        if notices is not None:
            chat.subscribe(lambda e: notices.append(e.message) if isinstance(e, ev.Notice) else None)
        with anyio.fail_after(30):
            for earlier in before:
                await chat.run_turn(earlier)
            return await chat.run_turn(asked), backend
