"""The official MCP conformance suite, ``@modelcontextprotocol/conformance``, from npm.

It needs Node 22 or newer, which Debian does not ship, so Node comes from npm too (the ``node``
package installs a Node binary); both are pinned and installed once per machine into a cache
folder, as :mod:`tests.everything` does. Where npm is missing or cannot reach the registry the
tests that need the suite are skipped, saying why.

The suite names what each specification revision requires in ``requirements/REVISION.yaml``:
:func:`client_scenarios` reads its client scenarios from there, and :func:`run_scenario` runs one
of them against :mod:`tests.conformance.adapter` at that revision's wire version.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from tests.machine_cache import machine_cache, machine_cache_lock

PACKAGE = "@modelcontextprotocol/conformance"
VERSION = "0.2.0-alpha.12"
NODE_VERSION = "22.23.3"
REVISIONS = ("2026-07-28", "2025-11-25")
ADAPTER = Path(__file__).with_name("adapter.py")
# The harness's own limit for one scenario's client, in milliseconds.
SCENARIO_TIMEOUT_MS = 60_000


@dataclasses.dataclass(frozen=True)
class Scenario:
    revision: str
    name: str
    # Why the suite runs it without scoring it ("extension", ...), or "" where it is required.
    not_scored: str = ""

    def __str__(self) -> str:
        return f"{self.revision} {self.name}"


@dataclasses.dataclass(frozen=True)
class Outcome:
    scenario: Scenario
    passed: bool
    seconds: float
    reasons: tuple[str, ...] = ()


def _cache() -> Path:
    return machine_cache(f"conformance-{VERSION}-node-{NODE_VERSION}")


@functools.cache
def installed() -> Path | str:
    """The folder holding the suite and Node 22, or why they could not be installed."""
    with machine_cache_lock(_cache().name):
        return _install(_cache())


def _install(folder: Path) -> Path | str:
    if _entry(folder).is_file() and _node(folder).is_file():
        return folder
    if shutil.which("npm") is None:
        return "npm is not installed"
    folder.mkdir(parents=True, exist_ok=True)
    packages = [f"node@{NODE_VERSION}", f"{PACKAGE}@{VERSION}"]
    command = ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(folder), *packages]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    except subprocess.TimeoutExpired:
        return "npm install did not finish within 300 s"
    if done.returncode != 0 or not _entry(folder).is_file() or not _node(folder).is_file():
        return f"npm cannot install {PACKAGE} and node {NODE_VERSION}: {done.stderr.strip()[-300:]}"
    return folder


def _entry(folder: Path) -> Path:
    return folder / "node_modules" / PACKAGE / "dist" / "index.js"


def _node(folder: Path) -> Path:
    return folder / "node_modules" / ".bin" / "node"


def client_scenarios(folder: Path, revision: str) -> list[Scenario]:
    """Every client scenario the revision requires, then those it runs without scoring."""
    requirements = folder / "node_modules" / PACKAGE / "requirements" / f"{revision}.yaml"
    sets = yaml.safe_load(requirements.read_text())
    required = [Scenario(revision, name) for name in sets.get("client") or []]
    others = [
        Scenario(revision, entry["scenario"], entry.get("reason") or "not scored")
        for entry in sets.get("not_scored") or []
        if entry.get("leg") == "client"
    ]
    return required + others


def run_scenario(folder: Path, scenario: Scenario) -> Outcome:
    """One scenario, its client the adapter; passed when the harness says so (its exit status)."""
    env = {**os.environ, "PATH": f"{_node(folder).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    client = f"{sys.executable} {ADAPTER}"
    with tempfile.TemporaryDirectory(prefix="conformance-results-") as results:
        command = [str(_node(folder)), str(_entry(folder)), "client", "--command", client]
        # --force: run it even where the suite would skip it at that revision, as a run of the
        # whole requirement set does (its extensions have no dated applicability window).
        command += ["--scenario", scenario.name, "--spec-version", scenario.revision, "--force"]
        command += ["--timeout", str(SCENARIO_TIMEOUT_MS), "--output-dir", results]
        started = time.monotonic()
        try:
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)
        except subprocess.TimeoutExpired:
            return Outcome(scenario, False, time.monotonic() - started, ("the harness ran past 120 s",))
        seconds = time.monotonic() - started
        checks = sorted(Path(results).rglob("checks.json"))
        if not checks:  # the harness skipped it or could not start it: that is no pass
            said = _last_line(done.stdout + done.stderr) or "no checks ran"
            return Outcome(scenario, False, seconds, (said,))
        reasons = _failures(checks[0])
        if done.returncode != 0 and not reasons:
            reasons = (f"the harness exited {done.returncode}",)
        return Outcome(scenario, done.returncode == 0, seconds, reasons)


def _failures(checks: Path) -> tuple[str, ...]:
    """Each failed check as ``id: message``, then what the client said last on its way out."""
    found = [
        f"{check.get('id')}: {check.get('errorMessage') or check.get('description')}"
        for check in json.loads(checks.read_text())
        if check.get("status") == "FAILURE"
    ]
    stderr = checks.with_name("stderr.txt")
    if stderr.is_file() and (said := _last_line(stderr.read_text())):
        found.append(f"client: {said}")
    return tuple(found)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""
