"""scripts/qt_system_libs.py, the step of `make run` that installs Qt's system libraries, run for real."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.ui import system_libs
from tests.ui.test_system_libs import PLUGIN, broken_library_env

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "qt_system_libs.py"


def run_script(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(SCRIPT), *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.skipif(shutil.which("apt-get") is None, reason="the instruction is apt-get's")
def test_when_it_may_not_install_it_prints_the_one_command_and_fails(tmp_path):
    run = run_script("--no-install", str(PLUGIN), env=broken_library_env(tmp_path / "lib"))
    assert run.returncode == 1
    assert run.stdout == ""
    assert run.stderr.splitlines() == [
        "Calculon's window and local model need system libraries that cannot be loaded: "
        "libxcb-cursor.so.0 (file too short). Install them with: sudo apt-get install -y libxcb-cursor0"
    ]


def test_with_nothing_missing_it_is_silent():
    python = Path(sys.executable).resolve()
    assert not system_libs.unloadable([python])
    run = run_script("--no-install", str(python))
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
