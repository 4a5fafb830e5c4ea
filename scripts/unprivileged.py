"""Run a command as an unprivileged user, for what refuses root (Qt WebEngine's Chromium sandbox).

Used as root only: the command runs as ``nobody`` through ``setpriv``, with a copy of this
Python's interpreter and standard library in a temporary folder (the original may sit in
root's home, which ``nobody`` cannot enter), and the virtual environment's packages and the
repository on ``PYTHONPATH`` (they must be world-readable, as a checkout under /work is).
The sandbox itself stays on: ``nobody`` gets user namespaces, which is what it needs.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Mapping, Sequence
from pathlib import Path

USER = "nobody"
_SKIPPED = {"site-packages", "test", "idlelib", "tkinter", "turtledemo", "ensurepip", "__pycache__"}


def why_not() -> str | None:
    """Why commands cannot be run unprivileged here, in one sentence; None when they can."""
    if os.geteuid() != 0:
        return "not running as root: run the command directly"
    try:
        pwd.getpwnam(USER)
    except KeyError:
        return f"there is no user {USER!r} to run as"
    if shutil.which("setpriv") is None or shutil.which("unshare") is None:
        return "setpriv and unshare (util-linux) are needed"
    probe = subprocess.run([*_drop(), "unshare", "-U", "true"], capture_output=True, check=False, timeout=30)
    if probe.returncode != 0:
        return f"user namespaces are not available to {USER!r}: {probe.stderr.decode().strip()}"
    return None


def _drop() -> list[str]:
    entry = pwd.getpwnam(USER)
    return ["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--clear-groups"]


def copy_python(folder: Path) -> Path:
    """This interpreter and its standard library under ``folder``, readable by anyone; its path."""
    prefix = Path(sys.base_prefix)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    target = folder / "python"
    (target / "bin").mkdir(parents=True)
    binary = target / "bin" / version
    shutil.copy2(Path(sys.base_exec_prefix) / "bin" / version, binary)
    shutil.copytree(
        prefix / "lib" / version,
        target / "lib" / version,
        ignore=lambda _dir, names: [n for n in names if n in _SKIPPED or n.startswith("config-")],
    )
    for shared in (prefix / "lib").glob(f"lib{version}.so*"):  # a shared-library build's libpython
        shutil.copy2(shared, target / "lib" / shared.name)
    _open_up(folder)
    return binary


def _open_up(folder: Path) -> None:
    for root, _dirs, files in os.walk(folder):
        os.chmod(root, 0o755)
        for name in files:
            path = Path(root) / name
            os.chmod(path, 0o755 if os.access(path, os.X_OK) else 0o644)


def run(
    argv: Sequence[str], folder: Path, env: Mapping[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """``argv`` as ``nobody``, with ``folder`` (made writable for it) as its home; a copied
    interpreter's libpython is found in ``folder/python/lib`` (its own run path is in root's home)."""
    os.chmod(folder, 0o777)
    environment = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(folder),
        "PYTHONPATH": os.pathsep.join(
            [sysconfig.get_paths()["purelib"], str(Path(__file__).resolve().parents[1])]
        ),
        "PYTHONDONTWRITEBYTECODE": "1",
        "LD_LIBRARY_PATH": str(folder / "python" / "lib"),
        **env,
    }
    return subprocess.run(
        [*_drop(), *argv],
        env=environment,
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )
