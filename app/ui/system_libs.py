"""The system libraries Qt's X11 (xcb) window needs, and the Debian/Ubuntu package of each.

Pure Python, no Qt import: when one of these libraries is missing, importing or starting
Qt aborts with only "no Qt platform plugin could be initialized", so the window's start-up
check (:func:`window_problem`) runs before PySide6 is imported. ``scripts/qt_system_libs.py``,
run by ``make run``, installs what is missing from the same table.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

# Every system library that ldd lists for PySide6's xcb plugin, its GL integrations,
# QtCore/QtGui/QtWidgets and Qt WebEngine (MCP Apps), and for llama.cpp's libraries
# (tests/ui/test_system_libs.py checks them against dpkg), by soname.
# Debian 13 and Ubuntu 24.04 renamed a few (libglib2.0-0t64, libpng16-16t64); the new package
# provides the old name and apt-get installs it when asked for the old one.
PACKAGES: dict[str, str] = {
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libGLX.so.0": "libglx0",
    "libGLdispatch.so.0": "libglvnd0",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libXau.so.6": "libxau6",
    "libXcomposite.so.1": "libxcomposite1",
    "libXdamage.so.1": "libxdamage1",
    "libXdmcp.so.6": "libxdmcp6",
    "libXext.so.6": "libxext6",
    "libXfixes.so.3": "libxfixes3",
    "libXrandr.so.2": "libxrandr2",
    "libXrender.so.1": "libxrender1",
    "libXtst.so.6": "libxtst6",
    "libasound.so.2": "libasound2",
    "libbrotlicommon.so.1": "libbrotli1",
    "libbrotlidec.so.1": "libbrotli1",
    "libbsd.so.0": "libbsd0",
    "libc.so.6": "libc6",
    "libcap.so.2": "libcap2",
    "libcom_err.so.2": "libcom-err2",
    "libdbus-1.so.3": "libdbus-1-3",
    "libdl.so.2": "libc6",
    "libdrm.so.2": "libdrm2",
    "libexpat.so.1": "libexpat1",
    "libffi.so.8": "libffi8",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libgbm.so.1": "libgbm1",
    "libgcc_s.so.1": "libgcc-s1",
    "libgcrypt.so.20": "libgcrypt20",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgomp.so.1": "libgomp1",  # llama.cpp's OpenMP runtime: a bare Debian lacks it too
    "libgpg-error.so.0": "libgpg-error0",
    "libgssapi_krb5.so.2": "libgssapi-krb5-2",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libk5crypto.so.3": "libk5crypto3",
    "libkeyutils.so.1": "libkeyutils1",
    "libkrb5.so.3": "libkrb5-3",
    "libkrb5support.so.0": "libkrb5support0",
    "liblz4.so.1": "liblz4-1",
    "liblzma.so.5": "liblzma5",
    "libm.so.6": "libc6",
    "libmd.so.0": "libmd0",
    "libnspr4.so": "libnspr4",
    "libnss3.so": "libnss3",
    "libnssutil3.so": "libnss3",
    "libpcre2-8.so.0": "libpcre2-8-0",
    "libplc4.so": "libnspr4",
    "libplds4.so": "libnspr4",
    "libpng16.so.16": "libpng16-16",
    "libpthread.so.0": "libc6",
    "libresolv.so.2": "libc6",
    "libsmime3.so": "libnss3",
    "libstdc++.so.6": "libstdc++6",
    "libsystemd.so.0": "libsystemd0",
    "libudev.so.1": "libudev1",
    "libwayland-server.so.0": "libwayland-server0",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-dri3.so.0": "libxcb-dri3-0",
    "libxcb-glx.so.0": "libxcb-glx0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb.so.1": "libxcb1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbfile.so.1": "libxkbfile1",
    "libz.so.1": "zlib1g",
    "libzstd.so.1": "libzstd1",
}

_LOADER_ERROR = "error while loading shared libraries: "


@dataclass(frozen=True)
class Library:
    """One shared library a binary needs: where the loader found it, or why it could not."""

    name: str
    path: str | None = None
    problem: str = ""

    @property
    def loadable(self) -> bool:
        return self.path is not None

    @property
    def package(self) -> str | None:
        return PACKAGES.get(self.name)


def parse_ldd(text: str) -> list[Library]:
    """Each library named in ``ldd`` output, once and in order; the loader's errors count as missing."""
    found: dict[str, Library] = {}
    for line in text.splitlines():
        library = _parse_line(line.strip())
        if library is not None:
            found.setdefault(library.name, library)
    return list(found.values())


def _parse_line(line: str) -> Library | None:
    if _LOADER_ERROR in line:  # "BINARY: error while loading shared libraries: LIB: file too short"
        return loader_error(line.split(_LOADER_ERROR, 1)[1])
    name, arrow, target = line.partition(" => ")
    if not arrow:  # a binary's header, the vDSO or the loader itself
        return None
    if target.startswith("not found"):
        return Library(name, None, "not found")
    return Library(name, target.rsplit(" (0x", 1)[0])


