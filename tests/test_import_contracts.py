"""The import contracts in pyproject.toml bite: each one fails on a copy of app/ that breaks it.

``make lint`` runs ``lint-imports`` on the real tree; these tests keep that check honest,
so a contract that was mistyped or loosened into matching nothing cannot pass unnoticed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_copy(tmp_path: Path, violation: tuple[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``lint-imports`` over a copy of app/ (plus one added line) with the project's contracts."""
    shutil.copytree(ROOT / "app", tmp_path / "app", ignore=shutil.ignore_patterns("resources", "__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    if violation is not None:
        module, line = violation
        with (tmp_path / module).open("a", encoding="utf-8") as handle:
            handle.write(f"\n{line}\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}  # the copy, not the installed app, is analysed
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )


def test_the_unchanged_copy_keeps_every_contract(tmp_path):
    result = lint_copy(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "7 kept, 0 broken" in result.stdout


@pytest.mark.parametrize(
    ("contract", "module", "line", "reported"),
    [
        (
            "The core needs no layer above it",
            "app/core/violation.py",
            "from app.llm import registry",
            "app.core.violation -> app.llm.registry",
        ),
        ("Qt stays in app.ui", "app/mcp/violation.py", "import qasync", "app.mcp.violation -> qasync"),
        (
            "Backends and MCP know no front end",
            "app/llm/violation.py",
            "from app.cli import output",
            "app.llm.violation -> app.cli.output",
        ),
        (
            "Backends turn Calculon mode's reading into grammar and hold none of its policy",
            "app/llm/local/violation.py",
            "from app.calculon import transcript",
            "app.llm.local.violation -> app.calculon.transcript",
        ),
        (
            "The history knows no front end, model or MCP",
            "app/history/violation.py",
            "from app.mcp import config",
            "app.history.violation -> app.mcp.config",
        ),
        (
            "No import cycles between the top-level packages",
            "app/paths.py",
            "from app.core import events",
            ".paths -> .core",
        ),
        (
            "No import cycles inside core, llm.local or ui",
            "app/core/tools.py",
            "from app.core import toolrun",
            "No cycles are allowed in app.core.",
        ),
    ],
    ids=[
        "core-imports-llm",
        "qt-outside-ui",
        "llm-imports-cli",
        "local-imports-calculon",
        "history-imports-mcp",
        "cycle",
        "module-cycle",
    ],
)
def test_a_violation_fails_its_contract_naming_the_import(tmp_path, contract, module, line, reported):
    result = lint_copy(tmp_path, (module, line))
    assert result.returncode != 0
    assert f"{contract} BROKEN" in result.stdout, result.stdout
    assert reported in result.stdout
