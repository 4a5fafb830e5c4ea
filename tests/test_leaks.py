"""The leak check itself: it finds a thread or a child left running, and fails that test."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from tests.leaks import describe, leftovers, running_children

ROOT = Path(__file__).resolve().parents[1]


def test_a_thread_still_running_after_the_grace_is_found_by_name():
    before, children = set(threading.enumerate()), set(running_children())
    release = threading.Event()
    thread = threading.Thread(target=release.wait, name="leaky-worker", daemon=True)
    thread.start()
    try:
        threads, _ = leftovers(before, children, grace_s=0.2)
        assert threads == [thread]
        assert describe(threads, {}) == "the test left running: thread 'leaky-worker' (daemon)"
    finally:
        release.set()
        thread.join(5)
    assert leftovers(before, children, grace_s=0.2) == ([], {})


def test_a_child_still_running_is_found_with_its_command_and_an_exited_one_is_not():
    before, children = set(threading.enumerate()), set(running_children())
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        _, found = leftovers(before, children, grace_s=0.2)
        assert list(found) == [child.pid] and "sys.stdin.read()" in found[child.pid]
    finally:
        assert child.stdin is not None
        child.stdin.close()  # end of input: the child exits by itself
        child.wait(10)
    assert leftovers(before, children, grace_s=0.2) == ([], {})


def test_a_test_that_leaves_a_thread_running_fails_naming_it(tmp_path):
    (tmp_path / "conftest.py").write_text("from tests.leaks import no_leftovers  # noqa: F401\n")
    (tmp_path / "test_inner.py").write_text(
        "import threading\n"
        "def test_leaves_a_thread():\n"
        "    threading.Thread(target=threading.Event().wait, name='forgotten', daemon=True).start()\n"
        "def test_cleans_up():\n"
        "    done = threading.Thread(target=lambda: None, name='finished')\n"
        "    done.start()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_inner.py"]
    run = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    # A test whose teardown fails is reported as passed and as an error.
    assert "2 passed, 1 error" in run.stdout, run.stdout + run.stderr
    assert "ERROR at teardown of test_leaves_a_thread" in run.stdout
    assert "the test left running: thread 'forgotten' (daemon)" in run.stdout
