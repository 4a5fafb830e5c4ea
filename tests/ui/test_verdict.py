"""The verdict badge names where each number came from and what "verified" promises."""

from __future__ import annotations

from app.ui.verdict import badge_text, badge_tooltip, computed_badge_text, computed_tooltip


def test_the_badge_names_the_call_behind_each_tool_backed_number():
    backing = (("12", "your message"), ("7", "your message"), ("84", "multiply(12, 7)"))
    assert badge_text(backing) == "✓ verified · 84 ← multiply(12, 7)"
    tooltip = badge_tooltip(backing)
    assert "84 ← multiply(12, 7)" in tooltip and "12 — from your message" in tooltip
    assert "spells out this calculation" in tooltip


def test_a_long_list_of_sources_is_shortened_on_the_badge_but_whole_in_the_tooltip():
    backing = tuple((str(n), f"add({n}, 1)") for n in range(5))
    assert badge_text(backing).endswith("· +3 more")
    assert all(f"{n} ← add({n}, 1)" in badge_tooltip(backing) for n in range(5))


def test_an_answer_with_only_the_user_s_numbers_says_verified_alone():
    assert badge_text((("5", "your message"),)) == "✓ verified"


def test_a_verified_badge_shows_the_established_formula():
    assert badge_text((("84", "multiply(12, 7)"),), "84 = 12 × 7") == "✓ verified · 84 = 12 × 7"


def test_a_computed_badge_asks_for_the_formula_to_be_checked_and_never_says_verified():
    formula = "10 = 15 (Paige raised goldfish) − 5 (were eaten)"
    text = computed_badge_text(formula)
    assert text == f"≈ computed, check the formula: {formula}" and "verified" not in text
    tip = computed_tooltip("The formula is the model's reading of your words: check it.", ())
    assert tip.startswith("Computed, not verified") and "reading of your words" in tip
    assert computed_badge_text("x" * 500).endswith("…")
