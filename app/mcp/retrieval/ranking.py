"""``calculon tools --query TEXT --top K [--json]``: rank tools for a query and show why."""

from __future__ import annotations

import json
from collections.abc import Sequence

from app.core.tools import ToolInfo
from app.mcp.encoder_kinds import EncoderKind
from app.mcp.retrieval.encoders import Encoder
from app.mcp.retrieval.selector import Ranked, ToolRetriever


def rank(
    query: str,
    tools: Sequence[ToolInfo],
    top_k: int = 5,
    *,
    pinned: Sequence[str] = (),
    encoder: Encoder | None = None,
    kind: EncoderKind = "static",
    dense: bool = True,
) -> list[Ranked]:
    """Blocking: builds the index (or reads it from the disk cache), then ranks.

    Pinned tools come first, as in what the model is offered.
    """
    retriever = ToolRetriever(top_k=top_k, pinned=pinned, encoder=encoder, encoder_kind=kind, dense=dense)
    retriever.refresh_blocking(tools)
    return retriever.ranked(query, tools, top_k)


def ranking_dicts(rows: Sequence[Ranked]) -> list[dict[str, object]]:
    return [
        {
            "rank": place,
            "name": r.tool.name,
            "server": r.tool.server,
            "score": round(r.score, 4),
            "bm25": round(r.bm25, 4),
            "dense": round(r.dense, 4),
            "pinned": r.pinned,
        }
        for place, r in enumerate(rows, 1)
    ]


def format_ranking(rows: Sequence[Ranked], *, as_json: bool = False) -> str:
    """A table for people, or JSON for scripts; ``*`` marks a pinned tool."""
    if as_json:
        return json.dumps(ranking_dicts(rows), indent=2)
    width = max((len(r.tool.name) for r in rows), default=4)
    lines = [f"{'#':>3}  {'score':>6}  {'bm25':>7}  {'dense':>6}  {'tool':<{width}}  server"]
    for item in ranking_dicts(rows):
        mark = "*" if item["pinned"] else " "
        lines.append(
            f"{item['rank']:>3}{mark} {item['score']:>6.3f}  {item['bm25']:>7.3f}  {item['dense']:>6.3f}"
            f"  {item['name']:<{width}}  {item['server']}"
        )
    return "\n".join(lines)
