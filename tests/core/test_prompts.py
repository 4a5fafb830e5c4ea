"""The system instructions ship as resources and say what Calculon mode needs."""

from __future__ import annotations

from app.calculon.provenance import unbacked_numbers
from app.core.prompts import system_prompt
from app.paths import resources_dir


def test_calculon_prompt_names_every_calculator_tool_and_the_order_of_operations():
    prompt = system_prompt(True)
    for tool in ("add", "subtract", "multiply", "divide", "power", "sqrt", "mod", "evaluate"):
        assert tool in prompt
    assert "PEMDAS" in prompt and "Never write a number that no tool returned" in prompt


def test_plain_prompt_is_short_and_drops_the_strict_rules():
    plain, strict = system_prompt(False), system_prompt(True)
    assert plain and len(plain) < len(strict) / 2
    assert "PEMDAS" not in plain


def test_prompts_are_read_from_the_bundled_resources():
    assert system_prompt(True) == (resources_dir() / "prompts" / "calculon.md").read_text("utf-8").strip()


def test_prompts_hold_no_number_the_check_would_flag_if_a_small_model_echoes_them():
    for strict in (True, False):
        assert unbacked_numbers(system_prompt(strict), []) == ()
