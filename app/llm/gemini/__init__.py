"""Gemini through google-genai: see :mod:`app.llm.gemini.backend`."""

from app.llm.gemini.backend import DEFAULT_MODEL, GeminiBackend, create_backend

__all__ = ["DEFAULT_MODEL", "GeminiBackend", "create_backend"]
