"""A call the same as one that just failed at its server is refused before it reaches it; a
failure that may pass on its own (a time-out) may be tried again as it was."""

from __future__ import annotations

import pytest

from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.core.records import CallRecord
from app.core.refailed import REFAILED_NOT_RUN, failed_before
from tests.core.files_turn import files_turn

pytestmark = pytest.mark.anyio
QUERY = {"query": "SELECT SUM(quantity) FROM orders WHERE customer = 'Carol'"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def record(arguments: dict[str, object], result: str, is_error: bool = True) -> CallRecord:
    return CallRecord("sqlite", "read_query", arguments, result, is_error, 3.0)


def test_the_same_arguments_after_a_failure_are_refused_naming_the_error() -> None:
    calls = [record(QUERY, "Database error: no such column: quantity")]
    reason = failed_before("sqlite", "read_query", dict(QUERY), calls)
    assert "read_query failed with these same arguments a moment ago" in reason
    assert "no such column: quantity" in reason


def test_a_look_up_in_between_changes_nothing_but_a_change_lets_the_call_run_again() -> None:
    failed = record(QUERY, "Database error: no such column: quantity")
    described = CallRecord(
        "sqlite", "describe_table", {"table_name": "orders"}, "[{'name': 'qty'}]", False, 2.0
    )
    assert failed_before("sqlite", "read_query", dict(QUERY), [failed, described])
    staged = CallRecord("sqlite", "write_query", {"query": "ALTER TABLE ..."}, "done", False, 2.0)
    assert failed_before("sqlite", "read_query", dict(QUERY), [failed, described, staged]) == ""


def test_changed_arguments_a_call_that_worked_and_a_time_out_may_be_sent_again() -> None:
    failed = [record(QUERY, "Database error: no such column: quantity")]
    assert failed_before("sqlite", "read_query", {"query": "SELECT SUM(qty) FROM orders"}, failed) == ""
    assert failed_before("sqlite", "read_query", dict(QUERY), [record(QUERY, "[{'n': 3}]", False)]) == ""
    timed_out = [record(QUERY, "Error: the call timed out after 30 s")]
    assert failed_before("sqlite", "read_query", dict(QUERY), timed_out) == ""


async def test_a_failed_call_sent_again_never_reaches_the_server_twice(tmp_path) -> None:
    missing = str(tmp_path / "notes.txt")
    again = [ToolCallChunk(ToolCall(f"c{i}", "read_text", {"path": missing})) for i in (1, 2)]
    notes = tmp_path / "todo.txt"
    notes.write_text("- buy milk\n", encoding="utf-8")
    fixed = ToolCallChunk(ToolCall("c3", "read_text", {"path": str(notes)}))
    steps = [[again[0]], [again[1]], [fixed], ["It says: buy milk."]]
    outcome, backend = await files_turn(
        steps, f"What does {missing} say?", tmp_path, server="editor", script="editor.py"
    )

    first, second = outcome.tool_calls[0], outcome.tool_calls[1]
    assert first.is_error and not first.result.startswith("Not run (")  # the server's own error
    assert second.is_error and second.result.startswith(REFAILED_NOT_RUN)
    assert "change what made it fail" in backend.requests[2].messages[-1].text
    assert not outcome.tool_calls[2].is_error
