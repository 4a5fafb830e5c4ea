"""The packaged executable: build it with PyInstaller, then run it as a user would.

Slow (a minute or more of building), so it is marked; CI runs it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def frozen_app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("pyinstaller")
    command = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN"]
    command += ["--distpath", str(work / "dist"), "--workpath", str(work / "build"), "pyinstaller.spec"]
    subprocess.run(command, cwd=ROOT, check=True, timeout=1800)
    executable = work / "dist" / "calculon" / "calculon"
    assert executable.is_file()
    return executable


def _user_env(home: Path) -> dict[str, str]:
    """A clean user: own config and cache, no display, none of the project's virtual env."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(
        QT_QPA_PLATFORM="offscreen",
        CALCULON_CONFIG_DIR=str(home / "config"),
        CALCULON_CACHE_DIR=str(home / "cache"),
    )
    return env


def test_frozen_self_test_starts_every_bundled_server_from_the_executable(frozen_app, tmp_path):
    run = subprocess.run(
        [str(frozen_app), "--self-test"], env=_user_env(tmp_path), capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "(frozen," in run.stdout
    for check in (
        "calculator.divide: 0.125",
        "converter.celsius_to_fahrenheit: 212",
        "default model: SmolLM2-135M-Instruct",
        "tool search table: bundled, static-",  # a first question does not wait for it
    ):
        assert check in run.stdout


def test_frozen_window_opens_loads_the_bundled_model_and_closes_itself(frozen_app, tmp_path):
    run = subprocess.run(
        [str(frozen_app), "--quit-after", "0.5"],
        env=_user_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    # The window saves its geometry when it closes: proof that it was really shown.
    assert (tmp_path / "config" / "window.ini").is_file()
    # The bundled model was used in place: nothing was assembled into the user's cache.
    assert not list((tmp_path / "cache").rglob("*.gguf"))
