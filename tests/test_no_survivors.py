"""Nothing outlives the CLI: SIGTERM or SIGKILL mid-call, and every server and its helpers are gone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from app.mcp.config import bundled_entry
from tests.leaks import running_children
from tests.mcp.helpers import alive, script_entry, wait_until_dead

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the guard is Linux's PR_SET_PDEATHSIG")


def start_cli_mid_call(tmp_path: Path) -> tuple[subprocess.Popen[str], list[int]]:
    """The CLI, running ``linger.hold`` beside the bundled calculator; the pids that must die with it."""
    marker = tmp_path / "pids.json"
    entries = [bundled_entry("calculator"), script_entry("linger", "hostile.py", "linger")]
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {e.name: e.to_json() for e in entries}}))
    arguments = json.dumps({"text": str(marker)})
    cli = subprocess.Popen(
        [sys.executable, "-m", "app", "--config", str(config), "call", "linger.hold", arguments],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    anyio.run(_appears, marker, cli)
    pids = json.loads(marker.read_text())
    return cli, sorted({pids["server"], pids["helper"], *descendants(cli.pid)})


async def _appears(path: Path, cli: subprocess.Popen[str]) -> None:
    with anyio.fail_after(60):
        while not path.exists():
            assert cli.poll() is None, cli.stderr.read() if cli.stderr else ""
            await anyio.sleep(0.02)


def descendants(pid: int) -> list[int]:
    found, frontier = [], [pid]
    while frontier:
        children = list(running_children(frontier.pop()))
        found += children
        frontier += children
    return found


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_no_server_or_helper_survives_the_cli_killed_mid_call(tmp_path, signum):
    cli, pids = start_cli_mid_call(tmp_path)
    assert len(pids) >= 2 and all(alive(pid) for pid in pids)  # the server and its helper, at least
    try:
        os.kill(cli.pid, signum)
        assert cli.wait(timeout=30) == (143 if signum == signal.SIGTERM else -signal.SIGKILL)
        assert anyio.run(wait_until_dead, pids) == []
    finally:
        for pid in pids:  # a failure here must not leave them running for the rest of the suite
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_server_whose_app_died_before_it_started_does_not_run(tmp_path):
    from app.children import guarded

    argv = guarded([sys.executable, "-c", "print('ran')"])
    argv[argv.index(str(os.getpid()))] = "1"  # as if our parent were already gone: re-parented to init
    started = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 70 and done.stdout == "" and time.monotonic() - started < 10


def engine_processes(root: int) -> list[int]:
    """The model's process under ``root``: the guard the app started, and the engine it runs."""
    return [
        pid
        for pid in descendants(root)
        if "app engine"
        in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").replace("\0", " ")
    ]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_the_model_process_does_not_survive_the_cli_killed_mid_answer(tmp_path, signum):
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {}}))
    cli = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "app",
            "--config",
            str(config),
            "ask",
            "--no-strict",
            "--no-save",
            "Tell me a long story.",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    pids = anyio.run(_engine_appears, cli)
    try:
        os.kill(cli.pid, signum)
        cli.wait(timeout=30)
        assert anyio.run(wait_until_dead, pids) == []
    finally:
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


async def _engine_appears(cli: subprocess.Popen[str]) -> list[int]:
    with anyio.fail_after(60):
        while not (found := engine_processes(cli.pid)):
            assert cli.poll() is None, cli.stderr.read() if cli.stderr else ""
            await anyio.sleep(0.02)
    return found
