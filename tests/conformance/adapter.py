"""The client the conformance harness runs: ``python adapter.py SERVER_URL``.

The harness starts a test server for one scenario, names the scenario in
``MCP_CONFORMANCE_SCENARIO`` and appends the server's URL to this command. The adapter does
what a person at a shell would: it writes a servers file with that URL as a remote server and
drives the installed ``calculon`` command on it (list the tools, call them), so every scenario
exercises the real CLI, engine and SDK, not a client written for the suite.

Each tool is called with arguments made from its input schema (or, where a scenario checks
particular values, the ones below), answering forms with ``--elicit {}`` so that the form's
own defaults are what the server gets back. A server that wants a sign-in gets one as a user
would: ``calculon auth login conf --no-browser``, its printed address opened by a script that
plays the person consenting (the suite's authorization servers grant at once), the redirect
followed back to the CLI's loopback address. Where a server asks a signed-in CLI to sign in
again (more scopes on a call, another authorization server), the CLI opens the system browser:
``BROWSER`` names this script's ``--consent``, which plays the person there the same way.
Tokens live in a keyring file shared by the adapter's CLI processes
(tests.keyrings.FileKeyringForTests: the test machine has no keyring).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[2]))  # run as a script: the repository's tests package
from tests.keyrings import file_keyring_env

SERVER = "conf"
SIGN_IN_HINT = f"calculon auth login {SERVER}"
CIMD_URL = "https://conformance-test.local/client-metadata.json"
# Scenarios whose checks look at particular argument values; the rest get schema-made ones.
ARGUMENTS: dict[str, dict[str, dict[str, Any]]] = {
    "tools_call": {"add_numbers": {"a": 2, "b": 3}},
    # Values that a header can carry as they are and ones it must carry Base64-encoded (SEP-2243).
    "http-custom-headers": {
        "test_custom_headers": {
            "region": "eu-north1",
            "priority": 7,
            "verbose": False,
            "debug": True,
            "empty_val": "",
            "method_val": "lookup",
            "float_val": 2.5,
            "non_ascii_val": "Grüße, Zürich",
            "whitespace_val": " both ends ",
            "leading_space_val": " leading",
            "trailing_space_val": "trailing ",
            "internal_space_val": "in the middle",
            "control_char_val": "bell\u0007here",
            "crlf_val": "one\r\ntwo",
            "tab_val": "\tindented",
            "query": "not mirrored",
        },
        "test_custom_headers_null": {"region": "eu-north1", "priority": 7, "query": "verbose left out"},
    },
}
# Scenarios that ask the client to send one tool's input schema, as it listed it, to another
# tool (echo tool, listed tool): what comes back shows what the client kept of the schema.
ECHO_SCHEMA = {"json-schema-2020-12-preservation": ("json_schema_echo", "json_schema_2020_12_tool")}
# Each CLI command's limit: under the harness's own 30 s per scenario.
COMMAND_TIMEOUT = 20


def main(url: str) -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    calculon = str(Path(sys.executable).with_name("calculon"))
    with tempfile.TemporaryDirectory(prefix="calculon-conformance-") as home:
        env = _environment(Path(home), url, scenario)
        listed = _run([calculon, "tools", "--json"], env)
        if SIGN_IN_HINT in listed.stderr:
            if not _sign_in(calculon, env):
                return 1
            listed = _run([calculon, "tools", "--json"], env)
        if listed.returncode != 0:
            return listed.returncode
        tools = [tool for tool in json.loads(listed.stdout or "[]") if tool.get("server") == SERVER]
        failed = 0
        listed_schemas = {tool["tool"]: tool.get("input_schema") for tool in tools}
        for tool in tools:
            given = ARGUMENTS.get(scenario, {}).get(tool["tool"])
            echo, source = ECHO_SCHEMA.get(scenario, ("", ""))
            if tool["tool"] == echo:
                given = {"schema": listed_schemas.get(source)}
            arguments = given or sample(tool.get("input_schema") or {})
            command = [calculon, "call", tool["name"], json.dumps(arguments), "--json"]
            done = _run([*command, "--yes", "--elicit", "{}"], env)
            # A server may refuse a call (some scenarios serve only a listing): that is its answer,
            # not the client's failure. Anything else the CLI could not do fails the scenario.
            if done.returncode != 0 and f"server {SERVER} rejected" not in done.stderr:
                failed = done.returncode
        return failed


def _sign_in(calculon: str, env: dict[str, str]) -> bool:
    """``auth login --no-browser``, the address it prints opened and followed back to it."""
    command = [calculon, "auth", "login", SERVER, "--no-browser"]
    print("$", *command[1:], flush=True)
    login = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
    assert login.stdout is not None
    for line in login.stdout:
        print(line, end="", flush=True)
        if line.startswith(("http://", "https://")):
            _consent(line.strip())
    code = login.wait(COMMAND_TIMEOUT)
    print(f"(exit {code})", flush=True)
    return code == 0


def _consent(address: str) -> None:
    """The person at the browser: open the consent page, whose redirect leads back to the CLI."""
    try:
        with urllib.request.urlopen(address, timeout=COMMAND_TIMEOUT) as page:
            page.read()
    except OSError as exc:  # the CLI says what went wrong with the sign-in itself
        print(f"browser: {exc}", flush=True)


def _environment(home: Path, url: str, scenario: str) -> dict[str, str]:
    config = home / "config"
    config.mkdir()
    entry: dict[str, Any] = {"url": url}
    # A client registered beforehand (MCP_CONFORMANCE_CONTEXT has it): in the entry, as a user
    # writes one, its secret as a ${NAME} placeholder filled from the environment.
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    secret = {}
    if isinstance(context.get("client_id"), str) and isinstance(context.get("client_secret"), str):
        entry["oauth"] = {"client_id": context["client_id"], "client_secret": "${CONF_CLIENT_SECRET}"}
        secret = {"CONF_CLIENT_SECRET": context["client_secret"]}
    if isinstance(context.get("client_id"), str) and isinstance(context.get("private_key_pem"), str):
        entry["oauth"] = {
            "client_id": context["client_id"],
            "private_key": "${CONF_PRIVATE_KEY}",
            "signing_algorithm": context.get("signing_algorithm") or "RS256",
        }
        secret = {"CONF_PRIVATE_KEY": context["private_key_pem"]}
    if isinstance(context.get("client_id"), str) and isinstance(context.get("valid_jwt"), str):
        # Workload identity: the JWT the platform issued this workload, in the entry by reference.
        entry["oauth"] = {
            "grant": "jwt_bearer",
            "client_id": context["client_id"],
            "assertion": "${CONF_JWT}",
        }
        secret = {"CONF_JWT": context["valid_jwt"]}
    if scenario.startswith("auth/client-credentials"):
        # A machine's own client: the user's entry asks for the grant that needs no browser.
        entry["oauth"]["grant"] = "client_credentials"
    elif scenario.endswith("cimd"):
        # Where its client ID Metadata Document lives: a user hosts theirs; the suite names this one.
        entry["oauth"] = {"client_metadata_url": CIMD_URL}
    (config / "servers.json").write_text(json.dumps({"mcpServers": {SERVER: entry}}))
    return {
        **os.environ,
        **secret,
        **file_keyring_env(home / "keyring.json"),
        # What Python's webbrowser opens: this script, consenting at once.
        "BROWSER": f"{sys.executable} {Path(__file__).resolve()} --consent %s",
        "CALCULON_CONFIG_DIR": str(config),
        "CALCULON_CACHE_DIR": str(home / "cache"),
        "CALCULON_DATA_DIR": str(home / "data"),
    }


def _run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    print("$", *command[1:], flush=True)
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=COMMAND_TIMEOUT)
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    print(f"(exit {done.returncode})", flush=True)
    return done


def sample(schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments that fit an object schema: each required property, a value of its type."""
    properties = schema.get("properties") or {}
    return {name: _value(properties.get(name) or {}) for name in schema.get("required") or []}


def _value(schema: dict[str, Any]) -> Any:
    if "default" in schema:
        return schema["default"]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    return {"integer": 1, "number": 1.5, "boolean": True, "object": {}, "array": [], "null": None}.get(
        str(kind), "text"
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--consent"]:
        _consent(sys.argv[2])
        sys.exit(0)
    sys.exit(main(sys.argv[-1]))
