"""Bundled MCP servers: ordinary stdio servers that ship with the app.

Each lives in its own module with a ``main()`` that serves over stdio. This
package imports nothing heavy, so ``python -m app.servers.calculator`` and
``calculon serve calculator`` start as fast as the SDK allows.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from typing import NoReturn

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
    _exit_now()


def _exit_now() -> NoReturn:
    """The client hung up and every reply is written: skip the interpreter's teardown of the SDK's
    thousands of objects (a quarter of a second), which every client's stop would wait for."""
    sys.stdout.flush()
    sys.stderr.flush()
    logging.shutdown()
    os._exit(0)
