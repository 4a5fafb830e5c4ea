"""``calculon --self-test``: is this installation whole?

Starts every bundled server the same way the app does (from source or frozen),
calls one tool of each and checks the answer, and checks that the parts that
are heavy to load (Qt, llama.cpp, the default model) are present without
loading them. Prints one line per check and exits 0 only when all pass.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
import sys
import time
from collections.abc import Callable

from app import paths
from app.mcp.config import bundled_entry
from app.mcp.supervisor import Supervisor

# One call per bundled server, with a check of what must come back.
PROBES: dict[str, tuple[str, dict[str, object], Callable[[str], bool]]] = {
    "calculator": ("divide", {"a": 1, "b": 8}, lambda text: text.strip() == "0.125"),
    "converter": ("celsius_to_fahrenheit", {"value": 100}, lambda text: text.startswith("212")),
    "clock": ("say_hello", {"name": "Calculon"}, lambda text: "Calculon" in text),
}


@dataclasses.dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


async def _server_checks(timeout: float) -> list[Check]:
    supervisor = Supervisor([bundled_entry(name) for name in PROBES], tool_timeout_s=timeout)
    started = time.perf_counter()
    try:
        await supervisor.start(wait=True, timeout=timeout)
        ready_s = time.perf_counter() - started
        checks = [Check("servers ready", _all_ready(supervisor), f"{ready_s:.2f} s")]
        for server, (tool, arguments, expected) in PROBES.items():
            result = await supervisor.call_tool(f"{server}.{tool}", arguments)
            if supervisor.resolve(f"{server}.{tool}") is None:
                result = await supervisor.call_tool(tool, arguments)
            ok = not result.is_error and expected(result.text)
            checks.append(Check(f"{server}.{tool}", ok, result.text.strip()[:80]))
        return checks
    finally:
        await supervisor.aclose()


def _all_ready(supervisor: Supervisor) -> bool:
    return all(status.state == "ready" for status in supervisor.states())


def _component_checks() -> list[Check]:
    """Present, not loaded: find each heavy part without importing or mapping it."""
    checks = [
        Check(f"module {name}", importlib.util.find_spec(name) is not None, name)
        for name in ("PySide6.QtWidgets", "qasync", "llama_cpp", "google.genai")
    ]
    prompt = paths.resources_dir() / "prompts" / "calculon.md"
    checks.append(Check("resources", prompt.is_file(), str(prompt)))
    checks.append(_model_check())
    checks.append(_table_check())
    return checks


def _table_check() -> Check:
    """Tool search's distilled table: a packaged build must carry it; from source, ``make run``
    distils it once per machine (until then questions are ranked by their words alone)."""
    from app.mcp.retrieval.static import StaticEncoder

    encoder = StaticEncoder()
    bundled = encoder.bundled_path()
    if bundled is not None:
        return Check("tool search table", bundled.is_file(), f"bundled, {bundled.name}")
    where = "in the cache" if encoder.prepared else "not distilled yet (make run does it once)"
    return Check("tool search table", True, where)


def _model_check() -> Check:
    folder = paths.bundled_models_dir()
    if folder is None:
        from app.core.backend import BackendError
        from app.llm.local import catalog

        model = catalog.builtin_model(catalog.DEFAULT_MODEL_ID)
        try:
            path = catalog.packaged_file(model)
        except BackendError as exc:
            return Check("default model", False, exc.message)
        return Check("default model", path.is_file(), f"{path.name} from the installed package")
    models = sorted(folder.glob("*.gguf"))
    if not models:
        return Check("default model", False, f"no GGUF in {folder}")
    with models[0].open("rb") as handle:
        ok = handle.read(4) == b"GGUF"
    return Check("default model", ok, f"{models[0].name} ({models[0].stat().st_size / 2**20:.0f} MiB)")


def run_self_test(timeout: float = 20.0) -> int:
    frozen = "frozen" if getattr(sys, "frozen", False) else "from source"
    print(f"Calculon self-test ({frozen}, {sys.executable})")
    checks = _component_checks() + asyncio.run(_server_checks(timeout))
    for check in checks:
        print(f"  {'ok  ' if check.ok else 'FAIL'} {check.name}: {check.detail}")
    failed = sum(not check.ok for check in checks)
    print("all checks passed" if not failed else f"{failed} check(s) failed")
    return 0 if not failed else 1
