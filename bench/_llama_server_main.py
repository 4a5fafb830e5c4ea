"""``python -m llama_cpp.server`` with the CPU's extra buffer types off where it reports AMX.

The server offers no switch for ``use_extra_bufts``, and on virtual machines that advertise
AMX without granting it the first matrix product dies of SIGILL; the app's own loader
(:mod:`app.llm.local.loader`) avoids it the same way. Everything else is the stock server.
"""

from __future__ import annotations

import runpy

from app.llm.local import loader


def main() -> None:
    with loader.guarded_defaults():
        runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
