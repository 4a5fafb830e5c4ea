"""The bad-input bench's own checks, with no model: each scenario's workspace is broken the way it
says, so a "handled" in its table could have been a failure; and its judge of a run."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bench import _real_tasks_workspace as ws
from bench.bad_input import MISSING, SCENARIOS, Outcome, _snapshot

BY_NAME = {s.name: s for s in SCENARIOS}


def _project(tmp_path: Path, name: str) -> Path:
    project = ws.build(tmp_path / name)
    setup = BY_NAME[name].setup
    if setup:
        setup(project)
    return project


def test_the_conflicted_repository_is_mid_merge_with_notes_unmerged(tmp_path):
    project = _project(tmp_path, "conflicted-repository")
    assert (project / ".git" / "MERGE_HEAD").exists()
    assert "UU notes.txt" in ws.git(project, "status", "--porcelain")
    assert "<<<<<<<" in (project / "notes.txt").read_text()


def test_the_locked_database_refuses_a_write_while_the_turn_runs(tmp_path):
    project = _project(tmp_path, "locked-database")
    with BY_NAME["locked-database"].during(project):  # type: ignore[misc]
        writer = sqlite3.connect(project / "shop.db", timeout=0.1)
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            writer.execute("INSERT INTO products (name) VALUES ('lamp')")
        writer.close()
    assert ws.query(project, "SELECT COUNT(*) FROM products WHERE name = 'lamp'") == [(0,)]


def test_the_corrupt_database_is_not_one(tmp_path):
    project = _project(tmp_path, "corrupt-database")
    with pytest.raises(sqlite3.DatabaseError, match="not a database"):
        ws.query(project, "SELECT COUNT(*) FROM products")


def test_the_missing_server_names_a_package_that_is_not_the_reference_one():
    assert "server-filesystem-that-does-not-exist" in MISSING


def test_a_commit_or_a_changed_file_changes_the_snapshot(tmp_path):
    project = _project(tmp_path, "outside-roots")
    before = _snapshot(project)
    (project / "notes.txt").write_text("changed\n")
    assert _snapshot(project) != before
    ws.run_git(project, "commit", "-qam", "Change notes")
    assert _snapshot(project) != before


@pytest.mark.parametrize(
    ("change", "passed"),
    [
        ({}, True),
        ({"said": False}, False),  # the answer never says what went wrong
        ({"verified": True}, False),
        ({"unapproved": 1}, False),
        ({"changed_unasked": True}, False),
        ({"ended": False}, False),
    ],
)
def test_a_run_is_handled_only_when_every_check_holds(change, passed):
    fields = dict(ended=True, said=True, verified=False, unapproved=0, changed_unasked=False)
    outcome = Outcome("x", seconds=1.0, answer="", calls=[], **{**fields, **change})  # type: ignore[arg-type]
    assert outcome.passed is passed
