"""The everyday phrasings (:mod:`bench._everyday`) ranked over the bundled tools, as the app ranks them.

The tools come from the bundled servers started the way the app starts them
(one child process each, through the supervisor), so their names, descriptions
and schemas are exactly what retrieval sees in the app; the ranking is the
production :class:`~app.mcp.retrieval.ToolRetriever` over those tools alone.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path

from app.calculon.mode import CalculonMode
from app.calculon.verdict import ARITHMETIC_TOOLS
from app.core.offer import ranked_offer, ruled_out
from app.core.tools import ToolInfo
from app.mcp.config import DEFAULT_BUNDLED, bundled_entry
from app.mcp.retrieval import Encoder, ToolRetriever
from app.mcp.supervisor import Supervisor
from bench._everyday import HELD_OUT, PHRASINGS, Phrasing

SUBHEADING = "### Everyday phrasings over the bundled tools"
COMMAND = "python -m bench retrieval --everyday-only"
TARGET = 0.9  # top-1 share the labelled set must reach (issue 12)
SETS = {"labelled": PHRASINGS, "held out": HELD_OUT}
KINDS = ("static", "contextual")
# Measured once with this command on the retrieval code and tool descriptions of commit 4a5357a,
# before the changes made for this set (ordered word pairs, symbols read as words, descriptions).
BEFORE = (
    "Before those changes (commit 4a5357a): top-1 static 74.3% labelled, 68.6% held out;"
    " contextual 82.4% and 74.3%."
)


@dataclasses.dataclass(frozen=True)
class Ranked:
    phrasing: Phrasing
    names: tuple[str, ...]  # the top 3 (or ``top``) tool names, best first; none where nothing is offered

    @property
    def top1(self) -> bool:
        return bool(self.names) and self.names[0] in self.phrasing.accepted

    @property
    def strict(self) -> bool:
        return bool(self.names) and self.names[0] == self.phrasing.tool

    @property
    def top3(self) -> bool:
        return bool(self.phrasing.accepted & set(self.names[:3]))

    @property
    def top5(self) -> bool:
        """Among the five the model is offered (the app's default top-k)."""
        return bool(self.phrasing.accepted & set(self.names[:5]))


@dataclasses.dataclass(frozen=True)
class EverydayRun:
    kind: str
    name: str  # which set: labelled or held out
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
    name: str = "labelled",
    phrasings: Sequence[Phrasing] | None = None,
    top: int = 3,
) -> EverydayRun:
    """Each phrasing's ``top`` among ``tools``, by the retriever the app builds for ``kind``; the
    phrasings are the set ``name``'s unless given."""
    # threshold 0: ranked however few the tools (the app offers every tool below its threshold)
    retriever = ToolRetriever(
        encoder=encoder, encoder_kind=kind, cache_root=cache_root, top_k=top, threshold=0
    )
    retriever.refresh_blocking(tools)
    asked = SETS[name] if phrasings is None else phrasings
    rows = tuple(Ranked(p, first_offered(retriever, tools, p.text)) for p in asked)
    return EverydayRun(kind, name, len(tools), rows)


def first_offered(retriever: ToolRetriever, tools: Sequence[ToolInfo], asked: str) -> tuple[str, ...]:
    """The tools the app's first step offers for ``asked`` in Calculon mode, best first: retrieval's
    ranking, less what the step cannot call: a change where the request only asks, whose place the
    next ranked takes (app.core.offer.ranked_offer), and a calculator while it holds no number."""
    out, numbered = ruled_out(asked), CalculonMode().holds_numbers([asked])

    offered, _ = ranked_offer(retriever, list(tools), asked, lambda tool: not out(tool))
    return tuple(t.name for t, _ in offered if not out(t) and (numbered or t.tool not in ARITHMETIC_TOOLS))


def measure(
    encoder_for: Callable[[str], Encoder | None] = lambda kind: None, cache_root: Path | None = None
) -> list[EverydayRun]:
    """Both sets, both encoders; ``encoder_for(kind)`` None means the app's shared encoder."""
    tools = bundled_tools()
    return [
        rank_everyday(tools, kind, encoder=encoder_for(kind), cache_root=cache_root, name=name)
        for kind in KINDS
        for name in SETS
    ]


def miss_line(row: Ranked) -> str:
    return f"- “{row.phrasing.text}” (want `{row.phrasing.tool}`): got " + ", ".join(
        f"`{name}`" for name in row.names
    )


def report(runs: Sequence[EverydayRun]) -> str:
    first = runs[0]
    sizes = {run.name: len(run.rows) for run in runs}
    lines = [
        SUBHEADING,
        "",
        f"Command: `{COMMAND}` (a few seconds once the static table exists). Questions as people"
        f" type them (`bench/_everyday.py`), each labelled with the one right tool, ranked over the"
        f" {first.tools} bundled tools alone (listed from the running servers) by the app's retriever."
        " Where another tool answers just as correctly it counts too (percentages: `multiply`;"
        " `2^16`: `evaluate`; temperatures: `convert`); strict top-1 counts the label alone."
        f" Target: top-1 at least {TARGET:.0%} on the labelled set ({sizes['labelled']} questions;"
        " `tests/mcp/retrieval/test_everyday.py` fails below it). The held-out set"
        f" ({sizes['held out']} questions) was written before the retrieval was changed for the"
        f" labelled one and never tuned on: it says how much of the gain is general. {BEFORE}",
        "",
        "| encoder | set | top-1 | strict top-1 | top-3 |",
        "|---|---|---|---|---|",
    ]
    for run in runs:
        top1, strict, top3 = (run.share(hit) for hit in ("top1", "strict", "top3"))
        lines.append(f"| {run.kind} | {run.name} | **{top1:.1%}** | {strict:.1%} | {top3:.1%} |")
    for run in runs:
        lines += ["", f"Misses at top-1, {run.kind}, {run.name} ({len(run.misses)}):"]
        lines += [miss_line(row) for row in run.misses] or ["- none"]
    return "\n".join(lines) + "\n"
