"""The verdict on an answer, and what was checked. Every badge names a check that could have failed.

- **verified**: every number is backed, and either the formula is established (the user's
  words spell the arithmetic out, it was worked out here apart from the model, a tool's result
  agrees, and the answer states that result), or the answer's numbers are what a lookup tool
  returned ("14:05" from the clock, "42" lines a server counted), with no arithmetic asked.
- **computed**: a tool computed the number the answer states, but the formula is the model's
  reading of a story. The answer comes with that formula, each of the user's numbers labelled
  with their own words for it, so the person can check the reading. Never shown as verified.
- **not_calculated**: a calculation was asked, and no tool computed what the answer states: it
  only repeats the user's numbers, or states no result at all.
- **unverified**: a number in the answer came from neither a tool nor the user.
- **unchecked**: nothing could be checked: no number to check, and no tool result behind the
  answer (an answer that only talks, a call written out instead of made).
"""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction

from app.calculon.counts import GATHERS
from app.calculon.deed import instructs_a_change
from app.calculon.evaluate import plain
from app.calculon.formula import labelled_formula, result_values
from app.calculon.provenance import SourcePool, answer_mentions
from app.calculon.ranker import ranked
from app.calculon.transcript import Transcript, names_an_operation, transcribe
from app.core.calculator_text import is_exact, without_note
from app.core.named import without_names, without_quoted_words
from app.core.numbers import Mention, find_numbers
from app.core.records import CallRecord
from app.core.toolrun import REFUSED_HERE
from app.core.tools import USER_SOURCE, CheckResult, Source, TurnFacts, Verdict

# A call written out as the answer (bare JSON, or a chat template's call markers): never an answer.
CALL_AS_TEXT = re.compile(r'^\s*(?:<tool_call>|\[TOOL_CALLS\]|<\|python_tag\|>|\{\s*"name"\s*:)')
# The tools that compute rather than look up: a number they give is a calculation's result.
ARITHMETIC_TOOLS = frozenset(
    {"add", "subtract", "multiply", "divide", "power", "sqrt", "mod", "evaluate", "convert"}
    | {"celsius_to_fahrenheit", "fahrenheit_to_celsius", "celsius_to_kelvin", "kelvin_to_celsius"}
    | {"fahrenheit_to_kelvin", "kelvin_to_fahrenheit"}
)
NOT_CALCULATED = "Not calculated: the answer's numbers only repeat your question; no tool computed them."
ENDS_FAILED = "Not checked: the last tool call failed, so the numbers read before it may not answer you."
ONLY_READ = "Not calculated: the answer's numbers were only read from a tool's result; no tool computed them."


def judge(answer: str, check: CheckResult, facts: TurnFacts) -> Verdict:
    # the digits of a path, URL or file name are no numbers of the question ("What does
    # /tmp/run61/notes.txt say?"), and quoted words no operation ("the message 'Add a draft'")
    facts = dataclasses.replace(facts, asked=without_quoted_words(without_names(facts.asked)))
    if not check.verified:
        return Verdict(
            "unverified", basis=f"No tool gave these and you did not: {', '.join(check.unbacked)}."
        )
    if CALL_AS_TEXT.search(answer):
        return Verdict("unchecked", basis="The answer is a tool call written out, not an answer.")
    formula = labelled_formula(facts.asked, facts.calls)
    transcript = transcribe(facts.asked, facts.earlier)
    if transcript is not None:
        verdict = _established(transcript, answer, facts)
        if verdict is not None:
            return verdict
    from_tools = {source for _, source in check.backing if source != USER_SOURCE}
    if not _mentions(answer):
        if transcript is not None or asks_to_calculate(facts.asked):
            return Verdict("not_calculated", formula=formula, basis=_why_computed(transcript, answer, facts))
        return Verdict("unchecked", basis=_nothing_checked(facts))
    if not from_tools and not _states_a_result(answer, facts):
        if transcript is None and not asks_to_calculate(facts.asked):
            return Verdict(
                "unchecked", basis="The answer's numbers are your own; no tool was asked anything."
            )
        return Verdict("not_calculated", basis=NOT_CALCULATED)
    lookups = _lookups(from_tools, facts)
    if lookups and _ends_failed(facts):
        return Verdict("unchecked", basis=ENDS_FAILED)
    if lookups and not asks_to_calculate(facts.asked):
        names = ", ".join(dict.fromkeys(call.tool for call in lookups))
        return Verdict("verified", basis=f"No arithmetic was asked: the numbers are what {names} returned.")
    if lookups and transcript is None and asks_an_operation(facts.asked):  # "Add up the prices", as read
        return Verdict("not_calculated", basis=ONLY_READ)
    calculated = any(_arithmetic(c) and not c.failed for c in facts.calls)
    if transcript is None and calculated and not _states_a_result(answer, facts):
        # its numbers read from a file, its own sum in prose ("120 + 95 + ... = 143", "143 / 7 =
        # 204"), the one calculation that worked (215 / 7) stated nowhere: no tool computed it
        return Verdict("not_calculated", basis=ONLY_READ if from_tools else NOT_CALCULATED)
    return Verdict("computed", formula=formula, basis=_why_computed(transcript, answer, facts))


