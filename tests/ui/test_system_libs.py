"""The xcb plugin's system libraries: real ldd output, the package table, the window's start-up check."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.ui import system_libs
from app.ui.system_libs import Library, parse_ldd

REPO_ROOT = Path(__file__).resolve().parents[2]
PYSIDE = system_libs.pyside_dir()
assert PYSIDE is not None
PLUGIN = system_libs.xcb_plugin(PYSIDE)


def run_ldd(*binaries: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(["ldd", *map(str, binaries)], capture_output=True, text=True, env=env, check=False)
    return done.stdout + done.stderr


def broken_library_env(folder: Path, soname: str = "libxcb-cursor.so.0") -> dict[str, str]:
    """The environment with an empty, unloadable ``soname`` first on the loader's search path."""
    folder.mkdir(exist_ok=True)
    (folder / soname).write_bytes(b"")
    return {**os.environ, "LD_LIBRARY_PATH": str(folder)}


def dpkg_owners(soname: str) -> set[str]:
    done = subprocess.run(["dpkg", "-S", f"*/{soname}"], capture_output=True, text=True, check=False)
    return {line.split(":")[0] for line in done.stdout.splitlines()}


def test_every_library_in_the_plugins_ldd_output_is_parsed_with_its_path():
    text = run_ldd(PLUGIN)
    listed = {line.split()[0] for line in text.splitlines() if " => " in line}
    libraries = parse_ldd(text)
    assert {library.name for library in libraries} == listed
    assert "libxcb.so.1" in listed and "libQt6XcbQpa.so.6" in listed
    for library in libraries:
        assert library.path is None or Path(library.path).exists(), library
        assert library.loadable == (library.problem == "")


@pytest.mark.skipif(shutil.which("dpkg") is None, reason="the package check needs dpkg")
def test_each_system_library_of_the_app_maps_to_the_package_that_owns_it():
    binaries = system_libs.app_binaries()
    assert PLUGIN in binaries and any(path.name == "libllama.so" for path in binaries)
    libraries = parse_ldd(run_ldd(*binaries))
    system = [lib for lib in libraries if not (lib.path or "").startswith(sys.prefix)]  # not the venv's own
    assert len(system) > 30
    for library in system:
        assert library.package is not None, f"{library.name} has no package in the table"
        if library.loadable:
            assert library.package in dpkg_owners(library.name), library


def test_a_library_the_loader_cannot_load_is_reported_with_the_loaders_reason(tmp_path):
    text = run_ldd(PLUGIN, env=broken_library_env(tmp_path / "lib"))
    cursor = next(lib for lib in parse_ldd(text) if lib.name == "libxcb-cursor.so.0")
    assert cursor == Library("libxcb-cursor.so.0", None, "file too short")
    assert system_libs.packages_for([cursor]) == ["libxcb-cursor0"]


def test_the_check_runs_only_when_qt_will_use_x11():
    linux = sys.platform.startswith("linux")
    assert system_libs.uses_xcb({"DISPLAY": ":0"}) == linux
    assert system_libs.uses_xcb({"DISPLAY": ":0", "QT_QPA_PLATFORM": ""}) == linux  # as `make run` sets it
    assert system_libs.uses_xcb({"DISPLAY": ":0", "QT_QPA_PLATFORM": "xcb"}) == linux
    assert not system_libs.uses_xcb({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"})
    assert not system_libs.uses_xcb({"QT_QPA_PLATFORM": "xcb"})
    assert system_libs.window_problem({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"}) is None


def test_without_apt_get_the_message_names_the_libraries_and_their_debian_packages(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)  # a system without apt-get
    message = system_libs.describe([Library("libxcb-icccm.so.4", None, "not found"), Library("libfoo.so.1")])
    assert "libxcb-icccm.so.4 (not found)" in message and "libxcb-icccm4" in message
    assert "No Debian package is known for libfoo.so.1" in message and "apt-get" not in message


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the xcb platform is Linux's")
def test_the_window_exits_with_3_naming_the_library_and_package_instead_of_qts_abort(tmp_path):
    env = broken_library_env(tmp_path / "lib")
    env.update(QT_QPA_PLATFORM="xcb", DISPLAY=":59999")  # no such display: reaching Qt would abort
    run = subprocess.run(
        [sys.executable, "-m", "app"], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 3, run.stderr
    assert "libxcb-cursor.so.0 (file too short)" in run.stderr
    assert "sudo apt-get install -y libxcb-cursor0" in run.stderr
    assert "Qt platform plugin" not in run.stderr and "could not connect" not in run.stderr.lower()


def test_a_real_x11_window_is_refused_ahead_naming_what_xvfb_alone_does_not_bring(tmp_path, monkeypatch):
    # The screenshot under Xvfb picks X11 itself, so DISPLAY and QT_QPA_PLATFORM are not asked.
    monkeypatch.setenv("LD_LIBRARY_PATH", str(broken_library_env(tmp_path / "lib")["LD_LIBRARY_PATH"]))
    problem = system_libs.x11_window_problem()
    assert problem is not None and "libxcb-cursor.so.0 (file too short)" in problem
    assert "libxcb-cursor0" in problem
