"""MCP Apps against a real server process (tests/mcp/servers/app_ui.py, on the SDK's Apps extension):
the extension advertised, the app read and checked after its tool's call, and the page's JSON-RPC
answered, its tool calls going through the same approvals as the model's."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import mcp_types
import pytest

from app.core import events as ev
from app.core.approvals import Approvals
from app.core.asking import ApprovalAnswer, Asker, FormAnswer
from app.core.scripted_user import ScriptedUser
from app.mcp.app_bridge import MAX_MESSAGE, AppBridge
from app.mcp.apps import (
    MAX_BYTES,
    AppOpener,
    allows,
    content_security_policy,
    resource_uri,
    visible_to,
    with_policy,
)
from app.mcp.supervisor import Supervisor
from tests.mcp.helpers import EventLog, script_entry, started

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def server() -> AsyncIterator[Supervisor]:
    async with started(script_entry("apps", "app_ui.py"), script_entry("basic", "basic.py")) as supervisor:
        yield supervisor


async def finished_call(supervisor: Supervisor, tool: str, arguments: dict[str, Any]) -> ev.ToolCallFinished:
    """What the session emits after running ``tool`` (the opener listens for exactly this)."""
    result = await supervisor.call_tool(f"apps.{tool}", arguments)
    return ev.ToolCallFinished(
        turn_id="t1",
        call_id="c1",
        server="apps",
        tool=tool,
        arguments=arguments,
        result=result.text,
        is_error=result.is_error,
        duration_ms=1.0,
        structured=result.structured,
    )


async def opened(supervisor: Supervisor, tool: str, arguments: dict[str, Any]) -> list[ev.Event]:
    log = EventLog()
    opener = AppOpener(supervisor.connections, log)
    opener(await finished_call(supervisor, tool, arguments))
    await opener.wait_idle()
    return log.events


async def app_of(supervisor: Supervisor) -> ev.AppReady:
    (event,) = await opened(supervisor, "show_sum", {"a": 2, "b": 3})
    assert isinstance(event, ev.AppReady)
    return event


def bridge(
    supervisor: Supervisor, app: ev.AppReady, *answers: Any, posted: list[str] | None = None
) -> AppBridge:
    user = ScriptedUser(list(answers))
    asker = Asker(user)
    sent = posted if posted is not None else []
    return AppBridge(app, supervisor.connections, Approvals(asker), asker, lambda t: sent.append(t) is None)


def request(method: str, params: dict[str, Any], request_id: int = 1) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})


async def test_the_client_advertises_mcp_apps_with_the_html_profile(server):
    result = await server.call_tool("apps.supports_apps", {})
    assert result.text == "true"


async def test_a_tool_with_an_app_gets_its_page_its_declared_csp_and_the_calls_input_and_result(server):
    app = await app_of(server)
    assert (app.server, app.tool, app.uri, app.call_id, app.turn_id) == (
        "apps",
        "show_sum",
        "ui://sum/app.html",
        "c1",
        "t1",
    )
    assert "<h2>Sum app</h2>" in app.html
    assert app.csp == {"connectDomains": ("http://127.0.0.1:9",)}
    assert app.prefers_border is True
    assert app.arguments == {"a": 2, "b": 3}
    assert app.result["structuredContent"] == {"sum": 5} and app.result["isError"] is False
    assert app.definition["name"] == "show_sum"


async def test_a_tool_without_an_app_opens_nothing(server):
    assert await opened(server, "supports_apps", {}) == []


async def test_a_page_not_served_as_an_mcp_app_or_too_big_is_a_notice_saying_why(server):
    (wrong,) = await opened(server, "show_broken", {})
    assert isinstance(wrong, ev.Notice) and "'text/html', not 'text/html;profile=mcp-app'" in wrong.message
    (huge,) = await opened(server, "show_huge", {})
    assert isinstance(huge, ev.Notice) and f"over {MAX_BYTES:,} bytes" in huge.message


async def test_an_app_only_tool_is_not_offered_to_the_model(server):
    names = {t.tool for t in server.list_tools() if t.server == "apps"}
    assert "show_sum" in names and "add" not in names


async def test_initialize_answers_with_host_context_and_initialized_brings_the_input_and_result(server):
    host = bridge(server, await app_of(server))
    (answer,) = await host.receive(request("ui/initialize", {"appInfo": {"name": "sum"}}))
    result = answer["result"]
    assert result["hostInfo"]["name"] == "calculon" and result["hostContext"]["theme"] == "light"
    assert result["hostContext"]["toolInfo"]["tool"]["name"] == "show_sum"
    assert (
        result["hostContext"]["displayMode"] == "inline"
        and "maxHeight" in result["hostContext"]["containerDimensions"]
    )
    assert result["hostCapabilities"]["sandbox"]["csp"] == {"connectDomains": ["http://127.0.0.1:9"]}
    sent = await host.receive(json.dumps({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}))
    assert [m["method"] for m in sent] == ["ui/notifications/tool-input", "ui/notifications/tool-result"]
    assert sent[0]["params"] == {"arguments": {"a": 2, "b": 3}}
    assert sent[1]["params"]["structuredContent"] == {"sum": 5}
    assert await host.receive(json.dumps({"jsonrpc": "2.0", "method": "ui/notifications/initialized"})) == []


async def test_a_tool_call_from_the_app_is_asked_like_the_models_and_runs_once_allowed(server):
    user_answers = [ApprovalAnswer("allow")]
    host = bridge(server, await app_of(server), *user_answers)
    (answer,) = await host.receive(request("tools/call", {"name": "add", "arguments": {"a": 5, "b": 1}}))
    assert answer["result"]["structuredContent"] == {"sum": 6}
    asked = host.asker.user.asked  # type: ignore[attr-defined]
    assert [(r.kind, r.server, r.tool) for r in asked] == [("approval", "apps", "add")]


async def test_a_tool_call_the_user_declines_never_reaches_the_server(server):
    host = bridge(server, await app_of(server), ApprovalAnswer("decline"))
    (answer,) = await host.receive(request("tools/call", {"name": "add", "arguments": {"a": 5, "b": 1}}))
    assert answer["error"]["code"] == -32000 and "not approved" in answer["error"]["message"]


async def test_an_app_cannot_call_another_servers_tool_nor_bad_arguments(server):
    host = bridge(server, await app_of(server))
    (other,) = await host.receive(request("tools/call", {"name": "echo", "arguments": {"text": "x"}}))
    assert other["error"]["message"] == "server apps has no tool echo"
    (bad,) = await host.receive(request("tools/call", {"name": "add", "arguments": {"a": "five"}}))
    assert "do not match the schema of add" in bad["error"]["message"]


async def test_open_link_takes_only_http_and_the_users_consent(server):
    host = bridge(server, await app_of(server), FormAnswer("decline"), FormAnswer("accept"))
    (file_link,) = await host.receive(request("ui/open-link", {"url": "file:///etc/passwd"}))
    assert file_link["error"]["message"].startswith("Invalid URL")
    (declined,) = await host.receive(request("ui/open-link", {"url": "https://example.org/"}))
    assert declined["error"]["message"] == "Link opening denied by user"
    (opened_link,) = await host.receive(request("ui/open-link", {"url": "https://example.org/"}))
    assert opened_link["result"] == {}
    assert [r.url for r in host.asker.user.asked] == ["https://example.org/"] * 2  # type: ignore[attr-defined]


async def test_a_message_from_the_app_reaches_the_chat_only_with_consent(server):
    posted: list[str] = []
    host = bridge(server, await app_of(server), FormAnswer("decline"), FormAnswer("accept"), posted=posted)
    params = {"role": "user", "content": [{"type": "text", "text": "what is 6 times 7?"}]}
    (declined,) = await host.receive(request("ui/message", params))
    assert declined["error"]["message"] == "Message sending denied by user" and posted == []
    (sent,) = await host.receive(request("ui/message", params))
    assert sent["result"] == {} and posted == ["what is 6 times 7?"]


async def test_unknown_methods_and_malformed_messages_get_json_rpc_errors(server):
    host = bridge(server, await app_of(server))
    (unknown,) = await host.receive(request("sampling/createMessage", {}))
    assert unknown["error"]["code"] == -32601
    assert (await host.receive("{not json"))[0]["error"]["code"] == -32700
    assert (await host.receive(json.dumps([1, 2])))[0]["error"]["code"] == -32600
    assert (await host.receive(request("ping", {}, 7)))[0] == {"jsonrpc": "2.0", "id": 7, "result": {}}


async def test_size_changed_reaches_the_view(server):
    host = bridge(server, await app_of(server))
    sizes: list[tuple[float | None, float | None]] = []
    host.on_size = lambda w, h: sizes.append((w, h))
    note = {
        "jsonrpc": "2.0",
        "method": "ui/notifications/size-changed",
        "params": {"width": 300, "height": 120},
    }
    assert await host.receive(json.dumps(note)) == []
    assert sizes == [(300.0, 120.0)]


# --- the policy a page runs under (plain functions: the view enforces what these say) ---


def test_with_nothing_declared_the_policy_allows_no_network_and_only_inline_script_and_style():
    policy = content_security_policy({})
    assert "default-src 'none'" in policy and "connect-src 'none'" in policy and "frame-src 'none'" in policy
    assert "script-src 'self' 'unsafe-inline';" in policy and "object-src 'none'" in policy
    assert not any(allows({}, url) for url in ("https://example.org/", "http://127.0.0.1:8080/"))


def test_declared_origins_go_to_their_directives_and_nothing_else_is_let_in():
    csp = {"connectDomains": ("https://api.example.com",), "resourceDomains": ("https://*.cdn.example",)}
    policy = content_security_policy(csp)
    assert "connect-src https://api.example.com;" in policy
    assert "script-src 'self' 'unsafe-inline' https://*.cdn.example;" in policy
    assert allows(csp, "https://api.example.com/v1?q=1") and allows(csp, "https://a.b.cdn.example/x.js")
    assert not allows(csp, "https://cdn.example/x.js")  # a wildcard names subdomains, not the domain
    assert not allows(csp, "http://api.example.com/")  # another scheme
    assert not allows(csp, "https://api.example.com:8443/")  # another port
    assert not allows(csp, "https://api.example.com.evil.org/")
    assert not allows(csp, "file:///etc/passwd")


def test_an_origin_that_would_smuggle_a_directive_into_the_policy_is_dropped():
    csp = {"connectDomains": ("https://ok.example", "https://x.org; script-src *", "'unsafe-eval'", "*")}
    policy = content_security_policy(csp)
    assert "connect-src https://ok.example;" in policy
    assert "x.org" not in policy and "unsafe-eval" not in policy and " * " not in policy
    assert not allows(csp, "https://x.org/")


def test_the_policy_is_the_pages_first_meta_so_it_holds_before_any_script():
    html = '<!DOCTYPE html><html><head lang="en"><script>fetch("/")</script></head><body></body></html>'
    marked = with_policy(html, "default-src 'none'")
    assert marked.index('http-equiv="Content-Security-Policy"') < marked.index("<script>")
    assert with_policy("<p>no head</p>", "x").startswith(
        '<meta http-equiv="Content-Security-Policy" content="x">'
    )


async def test_teardown_is_a_request_whose_answer_tells_the_view_it_may_go(server):
    host = bridge(server, await app_of(server))
    gone: list[bool] = []
    host.on_torn_down = lambda: gone.append(True)
    asked = host.teardown("another conversation is shown")
    assert asked["method"] == "ui/resource-teardown" and asked["params"] == {
        "reason": "another conversation is shown"
    }
    assert (
        await host.receive(json.dumps({"jsonrpc": "2.0", "id": "other", "result": {}})) == [] and gone == []
    )
    assert await host.receive(json.dumps({"jsonrpc": "2.0", "id": asked["id"], "result": {}})) == []
    assert gone == [True] and host.torn_down


def test_a_tool_names_its_page_by_the_nested_key_or_the_older_flat_one_and_only_a_ui_uri():
    def tool(meta: dict[str, Any]) -> mcp_types.Tool:
        return mcp_types.Tool(name="t", input_schema={"type": "object"}, _meta=meta)

    assert resource_uri(tool({"ui": {"resourceUri": "ui://a/page.html"}})) == "ui://a/page.html"
    assert resource_uri(tool({"ui/resourceUri": "ui://a/old.html"})) == "ui://a/old.html"
    assert resource_uri(tool({"ui": {"resourceUri": "https://a.example/page.html"}})) == ""
    assert visible_to(tool({}), "model") and visible_to(tool({}), "app")
    assert not visible_to(tool({"ui": {"visibility": ["app"]}}), "model")


async def test_a_message_over_the_limit_is_refused_unread(server):
    host = bridge(server, await app_of(server))
    huge = request("ping", {"padding": "x" * MAX_MESSAGE})
    (answer,) = await host.receive(huge)
    assert answer["error"]["code"] == -32600 and "over 1,000,000 characters" in answer["error"]["message"]


async def test_an_apps_tool_call_is_traced_under_its_turn_opens_no_second_app_and_stays_out_of_the_history(
    server,
):
    from app.core.trace import TraceStore
    from app.history.restore import model_history

    app = await app_of(server)
    emitted: list[ev.Event] = []
    user = ScriptedUser([ApprovalAnswer("allow")])
    asker = Asker(user)
    host = AppBridge(app, server.connections, Approvals(asker), asker, emit=emitted.append)
    (answer,) = await host.receive(request("tools/call", {"name": "add", "arguments": {"a": 5, "b": 1}}))
    assert answer["result"]["structuredContent"] == {"sum": 6}
    started_, finished = emitted
    assert isinstance(started_, ev.ToolCallStarted) and isinstance(finished, ev.ToolCallFinished)
    assert (finished.turn_id, finished.tool, finished.from_app) == ("t1", "add", app.call_id)
    assert finished.structured == {"sum": 6} and not finished.is_error

    log = EventLog()
    opener = AppOpener(server.connections, log)
    opener(finished)  # "add" names the same app as "show_sum": a page's own call must not open it again
    await opener.wait_idle()
    assert log.events == []

    turn = [
        ev.TurnStarted(turn_id="t1", text="Show me 2 + 3"),
        ev.StepStarted(turn_id="t1", step=1),
        ev.ToolCallStarted(
            turn_id="t1", call_id="c1", server="apps", tool="show_sum", arguments={"a": 2, "b": 3}
        ),
        await finished_call(server, "show_sum", {"a": 2, "b": 3}),
        ev.AnswerReady(turn_id="t1", text="2 + 3 = 5."),
        ev.TurnFinished(turn_id="t1"),
    ]
    store = TraceStore()
    for event in [*turn, *emitted]:
        store.apply(event)
    (turn_node,) = store.roots
    app_call = turn_node.children[-1]
    assert (app_call.kind, app_call.label, app_call.status) == ("tool_call", "apps.add · from its app", "ok")
    assert app_call.data["result"] == finished.result

    messages, _ = model_history([*turn[:4], *emitted, *turn[4:]])  # even while its turn still ran
    calls = [call.name for message in messages for call in message.tool_calls]
    assert calls == ["show_sum"]


def note(method: str, params: dict[str, Any] | None = None) -> str:
    return json.dumps({"jsonrpc": "2.0", "method": method, "params": params or {}})


async def initialized(host: AppBridge, modes: list[str] | None) -> dict[str, Any]:
    capabilities = {} if modes is None else {"availableDisplayModes": modes}
    (answer,) = await host.receive(request("ui/initialize", {"appCapabilities": capabilities}, 0))
    await host.receive(note("ui/notifications/initialized"))
    return answer["result"]["hostContext"]


async def test_where_the_view_cannot_grow_every_display_mode_request_is_answered_inline(server):
    host = bridge(server, await app_of(server))
    context = await initialized(host, ["inline", "fullscreen", "pip"])
    assert context["availableDisplayModes"] == ["inline"] and context["displayMode"] == "inline"
    for mode in ("fullscreen", "pip", "inline"):
        assert await host.receive(request("ui/request-display-mode", {"mode": mode})) == [
            {"jsonrpc": "2.0", "id": 1, "result": {"mode": "inline"}}
        ]


async def test_fullscreen_is_granted_where_the_view_can_and_the_page_is_told_its_new_container(server):
    host = bridge(server, await app_of(server))
    asked: list[str] = []

    def view_switches(mode: str) -> str:  # what the view does: fills the chat's height
        asked.append(mode)
        host.dimensions = {"height": 700} if mode == "fullscreen" else {"maxHeight": 600}
        return mode

    host.on_display_mode = view_switches
    context = await initialized(host, ["inline", "fullscreen"])
    assert context["availableDisplayModes"] == ["inline", "fullscreen"]
    answer, changed = await host.receive(request("ui/request-display-mode", {"mode": "fullscreen"}))
    assert answer["result"] == {"mode": "fullscreen"} and host.display_mode == "fullscreen"
    assert changed == {
        "jsonrpc": "2.0",
        "method": "ui/notifications/host-context-changed",
        "params": {"displayMode": "fullscreen", "containerDimensions": {"height": 700}},
    }
    (pip,) = await host.receive(request("ui/request-display-mode", {"mode": "pip"}, 2))
    assert pip["result"] == {"mode": "fullscreen"}  # refused as the spec says: the mode it is in now
    (again,) = await host.receive(request("ui/request-display-mode", {"mode": "fullscreen"}, 3))
    assert again["result"] == {"mode": "fullscreen"}
    back, changed_back = await host.receive(request("ui/request-display-mode", {"mode": "inline"}, 4))
    assert back["result"] == {"mode": "inline"}
    assert changed_back["params"] == {"displayMode": "inline", "containerDimensions": {"maxHeight": 600}}
    assert asked == ["fullscreen", "inline"]  # pip and the repeat never reached the view
    (bad,) = await host.receive(request("ui/request-display-mode", {"mode": "huge"}, 5))
    assert bad["error"]["code"] == -32602


async def test_a_page_is_never_switched_to_a_mode_it_did_not_declare(server):
    host = bridge(server, await app_of(server))
    asked: list[str] = []
    host.on_display_mode = lambda mode: asked.append(mode) or mode
    await initialized(host, ["inline"])
    (answer,) = await host.receive(request("ui/request-display-mode", {"mode": "fullscreen"}))
    assert answer["result"] == {"mode": "inline"} and asked == []


async def test_the_user_leaving_fullscreen_tells_the_page(server):
    host = bridge(server, await app_of(server))
    host.on_display_mode = lambda mode: mode
    await initialized(host, None)  # no modes declared: any the host has may be asked for
    await host.receive(request("ui/request-display-mode", {"mode": "fullscreen"}))
    host.dimensions = {"maxHeight": 600}
    told = host.switched("inline")  # the view's Escape
    assert told["method"] == "ui/notifications/host-context-changed"
    assert told["params"]["displayMode"] == "inline" and host.display_mode == "inline"
