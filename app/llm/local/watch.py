"""Streaming text while watching for markers that may arrive split across tokens."""

from __future__ import annotations

from collections.abc import Iterable


class MarkerWatch:
    """Feed text as it comes; get back what is safe to show now.

    Text that could be the start of a marker (``<tool`` before ``_call>``) is
    held back until it is clearly not one, so a marker never leaks into the
    streamed answer.
    """

    def __init__(self, markers: Iterable[str]):
        self.markers = tuple(m for m in markers if m)
        self._pending = ""

    def feed(self, text: str) -> tuple[str, str | None, str]:
        """(text to show, the marker found or None, the text after that marker)."""
        self._pending += text
        found = self._earliest()
        if found is not None:
            index, marker = found
            before, after = self._pending[:index], self._pending[index + len(marker) :]
            self._pending = ""
            return before, marker, after
        keep = self._held_tail()
        ready = self._pending[: len(self._pending) - keep]
        self._pending = self._pending[len(ready) :]
        return ready, None, ""

    def flush(self) -> str:
        rest, self._pending = self._pending, ""
        return rest

    def _earliest(self) -> tuple[int, str] | None:
        hits = [(self._pending.find(m), m) for m in self.markers]
        hits = [(i, m) for i, m in hits if i >= 0]
        return min(hits) if hits else None

    def _held_tail(self) -> int:
        """Length of the longest tail of the pending text that begins some marker."""
        longest = 0
        for marker in self.markers:
            for size in range(min(len(marker) - 1, len(self._pending)), longest, -1):
                if self._pending.endswith(marker[:size]):
                    longest = size
                    break
        return longest
