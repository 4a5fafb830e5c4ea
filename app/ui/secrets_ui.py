"""What the settings dialog says and does about the Gemini key (via :mod:`app.secrets`)."""

from __future__ import annotations

from app import secrets
from app.secrets import SecretStoreError


def key_status() -> str:
    """One line on where the key comes from, or why it cannot be stored."""
    source = secrets.gemini_key_source()
    if source == "keyring":
        return "A key is stored in the system keyring."
    if source:
        return f"Using the key from the {source} environment variable (it takes precedence)."
    if not secrets.keyring_available():
        return secrets.NO_KEYRING
    return "No key yet: paste one to store it in the system keyring."


def store_key(key: str) -> str | None:
    """Store ``key``; None on success, otherwise the reason for the user."""
    try:
        secrets.set_gemini_key(key)
    except (SecretStoreError, ValueError) as exc:
        return str(exc)
    return None
