"""Pins and the pinning policy on their own: fingerprints, the file, bundled servers."""

from __future__ import annotations

import json

import mcp_types

from app.mcp.pinning import Pinning
from app.mcp.pins import Pin, PinStore, default_path

SCHEMA = {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}


def tool(description: str = "Adds.", schema: dict | None = None, **extra) -> mcp_types.Tool:
    return mcp_types.Tool(name="add", description=description, input_schema=schema or SCHEMA, **extra)


def test_a_fingerprint_ignores_key_order_and_sees_every_pinned_field():
    reordered = {"properties": {"b": {"type": "number"}, "a": {"type": "number"}}, "type": "object"}
    assert Pin.of(tool()).sha256 == Pin.of(tool(schema=reordered)).sha256
    variants = [
        tool("Adds!"),
        tool(schema={"type": "object"}),
        tool(output_schema={"type": "object"}),
        tool(annotations=mcp_types.ToolAnnotations(destructive_hint=True)),
        tool(title="Add"),
    ]
    assert len({Pin.of(t).sha256 for t in [tool(), *variants]}) == 6


def test_a_lone_surrogate_in_a_description_still_pins():
    assert len(Pin.of(tool("bad \ud800 text")).sha256) == 64


def test_pins_written_by_one_process_are_seen_by_another():
    window, cli = Pinning(PinStore()), Pinning(PinStore())
    window.offered("s", [tool()])
    assert cli.offered("s", [tool("Adds, then steals.")]) == []  # the pin the window wrote holds
    assert json.loads(default_path().read_text())["servers"]["s"]["add"]["sha256"] == Pin.of(tool()).sha256


def test_a_bundled_tool_changed_under_a_new_version_is_accepted_and_under_the_same_version_held():
    Pinning(PinStore(), version="1.0").offered("calculator", [tool()], bundled=True)
    same = Pinning(PinStore(), version="1.0")
    assert same.offered("calculator", [tool("Adds, differently.")], bundled=True) == []
    updated = Pinning(PinStore(), version="1.1")
    assert len(updated.offered("calculator", [tool("Adds, differently.")], bundled=True)) == 1
    assert PinStore().get("calculator", "add") == Pin.of(tool("Adds, differently."), "1.1")


def test_a_third_party_tool_changed_under_a_new_version_is_still_held():
    Pinning(PinStore(), version="1.0").offered("weather", [tool()])
    assert Pinning(PinStore(), version="1.1").offered("weather", [tool("Adds, differently.")]) == []


def test_a_pins_file_of_another_shape_or_a_folder_is_a_sentence_not_a_traceback():
    path = default_path()
    path.parent.mkdir(parents=True)
    for body in ('{"version": 1, "servers": {"s": {"add": {"sha256": "0", "canonical": "{}"}}}}', "[]", "7"):
        path.write_text(body)
        store = PinStore()
        assert not store.readable and str(path) in store.problem
    path.unlink()
    path.mkdir()
    assert "cannot be read" in PinStore().problem


def test_a_diff_shows_the_schema_lines_that_changed():
    pinning = Pinning(PinStore())
    pinning.offered("s", [tool()])
    pinning.offered("s", [tool(schema={"type": "object", "properties": {"a": {"type": "string"}}})])
    diff = pinning.changed["s"]["add"].diff()
    assert diff[:2] == ["--- pinned", "+++ now"]
    assert '-        "type": "number"' in diff and '+        "type": "string"' in diff


def test_a_data_folder_that_is_a_file_pins_for_now_and_says_they_cannot_be_saved(tmp_path, monkeypatch):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the data folder should be")
    monkeypatch.setenv("CALCULON_DATA_DIR", str(blocked))
    pinning = Pinning(PinStore())
    assert len(pinning.offered("s", [tool()])) == 1
    assert "cannot be saved" in pinning.store.problem
    assert pinning.offered("s", [tool("Adds, then steals.")]) == []  # the pin holds for this run
    assert blocked.read_text() == "a file where the data folder should be"


def test_a_full_disk_is_a_sentence_and_the_pins_hold_in_memory(monkeypatch):
    """A full disk cannot be made here without root mounts: the write fails as it would (ENOSPC)."""
    import errno

    from app import paths

    def full_disk(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(paths, "atomic_write_json", full_disk)
    pinning = Pinning(PinStore())
    pinning.offered("s", [tool()])
    assert pinning.store.problem.endswith("(No space left on device); they hold for now")
    assert pinning.offered("s", [tool("Adds, then steals.")]) == []
