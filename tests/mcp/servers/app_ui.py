"""A server with an MCP App (``io.modelcontextprotocol/ui``) on the SDK's own Apps extension.

``show_sum(a, b)`` names ``ui://sum/app.html``: a small page that speaks the extension's
JSON-RPC over postMessage by hand (no SDK), shows the call's input and result, and on
"Add one" calls the app-only tool ``add`` through the host and shows what came back. It declares
inline and fullscreen display and keeps the mode the host last told it in ``body.dataset.mode``.
``show_broken`` names a resource served as plain ``text/html``, ``show_huge`` one of 3 MB;
``supports_apps`` says whether the client advertised the extension. The page declares one origin
it may connect to: ``$APP_CONNECT``, else ``http://127.0.0.1:9``.
"""

from __future__ import annotations

import os
import sys

from mcp.server.apps import Apps, ResourceCsp, client_supports_apps
from mcp.server.mcpserver import Context, MCPServer

NAME = sys.argv[1] if len(sys.argv) > 1 else "apps"
apps = Apps()

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Sum</title>
<style>
 body { font: 15px sans-serif; margin: 0; padding: 12px; background: #eef6ff; color: #123; }
 h2 { margin: 0 0 6px 0; font-size: 17px; }
 #sum { font-size: 28px; font-weight: bold; color: #0a5; }
 button { font-size: 14px; padding: 4px 12px; }
</style></head>
<body>
<h2>Sum app</h2>
<div>Input: <span id="input">waiting</span></div>
<div>Result: <span id="sum">?</span></div>
<button id="more">Add one</button> <span id="status">connecting</span>
<script>
let nextId = 1, pending = {}, current = null;
function send(msg) { window.parent.postMessage(Object.assign({jsonrpc: "2.0"}, msg), "*"); }
function request(method, params) {
  const id = nextId++;
  send({id: id, method: method, params: params});
  return new Promise(function (resolve, reject) { pending[id] = {resolve: resolve, reject: reject}; });
}
function show(result) {
  const data = result.structuredContent || {};
  current = data.sum !== undefined ? data.sum : current;
  document.getElementById("sum").textContent = current;
}
window.addEventListener("message", function (event) {
  const msg = event.data || {};
  if (msg.id !== undefined && pending[msg.id] && !msg.method) {
    const p = pending[msg.id]; delete pending[msg.id];
    if (msg.error) { p.reject(msg.error); } else { p.resolve(msg.result); }
  } else if (msg.method === "ui/notifications/tool-input") {
    document.getElementById("input").textContent = JSON.stringify(msg.params.arguments);
  } else if (msg.method === "ui/notifications/tool-result") {
    show(msg.params);
  } else if (msg.method === "ui/notifications/host-context-changed") {
    document.body.dataset.mode = msg.params.displayMode || document.body.dataset.mode;
  } else if (msg.method === "ui/resource-teardown") {
    send({id: msg.id, result: {}});
  }
});
document.getElementById("more").addEventListener("click", function () {
  document.getElementById("status").textContent = "calling add";
  request("tools/call", {name: "add", arguments: {a: current, b: 1}}).then(function (result) {
    show(result);
    document.getElementById("status").textContent = "add answered " + current;
  }, function (error) {
    document.getElementById("status").textContent = "refused: " + error.message;
  });
});
request("ui/initialize", {appInfo: {name: "sum", version: "1"},
                          appCapabilities: {availableDisplayModes: ["inline", "fullscreen"]},
                          protocolVersion: "2026-01-26"}).then(function (result) {
  document.getElementById("status").textContent = "connected to " + result.hostInfo.name;
  send({method: "ui/notifications/initialized", params: {}});
  send({method: "ui/notifications/size-changed",
        params: {width: document.body.scrollWidth, height: document.body.scrollHeight}});
});
</script></body></html>
"""

apps.add_html_resource(
    "ui://sum/app.html",
    PAGE,
    name="sum",
    csp=ResourceCsp(connect_domains=[os.environ.get("APP_CONNECT", "http://127.0.0.1:9")]),
    prefers_border=True,
)
apps.add_html_resource("ui://sum/huge.html", "<!DOCTYPE html><p>" + "x" * 3_000_000 + "</p>")


@apps.tool(resource_uri="ui://sum/app.html", description="Add two numbers and show them in an app.")
def show_sum(a: float, b: float) -> dict[str, float]:
    return {"sum": a + b}


@apps.tool(resource_uri="ui://sum/app.html", visibility=["app"], description="Add two numbers (for the app).")
def add(a: float, b: float) -> dict[str, float]:
    return {"sum": a + b}


@apps.tool(resource_uri="ui://sum/huge.html", description="A tool whose app is too big to show.")
def show_huge() -> str:
    return "huge"


app = MCPServer(NAME, extensions=[apps])


@app.resource("ui://sum/plain.html", mime_type="text/html")
def plain_page() -> str:
    return "<!DOCTYPE html><p>not an MCP App</p>"


@app.tool(meta={"ui": {"resourceUri": "ui://sum/plain.html"}})
def show_broken() -> str:
    """A tool whose UI resource is not served as an MCP App."""
    return "broken"


@app.tool()
def supports_apps(ctx: Context) -> bool:
    """Whether the connected client advertised MCP Apps with the HTML profile."""
    return client_supports_apps(ctx)


if __name__ == "__main__":
    app.run("stdio")
