"""Digits that name things (paths, URLs, file names, identifiers) are no numbers of the question:
a file task is no word problem, and Calculon mode neither works it nor forces a calculation."""

from __future__ import annotations

from app.calculon import CalculonMode
from app.core.backend import ModelRequest
from app.core.messages import Message, ToolSpec
from app.core.named import places, without_names
from app.llm.local.step_rules import StepPolicy, forces_call

TASK = "Add up the prices in /tmp/calculon-shots-6rgfo5q_/project/prices.csv."
READ = ToolSpec(
    "read_text_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}}
)


def test_paths_urls_file_names_and_identifiers_are_blanked_and_every_other_number_keeps_its_place() -> None:
    text = "Read /srv/run7/log.txt, report2.pdf, https://x.org/a1 and task1: 12 boxes of 3/4 kg at $5/hour."
    blanked = without_names(text)
    assert len(blanked) == len(text)
    assert [w for w in blanked.split() if any(c.isdigit() for c in w)] == ["12", "3/4", "$5/hour."]
    assert blanked.index("12 boxes") == text.index("12 boxes")
    assert (
        without_names("It weighs 12kg, 3x4 tiles, at 9:30, the 2nd of 3.")
        == "It weighs 12kg, 3x4 tiles, at 9:30, the 2nd of 3."
    )


def test_the_places_a_message_names_are_its_paths_urls_and_file_names_not_numbers_or_abbreviations() -> None:
    text = "Compare /srv/run7/log.txt with report2.pdf and https://x.org/a1, e.g. at 3/4 speed, i.e. slowly."
    assert places(text) == ["/srv/run7/log.txt", "report2.pdf", "https://x.org/a1"]
    assert places("What is 12.5 times 4, or 3/4 of it?") == []


def test_a_file_task_whose_path_holds_digits_is_no_worked_story_and_has_no_formula() -> None:
    mode = CalculonMode()
    assert mode.worked(TASK) is None
    assert mode.hint(TASK, None) is None
    assert mode.worked("Sam had 12 apples in /tmp/run7 and ate 5. How many are left?") is not None


def test_a_digit_inside_a_path_forces_no_call_in_calculon_mode() -> None:
    policy = StepPolicy(call_policy="numbers")
    listing, question = "List the files in /tmp/task1", "What is 12 times 7?"
    assert not forces_call(ModelRequest("", (Message("user", listing),), (READ,), backed=(listing,)), policy)
    assert forces_call(ModelRequest("", (Message("user", question),), (READ,), backed=(question,)), policy)


def test_quoted_words_are_blanked_and_quoted_digits_kept() -> None:
    from app.core.named import without_quoted_words

    assert without_quoted_words("the message 'Add launch draft'.") == "the message                   ."
    assert without_quoted_words('He said "give me 5" twice') == 'He said "give me 5" twice'
    assert without_quoted_words("Bob's cat and Ann's dog") == "Bob's cat and Ann's dog"
