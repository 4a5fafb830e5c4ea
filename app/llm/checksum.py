"""A file's SHA-256, read in blocks: model files are hundreds of megabytes; and the stamp beside
a checked file (size, mtime, hash) that spares hashing it again on every start."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

BLOCK = 1024 * 1024


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(BLOCK):
            digest.update(block)
    return digest.hexdigest()


def stamp_matches(stamp: Path, target: Path, sha256: str) -> bool:
    try:
        recorded = json.loads(stamp.read_text(encoding="utf-8"))
        info = target.stat()
    except (OSError, ValueError):
        return False
    return bool(recorded == {"size": info.st_size, "mtime_ns": info.st_mtime_ns, "sha256": sha256})


def write_stamp(stamp: Path, target: Path, sha256: str) -> None:
    info = target.stat()
    stamp.write_text(json.dumps({"size": info.st_size, "mtime_ns": info.st_mtime_ns, "sha256": sha256}))
