"""Entry point of the ``calculon`` command: the window by default, the CLI with a subcommand.

``calculon serve NAME`` runs on every bundled server start, so it is handled
before anything else is imported.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if len(args) == 2 and args[0] == "serve":
        return _serve(args[1])
    from app.cli import run

    return run(args)


def _serve(name: str) -> int:
    from app.servers import UnknownServerError, serve

    try:
        serve(name)
    except UnknownServerError as exc:
        print(f"calculon serve: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
