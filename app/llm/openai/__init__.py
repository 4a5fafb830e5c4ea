"""An OpenAI-compatible server (llama.cpp, vLLM, Ollama, LM Studio) through the ``openai`` SDK:
see :mod:`app.llm.openai.backend`."""

from app.llm.openai.backend import OpenAIBackend, check_connection, create_backend

__all__ = ["OpenAIBackend", "check_connection", "create_backend"]
