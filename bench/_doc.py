"""Writing one benchmark's figures into docs/benchmarks.md, leaving every other section alone.

A section starts at its ``## Heading`` line and runs to the next ``## `` line.
A subsection (``### Title``) inside it is replaced the same way, so several
benchmarks can share one section.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DOC = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"


def _span(text: str, title: str, level: str, start: int = 0, stop: int | None = None) -> tuple[int, int]:
    """Where the block titled ``title`` lies in text[start:stop]: (-1, -1) when absent."""
    stop = len(text) if stop is None else stop
    begin = text.find(title + "\n", start, stop)
    if begin < 0:
        return -1, -1
    end = text.find("\n" + level + " ", begin + len(title), stop)
    return begin, stop if end < 0 else end + 1


def write_section(heading: str, body: str, path: Path = DOC) -> None:
    """Replace (or append) the section ``heading``; ``body`` is what follows the heading line."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    section = f"{heading}\n\n{body.strip()}\n"
    begin, end = _span(text, heading, "##")
    if begin < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        text = text[:begin] + section + ("\n" + text[end:] if end < len(text) else "")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def write_subsection(heading: str, body: str, path: Path = DOC) -> None:
    """Replace (or append) one ``### Title`` block of section ``heading``; ``body`` starts with that title."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    if _span(text, heading, "##")[0] < 0:
        text = text.rstrip("\n") + f"\n\n{heading}\n"
    start, stop = _span(text, heading, "##")
    title = body.split("\n", 1)[0]
    begin, end = _span(text, title, "###", start, stop)
    block = body.strip() + "\n"
    if begin < 0:
        text = text[:stop].rstrip("\n") + "\n\n" + block + ("\n" + text[stop:] if stop < len(text) else "")
    else:
        text = text[:begin] + block + ("\n" + text[end:] if end < len(text) else "")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def parser(name: str) -> argparse.ArgumentParser:
    """``python -m bench NAME``'s argument parser, with the ``--no-write`` every benchmark takes."""
    made = argparse.ArgumentParser(prog=f"python -m bench {name}")
    made.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    return made


def machine() -> str:
    """The last line of a report: the machine and its load, which every figure depends on."""
    return f"Machine: {os.cpu_count()} CPUs, load average {load_average()} at the end of the run."


def publish(heading: str, body: str, *, write: bool) -> int:
    """Print a benchmark's report and, unless told not to, put it in its section; the exit status."""
    print(body)
    if write:
        write_subsection(heading, body)
    return 0


def dump_runs(path: Path | None, results: Sequence[tuple[dict[str, str], Sequence[Any]]]) -> None:
    """Every run of every result as JSON at ``path`` (none: nothing), each result's labels beside its runs."""
    if path is None:
        return
    dump = [{**labels, "runs": [dataclasses.asdict(run) for run in runs]} for labels, runs in results]
    path.write_text(json.dumps(dump, indent=1, ensure_ascii=False))


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, for a report's machine line."""
    return " / ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"
