"""Entry point of the ``calculon`` command: the window by default, the CLI with a subcommand.

``calculon serve NAME`` runs on every bundled server start, so it is handled
before anything else is imported.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if len(args) == 2 and args[0] == "serve":
        from app.servers import serve_command

        return serve_command(args[1])
    from app.cli import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())
