"""``openai`` SDK failures, worded for the user as :class:`BackendError`.

The SDK's own retries are off (see the backend): the turn loop owns retrying,
and only for a 429 with a delay short enough to wait for.
"""

from __future__ import annotations

import re

import openai

from app.core.backend import BackendError
from app.llm.openai.reply import cut_off

DEFAULT_RETRY_S = 10.0  # a 429 without Retry-After
MAX_AUTO_RETRY_S = 60.0
# "does not support tools" (Ollama), "auto tool choice requires --enable-auto-tool-choice" (vLLM),
# "tools are not supported" / "tool calling is disabled" (others)
_TOOLS_REFUSED = re.compile(
    r"(not support|unsupported|requires|enable)\S*\W+(\S+\W+){0,4}tool|tool\S*\W+(\S+\W+){0,3}"
    r"(not supported|unsupported|disabled|requires)",
    re.IGNORECASE,
)
_TOO_LONG = re.compile(r"context (length|window|size)|too long|too many tokens", re.IGNORECASE)
TOOL_FLAGS = (
    "start it with tool calling on (vLLM: --enable-auto-tool-choice --tool-call-parser NAME; "
    "llama.cpp's llama-server: --jinja; llama-cpp-python: --chat_format chatml-function-calling), "
    "or choose a model that supports tools"
)


def from_api_error(exc: openai.APIError, *, model: str, where: str, midstream: bool) -> BackendError:
    if isinstance(exc, openai.APIConnectionError):
        return from_connection_error(exc, where=where, midstream=midstream)
    if not isinstance(exc, openai.APIStatusError):  # an error event inside a 200 stream
        return BackendError(f"The model server at {where} reported an error: {exc.message}")
    code, detail = exc.status_code, _detail(exc)
    if code in (401, 403):
        return BackendError(
            f"The model server at {where} refused the API key ({detail}). Set the key in the "
            "OPENAI_API_KEY environment variable or in Settings → OpenAI-compatible.",
            category="auth",
        )
    if code == 404:
        return BackendError(
            f"The server at {where} has no model named {model!r}, or this is not an OpenAI-compatible "
            f"address ({detail}). Check the base URL (it usually ends in /v1) and the model name.",
            category="model",
        )
    if code == 429:
        return _quota(exc, detail, where)
    if _about_context(exc):
        return BackendError(f"The conversation is too long for {model!r} ({detail}).", category="context")
    if _about_tools(exc):
        return BackendError(
            f"The model {model!r} at {where} cannot call tools ({detail}): {TOOL_FLAGS}.", category="model"
        )
    if code >= 500:
        return BackendError(f"The model server at {where} had an error ({detail}). Try again in a moment.")
    return BackendError(f"The model server at {where} rejected the request ({detail}).")


def from_connection_error(exc: openai.APIConnectionError, *, where: str, midstream: bool) -> BackendError:
    why = _cause(exc)
    if midstream:
        return BackendError(f"{cut_off(where)} ({why})", category="network")
    if isinstance(exc, openai.APITimeoutError):
        return BackendError(
            f"The model server at {where} did not answer in time ({why}).", category="network"
        )
    return BackendError(
        f"Could not reach the model server at {where} ({why}). Is it running, and is the base URL right?",
        category="network",
    )


def _quota(exc: openai.APIStatusError, detail: str, where: str) -> BackendError:
    try:
        wait = float(exc.response.headers.get("retry-after", ""))
    except ValueError:
        wait = DEFAULT_RETRY_S
    if wait > MAX_AUTO_RETRY_S:
        return BackendError(
            f"The model server at {where} is rate limiting ({detail}). Try again in about "
            f"{wait / 60:.0f} minutes.",
            category="quota",
        )
    return BackendError(
        f"The model server at {where} is rate limiting for now ({detail}).",
        category="quota",
        retry_after=wait,
    )


def _about_tools(exc: openai.APIStatusError) -> bool:
    """A refusal of the request's tools: vLLM, Ollama and llama.cpp each word it their own way."""
    return exc.status_code in (400, 422, 500, 501) and bool(_TOOLS_REFUSED.search(_detail(exc)))


def _about_context(exc: openai.APIStatusError) -> bool:
    return exc.status_code in (400, 413) and bool(_TOO_LONG.search(_detail(exc)))


def _detail(exc: openai.APIStatusError) -> str:
    body = exc.body.get("error", exc.body) if isinstance(exc.body, dict) else exc.body
    # OpenAI's shape says "message"; FastAPI-based servers (llama-cpp-python) say "detail".
    message = (body.get("message") or body.get("detail")) if isinstance(body, dict) else body
    text = str(message or exc.message or "").strip()
    return f"{exc.status_code}: {text}" if text else str(exc.status_code)


def _cause(exc: BaseException) -> str:
    cause = exc.__cause__ or exc
    text = str(cause).strip()
    return f"{type(cause).__name__}: {text}" if text else type(cause).__name__
