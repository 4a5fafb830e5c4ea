"""Writing one ``### `` block of the "Local model" section of docs/benchmarks.md, leaving the rest alone."""

from __future__ import annotations

from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
HEADING = "## Local model"


def write_local_subsection(body: str, path: Path = DOC) -> None:
    """``body`` starts with its ``### Title`` line; a block with that title is replaced, else appended."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    start = text.find(HEADING + "\n")
    if start < 0:
        text = text.rstrip("\n") + f"\n\n{HEADING}\n"
        start = text.find(HEADING + "\n")
    end = text.find("\n## ", start + len(HEADING))
    end = len(text) if end < 0 else end + 1
    section = _with_block(text[start:end], body.rstrip("\n"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text[:start] + section + text[end:], encoding="utf-8")


def _with_block(section: str, body: str) -> str:
    title = body.split("\n", 1)[0]
    begin = section.find(title + "\n")
    if begin < 0:
        return section.rstrip("\n") + "\n\n" + body + "\n"
    finish = section.find("\n### ", begin + len(title))
    rest = "\n" if finish < 0 else section[finish:]
    return section[:begin] + body + "\n" + rest
