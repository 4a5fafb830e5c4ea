"""Keyring backends for tests: this headless machine has no OS keyring."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.errors
from jaraco.classes import properties
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


class FileKeyringForTests(KeyringBackend):
    """Stands in for the OS keyring across processes (a CLI test's children): a JSON file named
    by ``CALCULON_TEST_KEYRING``, chosen with ``PYTHON_KEYRING_BACKEND=tests.keyrings.FileKeyringForTests``.
    Plain text, so for tests only; never picked by keyring's own search (no priority) unless
    that variable names its file."""

    @properties.classproperty
    def priority(cls) -> float:
        if "CALCULON_TEST_KEYRING" not in os.environ:
            raise RuntimeError("only where CALCULON_TEST_KEYRING names its file")
        return 1

    def _path(self) -> Path:
        return Path(os.environ["CALCULON_TEST_KEYRING"])

    def _entries(self) -> dict[str, str]:
        path = self._path()
        return json.loads(path.read_text()) if path.is_file() else {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._entries().get(f"{service}\n{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        self._path().write_text(json.dumps({**self._entries(), f"{service}\n{username}": password}))

    def delete_password(self, service: str, username: str) -> None:
        entries = self._entries()
        if entries.pop(f"{service}\n{username}", None) is None:
            raise keyring.errors.PasswordDeleteError("not found")
        self._path().write_text(json.dumps(entries))


def file_keyring_env(path: Path) -> dict[str, str]:
    """The environment that gives a child process :class:`FileKeyringForTests` over ``path``."""
    root = str(Path(__file__).parents[1])
    python_path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
    return {
        "PYTHON_KEYRING_BACKEND": "tests.keyrings.FileKeyringForTests",
        "CALCULON_TEST_KEYRING": str(path),
        "PYTHONPATH": python_path,
    }


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
