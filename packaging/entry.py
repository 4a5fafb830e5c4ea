"""Entry point of the frozen executable.

A windowed build has no console, so sys.stdin/sys.stdout can be None. When the
executable is re-launched as a bundled MCP server (``calculon serve NAME``) its
stdio are the pipes the supervisor gave it: rebind them from the raw file
descriptors before anything reads or writes.
"""

import os
import sys


def _guard_stdio() -> None:
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        if getattr(sys, name) is None:
            try:
                stream = os.fdopen(fd, mode, encoding="utf-8", errors="replace", closefd=False)
            except OSError:
                stream = open(os.devnull, mode, encoding="utf-8")  # noqa: SIM115 - lives for the process
            setattr(sys, name, stream)


_guard_stdio()

from app.__main__ import main  # noqa: E402 - stdio must be guarded first

sys.exit(main())
