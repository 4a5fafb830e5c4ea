"""Calculator exactness: a seeded arithmetic set sent through the real calculator over stdio.

Operands have 2, 4, 8, 16 or 32 significant digits (some with a decimal point,
some negative); each size gets 50 additions, subtractions, multiplications,
divisions and mixed expressions. Every answer is checked against
:mod:`fractions`: exact results must equal the true value; inexact divisions
must carry the true fraction and the correctly rounded decimal. Beside it, the
same set computed with Python floats shows what the calculator guards against.
Timing: each binary call paired with the same operation done with ``Fraction``
in-process, right beside it (the side going first alternating), reported as both
medians and the paired ratio.

    python -m bench calculator_exactness [--per-cell N] [--seed S] [--no-write]
"""

from __future__ import annotations

import argparse
import operator
import random
import sys
import time
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, NamedTuple

import anyio
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult, TextContent

from bench import _stats
from bench._doc import write_section

REPO_ROOT = Path(__file__).resolve().parents[1]
HEADING = "## Calculator exactness"
SIZES = (2, 4, 8, 16, 32)
OPS = ("add", "subtract", "multiply", "divide", "mixed")
SYMBOL = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/"}
OPERATOR: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
}
PRECISION = 28
SEED = 20240611


# --- the arithmetic set ------------------------------------------------------


def operand(rng: random.Random, digits: int) -> tuple[str, Fraction]:
    """A number with exactly ``digits`` significant digits, sometimes negative or with a point."""
    mantissa = rng.randint(10 ** (digits - 1), 10**digits - 1)
    places = rng.choice((0, 0, rng.randint(1, digits)))
    sign = -1 if rng.random() < 0.25 else 1
    value = Fraction(sign * mantissa, 10**places)
    whole, frac = divmod(mantissa, 10**places)
    text = f"{whole}.{frac:0{places}d}" if places else str(whole)
    return ("-" if sign < 0 else "") + text, value


def wire(text: str, value: Fraction) -> Any:
    """How the number travels: a JSON number when that is lossless, else a string (as the schema allows)."""
    if value.denominator == 1:
        return int(value)
    as_float = float(text)
    return as_float if Fraction(repr(as_float)) == value else text


def binary_case(rng: random.Random, op: str, digits: int) -> tuple[dict[str, Any], Fraction, float]:
    (a_text, a), (b_text, b) = operand(rng, digits), operand(rng, digits)
    apply = OPERATOR[SYMBOL[op]]
    return {"a": wire(a_text, a), "b": wire(b_text, b)}, apply(a, b), apply(float(a_text), float(b_text))


def mixed_case(rng: random.Random, digits: int) -> tuple[dict[str, Any], Fraction, float]:
    """``(a o b) o (c o d)`` with random operators; regenerated if it would divide by zero."""
    while True:
        terms = [operand(rng, digits) for _ in range(4)]
        ops = [rng.choice("+-*/") for _ in range(3)]
        texts = [f"({t})" if t.startswith("-") else t for t, _ in terms]
        expression = f"({texts[0]} {ops[0]} {texts[1]}) {ops[1]} ({texts[2]} {ops[2]} {texts[3]})"
        try:
            exact = _combine(ops, [value for _, value in terms])
        except ZeroDivisionError:
            continue
        try:
            approx = _combine(ops, [float(text) for text, _ in terms])
        except ZeroDivisionError:
            approx = float("nan")
        return {"expression": expression}, exact, approx


def _combine(ops: list[str], values: list[Any]) -> Any:
    left = OPERATOR[ops[0]](values[0], values[1])
    right = OPERATOR[ops[2]](values[2], values[3])
    return OPERATOR[ops[1]](left, right)


class Case(NamedTuple):
    digits: int
    op: str
    args: dict[str, Any]
    exact: Fraction
    approx: float  # the same arithmetic in floats


def build_cases(seed: int, per_cell: int) -> list[Case]:
    rng = random.Random(seed)
    cases = []
    for digits in SIZES:
        for op in OPS:
            for _ in range(per_cell):
                made = mixed_case(rng, digits) if op == "mixed" else binary_case(rng, op, digits)
                cases.append(Case(digits, op, *made))
    return cases


# --- checking ----------------------------------------------------------------


def round_half_even(value: Fraction, digits: int) -> Fraction:
    """``value`` rounded to ``digits`` significant digits, with integers only (independent of decimal)."""
    magnitude, exponent = abs(value), 0
    while magnitude >= Fraction(10) ** exponent:
        exponent += 1
    while magnitude < Fraction(10) ** (exponent - 1):
        exponent -= 1
    scaled = magnitude * Fraction(10) ** (digits - exponent)
    whole, rest = divmod(scaled.numerator, scaled.denominator)
    if 2 * rest > scaled.denominator or (2 * rest == scaled.denominator and whole % 2):
        whole += 1
    return (-1 if value < 0 else 1) * whole * Fraction(10) ** (exponent - digits)


def terminates(value: Fraction) -> bool:
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    return denominator == 1


def is_correct(result: CallToolResult, expected: Fraction) -> bool:
    """Exact results equal the truth; inexact ones carry the true fraction and the correctly rounded
    decimal; the text is the number alone, or the fraction, decimal and rounding note."""
    out = result.structured_content
    block = result.content[0] if len(result.content) == 1 else None
    if result.is_error or out is None or not isinstance(block, TextContent):
        return False
    value = Fraction(Decimal(out["value"]))
    if terminates(expected):
        return out["exact"] is True and value == expected and block.text == out["value"]
    return (
        out["exact"] is False
        and out.get("precision") == PRECISION
        and Fraction(out["fraction"]) == expected
        and value == round_half_even(expected, PRECISION)
        and block.text == f"{out['fraction']} ≈ {out['value']} (rounded to {PRECISION} significant digits)"
    )