def loader_error(message: str) -> Library:
    """``/dir/libY.so.1: file too short`` (the words of dlopen and ld.so) as the library it names."""
    where, _, why = message.strip().partition(": ")
    return Library(os.path.basename(where), None, why)


def ldd(binaries: Iterable[Path]) -> list[Library]:
    """The libraries these binaries need, resolved as the loader would in this environment."""
    done = subprocess.run(
        ["ldd", *map(str, binaries)], capture_output=True, text=True, check=False, timeout=60
    )
    return parse_ldd(done.stdout + done.stderr)


def unloadable(binaries: Iterable[Path]) -> list[Library]:
    return [library for library in ldd(binaries) if not library.loadable]


def pyside_dir() -> Path | None:
    """PySide6's folder, found without importing it (frozen builds included)."""
    spec = importlib.util.find_spec("PySide6")
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]) if locations else None


def xcb_plugin(pyside: Path) -> Path:
    return pyside / "Qt" / "plugins" / "platforms" / "libqxcb.so"


WEB_MODULES = ("QtWebEngineCore", "QtWebEngineWidgets", "QtWebChannel")


def window_binaries(pyside: Path) -> list[Path]:
    """What the window loads from PySide6: the xcb plugin, its GL integrations, the Qt modules used,
    and where PySide6-Addons is installed, Qt WebEngine and the process it renders MCP Apps in."""
    integrations = sorted((pyside / "Qt" / "plugins" / "xcbglintegrations").glob("*.so"))
    modules = [pyside / f"{name}.abi3.so" for name in ("QtCore", "QtGui", "QtWidgets", *WEB_MODULES)]
    renderer = pyside / "Qt" / "libexec" / "QtWebEngineProcess"
    return [path for path in (xcb_plugin(pyside), *integrations, *modules, renderer) if path.is_file()]


def app_binaries() -> list[Path]:
    """Everything the app loads that needs system libraries: the window's and llama.cpp's."""
    pyside = pyside_dir()
    llama = importlib.util.find_spec("llama_cpp")
    folders = [Path(folder) / "lib" for folder in llama.submodule_search_locations or []] if llama else []
    window = window_binaries(pyside) if pyside else []
    return window + [library for folder in folders for library in sorted(folder.glob("*.so"))]


def uses_xcb(environ: Mapping[str, str]) -> bool:
    """Whether Qt will pick its X11 platform: on Linux, with a display, unless told otherwise."""
    platform = environ.get("QT_QPA_PLATFORM", "").split(";")[0].partition(":")[0]
    return sys.platform.startswith("linux") and platform in ("", "xcb") and bool(environ.get("DISPLAY"))


def window_problem(environ: Mapping[str, str] = os.environ) -> str | None:
    """Why Qt's X11 window cannot start, in one sentence; None when it can or is not used.

    Loading the plugin is the cheap test (Qt loads it next anyway, and reuses what is
    loaded); only when that fails does ldd run, to name every missing library at once.
    """
    pyside = pyside_dir() if uses_xcb(environ) else None
    plugin = xcb_plugin(pyside) if pyside else None
    if plugin is None or not plugin.is_file():  # not X11, or no PySide6: its import error says more
        return None
    try:
        ctypes.CDLL(str(plugin))
    except OSError as exc:
        return describe(unloadable([plugin]) or [loader_error(str(exc))])
    return None


def x11_window_problem() -> str | None:
    """Why a real X11 window (with Qt WebEngine where installed) cannot start here; None when it can.

    For callers that choose X11 themselves (screenshots under Xvfb), whatever DISPLAY says.
    """
    pyside = pyside_dir()
    if pyside is None or not xcb_plugin(pyside).is_file():
        return "PySide6's xcb platform plugin is not installed"
    missing = unloadable(window_binaries(pyside))
    return describe(missing) if missing else None


def packages_for(missing: Iterable[Library]) -> list[str]:
    return sorted({library.package for library in missing if library.package})


def install_command(packages: Iterable[str]) -> str:
    return "sudo apt-get install -y " + " ".join(packages)


def describe(missing: list[Library], needs: str = "Qt's X11 platform plugin needs") -> str:
    """The missing libraries and what to do about them, as one line."""
    problems: dict[str, list[str]] = {}
    for library in missing:
        problems.setdefault(library.problem, []).append(library.name)
    names = "; ".join(f"{', '.join(group)} ({problem})" for problem, group in problems.items())
    sentence = f"{needs} system libraries that cannot be loaded: {names}."
    packages = packages_for(missing)
    unknown = [library.name for library in missing if library.package is None]
    if unknown:
        sentence += f" No Debian package is known for {', '.join(unknown)}."
    if packages and shutil.which("apt-get"):
        return f"{sentence} Install them with: {install_command(packages)}"
    if packages:
        return f"{sentence} Debian/Ubuntu call them {' '.join(packages)}; install your system's equivalent."
    return sentence
