"""Whole results kept on disk: cut past their own cap, and the folder held to its budget."""

from __future__ import annotations

import os

from app.mcp.kept import KeptResults, new_call_id


def test_a_result_is_kept_whole_in_a_file_named_by_its_call(tmp_path):
    store = KeptResults(tmp_path / "results")
    call_id = new_call_id()
    path = store.keep(call_id, "x" * 1000 + "\u00e9")
    assert path == tmp_path / "results" / f"{call_id}.txt"
    assert path.read_text(encoding="utf-8") == "x" * 1000 + "\u00e9"


def test_a_result_over_the_keep_cap_is_cut_with_a_note():
    store = KeptResults(keep_max=100)
    path = store.keep("call-cut", "y" * 250)
    assert path is not None
    assert path.read_text() == "y" * 100 + "\n[cut: 250 characters, the first 100 kept]"


def test_the_oldest_results_are_deleted_once_the_folder_is_over_its_budget(tmp_path):
    store = KeptResults(tmp_path, budget=2500)
    paths = []
    for n in range(4):
        path = store.keep(f"call-{n}", str(n) * 1000)
        assert path is not None
        os.utime(path, (n, n))  # distinct ages, whatever the clock's resolution
        paths.append(path)
    assert [p.exists() for p in paths] == [False, False, True, True]
    assert store.keep("call-huge", "z" * 5000) is not None  # alone over the budget: still kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["call-huge.txt"]


def test_a_folder_that_cannot_be_written_keeps_nothing_and_says_why(tmp_path, caplog):
    blocker = tmp_path / "results"
    blocker.write_text("a file where the folder should be")
    assert KeptResults(blocker).keep("call-x", "text") is None
    assert "could not keep the whole result" in caplog.text
