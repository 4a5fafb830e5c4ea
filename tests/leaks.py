"""What a test leaves running: threads and child processes that outlive it.

``no_leftovers`` (autouse, from tests/conftest.py) notes the live threads and this
process's children before each test, and afterwards fails the test naming whatever
is new and still running, after a short bounded wait for things that are shutting down.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

GRACE_S = 3.0  # how long a thread or child may take to finish after its test

# There is no allow-list: nothing in the suite needs one. Qt's own threads are not Python
# threads (threading.enumerate() never lists them), and no fixture wider than a test starts
# a thread or a process; one that does must name what it starts here and why.
# - tests/llm/conftest.py `llama_server` (session): one `llama_cpp.server` child for the whole run,
#   since loading the model per test would cost seconds each; it is started before any test's
#   snapshot is taken, so no test counts it as its own.
# - tests/mcp/test_everything_http.py `hosted` (module): server-everything in its HTTP mode, a process
#   of the test's own (a remote server is no child of the supervisor), for the same reason.


def running_children(pid: int | None = None) -> dict[int, str]:
    """This process's children that have not exited (zombies excluded), with their command lines."""
    parent = pid or os.getpid()
    found: dict[int, str] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, ppid = stat.read_text().rsplit(")", 1)[1].split()[:2]
            if int(ppid) == parent and state != "Z":
                found[int(stat.parent.name)] = _command(stat.parent)
        except (OSError, ValueError):  # it exited while we looked
            continue
    return found


def _command(proc: Path) -> str:
    try:
        return proc.joinpath("cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def leftovers(
    threads_before: set[threading.Thread], children_before: set[int], grace_s: float = GRACE_S
) -> tuple[list[threading.Thread], dict[int, str]]:
    """New threads and children still running once ``grace_s`` has passed (or as soon as none are)."""
    deadline = time.monotonic() + grace_s
    for thread in set(threading.enumerate()) - threads_before:
        thread.join(max(deadline - time.monotonic(), 0))  # waits for the thread's own end
    new = set(threading.enumerate()) - threads_before
    threads = sorted((t for t in new if t.is_alive()), key=lambda t: t.name)
    children = {pid: cmd for pid, cmd in running_children().items() if pid not in children_before}
    while children and time.monotonic() < deadline:
        time.sleep(0.02)  # a child's exit announces itself to its own parent only: look again shortly
        children = {pid: cmd for pid, cmd in running_children().items() if pid not in children_before}
    return threads, children


def describe(threads: list[threading.Thread], children: dict[int, str]) -> str:
    parts = [f"thread {t.name!r}{' (daemon)' if t.daemon else ''}" for t in threads]
    parts += [f"child process {pid} ({cmd})" for pid, cmd in sorted(children.items())]
    return "the test left running: " + "; ".join(parts)


@pytest.fixture(autouse=True)
def no_leftovers() -> Iterator[None]:
    threads_before, children_before = set(threading.enumerate()), set(running_children())
    yield
    threads, children = leftovers(threads_before, children_before)
    if threads or children:
        pytest.fail(describe(threads, children), pytrace=False)
