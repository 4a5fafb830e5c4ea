"""The everyday phrasings (:mod:`bench._everyday`) ranked over the bundled tools, as the app ranks them.

The tools come from the bundled servers started the way the app starts them
(one child process each, through the supervisor), so their names, descriptions
and schemas are exactly what retrieval sees in the app; the ranking is the
production :class:`~app.mcp.retrieval.ToolRetriever` over those tools alone.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from pathlib import Path

from app.core.tools import ToolInfo
from app.mcp.config import DEFAULT_BUNDLED, bundled_entry
from app.mcp.retrieval import Encoder, ToolRetriever
from app.mcp.supervisor import Supervisor
from bench._everyday import PHRASINGS, Phrasing

SUBHEADING = "### Everyday phrasings over the bundled tools"
TARGET = 0.9  # top-1 share the set must reach (issue 12)


@dataclasses.dataclass(frozen=True)
class Ranked:
    phrasing: Phrasing
    names: tuple[str, ...]  # the top 3 tool names, best first

    @property
    def top1(self) -> bool:
        return self.names[0] in self.phrasing.accepted

    @property
    def strict(self) -> bool:
        return self.names[0] == self.phrasing.tool

    @property
    def top3(self) -> bool:
        return bool(self.phrasing.accepted & set(self.names))


@dataclasses.dataclass(frozen=True)
class EverydayRun:
    kind: str
    tools: int
    rows: tuple[Ranked, ...]

    def share(self, hit: str) -> float:
        return sum(getattr(row, hit) for row in self.rows) / len(self.rows)

    @property
    def misses(self) -> list[Ranked]:
        return [row for row in self.rows if not row.top1]


async def _listed(names: Sequence[str], timeout: float) -> list[ToolInfo]:
    supervisor = Supervisor([bundled_entry(name) for name in names])
    try:
        await supervisor.start(wait=True, timeout=timeout)
        not_ready = [s.name for s in supervisor.states() if s.state != "ready"]
        if not_ready:
            raise RuntimeError(f"bundled servers not ready: {', '.join(not_ready)}")
        return supervisor.list_tools()
    finally:
        await supervisor.aclose()


def bundled_tools(timeout: float = 60.0) -> list[ToolInfo]:
    """Every tool of the bundled servers, listed from the running servers."""
    return asyncio.run(_listed(DEFAULT_BUNDLED, timeout))


def rank_everyday(
    tools: Sequence[ToolInfo],
    kind: str = "static",
    *,
    encoder: Encoder | None = None,
    cache_root: Path | None = None,
    phrasings: Sequence[Phrasing] = PHRASINGS,
) -> EverydayRun:
    """Each phrasing's top 3 among ``tools``, by the retriever the app builds for ``kind``."""
    retriever = ToolRetriever(encoder=encoder, encoder_kind=kind, cache_root=cache_root)
    retriever.refresh_blocking(tools)
    rows = tuple(Ranked(p, tuple(r.tool.name for r in retriever.rank(p.text, tools, 3))) for p in phrasings)
    return EverydayRun(kind, len(tools), rows)


def miss_line(row: Ranked) -> str:
    return f"- “{row.phrasing.text}” (want `{row.phrasing.tool}`): got " + ", ".join(
        f"`{name}`" for name in row.names
    )


def report(runs: Sequence[EverydayRun], command: str) -> str:
    first = runs[0]
    lines = [
        SUBHEADING,
        "",
        f"Command: `{command}` (a few seconds). {len(first.rows)} questions as people type them"
        f" (`bench/_everyday.py`), each labelled with the one right tool, ranked over the"
        f" {first.tools} bundled tools alone by the app's retriever. Where another tool answers just as"
        " correctly it counts too (percentages: `multiply`; `2^16`: `evaluate`; temperatures:"
        " `convert`); strict top-1 counts the label alone. Target: top-1 at least 90%.",
        "",
        "| encoder | top-1 | strict top-1 | top-3 |",
        "|---|---|---|---|",
    ]
    for run in runs:
        top1, strict, top3 = (run.share(hit) for hit in ("top1", "strict", "top3"))
        lines.append(f"| {run.kind} | **{top1:.1%}** | {strict:.1%} | {top3:.1%} |")
    for run in runs:
        lines += ["", f"Misses at top-1, {run.kind} ({len(run.misses)}):"]
        lines += [miss_line(row) for row in run.misses] or ["- none"]
    return "\n".join(lines) + "\n"
