"""A reply that recites the prompt is caught; an answer that shares a few words is not."""

from __future__ import annotations

from app.core.echo import EchoDetector
from app.core.prompts import system_prompt

TOOLS = "multiply Multiply exactly: a * b (a times b, their product)."


def test_a_reply_reciting_the_system_instruction_is_an_echo():
    detector = EchoDetector([system_prompt(True), TOOLS])
    recital = system_prompt(True).split("\n")[0] + " " + system_prompt(True).split("\n")[-1]
    assert detector.is_echo(recital)


def test_a_real_answer_is_not_an_echo_even_with_words_from_the_prompt():
    detector = EchoDetector([system_prompt(True), TOOLS])
    assert not detector.is_echo("12 times 7 is 84, exactly as the calculator says: their product.")
    assert not detector.is_echo("84.")
