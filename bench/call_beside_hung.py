"""``calculon call add '{"a":1,"b":2}'`` with a hung third-party server configured, as a whole
command, against the raw SDK ``Client`` making the same call on the bundled calculator alone.

Both sides are fresh processes (interpreter start, imports, starting the calculator, the call,
stopping): what a user waits for. Ours also has a server that never answers ``initialize``
beside the calculator, which it must neither wait for at start nor at stop. The sides take
turns at going first; reported are both medians and the paired ratio. Target: ours under 2 s.

    python -m bench call_beside_hung [--pairs 10] [--no-write]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import _doc, _stats

HEADING = "## Supervisor"
TARGET_S = 2.0
HERE = Path(__file__).parent
HUNG = HERE.parent / "tests" / "mcp" / "servers" / "hostile.py"


def servers_file(folder: Path) -> Path:
    servers = {
        "calculator": {"command": "calculon", "args": ["serve", "calculator"]},
        "hung": {"command": sys.executable, "args": [str(HUNG), "hung"]},
    }
    path = folder / "servers.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def timed(argv: list[str], env: dict[str, str]) -> float:
    began = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    elapsed = time.perf_counter() - began
    if done.returncode != 0 or done.stdout.strip() != "3":
        raise SystemExit(f"{argv[2]} failed ({done.returncode}): {done.stdout!r} {done.stderr[-500:]!r}")
    return elapsed


def measure(pairs: int) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        env = os.environ | {"CALCULON_CONFIG_DIR": str(root / "config"), "CALCULON_DATA_DIR": str(root)}
        sides = {
            "ours": [sys.executable, "-m", "app", "--config", str(servers_file(root)), "call", "add"],
            "raw": [sys.executable, str(HERE / "_raw_call.py")],
        }
        sides["ours"].append('{"a": 1, "b": 2}')
        for argv in sides.values():  # warm: bytecode caches, the page cache
            timed(argv, env)
        times: dict[str, list[float]] = {name: [] for name in sides}
        for pair in range(pairs):
            for name in _stats.order(pair):
                times[name].append(timed(sides[name], env))
    return times


def report(times: dict[str, list[float]], pairs: int) -> str:
    figures = _stats.paired(times["ours"], times["raw"])
    met = "met" if figures.ours < TARGET_S else "missed"
    return "\n".join(
        [
            "### A call beside a hung server",
            "",
            f"Command: `python -m bench call_beside_hung --pairs {pairs}` (each side a fresh process: "
            "interpreter, imports, the calculator's start, one `add`, the stop).",
            "",
            f"Wall time: {_stats.sentence(figures, 's')}; ours p95 {_stats.p95(times['ours']):.2f} s; "
            f"target, ours under {TARGET_S:g} s: **{met}**. {_stats.NOTE}",
            "",
            "Ours is `calculon call add` with the bundled calculator and a server that never answers "
            "`initialize` configured; raw is `mcp.Client` over the SDK's stdio client on the calculator "
            "alone.",
            "",
            _doc.machine(),
        ]
    )


def main() -> int:
    parser = _doc.parser("call_beside_hung")
    parser.add_argument("--pairs", type=int, default=10, help="timed runs per side")
    args = parser.parse_args(sys.argv[1:])
    text = report(measure(args.pairs), args.pairs)
    return _doc.publish(HEADING, text, write=not args.no_write)


if __name__ == "__main__":
    sys.exit(main())
