"""The window asks for the opted-in token file's passphrase where nothing gives it: a wrong one
is said in the dialog, the right one opens the file for the run, Cancel leaves it locked."""

from __future__ import annotations

import pytest
from keyring.backends import fail
from PySide6.QtWidgets import QApplication

from app import secrets, token_file
from app.ui.passphrase_dialog import PassphraseDialog, ask_passphrase
from tests.keyrings import keyring_backend

USER = "oauth:https://x.example/mcp:tokens"


@pytest.fixture
def locked_file(monkeypatch):
    """A token file made with a passphrase that this run has not been given."""
    with keyring_backend(fail.Keyring()):
        monkeypatch.setattr(token_file, "_given", None)
        monkeypatch.setenv(token_file.PASSPHRASE_ENV, "correct horse")
        secrets._files.clear()
        token_file.TokenFile(token_file.path()).create()
        secrets.store_token(USER, '{"access_token": "kept"}', "the sign-in token")
        monkeypatch.delenv(token_file.PASSPHRASE_ENV)
        secrets._files.clear()  # as in a new run of the window
        yield


def the_dialog(qtbot) -> PassphraseDialog:
    found: list[PassphraseDialog] = []

    def shown() -> bool:
        widgets = QApplication.topLevelWidgets()
        found[:] = [w for w in widgets if isinstance(w, PassphraseDialog) and w.isVisible()]
        return bool(found)

    qtbot.waitUntil(shown, timeout=5000)
    return found[0]


def test_a_wrong_passphrase_is_said_in_the_dialog_and_the_right_one_opens_the_file(locked_file, qloop, qtbot):
    assert token_file.locked() and secrets.stored_token(USER) is None
    asked = qloop.create_task(ask_passphrase(None))
    dialog = the_dialog(qtbot)
    dialog.field.setText("wrong horse")
    dialog.accept()
    assert dialog.isVisible() and not asked.done()
    assert "the passphrase does not open the token file" in dialog.problem.text()
    dialog.field.setText("correct horse")
    dialog.accept()
    qtbot.waitUntil(asked.done, timeout=5000)
    assert asked.result() is True and not token_file.locked()
    assert secrets.stored_token(USER) == '{"access_token": "kept"}'


def test_cancel_leaves_the_file_locked_and_nothing_is_kept(locked_file, qloop, qtbot):
    asked = qloop.create_task(ask_passphrase(None))
    dialog = the_dialog(qtbot)
    dialog.field.setText("correct horse")
    dialog.reject()
    qtbot.waitUntil(asked.done, timeout=5000)
    assert asked.result() is False and token_file.locked()


def test_without_an_opted_in_file_nothing_is_asked(arun):
    assert not token_file.path().exists()
    assert arun(ask_passphrase(None), timeout=5) is True


def test_sign_in_with_the_token_file_locked_asks_for_its_passphrase_first_then_signs_in(
    locked_file, qtbot, arun, qloop
):
    import contextlib
    import dataclasses

    from PySide6.QtCore import Qt

    from app.mcp.config import ServerEntry
    from app.mcp.handlers import server_handlers
    from app.mcp.supervisor import Supervisor
    from tests.mcp import oauth_server as oa
    from tests.mcp import remote_servers as rs
    from tests.ui.test_servers_panel import panel_over, state_of

    browser, stack = oa.ScriptedBrowser(), contextlib.AsyncExitStack()
    base = arun(stack.enter_async_context(rs.serving(oa.protected_app(oa.InMemoryAuthorizationServer()))))
    supervisor = Supervisor(
        [ServerEntry("hosted", url=f"{base}/mcp")],
        handlers=lambda name, sink: dataclasses.replace(server_handlers(name, sink), open_browser=browser),
    )
    panel = panel_over(supervisor, qtbot)
    try:
        arun(supervisor.start(), timeout=30)
        qtbot.waitUntil(lambda: state_of(panel, "hosted") == "unauthorized", timeout=10_000)
        assert token_file.PASSPHRASE_ENV in panel.summary.text()  # locked: what stops a sign-in
        qtbot.mouseClick(panel.sign_in_button, Qt.MouseButton.LeftButton)
        dialog = the_dialog(qtbot)
        assert browser.opened == []  # nothing starts before the file is open
        dialog.field.setText("correct horse")
        dialog.accept()
        qtbot.waitUntil(lambda: state_of(panel, "hosted") == "ready", timeout=30_000)
        assert len(browser.opened) == 1
        assert secrets.stored_token(f"oauth:{base}/mcp:tokens") is not None  # kept in the file
    finally:
        arun(supervisor.aclose(), timeout=30)
        arun(stack.aclose(), timeout=30)
