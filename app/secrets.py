"""The Gemini API key: from the environment, else the OS keyring. Never a plain file.

Lookup order: ``GEMINI_API_KEY``, ``GOOGLE_API_KEY``, then the keyring entry
(service ``calculon``, user ``gemini_api_key``). Headless systems often have no
keyring backend; then reading finds nothing and writing says why it cannot.
"""

from __future__ import annotations

import logging
import os

import keyring
import keyring.errors
from keyring.backends import fail

logger = logging.getLogger(__name__)

SERVICE = "calculon"
GEMINI_USER = "gemini_api_key"
GEMINI_ENV_VARS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")

NO_KEYRING = (
    "No system keyring is available to store the Gemini API key (on Linux, install and unlock a "
    "Secret Service such as GNOME Keyring or KWallet). Set the GEMINI_API_KEY environment variable instead."
)


class SecretStoreError(RuntimeError):
    """The key could not be stored or removed; the message says why, for the user."""


def get_gemini_key() -> str | None:
    for name in GEMINI_ENV_VARS:
        if value := _from_env(name):
            return value
    return _from_keyring()


def gemini_key_source() -> str | None:
    """Where the key would come from: an env var name, ``"keyring"``, or None."""
    for name in GEMINI_ENV_VARS:
        if _from_env(name):
            return name
    return "keyring" if _from_keyring() else None


def keyring_available() -> bool:
    return not isinstance(keyring.get_keyring(), fail.Keyring)


def set_gemini_key(key: str) -> None:
    key = key.strip()
    if not key:
        raise ValueError("the Gemini API key is empty")
    _require_keyring()
    try:
        keyring.set_password(SERVICE, GEMINI_USER, key)
    except keyring.errors.KeyringError as exc:
        raise SecretStoreError(f"The system keyring refused to store the Gemini API key: {exc}") from exc


def delete_gemini_key() -> None:
    """Remove the stored key; removing a key that is not there is not an error."""
    _require_keyring()
    try:
        keyring.delete_password(SERVICE, GEMINI_USER)
    except keyring.errors.PasswordDeleteError:
        logger.debug("no Gemini key in the keyring to delete")
    except keyring.errors.KeyringError as exc:
        raise SecretStoreError(f"The system keyring refused to delete the Gemini API key: {exc}") from exc


def _from_env(name: str) -> str | None:
    return os.environ.get(name, "").strip() or None


def _from_keyring() -> str | None:
    if not keyring_available():
        return None
    try:
        value = keyring.get_password(SERVICE, GEMINI_USER)
    except keyring.errors.KeyringError:
        # A locked or broken keyring reads as "no key"; the caller words what to do.
        logger.warning("could not read the Gemini key from the system keyring", exc_info=True)
        return None
    return (value or "").strip() or None


def _require_keyring() -> None:
    if not keyring_available():
        raise SecretStoreError(NO_KEYRING)
