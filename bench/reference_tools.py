"""Snapshot the tool lists of the official reference servers and the bundled ones.

The retrieval test of everyday phrasings over the reference servers
(``tests/mcp/retrieval/test_everyday_reference.py``) ranks these tools without starting npm or
PyPI servers, so it needs no network and no Node: this writes what each server lists (name,
description, input schema) to ``tests/mcp/retrieval/data/reference_tools.json``. Run it again
when ``bench/_real_tasks_servers.py`` pins newer versions.

    python -m bench.reference_tools           # list the servers' tools into the snapshot
    python -m bench.reference_tools --rank    # rank bench/_everyday_reference.py over it
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from app.core.tools import ToolInfo
from app.mcp.config import parse_servers
from app.mcp.supervisor import Supervisor
from bench import _real_tasks_servers as servers

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = ROOT / "tests" / "mcp" / "retrieval" / "data" / "reference_tools.json"


async def listed(folder: Path) -> list[dict[str, object]]:
    subprocess.run(["git", "init", "-q", str(folder)], check=True)  # the git server wants a repository
    config = servers.mcp_servers(folder, "http://127.0.0.1:9")
    for entry in config["mcpServers"].values():  # the bundled ones as the app starts them
        if entry["command"] == "calculon":
            entry["command"], entry["args"] = sys.executable, ["-m", "app", *entry["args"]]
    supervisor = Supervisor(list(parse_servers(config).values()), log_dir=folder / "logs")
    try:
        await supervisor.start(wait=True, timeout=180)
        missing = [s.name for s in supervisor.states() if s.state != "ready"]
        if missing:
            errors = [f"{s.name}: {s.last_error}" for s in supervisor.states() if s.name in missing]
            raise SystemExit("not ready: " + "; ".join(errors))
        return [
            {
                "server": t.server,
                "tool": t.tool,
                "name": t.name,
                "description": t.description,
                "input_schema": t.input_schema,
                "annotations": t.annotations,
            }
            for t in supervisor.list_tools()
        ]
    finally:
        await supervisor.aclose()


def snapshot_tools() -> list[ToolInfo]:
    return [
        ToolInfo(t["server"], t["tool"], t["name"], t["description"], t["input_schema"], t["annotations"])
        for t in json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    ]


def rank_report() -> str:
    """Top-1 and top-5 (what the model is offered) per encoder, and each top-1 miss."""
    from bench._everyday_reference import REFERENCE, REFERENCE_HELD_OUT
    from bench._retrieval_everyday import miss_line, rank_everyday

    tools = snapshot_tools()
    lines = [
        f"{len(REFERENCE)} phrasings and {len(REFERENCE_HELD_OUT)} held out, over {len(tools)} tools",
        "",
        "| set | encoder | top-1 | top-5 |",
        "|---|---|---|---|",
    ]
    misses = []
    for name, phrasings in (("reference", REFERENCE), ("held out", REFERENCE_HELD_OUT)):
        for kind in ("static", "contextual"):
            run = rank_everyday(tools, kind, name=name, phrasings=phrasings, top=5)
            hits1, hits5 = (sum(getattr(row, hit) for row in run.rows) for hit in ("top1", "top5"))
            lines.append(f"| {name} | {kind} | {hits1}/{len(run.rows)} | {hits5}/{len(run.rows)} |")
            misses += ["", f"Misses at top-1, {name}, {kind}:", *(miss_line(row) for row in run.misses)]
    return "\n".join(lines + misses)


def main() -> None:
    if "--rank" in sys.argv[1:]:
        print(rank_report())
        return
    servers.install_all()
    with tempfile.TemporaryDirectory(prefix="calculon-reference-tools-") as folder:
        tools = asyncio.run(listed(Path(folder)))
    SNAPSHOT.write_text(json.dumps(tools, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(tools)} tools written to {SNAPSHOT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
