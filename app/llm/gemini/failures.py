"""google-genai and transport failures, worded for the user as :class:`BackendError`.

The SDK's own retries are off (see the backend); the turn loop owns retrying,
and only for quota errors with a delay the server asked for.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from typing import Any

from google.genai import errors

from app.core.backend import BackendError
from app.llm.gemini.reply import CUT_OFF

DEFAULT_RETRY_S = 15.0  # when a 429 carries no RetryInfo
MAX_AUTO_RETRY_S = 60.0  # longer waits (daily quotas) are the user's call, not an automatic retry
_AUTH_REASONS = ("API_KEY_INVALID", "API_KEY_EXPIRED", "UNAUTHENTICATED", "PERMISSION_DENIED")
_DELAY = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


def _transport_errors() -> tuple[type[BaseException], ...]:
    """Connection-level failures of whichever HTTP stack the SDK picked."""
    found: list[type[BaseException]] = [OSError, TimeoutError]
    for module, name in (
        ("httpx2", "TransportError"),
        ("httpx", "TransportError"),
        ("aiohttp", "ClientError"),
    ):
        try:
            found.append(getattr(importlib.import_module(module), name))
        except ImportError:
            continue
    return tuple(found)


TRANSPORT_ERRORS = _transport_errors()


def from_api_error(exc: errors.APIError, *, model: str, midstream: bool) -> BackendError:
    code, detail = exc.code, _detail(exc)
    if midstream and code >= 500:
        return BackendError(f"{CUT_OFF} ({detail})", category="network")
    if code in (401, 403) or _has_auth_reason(exc):
        return BackendError(
            f"Gemini rejected the API key ({detail}). Set a valid key in the GEMINI_API_KEY "
            "environment variable or in Settings.",
            category="auth",
        )
    if code == 429:
        return _quota(exc, detail)
    if code == 404:
        return BackendError(
            f"Gemini has no model named {model!r} ({detail}). Choose another model in Settings.",
            category="model",
        )
    if code == 400 and _mentions_token_limit(exc.message or ""):
        return BackendError(f"The conversation is too long for {model} ({detail}).", category="context")
    if code >= 500:
        return BackendError(f"Gemini had a server error ({detail}). Try again in a moment.")
    return BackendError(f"Gemini rejected the request ({detail}).")


def from_transport_error(exc: BaseException, *, where: str, midstream: bool) -> BackendError:
    if midstream:
        return BackendError(f"{CUT_OFF} ({_describe(exc)})", category="network")
    if _is_timeout(exc):
        return BackendError(
            f"Gemini at {where} did not answer in time ({_describe(exc)}).", category="network"
        )
    return BackendError(
        f"Could not reach Gemini at {where} ({_describe(exc)}). Check the network connection.",
        category="network",
    )


def retry_delay(exc: errors.APIError) -> float | None:
    """Seconds the server asked us to wait: RetryInfo.retryDelay, else a Retry-After header."""
    for item in _details(exc):
        if str(item.get("@type", "")).endswith("google.rpc.RetryInfo"):
            match = _DELAY.match(str(item.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    headers = getattr(exc.response, "headers", None) or {}
    try:
        return float(headers.get("retry-after", ""))
    except (TypeError, ValueError):
        return None


def _quota(exc: errors.APIError, detail: str) -> BackendError:
    delay = retry_delay(exc)
    wait = DEFAULT_RETRY_S if delay is None else delay
    if wait > MAX_AUTO_RETRY_S:
        return BackendError(
            f"Gemini's quota is exhausted ({detail}). Try again in about {wait / 60:.0f} minutes.",
            category="quota",
        )
    return BackendError(
        f"Gemini's quota is exhausted for now ({detail}).", category="quota", retry_after=wait
    )


def _details(exc: errors.APIError) -> list[Mapping[str, Any]]:
    body = exc.details if isinstance(exc.details, Mapping) else {}
    error = body.get("error", body)
    items = error.get("details", []) if isinstance(error, Mapping) else []
    return [item for item in items if isinstance(item, Mapping)]


def _has_auth_reason(exc: errors.APIError) -> bool:
    return any(item.get("reason") in _AUTH_REASONS for item in _details(exc))


def _mentions_token_limit(message: str) -> bool:
    lowered = message.lower()
    return "token" in lowered and ("exceed" in lowered or "too long" in lowered)


def _detail(exc: errors.APIError) -> str:
    status = f" {exc.status}" if exc.status else ""
    message = f": {exc.message}" if exc.message else ""
    return f"{exc.code}{status}{message}"


def _is_timeout(exc: BaseException) -> bool:
    return isinstance(exc, TimeoutError) or "timeout" in type(exc).__name__.lower()


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