def _ends_failed(facts: TurnFacts) -> bool:
    """The turn's last call failed at its server: what the answer says after it (seen: the error
    explained with the digits of an earlier time) is no task done, whatever its numbers."""
    last = facts.calls[-1] if facts.calls else None
    return last is not None and last.failed and not last.result.startswith(REFUSED_HERE)


def asks_to_calculate(asked: str) -> bool:
    """A question with numbers in it (digits or words) or an operation named: it wants a result.
    "Add <something> to <a place>" with no number between puts a thing somewhere: "Add to my memory
    that Alice moved", "Add an item to todo.md" ask for no sum."""
    if instructs_a_change(asked):  # "Remember that my locker code is 4412": a fact kept, no sum
        return False
    return bool(find_numbers(_SETS_A_VALUE.sub(" ", asked))) or asks_an_operation(asked)


def asks_an_operation(asked: str) -> bool:
    """The question names an operation ("add up", "the total", "times"), not only numbers: "on 3
    October" in "Remember that Dana's birthday is on 3 October" asks for no calculation."""
    # "How many lines do notes.txt and todo.md have together?" names no operator word, yet asks
    # for a sum: read as a look-up, the 1.5B model's "8" (one file's count) was verified
    if instructs_a_change(asked):  # "Add a product ..., priced 19.99, to the products table"
        return False
    if _AVERAGE.search(asked):  # "What is the average number of visitors per day in visitors.csv?"
        return True
    return names_an_operation(_ADDS_A_THING.sub(" ", asked)) or bool(GATHERS.search(asked))


# "Change the port in config.json to 9090" sets a value: made to calculate, a model has nothing to
# work out, and the 1.5B model's "The port is now 9090" was asked for a calculation
_SETS_A_VALUE = re.compile(
    r"\b(?:change|set|update|switch|reset)\b[^.?!\d]*?\bto\s+-?\d[\d,]*(?:\.\d+)?", re.IGNORECASE
)
_AVERAGE = re.compile(r"\b(?:average|the\s+mean)\b", re.IGNORECASE)
_ADDS_A_THING = re.compile(r"\badd\b(?![^.?!\d]*\b(?:up|together)\b)[^.?!\d]*?\b(?:to|into)\b", re.IGNORECASE)


def _lookups(sources: set[str], facts: TurnFacts) -> list[CallRecord]:
    """This turn's successful lookups that back the answer's numbers, where every tool source
    is one (a number from a calculation, or from an earlier turn, makes none a lookup)."""
    calls = {c.label: c for c in facts.calls if not c.is_error}
    found = [calls[s] for s in sources if s in calls]
    return found if len(found) == len(sources) and not any(_arithmetic(c) for c in found) else []


