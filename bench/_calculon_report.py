"""The Calculon bench's figures and tables: the badge's error rate first."""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Sequence
from typing import Any

from bench import _doc


@dataclasses.dataclass
class Result:
    label: str  # the model
    name: str  # the question set
    runs: list[Any]
    cold: list[float]  # seconds of `calculon ask` in a fresh process, where measured
    peer: list[Any] = dataclasses.field(default_factory=list)  # the raw peer on the same GGUF, if run


def _pct(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def figures(runs: Sequence[Any]) -> dict[str, Any]:
    seconds = [r.seconds for r in runs]
    verified = [r for r in runs if r.verified]
    return {
        "asked": len(runs),
        "verified": len(verified),
        "verified_wrong": sum(1 for r in verified if not r.correct),
        "correct_verified": sum(1 for r in verified if r.correct),
        "correct": sum(1 for r in runs if r.correct),
        "computed": sum(1 for r in runs if r.verdict == "computed"),
        # no tool computed the answer's number (the raw peer: no tool call at all)
        "uncalculated": sum(
            1
            for r in runs
            if r.verdict in ("not_calculated", "unchecked") or (r.verdict is None and not r.tool_calls)
        ),
        "unverified": sum(1 for r in runs if r.verdict == "unverified"),
        # labelled verified or computed though no tool gave a result: a badge with nothing behind it
        "hollow": sum(1 for r in runs if r.verdict in ("verified", "computed") and not r.results),
        "leaked": sum(len(r.leaked) for r in runs),
        "unbacked_anywhere": sum(len(r.independent) for r in runs),
        "failed": sum(1 for r in runs if r.error),
        "p50": statistics.median(seconds) if seconds else 0.0,
        "p95": _pct(seconds, 0.95),
        "calls": sum(len(r.tool_calls) for r in runs) / max(1, len(runs)),
        "capped": sum(r.capped_steps for r in runs),
    }


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({part / whole:.0%})" if whole else f"{part}/0"


def table(runs: Sequence[Any]) -> list[str]:
    lines = [
        "| category | verified but wrong / verified | correct and verified / asked | correct, any verdict"
        " | computed | unverified | unbacked shown as verified (of all unbacked) | failed | s p50 / p95 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    categories = list(dict.fromkeys(r.category for r in runs))
    groups = [(c, [r for r in runs if r.category == c]) for c in categories]
    for name, group in [*(groups if len(groups) > 1 else []), ("**all**", list(runs))]:
        f = figures(group)
        cells = [
            name,
            _share(f["verified_wrong"], f["verified"]),
            _share(f["correct_verified"], f["asked"]),
            _share(f["correct"], f["asked"]),
            str(f["computed"]),
            str(f["unverified"]),
            f"{f['leaked']} (of {f['unbacked_anywhere']})",
            str(f["failed"]),
            f"{f['p50']:.1f} / {f['p95']:.1f}",
        ]
        lines.append(f"| {' | '.join(cells)} |")
    return lines


def headline(results: Sequence[Result]) -> list[str]:
    """One row per model and set: the badge's error rate beside the rest, and the raw peer's."""
    lines = [
        "| model | set | right, any verdict | verified but wrong / verified | correct and verified"
        " | no calculation behind the answer | verified or computed with no tool result"
        " | s p50 / p95 warm | s p50 fresh process"
        " | raw peer: right | raw peer: no tool call | raw peer: s p50 |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        f = figures(r.runs)
        cold = f"{statistics.median(r.cold):.1f} (n={len(r.cold)})" if r.cold else "-"
        raw = figures(r.peer) if r.peer else None
        peer = (
            f" | {_share(raw['correct'], raw['asked'])} | {raw['uncalculated']} | {raw['p50']:.1f}"
            if raw
            else " | - | - | -"
        )
        lines.append(
            f"| {r.label} | {r.name} | {_share(f['correct'], f['asked'])}"
            f" | {_share(f['verified_wrong'], f['verified'])} | {_share(f['correct_verified'], f['asked'])}"
            f" | {f['uncalculated']} | {f['hollow']} | {f['p50']:.1f} / {f['p95']:.1f} | {cold}{peer} |"
        )
    return lines


def report(results: Sequence[Result], command: str) -> str:
    lines = [f"Command: `{command}`. Machine: 2 CPUs, load average {_doc.load_average()} at the end.", ""]
    lines += [*headline(results), ""]
    for r in results:
        lines += [f"#### {r.label}: {r.name}", "", *table(r.runs), "", *_misses(r.runs)]
    return "\n".join(lines)


def _misses(runs: Sequence[Any], shown: int = 6) -> list[str]:
    wrong = [r for r in runs if r.verified and not r.correct] + [
        r for r in runs if not r.correct and not r.verified
    ]
    if not wrong:
        return []
    rows = []
    for r in wrong[:shown]:
        answer = " ".join((r.answer or r.error).split())[:140]
        rows.append(f"- [{r.verdict}] {r.question[:160]} → `{answer}` {r.tool_calls}")
    return ["Misses (verified ones first), to read the figures against:", "", *rows, ""]


def write(heading: str, results: Sequence[Result], text: str) -> None:
    """Each run's block under its own title, so sets measured apart sit side by side."""
    sets = "+".join(dict.fromkeys(r.name for r in results))
    models = "+".join(dict.fromkeys(r.label for r in results))
    _doc.write_subsection(heading, f"### Run: {sets} on {models}\n\n{text}")
