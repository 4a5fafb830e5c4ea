"""The Calculon-mode benchmark's harness, run on the scripted backend, and its own judge."""

from __future__ import annotations

import collections
import json
from fractions import Fraction

import pytest

from app.llm.scripted import ScriptedBackend
from bench import _calculon_check as check
from bench import _calculon_questions as questions
from bench import _calculon_sets as sets
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
    assert check.independent_unbacked("1 ÷ 3 ≈ 0.33, or 33.3%, times 100.", sources) == []
    assert check.independent_unbacked("1 ÷ 3 ≈ 0.34 and 0.3334.", sources) == ["0.34", "0.3334"]
    assert check.independent_unbacked("1. Step 2: the 3rd try gives 7.", ["Go"]) == ["7"]


def test_the_calculators_rounding_note_is_exempt_only_as_a_result_holds_it():
    sources = ["Divide 1 by 3.", "1/3 ≈ 0.3333333333333333333333333333 (rounded to 28 significant digits)"]
    assert check.independent_unbacked("1/3 ≈ 0.3333 (rounded to 28 significant digits)", sources) == []
    assert check.independent_unbacked("1/3 ≈ 0.3333 (rounded to 29 significant digits)", sources) == ["29"]


def test_a_result_counts_only_when_stated_beyond_the_question_s_own_numbers():
    assert check.states_result("1000 / 7 is 142.8571.", Fraction(1000, 7), "What is 1000 divided by 7?")
    assert not check.states_result("It is 142.8572.", Fraction(1000, 7), "What is 1000 divided by 7?")
    # 144 / 12 = 12: restating the operand 12 is not enough, the last number must be the result
    assert not check.states_result("144 / 12 is 1728.", Fraction(12), "What is 144 divided by 12?")
    assert check.states_result("144 divided by 12 is 12.", Fraction(12), "What is 144 divided by 12?")


def test_an_answer_that_says_there_is_no_value_counts_as_impossible_and_a_number_does_not():
    assert check.says_impossible("38 mod 0 has no value (modulo by zero).")
    assert check.says_impossible("9 divided by 0 is undefined.")
    assert not check.says_impossible("38 % 0 = 38.")


def test_the_fresh_process_is_asked_on_the_model_measured_not_the_default(tmp_path):
    # a bare "ask" answered on SmolLM2, and that was reported as the 1.5B model's fresh figure
    from app.settings import load_settings

    command = bench.cold_command("qwen2.5-coder-1.5b-instruct", tmp_path)
    settings, problems = load_settings(tmp_path / "settings.json")
    assert settings.builtin_model == "qwen2.5-coder-1.5b-instruct" and not problems
    assert "--model" not in command
    assert bench.cold_command("x", tmp_path, "/models/own.gguf")[-2:] == ["--model", "/models/own.gguf"]


def test_the_question_set_is_stratified_and_keyed_from_its_own_operands():
    found = questions.all_questions()
    counts = collections.Counter(q.category for q in found)
    assert len(found) >= 150 and set(counts) == set(questions.CATEGORIES)
    assert all(counts[c] >= 10 for c in questions.CATEGORIES)
    assert all(q.expected is None for q in found if q.category in ("no_math", "impossible"))
    big = [q for q in found if q.category == "big"]
    assert all(len(str(q.arguments["a"])) >= 20 for q in big)
    assert questions.all_questions() == found  # a fixed seed: the same set on every run


async def test_the_harness_counts_verdicts_and_the_badge_error_rate_as_scripted():
    chosen = [[q] for q in sets.select(questions.all_questions(), 3)]
    flat = [c[0] for c in chosen]
    backend = ScriptedBackend(bench.scripted_steps(flat))
    runs, label = await bench.run_model("smollm2-135m-instruct", chosen, backend)
    figures = bench.figures(runs)

    never_backed = {i for i in range(len(runs)) if i % 5 == 4}
    assert label == "scripted" and len(runs) == len(flat) == 24
    assert {i for i, r in enumerate(runs) if r.verdict == "unverified"} == never_backed
    assert figures["unbacked_anywhere"] == len(never_backed)
    assert figures["leaked"] == 0 and figures["verified_wrong"] == 0
    # the scripted answers are right: written-out arithmetic is verified, word problems only computed
    written = {"one_op", "pemdas", "big", "impossible"}
    assert all(
        r.verdict == "verified" for i, r in enumerate(runs) if r.category in written and i not in never_backed
    )
    assert all(
        r.verdict == "computed" for i, r in enumerate(runs) if r.category == "word" and i not in never_backed
    )
    assert figures["correct"] == len(runs) - len(never_backed)
    assert f"| **all** | 0/{figures['verified']} (0%) |" in "\n".join(bench.table(runs))


def test_the_public_corpus_is_read_from_where_it_is_kept_and_sampled_the_same_way(tmp_path, monkeypatch):
    from bench import _calculon_public as public

    rows = [
        {"id": str(i), "question": f"Sam has {i} pens and buys 2. How many?", "answer": i + 2}
        for i in range(30)
    ]
    corpus = tmp_path / "mawps.jsonl"
    corpus.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    monkeypatch.setenv("CALCULON_MAWPS", str(corpus))
    sample = public.mawps_questions(10)
    assert len(sample) == 10 and sample == public.mawps_questions(10)  # a fixed seed
    assert all(q.expected == int(q.text.split()[2]) + 2 for q in sample)
    monkeypatch.setenv("CALCULON_MAWPS", str(tmp_path / "missing.jsonl"))
    monkeypatch.setattr(public, "ROOT", tmp_path)
    with pytest.raises(FileNotFoundError, match="CALCULON_MAWPS"):
        public.mawps_questions(10)


def test_a_badge_with_no_tool_result_behind_it_is_counted_as_hollow():
    def run(verdict: str, results: int) -> bench.Run:
        return bench.Run("q", "word", "It is 7.", verdict, True, [], 1.0, "", [], 0, results=results)

    runs = [run("verified", 1), run("computed", 0), run("verified", 0), run("not_calculated", 0)]
    assert bench.report.figures(runs)["hollow"] == 2


def test_the_no_digit_set_has_every_kind_and_no_digit():
    from bench._calculon_sets import questions_of

    questions = [q for (q,) in questions_of("no_digits")]
    kinds = {q.category for q in questions}
    assert len(questions) >= 30 and kinds == {"word", "no_math", "lookup"}
    assert all(q.expected is not None for q in questions if q.category == "word")


def test_the_independent_check_reads_the_users_numbers_written_as_words():
    asked = "A jar had one hundred marbles. Kim took out thirty-five and put back a dozen."
    assert check.independent_unbacked("100 - 35 + 12 = 77", [asked, "77"]) == []
    assert check.independent_unbacked("100 - 36 = 64", [asked, "64"]) == ["36"]


def test_the_raw_peers_call_written_as_text_is_read_as_a_call_not_an_answer():
    from bench._raw_peer import read_calls, written_call

    # The peer's own text as seen on Qwen2.5-Coder-1.5B: doubled braces no parser runs.
    doubled = '{{"name": "subtract", "arguments": {"a": 4, "b": 3}}'
    assert read_calls(doubled) == []
    assert written_call(doubled)
    assert read_calls('<tool_call>{"name": "add", "arguments": {"a": 1, "b": 2}}</tool_call>') == [
        ("add", {"a": 1, "b": 2})
    ]
    assert not written_call("He has 3 more action figures than books.")
