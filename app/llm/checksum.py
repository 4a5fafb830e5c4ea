"""A file's SHA-256, read in blocks: model files are hundreds of megabytes."""

from __future__ import annotations

import hashlib
from pathlib import Path

BLOCK = 1024 * 1024


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(BLOCK):
            digest.update(block)
    return digest.hexdigest()
