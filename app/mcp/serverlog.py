"""One server's log file: what it wrote on stderr, timestamped, capped and rotated.

A server that floods stderr must not fill the disk: past ``max_bytes`` the file becomes
``NAME.log.1`` (replacing the previous one) and a fresh file starts, so a server's logs never
take more than twice the cap.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import IO

logger = logging.getLogger(__name__)

MAX_LOG_BYTES = 5 * 1024 * 1024


class ServerLog:
    def __init__(self, path: Path, max_bytes: int = MAX_LOG_BYTES) -> None:
        self.path, self.max_bytes = path, max_bytes
        self._file: IO[str] | None = None
        self._size = 0

    def open(self, header: str) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8", errors="backslashreplace")
            self._size = self._file.tell()
        except OSError:
            logger.warning("cannot write the server log %s", self.path, exc_info=True)
            return
        self.write(f"--- {header}")

    def write(self, line: str) -> None:
        if self._file is None:
            return
        text = f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}\n"
        if self._size + len(text) > self.max_bytes:
            self._rotate()
        if self._file is not None:
            self._file.write(text)
            self._file.flush()
            self._size += len(text)

    def _rotate(self) -> None:
        self.close()
        try:
            os.replace(self.path, self.path.with_name(self.path.name + ".1"))
            self._file = self.path.open("w", encoding="utf-8", errors="backslashreplace")
        except OSError:
            logger.warning("cannot rotate the server log %s; logging stops", self.path, exc_info=True)
        self._size = 0

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
