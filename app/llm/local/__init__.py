"""The local model backend: a GGUF through llama-cpp-python (a built-in model by default).

The backend's modules import llama.cpp, a native library that takes most of a second
to load; the catalogue (:mod:`app.llm.local.catalog`) does not, and the settings read
it to list the built-in models. So the backend loads on first use of its names here,
not with the package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.llm.local.backend import LocalBackend, LocalOptions, create_backend

__all__ = ["LocalBackend", "LocalOptions", "create_backend"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from app.llm.local import backend

        return getattr(backend, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
