"""OAuth tokens in an encrypted file: the opt-in for machines without a system keyring.

Nothing is ever written here unasked. ``calculon auth login SERVER --token-store file``
creates the file (``tokens.enc`` in the config folder); from then on, while it exists, the
sign-ins' tokens are kept in it instead of the keyring. ``calculon auth logout --token-store
file`` opts out: it says which sign-ins go with the file, then removes it.

The key comes from a passphrase that is never stored: ``CALCULON_TOKEN_PASSPHRASE``, or what
the user typed at the terminal or in the window's dialog for this run (:func:`unlock`). The
file is JSON: scrypt's parameters and salt, and the whole table of entries sealed with AES-256-GCM, so a
wrong passphrase and a changed byte are both detected. A file that cannot be opened is never
written over: every change decrypts it first, so a wrong passphrase or damage loses nothing.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import os
import secrets as random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from app import paths

PASSPHRASE_ENV = "CALCULON_TOKEN_PASSPHRASE"
FILE_NAME = "tokens.enc"
FORMAT = "calculon-tokens/1"
SCRYPT = {"n": 2**15, "r": 8, "p": 1}  # about 32 MiB and 0.1 s per derivation
_AAD = FORMAT.encode()
_SEALED = ("salt", "nonce", "sealed")  # the file's base64 fields
_given: str | None = None  # typed at the terminal for this run only


class TokenFileError(RuntimeError):
    """The token file cannot be read or written; the message says why and what to do."""


def path() -> Path:
    return paths.config_dir() / FILE_NAME


def opted_in() -> bool:
    """Whether the user chose the encrypted file (it exists)."""
    return path().is_file()


def remember_passphrase(passphrase: str) -> None:
    global _given
    _given = passphrase


def passphrase() -> str | None:
    return os.environ.get(PASSPHRASE_ENV) or _given


def locked() -> bool:
    """The user opted in to the file and nothing has given its passphrase for this run yet."""
    return opted_in() and passphrase() is None


def unlock(candidate: str) -> str | None:
    """Try a passphrase on the file: kept for this run when it opens the file; otherwise why not."""
    try:
        TokenFile(path(), lambda: candidate).read()
    except TokenFileError as exc:
        return str(exc)
    remember_passphrase(candidate)
    return None


class TokenFile:
    """The table of ``user -> value`` in one encrypted file."""

    def __init__(self, file: Path, passphrase: Callable[[], str | None] = passphrase) -> None:
        self.file = file
        self._passphrase = passphrase

    def create(self) -> None:
        """Start an empty file (the opt-in); an existing one is opened instead, to check the passphrase."""
        if self.file.is_file():
            self.read()
            return
        self._write({})

    def read(self) -> dict[str, str]:
        if not self.file.is_file():
            return {}
        envelope = self._envelope()
        key = self._key(envelope["salt"], envelope["kdf"])
        try:
            table = json.loads(AESGCM(key).decrypt(envelope["nonce"], envelope["sealed"], _AAD))
        except InvalidTag:
            raise TokenFileError(
                f"the passphrase does not open the token file {self.file} (wrong passphrase, or the file "
                f"was changed); nothing was changed: set {PASSPHRASE_ENV} to the passphrase you chose"
            ) from None
        return {str(user): str(value) for user, value in table.items()}

    def get(self, user: str) -> str | None:
        return self.read().get(user)

    def set(self, user: str, value: str) -> None:
        table = self.read()
        table[user] = value
        self._write(table)

    def delete(self, user: str) -> None:
        table = self.read()
        if table.pop(user, None) is not None:
            self._write(table)

    def _write(self, table: dict[str, str]) -> None:
        salt = self._envelope()["salt"] if self.file.is_file() else random.token_bytes(16)
        key, nonce = self._key(salt, SCRYPT), random.token_bytes(12)
        sealed = AESGCM(key).encrypt(nonce, json.dumps(table).encode(), _AAD)
        paths.atomic_write_json(
            self.file,
            {"format": FORMAT, "kdf": {"name": "scrypt", **SCRYPT}, "salt": _b64(salt),
             "nonce": _b64(nonce), "sealed": _b64(sealed)},
        )  # fmt: skip
        self.file.chmod(0o600)

    def _envelope(self) -> dict[str, Any]:
        try:
            raw = json.loads(self.file.read_text(encoding="utf-8"))
            kdf = raw["kdf"]
            if raw.get("format") != FORMAT or kdf.get("name") != "scrypt":
                raise ValueError(f"not a {FORMAT} file")
            params = {name: int(kdf[name]) for name in SCRYPT}
            if not (2 <= params["n"] <= 2**20 and 1 <= params["r"] <= 32 and 1 <= params["p"] <= 16):
                raise ValueError("scrypt parameters out of range")
            fields = {name: base64.b64decode(raw[name], validate=True) for name in _SEALED}
        except (OSError, ValueError, KeyError, TypeError, AttributeError, binascii.Error) as exc:
            raise TokenFileError(
                f"the token file {self.file} is damaged ({exc}); it was left as it is: move it away and "
                "sign in again"
            ) from None
        return {**fields, "kdf": params}

    def _key(self, salt: bytes, kdf: dict[str, int]) -> bytes:
        secret = self._passphrase()
        if not secret:
            raise TokenFileError(
                f"the sign-in tokens are in the encrypted file {self.file}: set {PASSPHRASE_ENV} to its "
                "passphrase (a command run at a terminal asks for it, and so does the window)"
            )
        return _derived(salt, secret, kdf["n"], kdf["r"], kdf["p"])


@functools.cache
def _derived(salt: bytes, secret: str, n: int, r: int, p: int) -> bytes:
    """scrypt is slow on purpose: a key is derived once per run, whichever TokenFile asks (the
    window's unlock, the sign-ins' store); its settings are part of what names it."""
    return Scrypt(salt=salt, length=32, n=n, r=r, p=p).derive(secret.encode())


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
