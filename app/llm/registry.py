"""Backends register by name; built-in ones the same way a plugin would.

Factories are imported lazily so choosing Gemini never imports llama.cpp and
the other way round.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from app.core.backend import Backend, BackendError

BackendFactory = Callable[..., Backend]

_FACTORIES: dict[str, str | BackendFactory] = {
    "local": "app.llm.local:create_backend",
    "gemini": "app.llm.gemini:create_backend",
    "openai": "app.llm.openai:create_backend",
}


def backend_names() -> list[str]:
    return list(_FACTORIES)  # registration order: the built-in default first


def create_backend(name: str, **options: Any) -> Backend:
    """Build the named backend from keyword options (settings fields it understands)."""
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise BackendError(f"Unknown backend {name!r}; choose one of {', '.join(backend_names())}") from None
    if isinstance(factory, str):
        module_name, _, attribute = factory.partition(":")
        try:
            factory = getattr(importlib.import_module(module_name), attribute)
        except (ImportError, AttributeError) as exc:
            raise BackendError(f"The {name} backend is not available: {exc}", category="model") from exc
    return factory(**options)
