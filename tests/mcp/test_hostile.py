"""Hostile servers (tests/mcp/servers/hostile.py) beside honest ones, as real processes."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from app import paths
from app.core import events as ev
from app.mcp.config import bundled_entry
from app.mcp.flood import PER_SECOND
from app.mcp.serverlog import MAX_LOG_BYTES
from app.mcp.transport import STDERR_LINE
from tests.mcp.helpers import script_entry, until

pytestmark = pytest.mark.anyio


async def test_a_third_party_tool_can_never_be_called_as_the_calculators_add(supervise):
    supervisor, _ = supervise(bundled_entry("calculator"), script_entry("evil", "hostile.py", "names"))
    await supervisor.start()
    offered = {t.name: t.server for t in supervisor.list_tools()}
    assert offered["calculator.add"] == "calculator" and offered["evil.calculator.add"] == "evil"
    assert offered["evil.add"] == "evil"  # two servers have "add": both are qualified
    assert supervisor.resolve("calculator.add").server == "calculator"  # type: ignore[union-attr]
    assert (await supervisor.call_tool("calculator.add", {"a": 1, "b": 2})).text == "3"
    spoof = await supervisor.call_tool("evil.calculator.add", {"a": 1, "b": 2})
    assert spoof.text == "{'a': 1, 'b': 2}"  # the evil one runs only when named as evil's


async def test_tools_with_bad_names_are_skipped_with_reasons_and_the_rest_of_the_server_works(supervise):
    supervisor, _ = supervise(script_entry("evil", "hostile.py", "names"))
    await supervisor.start()
    [status] = supervisor.states()
    assert status.state == "ready"
    assert sorted(status.tools) == ["add", "calculator.add", "echo_text"]
    assert len(status.skipped) == 5
    assert any(s.startswith(r"tool '\x1b[2J\x1b]0;pwned\x07clear' skipped") for s in status.skipped)
    assert any(s.startswith(r"tool 'evil\u202etxt.exe' skipped") for s in status.skipped)
    assert any(s.startswith("tool '' skipped: a tool name may hold only letters") for s in status.skipped)
    assert (await supervisor.call_tool("echo_text", {"text": "hi"})).text == "hi"


async def test_tools_with_unusable_schemas_are_skipped_and_the_server_is_ready(supervise):
    supervisor, _ = supervise(script_entry("schemas", "hostile.py", "schemas"))
    await supervisor.start()
    [status] = supervisor.states()
    assert status.state == "ready" and status.tools == ("still_works",)
    skipped = {s.split("'")[1]: s for s in status.skipped}
    assert sorted(skipped) == ["array_schema", "invalid_schema", "null_schema", "string_schema"]
    assert "inputSchema" in skipped["null_schema"] and "not a valid JSON Schema" in skipped["invalid_schema"]
    assert (await supervisor.call_tool("still_works", {})).text == "fine"


@pytest.mark.parametrize(
    ("tool", "why"),
    [
        ("bad_utf8", "invalid unicode code point"),
        ("lone_surrogate", "hex escape"),
        ("deep_json", "recursion limit exceeded"),
        ("oversized", "it is over 64 MiB"),
    ],
)
async def test_a_reply_the_sdk_cannot_use_fails_the_call_at_once_and_the_server_keeps_working(
    supervise, tool, why
):
    supervisor, _ = supervise(script_entry("replies", "hostile.py", "replies"), tool_timeout_s=60)
    await supervisor.start()
    began = time.monotonic()
    result = await supervisor.call_tool(tool, {})
    assert result.is_error and time.monotonic() - began < 20  # not the 60 s tool timeout
    assert result.text.startswith(f"tool {tool} on server replies sent a reply that cannot be used: ")
    assert why in result.text
    assert (await supervisor.call_tool("describe", {"text": "still here"})).text == "still here"


async def test_a_10_mb_result_arrives_cut_to_the_cap_with_its_note(supervise):
    supervisor, _ = supervise(script_entry("replies", "hostile.py", "replies"))
    await supervisor.start()
    result = await supervisor.call_tool("sized", {"mb": 10})
    assert not result.is_error
    assert result.text.endswith(
        "\n[result truncated: 10,485,760 characters, the first 1,000,000 shown;"
        f" the whole result is kept in {result.kept}]"
    )
    assert result.text.startswith("y" * 1_000_000 + "\n")
    kept = Path(result.kept)
    assert kept.parent == paths.data_dir() / "results" and kept.name.startswith("call-")
    assert kept.read_text() == "y" * 10 * 1024 * 1024


async def test_a_server_stopped_before_it_answered_initialize_is_known_to_have_exited(supervise):
    supervisor, _ = supervise(script_entry("hung", "hostile.py", "hung"))
    await supervisor.start(wait=False)
    await until(lambda: supervisor.connections["hung"].pid is not None)  # the child runs
    await supervisor.aclose()
    transport = supervisor.connections["hung"].transport
    assert transport is not None and transport.exited  # recorded at once, not waited out in vain
    assert transport.stderr_tail[-1].startswith("[process exited with code")


async def test_a_flood_of_log_notifications_during_a_call_is_cut_to_the_budget_and_the_result_arrives(
    supervise,
):
    supervisor, log = supervise(script_entry("replies", "hostile.py", "replies"))
    await supervisor.start()
    result = await supervisor.call_tool("flood", {"n": 20_000})
    assert not result.is_error and result.text == "done"
    logs = [e for e in log.events if isinstance(e, ev.ServerLog)]
    notes = [e for e in logs if e.logger == "calculon"]
    passed = len(logs) - len(notes)
    assert PER_SECOND <= passed < 20_000  # within the budget of the second(s) the flood took
    dropped = sum(int(e.message.split()[0].replace(",", "")) for e in notes)
    assert passed + dropped == 20_000 and 1 <= len(notes) <= 3
    assert notes[0].level == "warning" and "notifications dropped" in notes[0].message
    assert "notifications dropped" in supervisor.stderr_tail("replies")[-1]


async def test_a_server_flooding_stderr_without_newlines_answers_its_first_call_and_its_log_stays_capped(
    supervise,
):
    supervisor, _ = supervise(script_entry("spew", "hostile.py", "spew", "12"))  # 12 MB, one line
    await supervisor.start()
    assert (await supervisor.call_tool("describe", {"text": "heard"})).text == "heard"
    tail = supervisor.stderr_tail("spew")
    assert tail and all(line == "x" * STDERR_LINE + " [line continues]" for line in tail)
    log = paths.log_dir() / "spew.log"
    rotated = log.with_name("spew.log.1")
    assert rotated.exists()  # 12 MB written, kept in two files of at most 5 MiB each
    assert log.stat().st_size <= MAX_LOG_BYTES and rotated.stat().st_size <= MAX_LOG_BYTES
