"""Whole tool results kept on disk when the model gets only the first megabyte.

Each result over the model's cap is written to one file in ``results/`` under the data folder,
named by the call's id, up to :data:`KEEP_MAX` characters (beyond that it is cut, and says so).
The folder is held to a total budget: after each write the oldest files are deleted until the
rest fit, so a server that returns huge results cannot fill the disk.
"""

from __future__ import annotations

import logging
import uuid
from pathlib import Path

from app import paths

logger = logging.getLogger(__name__)

KEEP_MAX = 50_000_000  # characters of one result kept on disk
BUDGET = 500_000_000  # bytes all kept results may take together


def results_dir() -> Path:
    return paths.data_dir() / "results"


def new_call_id() -> str:
    return f"call-{uuid.uuid4().hex[:16]}"


class KeptResults:
    """``keep(call_id, text)`` writes one result and returns its path (None when the disk refused)."""

    def __init__(self, folder: Path | None = None, *, keep_max: int = KEEP_MAX, budget: int = BUDGET) -> None:
        self.folder = folder if folder is not None else results_dir()
        self.keep_max, self.budget = keep_max, budget

    def keep(self, call_id: str, text: str) -> Path | None:
        path = self.folder / f"{call_id}.txt"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            path.write_text(self._cut(text), encoding="utf-8", errors="replace")
        except OSError:
            logger.warning("could not keep the whole result in %s", path, exc_info=True)
            return None
        self._rotate(keep=path)
        return path

    def _cut(self, text: str) -> str:
        if len(text) <= self.keep_max:
            return text
        return text[: self.keep_max] + f"\n[cut: {len(text):,} characters, the first {self.keep_max:,} kept]"

    def _rotate(self, keep: Path) -> None:
        """Delete the oldest kept results until all of them fit the budget; the newest always stays."""
        files = sorted(self._files(), key=lambda item: item[1])
        total = sum(size for _, _, size in files)
        for path, _, size in files:
            if total <= self.budget:
                break
            if path != keep:
                path.unlink(missing_ok=True)
                total -= size

    def _files(self) -> list[tuple[Path, float, int]]:
        found = []
        for path in self.folder.glob("call-*.txt"):
            try:
                stat = path.stat()
            except FileNotFoundError:  # another process rotated it away meanwhile
                continue
            found.append((path, stat.st_mtime, stat.st_size))
        return found
