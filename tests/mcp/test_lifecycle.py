"""Restart delays and the wording of startup failures."""

from __future__ import annotations

from app.mcp.config import ServerEntry
from app.mcp.lifecycle import Backoff, describe_failure, unwrap


def test_restart_delay_doubles_from_a_quarter_second_up_to_ten():
    backoff = Backoff()
    assert [backoff.delay(n) for n in range(1, 9)] == [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0]


def test_startup_failures_are_worded_for_the_user():
    entry = ServerEntry("files", command="npx", args=("-y", "server-files"))
    assert describe_failure(entry, TimeoutError(), None, 60) == "server files did not start within 60 s"
    missing = ExceptionGroup("task group", [FileNotFoundError(2, "No such file")])
    assert describe_failure(entry, missing, None, 60) == "server files: command not found: npx"
    assert describe_failure(entry, ValueError("odd"), None, 60) == "server files: ValueError: odd"


def test_nested_single_exception_groups_are_unwrapped():
    inner = OSError("boom")
    assert unwrap(BaseExceptionGroup("a", [ExceptionGroup("b", [inner])])) is inner
    both = ExceptionGroup("two", [OSError(), ValueError()])
    assert unwrap(both) is both
