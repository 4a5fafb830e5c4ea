"""Entry point of the ``calculon`` command: the window by default, the CLI with a subcommand.

``calculon serve NAME`` runs on every bundled server start, and ``calculon engine`` is the
local model's process: both are handled before anything else is imported.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if len(args) == 2 and args[0] == "serve" and not args[1].startswith("-"):  # "serve --help": the CLI
        from app.servers import serve_command

        return serve_command(args[1])
    if args == ["engine"]:  # the local model's own process (app.llm.local.process)
        from app.llm.local.engine_main import main as engine

        return engine()
    from app.cli import run

    return run(args)


def entry() -> None:
    """The ``calculon`` command and ``python -m app``. A command-line run ends without the
    interpreter's teardown: freeing every module and the model object by object took 0.3-0.5 s
    of a 3 s ``ask``, after its answer was out. What a normal exit does that matters still
    happens first: threads that are not daemons finish, ``atexit`` handlers run, streams flush."""
    args = sys.argv[1:]
    code = main(args)
    if not args or args[0] in ("serve", "engine") or args[0].startswith("-"):
        sys.exit(code)  # the window, the bundled servers, --self-test: the usual way
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed pipe: nothing left to say anyway
            stream.flush()
    os._exit(code if isinstance(code, int) else 1)


if __name__ == "__main__":
    entry()
