"""The Gemini key store: environment first, then the OS keyring, never a file."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from keyring.backends import fail

from app import secrets
from tests.keyrings import InMemoryKeyringForTests, LockedKeyringForTests, keyring_backend


@pytest.fixture
def store() -> Iterator[InMemoryKeyringForTests]:
    backend = InMemoryKeyringForTests()
    with keyring_backend(backend):
        yield backend


@pytest.fixture
def no_keyring() -> Iterator[None]:
    with keyring_backend(fail.Keyring()):
        yield


def test_gemini_api_key_wins_over_google_api_key_and_the_keyring(store, monkeypatch):
    store.entries[(secrets.SERVICE, secrets.GEMINI_USER)] = "from-keyring"
    monkeypatch.setenv("GOOGLE_API_KEY", "from-google")
    monkeypatch.setenv("GEMINI_API_KEY", "from-gemini")

    assert secrets.get_gemini_key() == "from-gemini"
    assert secrets.gemini_key_source() == "GEMINI_API_KEY"


def test_google_api_key_is_used_when_gemini_api_key_is_blank(store, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "  ")
    monkeypatch.setenv("GOOGLE_API_KEY", "from-google")

    assert secrets.get_gemini_key() == "from-google"
    assert secrets.gemini_key_source() == "GOOGLE_API_KEY"


def test_the_keyring_is_read_when_no_environment_variable_is_set(store):
    assert secrets.get_gemini_key() is None
    assert secrets.gemini_key_source() is None

    store.entries[("calculon", "gemini_api_key")] = "from-keyring"

    assert secrets.get_gemini_key() == "from-keyring"
    assert secrets.gemini_key_source() == "keyring"


def test_set_and_delete_write_the_keyring_entry_and_no_file(store, isolated_dirs):
    secrets.set_gemini_key("  new-key\n")

    assert store.entries == {("calculon", "gemini_api_key"): "new-key"}
    written = [p.read_bytes() for p in isolated_dirs.rglob("*") if p.is_file()]
    assert not any(b"new-key" in data for data in written)

    secrets.delete_gemini_key()
    secrets.delete_gemini_key()  # deleting what is not there is fine

    assert store.entries == {}
    assert secrets.get_gemini_key() is None


def test_an_empty_key_is_refused(store):
    with pytest.raises(ValueError):
        secrets.set_gemini_key("   ")
    assert store.entries == {}


def test_without_a_keyring_reading_finds_nothing_and_writing_says_why(no_keyring):
    assert not secrets.keyring_available()
    assert secrets.get_gemini_key() is None

    with pytest.raises(secrets.SecretStoreError) as info:
        secrets.set_gemini_key("key")
    with pytest.raises(secrets.SecretStoreError):
        secrets.delete_gemini_key()

    assert "keyring" in str(info.value) and "GEMINI_API_KEY" in str(info.value)


def test_without_a_keyring_the_environment_still_works(no_keyring, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "from-env")

    assert secrets.get_gemini_key() == "from-env"


def test_a_keyring_that_cannot_be_read_counts_as_no_key():
    with keyring_backend(LockedKeyringForTests()):
        assert secrets.keyring_available()
        assert secrets.get_gemini_key() is None
