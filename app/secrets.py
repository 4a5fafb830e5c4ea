"""API keys and other secrets: from the environment, else the OS keyring. Never a plain file.

Gemini's key: ``GEMINI_API_KEY``, ``GOOGLE_API_KEY``, then the keyring entry
(service ``calculon``, user ``gemini_api_key``). An OpenAI-compatible server's key:
``OPENAI_API_KEY``, then user ``openai_api_key``. Any other named secret (``${NAME}``
in a servers-file header) is read with :func:`get_secret`: the environment variable
``NAME``, then the keyring user ``NAME``. Headless systems often have no keyring backend;
then reading finds nothing and writing says why it cannot. OAuth sign-ins' tokens
(:func:`store_token`) go to the keyring too, unless the user opted in to the encrypted
token file (:mod:`app.token_file`), which never happens by itself.
"""

from __future__ import annotations

import logging
import os

import keyring
import keyring.errors
from keyring.backends import fail

from app import token_file

logger = logging.getLogger(__name__)

SERVICE = "calculon"
GEMINI_USER = "gemini_api_key"
GEMINI_ENV_VARS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
GEMINI_WHAT = "the Gemini API key"
OPENAI_USER = "openai_api_key"
OPENAI_ENV_VAR = "OPENAI_API_KEY"

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
    if not key.strip():
        raise ValueError("the Gemini API key is empty")
    store_secret(GEMINI_USER, key.strip(), GEMINI_WHAT)


def delete_gemini_key() -> None:
    """Remove the stored key; removing a key that is not there is not an error."""
    delete_secret(GEMINI_USER, GEMINI_WHAT)


def get_openai_key() -> str | None:
    return _from_env(OPENAI_ENV_VAR) or _from_keyring(OPENAI_USER)


def openai_key_source() -> str | None:
    """Where the key would come from: ``OPENAI_API_KEY``, ``"keyring"``, or None."""
    if _from_env(OPENAI_ENV_VAR):
        return OPENAI_ENV_VAR
    return "keyring" if _from_keyring(OPENAI_USER) else None


def set_openai_key(key: str) -> None:
    if not key.strip():
        raise ValueError("the API key is empty")
    store_secret(OPENAI_USER, key.strip(), "the OpenAI-compatible API key")


def get_secret(name: str) -> str | None:
    """The secret ``name``: the environment variable of that name, else the keyring entry."""
    return _from_env(name) or _from_keyring(name)


def tokens_storable() -> bool:
    """Whether a sign-in's tokens have somewhere to go: the keyring, or the opted-in file."""
    return token_file.opted_in() or keyring_available()


def token_file_problem() -> str | None:
    """Why the opted-in token file cannot be used now (no passphrase, a wrong one, damage), worded;
    None when it can, or when there is none."""
    if not token_file.opted_in():
        return None
    try:
        _token_file().read()
    except token_file.TokenFileError as exc:
        return str(exc)
    return None


def stored_token(user: str) -> str | None:
    """What Calculon alone writes (OAuth tokens): the token file once opted in, else the keyring."""
    if not token_file.opted_in():
        return _from_keyring(user)
    try:
        return _token_file().get(user)
    except token_file.TokenFileError as exc:
        # Read as "not signed in"; said once per run, and a write would refuse the same way.
        if str(exc) not in _said:
            _said.add(str(exc))
            logger.warning("%s", exc)
        return None


def store_token(user: str, value: str, what: str) -> None:
    if not token_file.opted_in():
        return store_secret(user, value, what)
    try:
        _token_file().set(user, value)
    except token_file.TokenFileError as exc:
        raise SecretStoreError(f"Could not store {what}: {exc}") from exc


def delete_token(user: str, what: str) -> None:
    if not token_file.opted_in():
        return delete_secret(user, what)
    try:
        _token_file().delete(user)
    except token_file.TokenFileError as exc:
        raise SecretStoreError(f"Could not delete {what}: {exc}") from exc


_files: dict[str, token_file.TokenFile] = {}
_said: set[str] = set()


def _token_file() -> token_file.TokenFile:
    """One per path for the run, so the passphrase's key is derived once."""
    where = token_file.path()
    return _files.setdefault(str(where), token_file.TokenFile(where))


def store_secret(user: str, value: str, what: str = "the secret") -> None:
    _require_keyring(what)
    try:
        keyring.set_password(SERVICE, user, value)
    except keyring.errors.KeyringError as exc:
        raise SecretStoreError(f"The system keyring refused to store {what}: {exc}") from exc


def delete_secret(user: str, what: str = "the secret") -> None:
    """Remove a stored secret; removing one that is not there is not an error."""
    _require_keyring(what)
    try:
        keyring.delete_password(SERVICE, user)
    except keyring.errors.PasswordDeleteError:
        logger.debug("no %s in the keyring to delete", user)
    except keyring.errors.KeyringError as exc:
        raise SecretStoreError(f"The system keyring refused to delete {what}: {exc}") from exc


def _from_env(name: str) -> str | None:
    return os.environ.get(name, "").strip() or None


def _from_keyring(user: str = GEMINI_USER) -> str | None:
    if not keyring_available():
        return None
    try:
        value = keyring.get_password(SERVICE, user)
    except keyring.errors.KeyringError:
        # A locked or broken keyring reads as "no key"; the caller words what to do.
        logger.warning("could not read %s from the system keyring", user, exc_info=True)
        return None
    return (value or "").strip() or None


def _require_keyring(what: str) -> None:
    if keyring_available():
        return
    if what == GEMINI_WHAT:
        raise SecretStoreError(NO_KEYRING)
    raise SecretStoreError(
        f"No system keyring is available to store {what} (on Linux, install and unlock a Secret Service "
        "such as GNOME Keyring or KWallet)."
    )
