"""The opt-in encrypted token file: written only after the opt-in, opened only with its
passphrase, and never written over when it cannot be opened (wrong passphrase, damage)."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator

import pytest
from keyring.backends import fail

from app import secrets, token_file
from tests.keyrings import keyring_backend


@pytest.fixture
def no_keyring() -> Iterator[None]:
    with keyring_backend(fail.Keyring()):
        yield


@pytest.fixture
def opted_in(monkeypatch, no_keyring) -> token_file.TokenFile:
    monkeypatch.setenv(token_file.PASSPHRASE_ENV, "correct horse")
    secrets._files.clear()  # a fresh run: no key derived yet
    store = token_file.TokenFile(token_file.path())
    store.create()
    return store


def test_without_the_opt_in_no_keyring_means_the_token_is_refused_and_no_file_is_written(no_keyring):
    with pytest.raises(secrets.SecretStoreError, match="No system keyring"):
        secrets.store_token("oauth:https://x/mcp:tokens", "{}", "the sign-in token")
    assert not token_file.path().exists() and not secrets.tokens_storable()
    assert secrets.stored_token("oauth:https://x/mcp:tokens") is None


def test_after_the_opt_in_tokens_go_to_the_file_encrypted_and_come_back(opted_in):
    secrets.store_token("oauth:https://x/mcp:tokens", '{"access_token": "abc123"}', "the sign-in token")
    raw = token_file.path().read_text()
    assert "abc123" not in raw and "oauth:" not in raw  # names and values are both sealed
    assert oct(token_file.path().stat().st_mode & 0o777) == "0o600"
    secrets._files.clear()  # as in the next command's process
    assert secrets.stored_token("oauth:https://x/mcp:tokens") == '{"access_token": "abc123"}'
    secrets.delete_token("oauth:https://x/mcp:tokens", "the sign-in")
    assert secrets.stored_token("oauth:https://x/mcp:tokens") is None and secrets.tokens_storable()


def test_a_wrong_passphrase_is_named_and_changes_nothing(opted_in, monkeypatch):
    opted_in.set("oauth:https://x/mcp:tokens", "kept")
    before = token_file.path().read_bytes()
    monkeypatch.setenv(token_file.PASSPHRASE_ENV, "wrong horse")
    secrets._files.clear()
    assert secrets.stored_token("oauth:https://x/mcp:tokens") is None  # reads as not signed in
    with pytest.raises(secrets.SecretStoreError, match="passphrase does not open the token file"):
        secrets.store_token("oauth:https://x/mcp:tokens", "replaced", "the sign-in token")
    assert token_file.path().read_bytes() == before
    monkeypatch.setenv(token_file.PASSPHRASE_ENV, "correct horse")
    assert token_file.TokenFile(token_file.path()).get("oauth:https://x/mcp:tokens") == "kept"


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: raw[: len(raw) // 2],  # cut short
        lambda raw: json.dumps({**json.loads(raw), "salt": "not base64!"}),
        lambda raw: json.dumps({**json.loads(raw), "kdf": {"name": "scrypt", "n": 2**40, "r": 8, "p": 1}}),
    ],
)
def test_a_damaged_file_is_named_and_left_as_it_is(opted_in, damage):
    opted_in.set("oauth:https://x/mcp:tokens", "kept")
    token_file.path().write_text(damaged := damage(token_file.path().read_text()))
    with pytest.raises(token_file.TokenFileError, match="is damaged"):
        opted_in.set("oauth:https://x/mcp:tokens", "replaced")
    assert token_file.path().read_text() == damaged


def test_a_changed_byte_in_the_sealed_table_reads_as_a_wrong_passphrase_not_as_data(opted_in):
    opted_in.set("oauth:https://x/mcp:tokens", "kept")
    raw = json.loads(token_file.path().read_text())
    sealed = bytearray(base64.b64decode(raw["sealed"]))
    sealed[0] ^= 1
    raw["sealed"] = base64.b64encode(bytes(sealed)).decode()
    token_file.path().write_text(json.dumps(raw))
    with pytest.raises(token_file.TokenFileError, match="wrong passphrase, or the file was changed"):
        opted_in.read()


def test_without_a_passphrase_the_file_says_which_variable_to_set(opted_in, monkeypatch):
    monkeypatch.delenv(token_file.PASSPHRASE_ENV)
    with pytest.raises(token_file.TokenFileError, match=token_file.PASSPHRASE_ENV):
        token_file.TokenFile(token_file.path(), passphrase=lambda: None).read()
