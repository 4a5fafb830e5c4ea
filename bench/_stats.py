"""Both sides' medians and the paired ratio: the figures every ours-against-raw table reports.

A ratio of two medians compares two samples summarised apart, so drift in machine
load over a run (warm caches, another program starting) can favour whichever side
happened to run while it was quiet. The paired ratio divides each of our runs by the
raw run made right beside it (``ours_i / raw_i``) and takes the median of those
quotients. The sides take turns at going first (:func:`order`), and the paired ratio
over each half is kept, so a first-mover effect shows up instead of hiding.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Sequence

SIDES = ("ours", "raw")


def note(sides: tuple[str, str] = SIDES) -> str:
    """The sentence that says what a paired ratio is, for under a table."""
    return (
        f"Paired ratio: the median over pairs of {sides[0]}_i / {sides[1]}_i, each pair run back to back "
        "with the sides taking turns at going first; not the ratio of the two medians."
    )


NOTE = note()


def order(pair: int, sides: tuple[str, str] = SIDES) -> tuple[str, str]:
    """Which side runs first in pair ``pair``: the first side in even pairs, the second in odd ones."""
    return sides if pair % 2 == 0 else (sides[1], sides[0])


def first_flags(pairs: int, per_round: int = 1) -> list[bool]:
    """Whether ours went first in each pair, for ``per_round`` pairs per round of :func:`order`."""
    return [(i // per_round) % 2 == 0 for i in range(pairs)]


@dataclasses.dataclass(frozen=True)
class Paired:
    ours: float  # median of our samples
    raw: float  # median of the raw samples
    ratio: float  # median over pairs of ours_i / raw_i
    pairs: int
    ours_first: float | None  # the paired ratio over the pairs where ours ran first
    raw_first: float | None  # ... and where raw ran first


def paired(ours: Sequence[float], raw: Sequence[float], ours_went_first: Sequence[bool] = ()) -> Paired:
    """The medians and the paired ratio; ``ours_went_first`` defaults to :func:`first_flags`."""
    if len(ours) != len(raw) or not ours:
        raise ValueError(f"paired samples must be equal in number and not empty ({len(ours)}, {len(raw)})")
    flags = list(ours_went_first) or first_flags(len(ours))
    quotients = [a / b for a, b in zip(ours, raw, strict=True)]
    return Paired(
        ours=statistics.median(ours),
        raw=statistics.median(raw),
        ratio=statistics.median(quotients),
        pairs=len(quotients),
        ours_first=_median_where(quotients, flags, True),
        raw_first=_median_where(quotients, flags, False),
    )


def p95(samples: Sequence[float]) -> float:
    """The 95th percentile, nearest rank below: the slow end each side reports beside its median."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def _median_where(values: Sequence[float], flags: Sequence[bool], wanted: bool) -> float | None:
    chosen = [v for v, flag in zip(values, flags, strict=True) if flag is wanted]
    return statistics.median(chosen) if chosen else None


def sentence(p: Paired, unit: str = "", digits: int = 2, ratio_digits: int = 3) -> str:
    """``ours median 1.02 s, raw median 0.99 s; paired ratio ours/raw **1.029** (5 pairs; ...)``."""
    space = " " if unit and unit[0].isalnum() else ""
    ours, raw = (f"{value:.{digits}f}{space}{unit}" for value in (p.ours, p.raw))
    return (
        f"ours median {ours}, raw median {raw}; paired ratio ours/raw **{p.ratio:.{ratio_digits}f}** "
        f"({p.pairs} pairs; {by_first(p, ratio_digits)})"
    )


def by_first(p: Paired, digits: int = 3, sides: tuple[str, str] = SIDES) -> str:
    """``ours first 1.01, raw first 1.04``: the paired ratio over each half of the pairs."""
    return f"{sides[0]} first {_fmt(p.ours_first, digits)}, {sides[1]} first {_fmt(p.raw_first, digits)}"


def cells(p: Paired, digits: int = 2, ratio_digits: int = 3) -> str:
    """Three table cells: our median, the raw median, the paired ratio (bold)."""
    return f"{p.ours:.{digits}f} | {p.raw:.{digits}f} | **{p.ratio:.{ratio_digits}f}**"


def _fmt(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"
