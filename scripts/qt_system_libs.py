"""Install the system libraries the window needs; `make run` runs this before the app.

    python scripts/qt_system_libs.py [--no-install] [BINARY ...]

Checks PySide6's xcb plugin, its GL integrations, the Qt modules the app uses and llama.cpp's
libraries (or the BINARY files given) with ldd. Nothing missing: silent, exit 0. Otherwise,
as root or with passwordless sudo, installs their Debian/Ubuntu packages with apt-get; when
it may not (or with --no-install) it prints one line, the command to run, and exits 1 so
make stops there.
The library -> package table is app/ui/system_libs.py, shared with the window's own check.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from app.ui import system_libs

APT_LISTS = Path("/var/lib/apt/lists")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    binaries = args.binaries or system_libs.app_binaries()
    if not binaries or shutil.which("ldd") is None:  # nothing installed yet, or not glibc
        return 0
    missing = system_libs.unloadable(binaries)
    if not missing:
        return 0
    packages = system_libs.packages_for(missing)
    sudo = None if args.no_install else _apt_prefix()
    if packages and sudo is not None and _install(sudo, packages):
        missing = system_libs.unloadable(binaries)
    if missing:
        print(system_libs.describe(missing, needs="Calculon's window and local model need"), file=sys.stderr)
    return 1 if missing else 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-install", action="store_true", help="only print the command that installs them")
    parser.add_argument("binaries", nargs="*", type=Path, metavar="BINARY", help="check these instead")
    return parser


def _apt_prefix() -> list[str] | None:
    """How this user may run apt-get: as root, through passwordless sudo, or (None) not at all."""
    if shutil.which("apt-get") is None:
        return None
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo") and _succeeds(["sudo", "-n", "true"], quiet=True):
        return ["sudo", "-n"]
    return None


def _install(sudo: list[str], packages: list[str]) -> bool:
    install = [*sudo, "apt-get", "install", "-y", *packages]
    update = [*sudo, "apt-get", "update"]
    print(f"Installing the system libraries the app needs: {' '.join(install)}", file=sys.stderr)
    # A fresh system (a container image) has no package lists yet; old ones may name gone versions.
    if not any(APT_LISTS.glob("*_Packages*")) and not _succeeds(update):
        return False
    return _succeeds(install) or (_succeeds(update) and _succeeds(install))


def _succeeds(command: list[str], quiet: bool = False) -> bool:
    output = subprocess.DEVNULL if quiet else None
    environ = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    return subprocess.run(command, stdout=output, stderr=output, env=environ, check=False).returncode == 0


if __name__ == "__main__":
    sys.exit(main())
