"""Calculon mode end to end: arithmetic word questions through the real engine.

Each question goes through :class:`app.engine.Engine` in strict mode (the
Calculon system instruction, the provenance check, re-asks) with the bundled
calculator as the only MCP server. Reported: the share of final answers marked
verified, how many of those carry the right result, and the share of unbacked
numbers that reach the user marked verified. That last figure must be 0, and it
is recomputed here from the tool results and the question with a separate,
simpler check (:func:`independent_unbacked`), not taken from the checker.

    python -m bench calculon_verified [--backend local|scripted] [--limit N] [--no-write]

``--backend scripted`` replays canned answers (some made up on purpose) to test
the harness itself; only ``local`` runs write the figures to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import re
import sys
import tempfile
import time
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction
from pathlib import Path
from typing import Any

from bench import _doc

REPO_ROOT = Path(__file__).resolve().parents[1]
HEADING = "## Calculon mode"
CALCULATOR = {"command": "calculon", "args": ["serve", "calculator"]}  # the bundled server, as configured
SQRT2 = Fraction("1.4142135623730950488016887242096980785696718753769")

# (question, tool, arguments, true result): the tool call is what a scripted run replays.
QUESTIONS: list[tuple[str, str, dict[str, Any], Fraction]] = [
    ("What is 37 times 48?", "multiply", {"a": 37, "b": 48}, Fraction(1776)),
    ("What is 1234 plus 5678?", "add", {"a": 1234, "b": 5678}, Fraction(6912)),
    ("What is 1000 minus 387?", "subtract", {"a": 1000, "b": 387}, Fraction(613)),
    ("What is 144 divided by 12?", "divide", {"a": 144, "b": 12}, Fraction(12)),
    ("What is 2 to the power of 10?", "power", {"base": 2, "exponent": 10}, Fraction(1024)),
    ("What is the square root of 169?", "sqrt", {"x": 169}, Fraction(13)),
    ("What is 17 mod 5?", "mod", {"a": 17, "b": 5}, Fraction(2)),
    ("What is 7 divided by 8?", "divide", {"a": 7, "b": 8}, Fraction(7, 8)),
    ("What is 1 divided by 3?", "divide", {"a": 1, "b": 3}, Fraction(1, 3)),
    (
        "A shop sells pens at $1.25 each. How much do 3 pens cost?",
        "multiply",
        {"a": 3, "b": 1.25},
        Fraction(15, 4),
    ),
    (
        "A book costs $12.50 and a pen $2.75. What do they cost together?",
        "add",
        {"a": 12.5, "b": 2.75},
        Fraction(61, 4),
    ),
    ("I had $50 and spent $18.40. How much is left?", "subtract", {"a": 50, "b": 18.4}, Fraction(158, 5)),
    (
        "A car drives at 60 km/h for 2.5 hours. How far does it go?",
        "multiply",
        {"a": 60, "b": 2.5},
        Fraction(150),
    ),
    (
        "Four people split a $96 bill equally. How much does each pay?",
        "divide",
        {"a": 96, "b": 4},
        Fraction(24),
    ),
    ("What is 15% of 80?", "evaluate", {"expression": "80 * 15 / 100"}, Fraction(12)),
    (
        "A $120 jacket is 25% off. What is the sale price?",
        "evaluate",
        {"expression": "120 - 120 * 25 / 100"},
        Fraction(90),
    ),
    ("What is (12 + 8) times 3?", "evaluate", {"expression": "(12 + 8) * 3"}, Fraction(60)),
    ("What is 100 minus 7 times 6?", "evaluate", {"expression": "100 - 7 * 6"}, Fraction(58)),
    ("A room is 7 m by 9 m. What is its area in square metres?", "multiply", {"a": 7, "b": 9}, Fraction(63)),
    ("What is 3 squared plus 4 squared?", "evaluate", {"expression": "3^2 + 4^2"}, Fraction(25)),
    ("How many hours are there in 7 days of 24 hours?", "multiply", {"a": 7, "b": 24}, Fraction(168)),
    ("A box holds 12 eggs. How many eggs are in 15 boxes?", "multiply", {"a": 12, "b": 15}, Fraction(180)),
    ("What is 250 divided by 8?", "divide", {"a": 250, "b": 8}, Fraction(125, 4)),
    ("What is 999 times 999?", "multiply", {"a": 999, "b": 999}, Fraction(998001)),
    ("What is 45 plus 67 plus 89?", "evaluate", {"expression": "45 + 67 + 89"}, Fraction(201)),
    ("What is the average of 10, 20 and 60?", "evaluate", {"expression": "(10 + 20 + 60) / 3"}, Fraction(30)),
    ("A train has 8 cars of 52 seats. How many seats in all?", "multiply", {"a": 8, "b": 52}, Fraction(416)),
    ("What is 2 to the power of 16?", "power", {"base": 2, "exponent": 16}, Fraction(65536)),
    ("What is 81 divided by 4?", "divide", {"a": 81, "b": 4}, Fraction(81, 4)),
    ("What is 12.5 times 8?", "multiply", {"a": 12.5, "b": 8}, Fraction(100)),
    ("I save $35 a week. How much do I save in 52 weeks?", "multiply", {"a": 35, "b": 52}, Fraction(1820)),
    ("What is 1000 divided by 7?", "divide", {"a": 1000, "b": 7}, Fraction(1000, 7)),
    (
        "What is 5 times 4 times 3 times 2 times 1?",
        "evaluate",
        {"expression": "5 * 4 * 3 * 2 * 1"},
        Fraction(120),
    ),
    ("What is the square root of 2?", "sqrt", {"x": 2}, SQRT2),
]


# --- the independent check ---------------------------------------------------
# Deliberately separate from app.core.provenance: plain digit numbers only, read
# with one regular expression, matched exactly or as a half-up/half-even rounding.

_DIGITS = re.compile(r"(?<![\w.])(-|−)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(\s?%)?")
_SOURCE_FRACTION = re.compile(r"(?<![\w.])(\d+)/(\d+)")
_NOT_RESULTS = re.compile(r"^\s*\d+[.)]\s|step\s+\d+|\d+(?:st|nd|rd|th)\b", re.IGNORECASE | re.MULTILINE)
_CALC_NOTE = re.compile(r"\(rounded to \d+ significant digits\)")


def _numbers(text: str) -> list[tuple[str, Decimal, bool]]:
    """(as written, value, has a percent sign) for each plain digit number."""
    found = []
    for match in _DIGITS.finditer(text):
        sign, whole, decimals, percent = match.groups()
        value = Decimal((whole + (decimals or "")).replace(",", ""))
        found.append((match.group().strip(), -value if sign else value, bool(percent)))
    return found


def _source_values(sources: list[str]) -> set[Fraction]:
    values: set[Fraction] = set()
    for text in (_CALC_NOTE.sub("", s) for s in sources):
        values.update(Fraction(v) for _, v, _ in _numbers(text))
        values.update(Fraction(v) / 100 for _, v, percent in _numbers(text) if percent)
        values.update(Fraction(int(a), int(b)) for a, b in _SOURCE_FRACTION.findall(text) if int(b))
    return values


def _rounds_to(source: Fraction, shown: Decimal) -> bool:
    if shown == 0:
        return source == 0
    unit = Decimal(1).scaleb(shown.as_tuple().exponent)  # type: ignore[arg-type]
    with localcontext() as ctx:
        ctx.prec = 80
        exact = Decimal(source.numerator) / Decimal(source.denominator)
        return any(exact.quantize(unit, rounding) == shown for rounding in (ROUND_HALF_UP, ROUND_HALF_EVEN))


def _backed(value: Decimal, percent: bool, sources: set[Fraction]) -> bool:
    candidates = [value, value / 100] if percent else [value]
    return any(Fraction(c) in sources or any(_rounds_to(s, c) for s in sources) for c in candidates)


def independent_unbacked(answer: str, sources: list[str]) -> list[str]:
    """Digit numbers in ``answer`` that no source holds, exactly or correctly rounded."""
    values = _source_values(sources)
    answer = _NOT_RESULTS.sub(" ", answer)
    return [text for text, value, percent in _numbers(answer) if not _backed(value, percent, values)]


def holds(answer: str, expected: Fraction) -> bool:
    """Whether the answer states the true result, exactly or correctly rounded."""
    return any(Fraction(v) == expected or _rounds_to(expected, v) for _, v, _ in _numbers(answer))


# --- running the questions ---------------------------------------------------


@dataclasses.dataclass
class Run:
    question: str
    answer: str
    verified: bool | None
    unbacked: tuple[str, ...]
    tool_calls: int
    reasks: int
    seconds: float
    error: str
    independent: list[str]  # the independent check's unbacked numbers
    correct: bool

    @property
    def leaked(self) -> list[str]:
        """Numbers the independent check finds unbacked in an answer marked verified."""
        return self.independent if self.verified else []


def scripted_steps() -> list[list[Any]]:
    """For the harness test: every third answer first makes a number up, every fifth never stops."""
    from app.core.backend import ToolCallChunk
    from app.core.messages import ToolCall

    steps: list[list[Any]] = []
    for index, (_, tool, arguments, expected) in enumerate(QUESTIONS):
        steps.append([ToolCallChunk(ToolCall(f"q{index}", tool, arguments))])
        right = f"Calculon computes: {_plain(expected)}."
        made_up = f"Calculon computes: {_plain(expected + 1)}."
        if index % 5 == 4:
            steps += [[made_up]] * 3
        elif index % 3 == 2:
            steps += [[made_up], [right]]
        else:
            steps.append([right])
    return steps


def _plain(value: Fraction) -> str:
    """Exact decimal text when it is short, else four places (a correct rounding)."""
    with localcontext() as ctx:
        ctx.prec = 60
        decimal = (Decimal(value.numerator) / Decimal(value.denominator)).normalize()
        short = Fraction(decimal) == value and -decimal.as_tuple().exponent <= 6  # type: ignore[operator]
        return format(decimal, "f") if short else str(round(decimal, 4))


async def run_all(backend_name: str, limit: int) -> tuple[list[Run], str]:
    from app.llm.scripted import ScriptedBackend

    backend = ScriptedBackend(scripted_steps()) if backend_name == "scripted" else None
    with tempfile.TemporaryDirectory(prefix="calculon-bench-") as folder:
        servers = Path(folder) / "servers.json"
        servers.write_text(json.dumps({"mcpServers": {"calculator": CALCULATOR}}))
        engine = _engine(servers, backend)
        try:
            await engine.start(timeout=60)
            label = (await engine.ensure_backend()).model_label
            return [await ask(engine, q[0], q[3]) for q in QUESTIONS[:limit]], label
        finally:
            await engine.aclose()


def _engine(servers: Path, backend: Any) -> Any:
    """The real engine in strict mode: the Calculon prompt and check, the local model unless given one."""
    from app.core.prompts import system_prompt
    from app.core.provenance import CalculonVerifier
    from app.engine import Engine
    from app.settings import Settings

    settings = Settings(backend="local", strict=True)
    return Engine(
        settings,
        servers_path=servers,
        backend=backend,
        verifier=CalculonVerifier(),
        system_prompt=system_prompt(True),
    )


async def ask(engine: Any, question: str, expected: Fraction) -> Run:
    from app.core import events as ev

    started = time.perf_counter()
    outcome = await engine.ask(question)
    engine.session.reset()  # each question stands alone
    seconds = time.perf_counter() - started
    sources = [question, *(c.result for c in outcome.tool_calls if not c.is_error)]
    reasks = sum(1 for e in outcome.events if isinstance(e, ev.CheckFinished) and e.will_reask)
    independent = independent_unbacked(outcome.answer, sources) if outcome.answer else []
    return Run(
        question,
        outcome.answer,
        outcome.verified,
        outcome.unbacked,
        len(outcome.tool_calls),
        reasks,
        seconds,
        outcome.error,
        independent,
        holds(outcome.answer, expected),
    )


# --- reporting ---------------------------------------------------------------


def summary(runs: list[Run]) -> dict[str, Any]:
    verified = [r for r in runs if r.verified]
    unbacked_total = sum(len(r.independent) for r in runs)
    leaked = sum(len(r.leaked) for r in runs)
    return {
        "questions": len(runs),
        "answered": sum(1 for r in runs if r.answer and not r.error),
        "verified": len(verified),
        "verified_correct": sum(1 for r in verified if r.correct),
        "unbacked_in_final_answers": unbacked_total,
        "unbacked_marked_verified": leaked,
        "reasks": sum(r.reasks for r in runs),
        "tool_calls": sum(r.tool_calls for r in runs),
        "errors": sum(1 for r in runs if r.error),
        "seconds_median": sorted(r.seconds for r in runs)[len(runs) // 2] if runs else 0.0,
        "example": next(([r.question, r.answer or r.error] for r in runs if not r.verified), None),
    }


def report(s: dict[str, Any], label: str, command: str) -> str:
    n = s["questions"] or 1
    unbacked = s["unbacked_in_final_answers"]
    leak = f"{s['unbacked_marked_verified']} of {unbacked}" + (
        f" ({s['unbacked_marked_verified'] / unbacked:.0%})" if unbacked else ""
    )
    return "\n".join(
        [
            f"Command: `{command}` ({s['questions']} arithmetic word questions, strict mode,"
            f" model: {label}).",
            "",
            f"- Final answers marked verified: **{s['verified']}/{s['questions']}"
            f" ({s['verified'] / n:.0%})**;"
            f" {s['verified_correct']} of them state the true result.",
            f"- Unbacked numbers reaching the user marked verified: **{leak}**"
            " (recomputed by the bench's own digit check from the question and the tool results).",
            f"- Answers given: {s['answered']}; turns that failed: {s['errors']}; re-asks: {s['reasks']};"
            f" tool calls: {s['tool_calls']}; median {s['seconds_median']:.1f} s per question.",
            "",
            "An answer counts as given when the turn ended with text; a turn fails when the model reaches no"
            " answer within the round cap (8 steps) or the backend errs. The independent check reads digit"
            " numbers only (no number words), so it is a floor on leaks, not a second proof.",
            *_example(s["example"]),
        ]
    )


def _example(example: list[str] | None) -> list[str]:
    """The first answer that was not verified, so the figures can be read against what it says."""
    if example is None:
        return []
    question, answer = example
    shown = " ".join(answer.split())
    shown = shown if len(shown) <= 240 else shown[:240].rstrip() + " …"
    return ["", f'First answer not verified, to "{question}": `{shown}`']


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench calculon_verified")
    parser.add_argument("--backend", choices=("local", "scripted"), default="local")
    parser.add_argument("--limit", type=int, default=len(QUESTIONS))
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--json", type=Path, help="also write every run to this file")
    args = parser.parse_args(sys.argv[1:])
    runs, label = asyncio.run(run_all(args.backend, args.limit))
    figures = summary(runs)
    for run in runs:
        mark = {True: "verified", False: "UNVERIFIED", None: "no answer"}[run.verified]
        print(f"[{mark}] {run.question} -> {run.answer or run.error!r} {list(run.unbacked) or ''}")
    command = "python -m bench calculon_verified" + (
        f" --limit {args.limit}" if args.limit < len(QUESTIONS) else ""
    )
    text = report(figures, label, command)
    print("\n" + text)
    if args.json:
        args.json.write_text(json.dumps([dataclasses.asdict(r) for r in runs], indent=1, ensure_ascii=False))
    if args.backend == "local" and not args.no_write:
        _doc.write_section(HEADING, text)
    return 1 if figures["unbacked_marked_verified"] else 0