def _arithmetic(call: CallRecord) -> bool:
    return call.tool.rsplit(".", 1)[-1] in ARITHMETIC_TOOLS


def _nothing_checked(facts: TurnFacts) -> str:
    if not facts.calls:
        return "Nothing was checked: no tool was called, and the answer has no number."
    if all(c.is_error for c in facts.calls):
        return "Nothing was checked: every tool call failed, and the answer has no number."
    return "Nothing was checked: the answer has no number; what the tools returned is in the trace."


def _why_computed(transcript: Transcript | None, answer: str, facts: TurnFacts) -> str:
    if not _mentions(answer):
        return "You asked for a calculation, and the answer states no result: check it."
    if transcript is None:
        return "The formula is the model's reading of your words: check it." + _other_reading(facts)
    if transcript.value is None:
        return f"Your words spell out {transcript.shown}, which has no value, yet the answer gives one."
    spelled = f"Your words spell out {transcript.shown}, which is {plain(transcript.value)}"
    if not any(_agrees(transcript, c) for c in facts.calls if not c.is_error):
        return f"{spelled}; no tool's result agrees: check the formula that ran."
    stray = _stray(answer, transcript)
    if stray and _states(answer, transcript):
        return f"{spelled}; the answer also states {', '.join(stray)}, which the calculation does not hold."
    wrong = _false_working(answer, transcript.value)
    if wrong is not None:
        return f"{spelled}; the answer's own working, {wrong.shown}, is {plain(wrong.value)}: check it."
    return f"{spelled}; the answer does not state that result."


def _other_reading(facts: TurnFacts) -> str:
    """The ranker's likeliest formula, where its value is not the last result: evidence to weigh."""
    ok = [c for c in facts.calls if not c.is_error]
    best = ranked(facts.asked, top=1)
    if not ok or not best:
        return ""
    reading = best[0].candidate
    if reading.value in result_values(ok[-1].result):
        return ""
    share = f"{best[0].probability:.0%} likely"
    return f" Calculon's own reading differs: {reading.shown} = {plain(reading.value)} ({share})."


def _established(transcript: Transcript, answer: str, facts: TurnFacts) -> Verdict | None:
    ok = [c for c in facts.calls if not c.is_error]
    if transcript.value is None:  # "134 divided by 0": no value; the calculator must refuse it too
        if _says_no_value(answer, transcript) and any(c.is_error for c in facts.calls):
            return Verdict("verified", basis=f"Your words spell out {transcript.shown}, which has no value.")
        return None
    agreeing = [c for c in ok if _agrees(transcript, c)]
    # the answer states the result, and no number but the result and the formula's own
    # ("The result of multiplying 60 by 15 is 9, 0.2" stated 60 among numbers from elsewhere)
    if not agreeing or not _states(answer, transcript) or _stray(answer, transcript):
        return None
    if _false_working(answer, transcript.value) is not None:
        return None
    return Verdict(
        "verified",
        formula=f"{plain(transcript.value)} = {transcript.shown}",
        basis=(
            f"Your words spell out {transcript.shown}; worked out apart from the model it is "
            f"{plain(transcript.value)}, and {agreeing[-1].label} agrees."
        ),
        value=transcript.value,
    )


def _states_a_result(answer: str, facts: TurnFacts) -> bool:
    """The answer states a value a calculation of this turn returned, also where the user wrote
    that number too: "10 − 5 = 5." after evaluate("10 - 5") gave 5 was "not calculated", its 5
    backed by the question's own 5 alone."""
    calculated = [c for c in facts.calls if not c.failed and _arithmetic(c)]
    # the values a result states, not the parts of a fraction it writes (the 7 of "65/7")
    computed = {r.value for c in calculated for m in find_numbers(without_note(c.result)) for r in m.readings}
    # or a correct rounding of one ("30.71" of 215/7 ≈ 30.714285...)
    pool = SourcePool([Source(_decimal(value)) for value in computed])
    return any(r.value in computed or pool.backs_reading(r) for m in _mentions(answer) for r in m.readings)


