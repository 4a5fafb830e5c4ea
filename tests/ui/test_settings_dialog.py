"""The settings dialog: generated from Settings, validated, saved atomically, servers edited."""

from __future__ import annotations

import json

import keyring
import pytest
from keyring.backends import fail
from PySide6.QtWidgets import QCheckBox, QComboBox, QDialogButtonBox, QLineEdit, QSpinBox

from app.mcp import config as mcp_config
from app.settings import Settings, load_settings, settings_path
from app.ui import gpu
from app.ui.servers_editor import EntryFields
from app.ui.settings_dialog import SettingsDialog


@pytest.fixture
def dialog(qtbot, qloop):
    def make(settings: Settings | None = None, probe=None) -> SettingsDialog:
        made = SettingsDialog(settings or Settings(), mcp_config.load_config(), gpu_probe=probe)
        qtbot.addWidget(made)
        return made

    return make


def save_button(dialog: SettingsDialog):
    return dialog.buttons.button(QDialogButtonBox.StandardButton.Save)


def test_settings_survive_a_save_and_reload(dialog):
    first = dialog()
    editors = first.form.editors
    assert isinstance(editors["backend"], QComboBox) and isinstance(editors["strict"], QCheckBox)
    editors["backend"].setCurrentText("gemini")
    editors["strict"].setChecked(False)
    assert isinstance(editors["n_ctx"], QSpinBox)
    editors["n_ctx"].setValue(8192)
    assert isinstance(editors["pinned_tools"], QLineEdit)
    editors["pinned_tools"].setText("add, multiply")
    editors["gemini_model"].setText("gemini-2.5-pro")
    save_button(first).click()
    assert not first.isVisible() and settings_path().is_file()
    loaded, problems = load_settings()
    assert problems == []
    assert (loaded.backend, loaded.strict, loaded.n_ctx) == ("gemini", False, 8192)
    assert loaded.pinned_tools == ["add", "multiply"] and loaded.gemini_model == "gemini-2.5-pro"
    again = dialog(loaded)
    assert again.form.values() == loaded.to_dict()


def test_tool_approvals_and_trusted_servers_are_edited_on_the_permissions_tab(dialog):
    made = dialog(Settings(tool_approvals={"files.wipe": "never"}))
    editors = made.form.editors
    assert made.form.specs["tool_approvals"].tab == "Permissions"
    assert editors["tool_approvals"].text() == "files.wipe=never"
    editors["tool_approvals"].setText("files.wipe=always, everything.*=conversation")
    editors["trusted_servers"].setText("everything")
    save_button(made).click()
    loaded, _ = load_settings()
    assert loaded.tool_approvals == {"files.wipe": "always", "everything.*": "conversation"}
    assert loaded.trusted_servers == ["everything"]


def test_an_unknown_approval_policy_is_refused_by_name(dialog):
    made = dialog()
    made.form.editors["tool_approvals"].setText("files.wipe=sometimes")
    assert "tool_approvals" in made.problems_label.text() and not save_button(made).isEnabled()


def test_invalid_settings_show_their_problems_and_cannot_be_saved(dialog, tmp_path):
    made = dialog()
    made.form.editors["model_path"].setText(str(tmp_path / "missing.gguf"))
    made.form.editors["gemini_model"].setText("  ")
    assert "model file not found" in made.problems_label.text()
    assert "Gemini model name is empty" in made.problems_label.text()
    assert not save_button(made).isEnabled()
    assert made.save() is False and not settings_path().exists()
    made.form.editors["model_path"].setText("")
    made.form.editors["gemini_model"].setText("gemini-2.5-flash")
    assert made.problems_label.text() == "" and save_button(made).isEnabled()


def test_servers_can_be_added_disabled_imported_and_saved(dialog, tmp_path):
    made = dialog()
    table = made.servers
    assert table.put(EntryFields("echo", "python", "-m 'my server'", "A=1\nB=two"))
    claude = tmp_path / "claude_desktop_config.json"
    claude.write_text(json.dumps({"mcpServers": {"files": {"command": "npx", "args": ["-y", "fs"]}}}))
    assert table.import_from(claude) == ["files"]
    row = table.names().index("echo")
    table.table.item(row, 0).setCheckState(table.table.item(row, 0).checkState().Unchecked)
    save_button(made).click()
    saved = mcp_config.load_config()
    assert saved.servers["echo"].args == ("-m", "my server") and saved.servers["echo"].disabled
    assert dict(saved.servers["echo"].env) == {"A": "1", "B": "two"}
    assert saved.servers["files"].command == "npx"
    assert set(mcp_config.default_config().servers) <= set(saved.servers)


def test_a_bad_server_entry_is_refused_with_a_message(dialog, qtbot):
    table = dialog().servers
    with qtbot.waitSignal(table.problem, timeout=1000) as refused:
        assert not table.put(EntryFields("broken", "", "", "NOT A PAIR"))
    assert "broken" in refused.args[0]
    assert "broken" not in table.names()


def test_without_a_keyring_the_key_field_says_why_it_cannot_be_stored(dialog):
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        made = dialog()
        assert "No system keyring" in made.key_status.text()
        made.key_edit.setText("secret-key")
        assert made.save() is False
        assert "No system keyring" in made.problems_label.text()
        assert not settings_path().exists()
    finally:
        keyring.set_keyring(previous)


def test_gpu_line_reports_what_the_probe_found(dialog, qtbot, arun):
    made = dialog(probe=gpu.probe_gpu)
    qtbot.waitUntil(lambda: made.gpu_label.text() != "Checking for a GPU…", timeout=10_000)
    assert made.gpu_label.text() == gpu.describe(gpu.llama_offload_supported(), arun(gpu.nvidia_gpus()))


def test_test_connection_lists_the_servers_models(dialog, qtbot):
    from tests.llm.openai_fixture import FAKE_MODEL, FakeOpenAIServer

    with FakeOpenAIServer() as wire:
        made = dialog(Settings(openai_base_url=wire.base_url))
        made.openai.test_button.click()
        qtbot.waitUntil(lambda: made.openai.test_button.isEnabled(), timeout=10_000)
    assert made.openai.result.text() == f"Connected to {wire.base_url}: 1 model ({FAKE_MODEL})."


def test_test_connection_names_what_is_wrong(dialog, qtbot):
    made = dialog(Settings(openai_base_url="http://127.0.0.1:9/v1"))
    made.openai.test_button.click()
    qtbot.waitUntil(lambda: made.openai.test_button.isEnabled(), timeout=10_000)
    assert "Could not reach the model server at http://127.0.0.1:9/v1" in made.openai.result.text()


def test_editing_a_remote_entry_keeps_its_headers_placeholders_and_type(dialog):
    headers = {"Authorization": "Bearer ${API_TOKEN}"}
    entry = mcp_config.parse_entry(
        "older", {"url": "http://127.0.0.1:9/sse", "headers": headers, "type": "sse"}
    )
    table = dialog().servers
    table.apply(mcp_config.add_server(table.config, entry))
    assert table.put(EntryFields("older", url="http://127.0.0.1:8/sse"), replacing=entry)
    edited = table.config.servers["older"]
    assert (edited.url, dict(edited.headers), edited.type) == ("http://127.0.0.1:8/sse", headers, "sse")
