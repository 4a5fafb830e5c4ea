"""The supervisor over real server processes: tools, failures, restarts, shutdown."""

from __future__ import annotations

import dataclasses
import socket
import sys
import time

import anyio
import pytest

from app.mcp.config import ServerEntry
from tests.mcp.helpers import QUICK, SERVERS, alive, script_entry, until, wait_until_dead

pytestmark = pytest.mark.anyio


async def test_tools_of_every_server_are_listed_with_their_server(supervise):
    supervisor, _ = supervise(script_entry("basic", "basic.py"), script_entry("crashy", "crashy.py"))
    await supervisor.start()
    by_name = {t.name: t for t in supervisor.list_tools()}
    assert by_name["echo"].server == "basic" and by_name["crash"].server == "crashy"
    assert by_name["basic.add"].tool == "add" and by_name["crashy.add"].tool == "add"
    assert by_name["echo"].input_schema["required"] == ["text"]
    assert "prefixed with this server's name" in by_name["echo"].description


async def test_same_tool_on_two_servers_is_offered_qualified_and_both_work(supervise):
    supervisor, _ = supervise(script_entry("a", "basic.py", "a"), script_entry("b", "basic.py", "b"))
    await supervisor.start()
    names = {t.name for t in supervisor.list_tools()}
    assert {"a.echo", "b.echo"} <= names and "echo" not in names
    assert (await supervisor.call_tool("a.echo", {"text": "hi"})).text == "a:hi"
    assert (await supervisor.call_tool("b.echo", {"text": "hi"})).text == "b:hi"
    assert supervisor.resolve("echo") is None
    ambiguous = await supervisor.call_tool("echo", {"text": "hi"})
    assert ambiguous.is_error
    assert "ambiguous" in ambiguous.text and "a.echo or b.echo" in ambiguous.text


async def test_results_and_tool_errors_come_back_as_tool_results(supervise):
    supervisor, _ = supervise(script_entry("basic", "basic.py"))
    await supervisor.start()
    ok = await supervisor.call_tool("add", {"a": 2, "b": 40})
    assert (ok.text, ok.is_error, ok.structured) == ("42.0", False, {"result": 42.0})
    failed = await supervisor.call_tool("fail", {"message": "no can do"})
    assert failed.is_error and "no can do" in failed.text
    unknown = await supervisor.call_tool("nope", {})
    assert unknown.is_error and "unknown tool 'nope'" in unknown.text and "echo" in unknown.text


async def test_state_changes_are_published_with_pid_and_tool_count(supervise):
    supervisor, log = supervise(script_entry("basic", "basic.py"))
    await supervisor.start()
    ready = await log.wait_state("basic", "ready")
    status = supervisor.states()[0]
    assert log.states("basic") == ["starting", "ready"]
    assert ready.pid == status.pid and alive(ready.pid)
    assert ready.tool_count == status.tool_count == len(status.tools) == 6
    await supervisor.aclose()
    assert log.states("basic")[-1] == "stopped"
    assert supervisor.states()[0].pid is None


async def test_crash_mid_call_fails_that_call_clearly_then_the_server_restarts(supervise):
    supervisor, log = supervise(script_entry("crashy", "crashy.py"))
    await supervisor.start()
    first = (await log.wait_state("crashy", "ready")).pid
    mark = len(log.events)
    result = await supervisor.call_tool("crash", {"code": 3})
    assert result.is_error
    assert result.text.startswith("server crashy exited with code 3 while running tool crash")
    assert "last stderr: crashy: about to exit with 3" in result.text
    crashed = await log.wait_state("crashy", "crashed", since=mark)
    assert "exited with code 3" in crashed.last_error
    again = await log.wait_state("crashy", "ready", since=mark)
    assert again.pid != first and not alive(first)
    assert (await supervisor.call_tool("crashy.add", {"a": 1, "b": 2})).text == "3.0"


