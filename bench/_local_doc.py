"""Writing one ``### `` block of the "Local model" section of docs/benchmarks.md, leaving the rest alone."""

from __future__ import annotations

from bench._doc import write_subsection

HEADING = "## Local model"


def write_local_subsection(body: str) -> None:
    """``body`` starts with its ``### Title`` line; a block with that title is replaced, else appended."""
    write_subsection(HEADING, body)
