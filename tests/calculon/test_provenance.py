"""The Calculon check against the labelled set, and each rule on its own."""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest

from app.calculon.provenance import CalculonVerifier, answer_mentions, unbacked_numbers

CASES = Path(__file__).with_name("data") / "provenance_cases.jsonl"


def _cases() -> list[dict]:
    with CASES.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def _miss_report(failures: list[tuple[dict, tuple[str, ...]]], total: collections.Counter[str]) -> str:
    by_category = collections.Counter(case["category"] for case, _ in failures)
    lines = [f"{cat}: {by_category[cat]} of {total[cat]} wrong" for cat in sorted(by_category)]
    for case, got in failures[:25]:
        lines.append(
            f"#{case['id']} [{case['category']}] {case['answer']!r}: want {case['unbacked']}, got {list(got)}"
        )
    return "\n".join(lines)


def test_labelled_set_is_large_and_covers_every_kind_of_case():
    categories = collections.Counter(case["category"] for case in _cases())
    assert sum(categories.values()) >= 200
    wanted = {"backed", "unbacked", "rounded_ok", "rounded_bad", "separators", "percent", "scientific"}
    wanted |= {"words", "units", "exemptions", "adversarial"}
    assert wanted <= set(categories)


def test_every_unbacked_number_is_caught_and_no_backed_one_is_flagged():
    verifier = CalculonVerifier()
    cases = _cases()
    failures = []
    for case in cases:
        result = verifier.check(case["answer"], case["sources"])
        if list(result.unbacked) != case["unbacked"] or result.verified != (not case["unbacked"]):
            failures.append((case, result.unbacked))
    total = collections.Counter(case["category"] for case in cases)
    assert not failures, _miss_report(failures, total)


def test_an_answer_with_an_unbacked_number_is_never_verified():
    result = CalculonVerifier().check("37 × 48 = 1776, plus 1 is 1778.", ["What is 37 times 48?", "1776"])
    assert result.verified is False
    assert result.unbacked == ("1", "1778")


def test_numerals_that_are_not_ascii_digits_are_numbers_to_back():
    result = CalculonVerifier().check("346 - ½ is ⅛, and ٣ more.", ["What is 348 take away 2?", "346"])
    assert result.verified is False and result.unbacked == ("½", "⅛", "٣")
    assert CalculonVerifier().check("It is 5 m².", ["What is 5 m² in square metres?", "5"]).verified


def test_unbacked_numbers_are_reported_as_written_in_order_once_each():
    answer = "First $1,787.50, then 12.5 %, then $1,787.50 again and two thousand."
    assert unbacked_numbers(answer, ["Go"]) == ("1,787.50", "12.5 %", "two thousand")


def test_numbers_from_earlier_user_messages_and_tool_results_back_the_answer():
    sources = ["What is 6 times 7?", "42", "Now add 8.", "50"]
    assert CalculonVerifier().check("6 × 7 = 42, and 42 + 8 = 50.", sources).verified


def test_the_calculators_rounding_note_backs_nothing():
    sources = [
        "What is 2 to the power 0.5?",
        "1.414213562373095048801688724 (rounded to 28 significant digits)",
    ]
    assert unbacked_numbers("That is 1.41, to 28 digits.", sources) == ("28",)


@pytest.mark.parametrize(
    ("answer", "rule"),
    [
        ("1. Multiply.\n2. Add.", "list"),
        ("Step 2: add them.", "step"),
        ("The 21st try.", "ordinal"),
        ("He came twenty-first.", "ordinal"),
        ("Each one of them.", "pronoun"),
        ("1/3 ≈ 0.33 (rounded to 28 significant digits)", "note"),
    ],
)
def test_each_exemption_is_named_on_the_number_it_covers(answer, rule):
    assert rule in {m.exempt for m in answer_mentions(answer)}


def test_list_markers_must_count_up_from_one_to_be_exempt():
    answer = "1. Multiply: 37 × 48.\n3. Add 24."
    assert unbacked_numbers(answer, ["37 times 48 plus 24"]) == ("3",)


def test_a_list_marker_needs_text_after_it_on_its_line():
    assert unbacked_numbers("The answer is\n1.", ["Go"]) == ("1",)


def test_step_numbers_only_follow_the_word_step():
    assert unbacked_numbers("Steps 2 and 3 are easy.", ["Go"]) == ("2", "3")


@pytest.mark.parametrize("answer", ["Use `add(2, 40)`: `42`.", "```\nadd(2, 40) = 42\n```"])
def test_numbers_in_inline_code_and_code_blocks_are_checked(answer):
    assert unbacked_numbers(answer, ["Add 2 and 40"]) == ("42",)


def test_years_are_checked_like_any_number():
    assert unbacked_numbers("By 2031 it doubles.", ["When does it double?"]) == ("2031",)


def test_a_rounding_that_looks_right_but_is_not_is_caught():
    sources = ["Value?", "0.12345"]
    assert unbacked_numbers("0.1235 or 0.1234 or 0.123", sources) == ()  # 0.12345 is a tie at 4 places
    assert unbacked_numbers("0.1235 or 0.1234 or 0.123", ["Value?", "0.123449"]) == ("0.1235",)


def test_a_huge_power_is_not_expanded_and_so_not_backed():
    assert unbacked_numbers("That is 1e999999.", ["Size?", "1"]) == ("1e999999",)
