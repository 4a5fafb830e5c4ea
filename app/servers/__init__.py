"""Bundled MCP servers: ordinary stdio servers that ship with the app.

Each lives in its own module with a ``main()`` that serves over stdio. This
package imports nothing heavy, so ``python -m app.servers.calculator`` and
``calculon serve calculator`` start as fast as the SDK allows.
"""

from __future__ import annotations

import importlib
import sys

BUNDLED: dict[str, str] = {
    "calculator": "app.servers.calculator",
    "converter": "app.servers.converter",
    "clock": "app.servers.clock",
}


class UnknownServerError(KeyError):
    """Asked to serve a name that is not a bundled server."""

    def __str__(self) -> str:
        return str(self.args[0])


def serve(name: str) -> None:
    """Run the bundled server ``name`` over stdio until its client hangs up."""
    module_path = BUNDLED.get(name)
    if module_path is None:
        known = ", ".join(sorted(BUNDLED))
        raise UnknownServerError(f"no bundled server named {name!r}; the bundled servers are: {known}")
    importlib.import_module(module_path).main()


def serve_command(name: str) -> int:
    """``calculon serve NAME``: serve until the client hangs up (0), or explain an unknown name (2)."""
    try:
        serve(name)
    except UnknownServerError as exc:
        print(f"calculon serve: {exc}", file=sys.stderr)
        return 2
    return 0