async def test_a_call_right_after_a_crash_waits_for_the_restart(supervise):
    supervisor, _ = supervise(script_entry("crashy", "crashy.py"))
    await supervisor.start()
    await supervisor.call_tool("crash", {})
    result = await supervisor.call_tool("crashy.add", {"a": 2, "b": 2})
    assert (result.text, result.is_error) == ("4.0", False)


async def test_call_that_never_answers_times_out_and_the_server_keeps_working(supervise):
    # The probe that follows a timeout gets the default 5 s: plenty even on a loaded machine.
    supervisor, log = supervise(script_entry("stuck", "stuck.py"), tool_timeout_s=1.0)
    await supervisor.start()
    pid = supervisor.states()[0].pid
    result = await supervisor.call_tool("hang", {})
    assert result.is_error and result.text == "tool hang on server stuck did not answer within 1 s"
    assert (await supervisor.call_tool("stuck.add", {"a": 1, "b": 1})).text == "2.0"
    assert supervisor.states()[0].pid == pid and log.states("stuck") == ["starting", "ready"]


async def test_server_that_stops_answering_is_restarted(supervise):
    supervisor, log = supervise(script_entry("stuck", "stuck.py"), tool_timeout_s=1.0, probe_timeout_s=1.0)
    await supervisor.start()
    pid = supervisor.states()[0].pid
    mark = len(log.events)
    result = await supervisor.call_tool("freeze", {})
    assert "did not answer within 1 s" in result.text
    crashed = await log.wait_state("stuck", "crashed", since=mark)
    assert "stopped answering" in crashed.last_error
    ready = await log.wait_state("stuck", "ready", since=mark)
    assert ready.pid != pid and not alive(pid)
    assert (await supervisor.call_tool("stuck.add", {"a": 2, "b": 3})).text == "5.0"


async def test_stdout_garbage_is_visible_in_the_stderr_tail(supervise):
    supervisor, _ = supervise(script_entry("noisy", "noisy.py"))
    await supervisor.start()
    assert (await supervisor.call_tool("shout", {"text": "hey"})).text == "HEY"
    tail = supervisor.stderr_tail("noisy")
    assert "[stdout garbage] garbage from shout: hey" in tail
    assert supervisor.states()[0].stderr_tail == tuple(tail)


async def test_server_that_cannot_start_fails_with_a_clear_error(supervise):
    ghost = ServerEntry("ghost", command="/no/such/server")
    supervisor, log = supervise(ghost, script_entry("ok", "basic.py"))
    await supervisor.start()
    failed = await log.wait_state("ghost", "failed")
    assert failed.last_error == "server ghost: command not found: /no/such/server"
    assert log.states("ghost").count("restarting") == QUICK.max_failures - 1
    assert (await supervisor.call_tool("ok.add", {"a": 1, "b": 1})).text == "2.0"
    assert "command not found" in (await supervisor.call_tool("ghost.add", {})).text


async def test_server_that_exits_during_startup_reports_its_stderr(supervise):
    entry = ServerEntry("broken", command=sys.executable, args=("-c", "import sys; sys.exit('bad config')"))
    supervisor, log = supervise(entry)
    await supervisor.start()
    failed = await log.wait_state("broken", "failed")
    assert "exited with code 1 during startup; last stderr: bad config" in failed.last_error


async def test_restart_replaces_the_process_and_revives_a_failed_server(supervise, tmp_path):
    flag = tmp_path / "allowed"
    script = f"import pathlib, runpy, sys; pathlib.Path({str(flag)!r}).exists() or sys.exit(2); "
    script += f"sys.argv = ['basic']; runpy.run_path({str(SERVERS / 'basic.py')!r}, run_name='__main__')"
    supervisor, log = supervise(ServerEntry("late", command=sys.executable, args=("-c", script)))
    await supervisor.start()
    await log.wait_state("late", "failed")
    flag.touch()
    status = await supervisor.restart("late")
    assert status.state == "ready" and alive(status.pid)
    again = await supervisor.restart("late")
    assert again.state == "ready" and again.pid != status.pid
    await supervisor.aclose()
    revived = await supervisor.restart("late")
    assert revived.state == "ready" and alive(revived.pid) and not alive(again.pid)


