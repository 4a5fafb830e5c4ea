"""The tests' cache folder for what is fetched from a package registry once per machine (npm
packages, a GGUF, chat templates): outside the tests' temporary folders, so a run reuses it."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path


def machine_cache(name: str) -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "calculon-tests" / name


@contextlib.contextmanager
def machine_cache_lock(name: str) -> Iterator[None]:
    """Held while one process fills ``machine_cache(name)``: the suite runs in several worker
    processes, and two npm installs into one folder at once would leave a broken one for every
    later run on the machine. A second worker waits, then finds the folder filled."""
    lock = machine_cache(name).with_name(f"{name}.lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with held(lock):
        yield


@contextlib.contextmanager
def held(lock: Path) -> Iterator[None]:
    """An exclusive lock on the file ``lock`` (made if missing), for as long as the block runs."""
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
