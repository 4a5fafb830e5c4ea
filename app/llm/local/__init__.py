"""The local model backend: a GGUF through llama-cpp-python (a built-in model by default).

The app runs the model in a process of its own (:class:`ProcessBackend`, what
``create_backend`` makes); :class:`LocalBackend` is the same model in this process, which that
process runs and the step's tests drive. Their modules import llama.cpp, a native library that
takes most of a second to load; the catalogue (:mod:`app.llm.local.catalog`) and the options do
not, so the backend loads on first use of its names here, not with the package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.llm.local.backend import LocalBackend
    from app.llm.local.options import LocalOptions
    from app.llm.local.process import ProcessBackend, create_backend

_HOMES = {
    "LocalBackend": "app.llm.local.backend",
    "LocalOptions": "app.llm.local.options",
    "ProcessBackend": "app.llm.local.process",
    "create_backend": "app.llm.local.process",
}
__all__ = ["LocalBackend", "LocalOptions", "ProcessBackend", "create_backend"]


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
