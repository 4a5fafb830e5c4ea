"""Run a benchmark by name: ``python -m bench NAME [ARGS...]`` runs ``bench/NAME.py``'s ``main()``.

With no name, lists the benchmarks there are. The module sees ``sys.argv`` as
``[NAME, *ARGS]``; an integer returned by ``main()`` becomes the exit status.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def available() -> list[str]:
    here = Path(__file__).parent
    return sorted(m.name for m in pkgutil.iter_modules([str(here)]) if not m.name.startswith("_"))


def run(argv: list[str]) -> int:
    names = available()
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m bench NAME [ARGS...]\nbenchmarks: " + (", ".join(names) or "(none)"))
        return 0 if argv else 2
    name = argv[0]
    if name not in names:
        print(f"no benchmark named {name!r}; there are: {', '.join(names)}", file=sys.stderr)
        return 2
    sys.argv = [name, *argv[1:]]
    status = importlib.import_module(f"bench.{name}").main()
    return status if isinstance(status, int) else 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
