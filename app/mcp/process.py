"""Child-process chores for the stdio transport: its environment, noticing its
death, and stopping its whole process tree."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Mapping

import anyio
from anyio.abc import Process

logger = logging.getLogger(__name__)

# Inherited from our own environment because programs need them to run, and none
# of them is a secret. Everything else a server needs must be named in its config.
_SAFE_VARS_POSIX = (
    *("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"),
    *("LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ"),
)
_SAFE_VARS_WINDOWS = (
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PATHEXT",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "TMP",
    "USERNAME",
    "USERPROFILE",
)

_POLL_S = 0.05


def child_environment(extra: Mapping[str, str]) -> dict[str, str]:
    """The safe subset of our environment plus exactly what the config names."""
    names = _SAFE_VARS_WINDOWS if sys.platform == "win32" else _SAFE_VARS_POSIX
    # A value starting with "()" is an exported shell function: never pass those on.
    env = {k: v for k in names if (v := os.environ.get(k)) is not None and not v.startswith("()")}
    return env | dict(extra)


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