async def test_disabled_server_is_listed_but_not_started(supervise):
    supervisor, _ = supervise(script_entry("off", "basic.py", disabled=True), script_entry("on", "crashy.py"))
    await supervisor.start()
    states = {s.name: s for s in supervisor.states()}
    assert states["off"].state == "disabled" and states["off"].pid is None
    assert all(t.server == "on" for t in supervisor.list_tools())
    with pytest.raises(KeyError, match="disabled"):
        await supervisor.restart("off")


async def test_an_edited_config_restarts_only_what_changed(supervise):
    keep, change, drop = (
        script_entry("keep", "basic.py"),
        script_entry("change", "basic.py"),
        script_entry("drop", "crashy.py"),
    )
    supervisor, log = supervise(keep, change, drop)
    await supervisor.start()
    before = {s.name: s.pid for s in supervisor.states()}
    changed = script_entry("change", "basic.py", "renamed")
    await supervisor.update(
        [keep, changed, script_entry("new", "noisy.py"), dataclasses.replace(drop, disabled=True)]
    )
    after = {s.name: (s.state, s.pid) for s in supervisor.states()}
    assert after["keep"] == ("ready", before["keep"])
    assert after["change"][0] == "ready" and after["change"][1] != before["change"]
    assert after["new"][0] == "ready" and after["drop"] == ("disabled", None)
    assert await wait_until_dead([before["change"], before["drop"]]) == []
    assert (await supervisor.call_tool("change.echo", {"text": "x"})).text == "renamed:x"
    names = {t.name for t in supervisor.list_tools()}
    assert "crash" not in names and "shout" in names
    assert log.states("drop")[-2:] == ["stopped", "disabled"] and log.states("keep") == ["starting", "ready"]


async def test_aclose_does_not_wait_for_a_server_still_starting(supervise):
    silent = ServerEntry("silent", command=sys.executable, args=("-c", "import time; time.sleep(600)"))
    supervisor, log = supervise(silent)
    await supervisor.start(wait=False)
    await until(lambda: supervisor.states()[0].pid is not None)  # spawned, never to answer
    pid = supervisor.states()[0].pid
    assert supervisor.states()[0].state == "starting"
    began = time.monotonic()
    await supervisor.aclose()
    assert time.monotonic() - began < 5.0
    assert await wait_until_dead([pid]) == [] and log.states("silent")[-1] == "stopped"


async def test_aclose_stops_every_process_tree(supervise):
    supervisor, _ = supervise(script_entry("a", "basic.py", "a"), script_entry("b", "noisy.py"))
    await supervisor.start()
    helper = int((await supervisor.call_tool("spawn_helper", {})).text)
    pids = [s.pid for s in supervisor.states()]
    assert all(pid and alive(pid) for pid in pids) and alive(helper)
    await supervisor.aclose()
    assert await wait_until_dead([*pids, helper]) == []
    assert [s.state for s in supervisor.states()] == ["stopped", "stopped"]


async def test_remote_server_is_reached_over_streamable_http(http_server, supervise):
    # The server is set up first so it is torn down last: the client's change stream
    # (subscriptions/listen) is an open request, which the server's graceful shutdown waits for.
    supervisor, log = supervise(ServerEntry("web", url=http_server))
    await supervisor.start()
    ready = await log.wait_state("web", "ready")
    assert ready.pid is None and ready.tool_count == 1 and supervisor.states()[0].remote
    assert (await supervisor.call_tool("add", {"a": 20, "b": 22})).text == "42.0"
    assert log.states("web") == ["starting", "ready"]


@pytest.fixture
async def http_server():
    """tests/mcp/servers/remote.py serving Streamable HTTP; yields its URL once it accepts connections."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = await anyio.open_process([sys.executable, str(SERVERS / "remote.py"), str(port)])
    try:
        with anyio.fail_after(20):
            while not await _accepts(port):
                await anyio.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        await process.wait()


async def _accepts(port: int) -> bool:
    try:
        stream = await anyio.connect_tcp("127.0.0.1", port)
    except OSError:
        return False
    await stream.aclose()
    return True
