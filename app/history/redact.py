"""Keeping secrets out of what is stored and exported.

A key never travels in an engine event, but a server's form, a tool's arguments or a model's
reply could still carry one; so values under secret-sounding keys, strings shaped like API
keys, and the values of this process's secret environment variables are replaced.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

REDACTED = "[redacted]"

_SECRET_KEY = re.compile(
    r"(.*[_-])?(api[_-]?key|access[_-]?key|token|secret|password|passwd|authorization|credentials?)", re.I
)
_SECRET_ENV = re.compile(r"(_KEY|_TOKEN|_SECRET|PASSWORD)$")
# Google keys (AIza + 35), OpenAI-style keys, bearer tokens.
_KEY_SHAPED = re.compile(r"AIza[0-9A-Za-z_\-]{35}|\bsk-[A-Za-z0-9_\-]{20,}|\bBearer\s+[A-Za-z0-9._\-]{16,}")


def secret_values() -> list[str]:
    """Secrets this process holds in its environment (long enough not to match by chance)."""
    return [v for k, v in os.environ.items() if _SECRET_ENV.search(k.upper()) and len(v) >= 8]


def redact(value: Any, known: list[str] | None = None) -> Any:
    """``value`` (JSON-like) with every secret replaced by :data:`REDACTED`."""
    known = secret_values() if known is None else known
    if isinstance(value, str):
        return _redact_text(value, known)
    if isinstance(value, Mapping):
        return {
            k: v if _opaque(k, v) else REDACTED if _secret_field(k, v) else redact(v, known)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact(v, known) for v in value]
    return value


def _secret_field(key: Any, value: Any) -> bool:
    return isinstance(value, str) and bool(_SECRET_KEY.fullmatch(str(key)))


def _opaque(key: Any, value: Any) -> bool:
    """A Gemini thought signature: opaque base64 that must go back byte for byte, where a run of
    its characters could look like a key (``AIza...``) by chance."""
    return key == "thought_signature" and isinstance(value, str)


def _redact_text(text: str, known: list[str]) -> str:
    for secret in known:
        text = text.replace(secret, REDACTED)
    return _KEY_SHAPED.sub(REDACTED, text)
