"""Child processes the app supervises (MCP servers, the model's engine): starting one in a
process group of its own that dies with the app, noticing its death, and stopping its tree."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

import anyio
from anyio.abc import Process

logger = logging.getLogger(__name__)

_POLL_S = 0.05


@dataclasses.dataclass(frozen=True)
class Backoff:
    """Restart delays: ``first_s`` doubling up to ``cap_s``. A server that stayed up
    ``stable_s`` starts again from ``first_s``; ``max_failures`` in a row gives up."""

    first_s: float = 0.25
    cap_s: float = 10.0
    stable_s: float = 30.0
    max_failures: int = 8

    def delay(self, failures: int) -> float:
        return min(self.first_s * 2 ** max(failures - 1, 0), self.cap_s)


# The first process of a server on Linux: it asks the kernel for SIGUSR1 when its parent (the
# app) dies, however it dies (kill -9 included), then runs the server as its child in its own
# process group. On SIGUSR1 it kills that whole group: the server and anything it started. It
# passes the server's exit on as its own, by code or by signal. A parent already gone before the
# request took effect is caught by comparing the parent's pid. Plain Python, no app import: it
# costs a few milliseconds of start-up.
_GUARD = """
import ctypes, os, signal, sys
signal.signal(signal.SIGUSR1, lambda *_: os.killpg(0, signal.SIGKILL))
ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGUSR1)  # PR_SET_PDEATHSIG
if os.getppid() != int(sys.argv[1]):
    sys.exit(70)
signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the group's SIGTERM is for the server
child = os.fork()
if child == 0:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGUSR1, signal.SIG_DFL)
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    except OSError as exc:
        print(f"cannot run {sys.argv[2]}: {exc.strerror}", file=sys.stderr)
        os._exit(127)
status = os.waitpid(child, 0)[1]
if os.WIFSIGNALED(status):
    if os.WTERMSIG(status) != signal.SIGKILL:  # SIGKILL has no handler to reset, and needs none
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def guarded(argv: list[str]) -> list[str]:
    """``argv`` run under the guard that takes the server's process group down with the app (Linux)."""
    # Frozen, sys.executable cannot run -c; a command not found is left to fail as it did.
    if sys.platform != "linux" or getattr(sys, "frozen", False) or shutil.which(argv[0]) is None:
        return argv
    return [sys.executable, "-S", "-c", _GUARD, str(os.getpid()), *argv]


async def spawn(argv: list[str], env: Mapping[str, str], cwd: str | Path | None = None) -> Process:
    """A server's process, guarded, in a process group of its own, with pipes for all three streams."""
    return await anyio.open_process(guarded(argv), env=env, cwd=cwd, start_new_session=True)


async def wait_for_death(process: Process) -> int:
    """Return the exit code as soon as the process dies.

    Linux tells us at once through a pidfd; elsewhere we poll the return code.
    """
    fd = _pidfd(process.pid)
    if fd is not None:
        try:
            await anyio.wait_readable(fd)
        finally:
            os.close(fd)
    while process.returncode is None:  # the loop's reaper may lag the pidfd a little
        await anyio.sleep(0.01 if fd is not None else _POLL_S)
    return process.returncode


def _pidfd(pid: int) -> int | None:
    if not hasattr(os, "pidfd_open"):
        return None
    try:
        return os.pidfd_open(pid)
    except OSError:  # already reaped, or a kernel without pidfds
        return None


async def wait_exit(process: Process, timeout: float) -> bool:
    """Whether the process exited within ``timeout``.

    Polls the return code rather than ``process.wait()``, which also waits for
    the pipes to close and so hangs while a grandchild holds them open."""
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(0.01)
    return process.returncode is not None


async def stop_tree(process: Process, grace_s: float, kill_after_s: float) -> None:
    """Close stdin, wait ``grace_s`` for a clean exit, then end the whole process group.

    The group is signalled even when the leader exited cleanly, so helpers it
    started in its group do not outlive it."""
    if process.stdin is not None:
        with contextlib.suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    await wait_exit(process, grace_s)
    if sys.platform == "win32":
        _kill_windows(process)
    else:
        from mcp.os.posix.utilities import terminate_posix_process_tree

        await terminate_posix_process_tree(process, kill_after_s)
    if not await wait_exit(process, kill_after_s):
        logger.warning("server process %d survived SIGKILL; abandoning it", process.pid)


def _kill_windows(process: Process) -> None:
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError, OSError):
            process.kill()
