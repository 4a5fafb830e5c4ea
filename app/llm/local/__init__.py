"""The local model backend: a GGUF through llama-cpp-python (the built-in Gemma 3 270M by default)."""

from app.llm.local.backend import LocalBackend, LocalOptions, create_backend

__all__ = ["LocalBackend", "LocalOptions", "create_backend"]
