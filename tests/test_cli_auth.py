"""``calculon auth login|status|logout`` against a real OAuth-protected server on 127.0.0.1: the
real CLI as child processes, the browser step played by a script, tokens in a keyring shared by
the children (tests.keyrings.FileKeyringForTests: this machine has no OS keyring)."""

from __future__ import annotations

import asyncio
import json
import os

import httpx2
import pytest

from tests.keyrings import file_keyring_env
from tests.mcp import oauth_server as oa
from tests.mcp import remote_servers as rs
from tests.test_cli import SCRIPT

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def calculon(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    child = await asyncio.create_subprocess_exec(
        str(SCRIPT), *args, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(child.communicate(), 60)
    return child.returncode or 0, out.decode(), err.decode()


def setup(tmp_path, base: str, backend: str = "") -> tuple[dict[str, str], str]:
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"hosted": {"url": f"{base}/mcp"}}}))
    env = {**os.environ, **file_keyring_env(tmp_path / "keyring.json")}
    if backend:
        env["PYTHON_KEYRING_BACKEND"] = backend
    return env, str(servers)


async def test_login_prints_the_address_takes_the_code_and_call_then_works(tmp_path):
    provider = oa.InMemoryAuthorizationServer()
    async with rs.serving(oa.protected_app(provider)) as base:
        env, servers = setup(tmp_path, base)
        code, _, err = await calculon(env, "--config", servers, "call", "multiply", '{"a": 6, "b": 7}')
        assert code == 1 and "run `calculon auth login hosted`" in err

        login = await asyncio.create_subprocess_exec(
            str(SCRIPT), "--config", servers, "auth", "login", "hosted", "--no-browser",
            env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert login.stdout is not None
        address = (await asyncio.wait_for(login.stdout.readline(), 60)).decode().strip()
        assert address.startswith(f"{base}/authorize?") and "code_challenge_method=S256" in address
        async with httpx2.AsyncClient() as browser:  # the person: consents, the browser follows back
            consent = await browser.get(address)
            await browser.get(consent.headers["location"])
        out, _ = await asyncio.wait_for(login.communicate(), 60)
        assert login.returncode == 0 and out.decode().strip() == "hosted: signed in"

        code, out, err = await calculon(env, "--config", servers, "call", "multiply", '{"a": 6, "b": 7}')
        assert (code, out.strip()) == (0, "42"), err
        assert provider.consents == 1
        _, out, _ = await calculon(env, "--config", servers, "auth", "status")
        assert out.startswith("hosted: signed in")
        code, out, _ = await calculon(env, "--config", servers, "auth", "logout", "hosted")
        assert code == 0 and out.strip() == "hosted: signed out"
        _, out, _ = await calculon(env, "--config", servers, "auth", "status")
        assert out.strip() == "hosted: not signed in"


async def test_without_a_keyring_login_says_so_in_one_sentence_with_the_fix(tmp_path):
    env, servers = setup(tmp_path, "http://127.0.0.1:9", backend="keyring.backends.fail.Keyring")
    code, out, err = await calculon(env, "--config", servers, "auth", "login", "hosted")
    assert code == 3 and out == ""
    assert err.count(".") >= 1 and "no system keyring" in err and "GNOME Keyring" in err
    assert "calculon auth login hosted" in err
    assert "`calculon auth login hosted --token-store file`" in err  # the opt-in, offered
    assert not (tmp_path / "config" / "tokens.enc").exists()  # and not taken unasked


async def login(env: dict[str, str], servers: str, *flags: str) -> tuple[int, str, str]:
    """``auth login hosted --no-browser FLAGS``, its address opened and followed back."""
    child = await asyncio.create_subprocess_exec(
        str(SCRIPT), "--config", servers, "auth", "login", "hosted", "--no-browser", *flags,
        env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert child.stdout is not None
    address = (await asyncio.wait_for(child.stdout.readline(), 60)).decode().strip()
    if address.startswith("http"):
        async with httpx2.AsyncClient() as browser:
            consent = await browser.get(address)
            await browser.get(consent.headers["location"])
    out, err = await asyncio.wait_for(child.communicate(), 60)
    return child.returncode or 0, address + "\n" + out.decode(), err.decode()


async def test_without_a_keyring_the_opted_in_encrypted_file_keeps_the_sign_in(tmp_path):
    provider = oa.InMemoryAuthorizationServer()
    async with rs.serving(oa.protected_app(provider)) as base:
        env, servers = setup(tmp_path, base, backend="keyring.backends.fail.Keyring")
        env["CALCULON_TOKEN_PASSPHRASE"] = "correct horse"
        code, out, err = await login(env, servers, "--token-store", "file")
        assert code == 0 and out.strip().endswith("hosted: signed in"), err
        tokens = tmp_path / "config" / "tokens.enc"
        assert "(new, encrypted)" in err and tokens.is_file()
        sealed = tokens.read_bytes()

        code, out, err = await calculon(env, "--config", servers, "call", "multiply", '{"a": 6, "b": 7}')
        assert (code, out.strip()) == (0, "42"), err
        code, out, _ = await calculon(env, "--config", servers, "auth", "status", "hosted")
        assert out.startswith("hosted: signed in")

        wrong = {**env, "CALCULON_TOKEN_PASSPHRASE": "wrong horse"}
        code, out, err = await calculon(wrong, "--config", servers, "call", "multiply", '{"a": 6, "b": 7}')
        assert code != 0 and "the passphrase does not open the token file" in err
        code, _, err = await login(wrong, servers)  # signing in again cannot write over it either
        assert code != 0 and "passphrase does not open" in err, err
        assert tokens.read_bytes() == sealed  # lost nothing

        code, out, err = await calculon(env, "--config", servers, "call", "multiply", '{"a": 2, "b": 5}')
        assert (code, out.strip()) == (0, "10"), err  # the right passphrase: all still there
        assert provider.consents == 1


def test_at_a_terminal_the_opt_in_asks_a_new_passphrase_twice_and_a_mismatch_writes_nothing(tmp_path):
    from tests.test_cli_asking import Pty

    env, servers = setup(tmp_path, "http://127.0.0.1:9", backend="keyring.backends.fail.Keyring")
    tokens = tmp_path / "config" / "tokens.enc"
    term = Pty("--config", servers, "auth", "login", "hosted", "--token-store", "file", env=env)
    term.answer("New passphrase for", "correct horse")
    term.answer("The same passphrase again: ", "correct hose")
    term.expect("did not match; nothing was written")
    code, _ = term.finish()
    assert code == 1 and not tokens.exists()

    opt_in = ("auth", "login", "hosted", "--token-store", "file", "--no-browser")
    term = Pty("--config", servers, *opt_in, env=env)
    term.answer("New passphrase for", "correct horse")
    term.answer("The same passphrase again: ", "correct horse")
    term.expect("(new, encrypted)")
    term.finish()  # the server at port 9 is not there: the sign-in itself fails, the opt-in stands
    assert tokens.is_file() and "correct horse" not in tokens.read_text()

    term = Pty("--config", servers, "auth", "status", "hosted", env=env)  # asked once, the file opens
    term.answer("Passphrase for", "correct horse")
    code, out = term.finish()
    assert (code, out) == (0, "hosted: not signed in\n")
    term = Pty("--config", servers, "auth", "status", "hosted", env=env)
    term.answer("Passphrase for", "wrong horse")
    term.expect("the passphrase does not open the token file")
    term.finish()


async def test_logout_from_the_token_file_names_the_sign_ins_that_go_then_removes_it(tmp_path, monkeypatch):
    from app import secrets, token_file

    env, servers = setup(tmp_path, "http://127.0.0.1:9", backend="keyring.backends.fail.Keyring")
    env["CALCULON_TOKEN_PASSPHRASE"] = "correct horse"
    monkeypatch.setenv("CALCULON_TOKEN_PASSPHRASE", "correct horse")
    secrets._files.clear()
    token_file.TokenFile(token_file.path()).create()
    store = token_file.TokenFile(token_file.path())
    store.set("oauth:http://127.0.0.1:9/mcp:tokens", "{}")
    store.set("oauth:http://127.0.0.1:9/mcp:issuer:https://as.example:client", "{}")
    store.set("oauth:https://gone.example/mcp:tokens", "{}")
    tokens = tmp_path / "config" / "tokens.enc"

    code, _, err = await calculon(env, "--config", servers, "auth", "logout")
    assert code == 2 and "--token-store file" in err and tokens.is_file()  # neither: nothing removed
    code, out, err = await calculon(env, "--config", servers, "auth", "logout", "--token-store", "file")
    assert code == 0, err
    said = f"removing {tokens}: the sign-ins to hosted, https://gone.example/mcp (no longer in the servers"
    assert said in err and not tokens.exists()
    assert out.startswith(f"removed {tokens}; sign-ins are kept in the system keyring")
    code, out, err = await calculon(env, "--config", servers, "auth", "status", "hosted")
    assert out.strip() == "hosted: not signed in (no system keyring to keep a sign-in)"  # opted out
    code, _, err = await calculon(env, "--config", servers, "auth", "logout", "--token-store", "file")
    assert code == 1 and "there is no token file" in err


async def test_logout_from_a_token_file_it_cannot_open_says_its_contents_go_unread(tmp_path, monkeypatch):
    from app import secrets, token_file

    env, servers = setup(tmp_path, "http://127.0.0.1:9", backend="keyring.backends.fail.Keyring")
    monkeypatch.setenv("CALCULON_TOKEN_PASSPHRASE", "correct horse")
    secrets._files.clear()
    token_file.TokenFile(token_file.path()).create()
    env["CALCULON_TOKEN_PASSPHRASE"] = "wrong horse"
    code, _, err = await calculon(env, "--config", servers, "auth", "logout", "--token-store", "file")
    assert code == 0 and "cannot be read (the passphrase does not open" in err
    assert "goes with it unread" in err
    assert not (tmp_path / "config" / "tokens.enc").exists()