def float_is_correct(approx: float, expected: Fraction) -> bool:
    """Whether a float's shortest text is the exact answer, as a naive tool would report it."""
    try:
        return Fraction(repr(approx)) == expected
    except ValueError:  # nan or inf
        return False


# --- running -----------------------------------------------------------------


class Timing(NamedTuple):
    seconds: list[float]  # every tool call
    ours: list[float]  # the binary calls ...
    raw: list[float]  # ... each paired with the same operation with Fraction, right beside it


async def run_cases(cases: list[Case]) -> tuple[list[bool], Timing]:
    """Send every case to one calculator process; return the verdicts and the timings."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "app.servers.calculator"], cwd=REPO_ROOT
    )
    verdicts, timing = [], Timing([], [], [])
    async with Client(params, read_timeout_seconds=30) as client:
        for case in cases:
            if case.op == "mixed":
                result, seconds = await timed_call(client, "evaluate", case)
            else:
                result, seconds = await paired_call(client, case, timing)
            timing.seconds.append(seconds)
            verdicts.append(is_correct(result, case.exact))
    return verdicts, timing


async def timed_call(client: Client, tool: str, case: Case) -> tuple[CallToolResult, float]:
    started = time.perf_counter()
    result = await client.call_tool(tool, case.args)
    return result, time.perf_counter() - started


async def paired_call(client: Client, case: Case, timing: Timing) -> tuple[CallToolResult, float]:
    """A binary tool call and the same operation in-process right beside it, taking turns at going first."""
    raw_first = _stats.order(len(timing.raw))[0] == "raw"
    raw = raw_seconds(case) if raw_first else 0.0
    result, seconds = await timed_call(client, case.op, case)
    timing.ours.append(seconds)
    timing.raw.append(raw if raw_first else raw_seconds(case))
    return result, seconds


def raw_seconds(case: Case) -> float:
    """A binary operation again with Fraction in this process, from the same inputs."""
    started = time.perf_counter()
    a, b = Fraction(str(case.args["a"])), Fraction(str(case.args["b"]))
    OPERATOR[SYMBOL[case.op]](a, b)
    return time.perf_counter() - started


def table(cases: list[Case], verdicts: list[bool], title: str) -> list[str]:
    tally: dict[tuple[int, str], list[bool]] = {}
    for case, ok in zip(cases, verdicts, strict=True):
        tally.setdefault((case.digits, case.op), []).append(ok)
    lines = [f"| {title} | " + " | ".join(OPS) + " |", "|---" * (len(OPS) + 1) + "|"]
    for digits in SIZES:
        cells = [f"{sum(tally[digits, op])}/{len(tally[digits, op])}" for op in OPS]
        lines.append(f"| {digits} digits | " + " | ".join(cells) + " |")
    return lines


def timing_line(timing: Timing) -> str:
    p = _stats.paired(timing.ours, timing.raw)
    return (
        f"Time: median {1000 * p.ours:.2f} ms per binary tool call over stdio, against {1e6 * p.raw:.1f} µs "
        f"for the same operation with `Fraction` in-process, each call paired with its operation: "
        f"**paired ratio {p.ratio:,.0f}x** ({p.pairs} pairs; {_stats.by_first(p, 0)}). The cost is the "
        f"protocol round trip, not the arithmetic. Whole set: {sum(timing.seconds):.2f} s. {_stats.NOTE}"
    )


def report(cases: list[Case], verdicts: list[bool], timing: Timing, seed: int) -> str:
    floats = [float_is_correct(case.approx, case.exact) for case in cases]
    per_cell = len(cases) // (len(SIZES) * len(OPS))
    lines = [
        HEADING,
        "",
        f"Command: `python -m bench calculator_exactness` (seed {seed}; {len(cases)} cases = "
        f"{len(SIZES)} operand sizes x {len(OPS)} operations x {per_cell}).",
        "",
        f"Calculator over stdio: **{sum(verdicts)}/{len(verdicts)} correct ({_share(verdicts)})**. "
        "Exact results must equal the `fractions` value; inexact divisions must carry the true fraction "
        f"and the decimal correctly rounded to {PRECISION} significant digits.",
        "",
        *table(cases, verdicts, "calculator"),
        "",
        f"Python floats on the same set, for comparison: {sum(floats)}/{len(floats)} ({_share(floats)}) "
        "give the exact answer as their shortest text.",
        "",
        *table(cases, floats, "float"),
        "",
        timing_line(timing),
        "",
    ]
    return "\n".join(lines)


def _share(verdicts: list[bool]) -> str:
    return f"{100 * sum(verdicts) / len(verdicts):.1f}%"


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench calculator_exactness")
    parser.add_argument("--per-cell", type=int, default=50)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md alone")
    options = parser.parse_args(sys.argv[1:])
    cases = build_cases(options.seed, options.per_cell)
    verdicts, timing = anyio.run(run_cases, cases)
    section = report(cases, verdicts, timing, options.seed)
    print(section)
    if not options.no_write:
        write_section(HEADING, section.removeprefix(HEADING))
    return 0 if all(verdicts) else 1
