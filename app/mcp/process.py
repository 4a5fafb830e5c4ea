"""The environment a stdio server's process gets (starting, watching and stopping it:
:mod:`app.children`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

# Inherited from our own environment because programs need them to run, and none
# of them is a secret. Everything else a server needs must be named in its config.
_SAFE_VARS_POSIX = (
    *("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"),
    *("LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ"),
)
_SAFE_VARS_WINDOWS = (
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PATHEXT",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "TMP",
    "USERNAME",
    "USERPROFILE",
)


def child_environment(extra: Mapping[str, str]) -> dict[str, str]:
    """The safe subset of our environment plus exactly what the config names."""
    names = _SAFE_VARS_WINDOWS if sys.platform == "win32" else _SAFE_VARS_POSIX
    # A value starting with "()" is an exported shell function: never pass those on.
    env = {k: v for k in names if (v := os.environ.get(k)) is not None and not v.startswith("()")}
    return env | dict(extra)
