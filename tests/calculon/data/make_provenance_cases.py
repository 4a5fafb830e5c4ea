"""Writes provenance_cases.jsonl: the labelled set for the Calculon check.

Run from the repository root: ``.venv/bin/python tests/calculon/data/make_provenance_cases.py``.

Every label here is written by hand or follows from how the case is built
(the generator knows which numbers it put in the sources); none comes from the
checker. Each line: ``id``, ``category``, ``answer``, ``sources`` (the user's
words and tool results), ``unbacked`` (the numbers that must be flagged, as
they appear in the answer, in order) and ``note``.
"""

from __future__ import annotations

import json
import random
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from pathlib import Path

from hand_cases import HAND_CASES

OUT = Path(__file__).with_name("provenance_cases.jsonl")
RNG = random.Random(20240611)
_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
_ONES += ["eleven", "twelve", "thirteen", "fourteen", "fifteen"]
_ONES += ["sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def case(category: str, answer: str, sources: list[str], unbacked: list[str], note: str = "") -> dict:
    return {"category": category, "answer": answer, "sources": sources, "unbacked": unbacked, "note": note}


def calculator_text(value: Fraction) -> str:
    """What the calculator prints for a result with no finite decimal (28 significant digits)."""
    with localcontext() as ctx:
        ctx.prec = 28
        decimal = Decimal(value.numerator) / Decimal(value.denominator)
    note = "(rounded to 28 significant digits)"
    return f"{value.numerator}/{value.denominator} ≈ {format(decimal, 'f')} {note}"


def spelled(n: int) -> str:
    """An independent number-to-words writer for 0..999, British style."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("-" + _ONES[n % 10] if n % 10 else "")
    rest = n % 100
    return _ONES[n // 100] + " hundred" + (" and " + spelled(rest) if rest else "")


def clashes(value: object, *known: object) -> bool:
    """Whether a number meant to be unbacked happens to equal one the sources hold."""
    return Fraction(str(value)) in {Fraction(str(k)) for k in known}


def _terminates(value: Fraction) -> bool:
    rest = value.denominator
    for prime in (2, 5):
        while rest % prime == 0:
            rest //= prime
    return rest == 1


def products() -> list[dict]:
    cases = []
    while len(cases) < 60:
        a, b = RNG.randint(12, 999), RNG.randint(12, 999)
        p = a * b
        question = f"What is {a} times {b}?"
        wrong = p + RNG.choice([1, -1, 10, -10, 100, 9])
        if clashes(wrong, a, b, p):
            continue
        cases.append(case("gen_product", f"{a} × {b} = {p:,}.", [question, str(p)], []))
        cases.append(
            case("gen_product", f"By my circuits, {a} × {b} = {wrong:,}!", [question, str(p)], [f"{wrong:,}"])
        )
    return cases


def divisions() -> list[dict]:
    """A non-terminating quotient, rounded right (backed), cut off or off by one unit (unbacked)."""
    cases: list[dict] = []
    while len(cases) < 45:
        a, b = RNG.randint(2, 500), RNG.choice([3, 6, 7, 9, 11, 12, 13, 17, 19, 21, 23])
        value, places = Fraction(a, b), RNG.randint(1, 5)
        if _terminates(value):
            continue  # the calculator would print it exactly, and a tie would back both neighbours
        exact = Decimal(a) / Decimal(b)
        unit = Decimal(1).scaleb(-places)
        right = exact.quantize(unit, ROUND_HALF_EVEN)
        cut = exact.quantize(unit, ROUND_DOWN)
        off = right + unit if RNG.random() < 0.5 else right - unit
        known = (a, b, value.numerator, value.denominator)
        if clashes(off, *known) or clashes(cut, *known) or off <= 0:
            continue
        sources = [f"What is {a} divided by {b}?", calculator_text(value)]
        cases.append(case("gen_rounded_right", f"{a} ÷ {b} ≈ {right}.", sources, []))
        if cut != right:
            cases.append(case("gen_rounded_cut", f"{a} ÷ {b} ≈ {cut}.", sources, [str(cut)], "truncated"))
        cases.append(case("gen_rounded_off", f"{a} ÷ {b} ≈ {off}.", sources, [str(off)], "one unit off"))
    return cases


def percentages() -> list[dict]:
    cases = []
    while len(cases) < 24:
        part, whole = RNG.randint(1, 199), 200
        ratio = Decimal(part) / whole
        percent = (ratio * 100).normalize()
        sources = [f"What fraction of {whole} is {part}?", format(ratio, "f")]
        cases.append(case("gen_percent", f"That is {format(percent, 'f')}%.", sources, []))
        tenfold = format((ratio * 10).normalize(), "f")
        if clashes(tenfold, part, whole, ratio) or clashes(Fraction(tenfold) / 100, part, whole, ratio):
            continue
        cases.append(case("gen_percent", f"That is {tenfold}%.", sources, [f"{tenfold}%"], "x10 slip"))
    return cases


def words() -> list[dict]:
    cases = []
    for _ in range(12):
        a, b = RNG.randint(1, 400), RNG.randint(1, 400)
        total = a + b
        question = f"What is {a} plus {b}?"
        said = spelled(total).capitalize()
        cases.append(case("gen_words", f"{said}, of course.", [question, str(total)], []))
        wrong = spelled(total + 1).capitalize()
        cases.append(case("gen_words", f"{wrong}, of course.", [question, str(total)], [wrong]))
    return cases


def scientific() -> list[dict]:
    cases = []
    while len(cases) < 20:
        mantissa, exponent = RNG.randint(100_000, 999_999), RNG.randint(6, 20)
        if mantissa % 1000 == 500:
            continue  # an exact tie: both neighbours would count
        value = mantissa * 10 ** (exponent - 5)  # an integer with six significant digits
        shown = Decimal(value).scaleb(-exponent).quantize(Decimal("0.01"), ROUND_HALF_EVEN)
        sources = ["How big is it?", str(value)]
        cases.append(case("gen_scientific", f"About {shown} × 10^{exponent}.", sources, []))
        off = shown + Decimal("0.01")
        cases.append(
            case("gen_scientific", f"About {off} × 10^{exponent}.", sources, [f"{off} × 10^{exponent}"])
        )
    return cases


def main() -> None:
    cases = [case(*row) for row in HAND_CASES]
    cases += products() + divisions() + percentages() + words() + scientific()
    with OUT.open("w", encoding="utf-8") as out:
        for number, item in enumerate(cases, 1):
            out.write(json.dumps({"id": number, **item}, ensure_ascii=False) + "\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
