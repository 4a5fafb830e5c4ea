"""The Calculon-mode benchmark's harness, run on the scripted backend, and its independent check."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bench import calculon_verified as bench

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_the_independent_check_catches_made_up_numbers_and_accepts_correct_roundings():
    sources = [
        "What is 1 divided by 3, times 100?",
        "1/3 ≈ 0.3333333333333333333333333333 (rounded to 28 ...)",
    ]
    assert bench.independent_unbacked("1 ÷ 3 ≈ 0.33, or 33.3%, times 100.", sources) == []
    assert bench.independent_unbacked("1 ÷ 3 ≈ 0.34 and 0.3334.", sources) == ["0.34", "0.3334"]
    assert bench.independent_unbacked("1. Step 2: the 3rd try gives 7.", ["Go"]) == ["7"]


def test_the_true_result_is_found_exactly_or_correctly_rounded():
    assert bench.holds("It is 142.8571.", Fraction(1000, 7))
    assert not bench.holds("It is 142.8572.", Fraction(1000, 7))


async def test_the_harness_counts_verified_answers_reasks_and_leaks_as_scripted():
    runs, label = await bench.run_all("scripted", len(bench.QUESTIONS))
    figures = bench.summary(runs)

    never_backed = [i for i in range(len(runs)) if i % 5 == 4]
    backed_on_retry = [i for i in range(len(runs)) if i % 3 == 2 and i % 5 != 4]
    assert label == "scripted"
    assert figures["verified"] == figures["verified_correct"] == len(runs) - len(never_backed)
    assert figures["reasks"] == len(backed_on_retry) + 2 * len(never_backed)
    assert figures["unbacked_in_final_answers"] == len(never_backed)
    assert figures["unbacked_marked_verified"] == 0
    assert "**0 of 6 (0%)**" in bench.report(figures, label, "cmd")
