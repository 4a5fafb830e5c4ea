"""Keyring backends for tests: this headless machine has no OS keyring."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import keyring
import keyring.errors
from keyring.backend import KeyringBackend


class InMemoryKeyringForTests(KeyringBackend):
    """Stands in for the OS keyring, which this headless machine does not have."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.entries.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError("not found")


class LockedKeyringForTests(InMemoryKeyringForTests):
    """A keyring that is there but refuses every read, like a locked one."""

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringError("the collection is locked")


@contextlib.contextmanager
def keyring_backend(backend: KeyringBackend) -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        yield
    finally:
        keyring.set_keyring(previous)
