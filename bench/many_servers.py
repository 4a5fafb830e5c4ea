"""Memory with many configured servers: ``calculon servers`` over a file of N entries.

Each entry runs ``sleep``, a process that never answers ``initialize`` and costs almost nothing
itself, so what grows is ours: one owner task, transport, log file and status per server. The
command waits its start-up wait (2 s here), reports every server as starting, and stops them
all. Peak resident memory of the CLI process (``ru_maxrss`` of the children this bench waits
for; each ``sleep`` is far smaller) for a one-server file and an N-server file; and the size of
that file against the 1 MiB cap on servers files.

    python -m bench many_servers [--servers 200] [--no-write]
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import _doc

HEADING = "## Supervisor"


def servers_file(folder: Path, count: int) -> Path:
    sleep = shutil.which("sleep") or "sleep"
    servers = {f"server-{n:03d}": {"command": sleep, "args": ["60"]} for n in range(count)}
    path = folder / f"servers-{count}.json"
    path.write_text(json.dumps({"mcpServers": servers}, indent=2))
    return path


def peak_rss_mb(count: int, folder: Path) -> tuple[float, int, int]:
    """Peak RSS (MB) of ``calculon servers`` over ``count`` servers, the file's bytes, and how
    many servers it reported as starting."""
    path = servers_file(folder, count)
    config = folder / f"config-{count}"
    config.mkdir()
    (config / "settings.json").write_text(json.dumps({"startup_wait_s": 2}))
    env = os.environ | {"CALCULON_CONFIG_DIR": str(config), "CALCULON_DATA_DIR": str(folder)}
    argv = [sys.executable, "-m", "app", "--config", str(path), "servers", "--json"]
    # A fresh child of a fresh process: ru_maxrss of RUSAGE_CHILDREN is then this command's peak.
    listing = folder / f"servers-{count}.out"
    run = f"subprocess.run({argv!r}, check=True, stdout=open({str(listing)!r}, 'w'))"
    code = f"import resource, subprocess; {run}; "
    code += "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    states = json.loads(listing.read_text())
    starting = sum(1 for s in states if s["state"] == "starting")
    return int(done.stdout) / 1024, path.stat().st_size, starting


def report(count: int, one: tuple[float, int, int], many: tuple[float, int, int]) -> str:
    per_server = (many[0] - one[0]) / max(count - 1, 1)
    return "\n".join(
        [
            f"### {count} configured servers",
            "",
            f"Command: `python -m bench many_servers --servers {count}` (`calculon servers --json` over a "
            f"file of {count} entries that each run `sleep`, which never answers `initialize`; start-up "
            "wait 2 s).",
            "",
            f"Peak resident memory of the CLI: **{many[0]:.0f} MB** with {count} servers "
            f"({many[2]} reported starting), {one[0]:.0f} MB with one: about {per_server * 1024:.0f} kB "
            f"per server. The {count}-server file is {many[1]:,} bytes; servers files are capped at "
            "1 MiB (1,048,576 bytes), refused before they are read.",
            "",
            _doc.machine(),
        ]
    )


def main() -> int:
    parser = _doc.parser("many_servers")
    parser.add_argument("--servers", type=int, default=200, help="configured servers")
    args = parser.parse_args(sys.argv[1:])
    with tempfile.TemporaryDirectory() as folder:
        one = peak_rss_mb(1, Path(folder))
        many = peak_rss_mb(args.servers, Path(folder))
    return _doc.publish(HEADING, report(args.servers, one, many), write=not args.no_write)


if __name__ == "__main__":
    sys.exit(main())