def _mentions(answer: str) -> list[Mention]:
    return [m for m in answer_mentions(answer) if not m.exempt]


def _stray(answer: str, transcript: Transcript) -> list[str]:
    """The answer's numbers that are neither the result nor a number of the formula."""
    held = [*transcript.operands, *([transcript.value] if transcript.value is not None else [])]
    pool = SourcePool([Source(text) for v in held for text in (_decimal(v), plain(v))])
    return [m.text for m in _mentions(answer) if not pool.backs(m)]


# How an answer says there is no result: the only answer a question without a value has.
_NO_VALUE = re.compile(
    r"\b(?:undefined|not defined|cannot|can ?not|can't|impossible|not possible|error"
    r"|no (?:value|result|answer)|infinit\w*)\b",
    re.IGNORECASE,
)
# What comes right before a number the answer gives as a result ("= 134", "is 134", "so 134").
_CLAIMS = re.compile(r"(?:[=≈]|\b(?:is|are|was|equals?|makes?|gives?|comes to|so))\s*$", re.IGNORECASE)


def _says_no_value(answer: str, transcript: Transcript) -> bool:
    """The answer says there is no value, and gives none: no number beyond the formula's own,
    and none as a result ("134 / 0 = 134." gave the user's own 134 as the quotient)."""
    if not _NO_VALUE.search(answer) or _stray(answer, transcript):
        return False
    return not any(_CLAIMS.search(answer[max(m.start - 12, 0) : m.start]) for m in _mentions(answer))


_STATES = re.compile(r"[=≈.,;:\n]|\b(?:is|are|equals?|makes?|gives?|comes to|was|were)\b", re.IGNORECASE)


def _false_working(answer: str, result: Fraction) -> Transcript | None:
    """Arithmetic the answer writes out before its result that does not come to it: "The answer
    to 16 plus 16 is 100." stated the right 100 after 84 + 16, every number backed. A run is
    numbers joined by a few words or signs ("16 plus 16", "3 + 4 × 5"), read as the user's
    words are; a run that does not read as arithmetic claims nothing."""
    mentions = _mentions(answer)
    runs: list[list[Mention]] = []
    for mention in mentions:
        gap = answer[runs[-1][-1].end : mention.start] if runs else ""
        if runs and len(gap.split()) <= 3 and not _STATES.search(gap):
            runs[-1].append(mention)
        else:
            runs.append([mention])
    for run in runs:
        if len(run) < 2:
            continue
        working = transcribe(answer[run[0].start : run[-1].end])
        if working is not None and working.value is not None and working.value != result:
            return working
    return None


def _agrees(transcript: Transcript, call: CallRecord) -> bool:
    target = transcript.value
    assert target is not None
    loose = transcript.approximate or not is_exact(call.result)
    tolerance = abs(target) * Fraction(1, 10**12)
    return any(v == target or (loose and abs(v - target) <= tolerance) for v in result_values(call.result))


def _states(answer: str, transcript: Transcript) -> bool:
    """Whether the answer states the transcription's value (or a correct rounding of it). Only the
    value itself counts, never a part of how it is written: "(79 - 14) / 7" is 65/7, and the 7 of an
    answer that only repeated the question was once taken for it."""
    value = transcript.value
    assert value is not None
    pool = SourcePool([Source(_decimal(value))])
    return any(r.value == value or pool.backs_reading(r) for m in _mentions(answer) for r in m.readings)


def _decimal(value: Fraction, digits: int = 40) -> str:
    whole, rest = divmod(abs(value.numerator), value.denominator)
    places = []
    for _ in range(digits):
        rest *= 10
        digit, rest = divmod(rest, value.denominator)
        places.append(str(digit))
    sign = "-" if value < 0 else ""
    return f"{sign}{whole}.{''.join(places)}" if value.denominator != 1 else f"{sign}{whole}"
