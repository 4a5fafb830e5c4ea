"""Arithmetic the user wrote out: the one kind of formula that can be established from words.

"What is 12 times 7?", "(5 + 3) * 12", "17 squared", "15% of 240", "subtract 86 from 650",
"the average of 43, 18 and 10", "how many km is 144 miles?", "now add 16 to that": each
of these names every operation between its numbers, so the formula is a transcription and
its value can be worked out here, apart from the model and the calculator. A word problem
("Paige raised 15 goldfish ... 5 were eaten. How many remained?") is not: the words between
its numbers tell a story, and which operation it needs is a reading, not a transcription.

The rule is strict on purpose. After a short opening ("what is", "calculate", "now") and
before the closing punctuation, every word must be an operator word, a number or a
reference to the previous result; one word of story and there is no transcription. A
question that is not transcribed loses nothing but the word "verified".
"""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction

from app.calculon.evaluate import Node, TooBig, Undefined, converted, evaluate, shown
from app.calculon.everyday import everyday
from app.calculon.parser import NoParse, Parser, Token, percent_token
from app.calculon.phrases import CLOSING, OPENING, OPERATIONS, REFERENCE, TOKENS, UNIT_QUESTIONS
from app.core.numbers import Mention, find_numbers


@dataclasses.dataclass(frozen=True)
class Transcript:
    """What the user's words compute. ``value`` is None where the arithmetic is undefined;
    ``shown`` is the formula as Calculon writes it; ``uses_earlier``: it works on the
    previous answer ("add 16 to that")."""

    value: Fraction | None
    shown: str
    uses_earlier: bool = False
    approximate: bool = False  # a root that is not exact: compared to 12 significant digits
    operands: tuple[Fraction, ...] = ()  # every number the formula holds (the 3 of an average too)


def transcribe(text: str, earlier: Fraction | None = None) -> Transcript | None:
    """The arithmetic ``text`` writes out, or None where its words do not spell it out.
    ``earlier``: the value "that" and "it" stand for (the previous answer), if known."""
    unit = conversion(text)
    if unit is not None:
        return unit
    text = everyday(text)
    chained = _chain(text, earlier)
    if chained is not None:
        return chained
    tokens = _tokens(text)
    if tokens is None or not any(t.kind in ("num", "ref") for t in tokens):
        return None
    uses_earlier = any(t.kind == "ref" for t in tokens)
    if uses_earlier and earlier is None:
        return None
    parser = Parser(tokens, earlier)
    try:
        node = parser.parse()
    except NoParse:
        return None
    operands = tuple(_leaves(node))
    try:
        value, approximate = evaluate(node)
    except Undefined:
        return Transcript(None, shown(node), uses_earlier, operands=operands)
    except TooBig:
        return None
    return Transcript(value, shown(node), uses_earlier, approximate, operands)


def _leaves(node: Node) -> list[Fraction]:
    if node.op == "num":
        return [node.value] if node.value is not None else []
    return [v for arg in node.args for v in _leaves(arg)]


def with_earlier(text: str, earlier: str) -> str:
    """ "Now add 16 to that." as "Now add 16 to 84." where 84 (``earlier``, as written) was the
    previous result; ``text`` unchanged where it is no written-out arithmetic on it."""
    found = transcribe(text, Fraction(1))  # any value: only whether "that" is an operand matters
    if found is None or not found.uses_earlier:
        return text
    return _REFERENCE.sub(earlier, text, count=1)


_REFERENCE = re.compile(rf"\b(?:{REFERENCE})\b", re.IGNORECASE)


def names_an_operation(text: str) -> bool:
    """Whether ``text`` has a word or sign that names an operation ("double", "half of", "+")."""
    body = text.lower()
    for i, char in enumerate(body):
        if i and body[i - 1].isalpha() and char.isalpha():
            continue  # only at the start of a word
        match = TOKENS.match(body, i)
        if match is not None and match.lastgroup in OPERATIONS:
            return True
    return False


# --- tokens ------------------------------------------------------------------


def _tokens(text: str) -> list[Token] | None:
    """The message as numbers, references and operator words; None if any other word is left."""
    mentions = find_numbers(text)
    if any(m.exempt or not m.readings for m in mentions):
        return None  # an ordinal, a list marker, a number too big to read: not plain arithmetic
    body, numbers = _with_placeholders(text, mentions)
    body = _strip(body)
    out: list[Token] = []
    i = 0
    while i < len(body):
        if body[i] == " ":
            i += 1
            continue
        if body.startswith("\x00", i):
            end = body.index("\x01", i)
            out.append(numbers[int(body[i + 1 : end])])
            i = end + 1
            continue
        match = TOKENS.match(body, i)
        if match is None:
            return None
        out.append(Token(match.lastgroup or "", text=match.group()))
        i = match.end()
    return out


def _with_placeholders(text: str, mentions: list[Mention]) -> tuple[str, list[Token]]:
    parts, numbers, last = [], [], 0
    for index, mention in enumerate(mentions):
        parts.append(text[last : mention.start].lower())
        parts.append(f" \x00{index}\x01 ")
        numbers.append(percent_token(mention))
        last = mention.end
        if text.startswith("!", last):  # "7!" is a factorial, not an exclamation
            parts.append(" factorial ")
            last += 1
    parts.append(text[last:].lower())
    return "".join(parts), numbers


def _strip(body: str) -> str:
    """The message without its opening ("what is", "now") and its closing ("?", "please")."""
    body = " ".join(body.replace("\u2019", "'").split())
    while True:
        before = body
        opened = OPENING.match(body)
        if opened is not None:
            body = body[opened.end() :].strip()
        closed = CLOSING.search(body)
        if closed is not None:
            body = body[: closed.start()].strip()
        if body == before:
            return body


# --- conversions ---------------------------------------------------------------


def conversion(text: str) -> Transcript | None:
    """ "How many km is 144 miles?", "What is 109 °F in Celsius?", "Convert 5 kg to pounds."."""
    mentions = find_numbers(text)
    if len(mentions) != 1 or mentions[0].exempt or not mentions[0].readings:
        return None
    mention = mentions[0]
    body = _strip(f"{text[: mention.start]} NUMBER {text[mention.end :]}".lower())
    for pattern in UNIT_QUESTIONS:
        match = pattern.fullmatch(body)
        if match is None:
            continue
        value = mention.readings[0].value
        result = converted(value, match["source"], match["target"])
        if result is not None:
            return Transcript(
                result, f"{mention.text} {match['source']} in {match['target']}", operands=(value,)
            )
    return None


# --- steps joined by "then" ---------------------------------------------------------

# "Multiply 25 by 4, then add 10.": each step after "then" works on the result before it
_THEN = re.compile(r"[\s,;]*(?:\band\s+)?\bthen\b[\s,]*", re.IGNORECASE)
# a step that leaves out what it works on, with that put back: "add 10" is "add 10 to that"
_ON_THAT = ("{}", "that {}", "{} to that", "{} from that", "{} that", "{} of that")
_VERB = re.compile(r"^\s*(multiply|divide|square|cube)\b", re.IGNORECASE)


def _chain(text: str, earlier: Fraction | None) -> Transcript | None:
    """Steps joined by "then", each a transcription of the result before it, as one formula:
    "Multiply 25 by 4, then add 10." is 25 × 4 + 10; None where any step is not written out."""
    steps = [step for step in _THEN.split(text) if step.strip(" .,;?!")]
    if len(steps) < 2:
        return None
    found = transcribe(steps[0], earlier)
    for step in steps[1:]:
        if found is None or found.value is None:
            return None
        found = _step_on(found, step, earlier)
    return found


def _step_on(before: Transcript, step: str, earlier: Fraction | None) -> Transcript | None:
    """``step`` on ``before``'s result, as one formula; ``earlier``: what "that" stood for at first."""
    forms = [form.format(step.strip(" .,;?!")) for form in _ON_THAT]
    forms.append(_VERB.sub(r"\1 that", step, count=1))  # "multiply by 5": "multiply that by 5"
    for form in forms:
        found = transcribe(form, before.value)
        if found is not None and found.uses_earlier:
            return transcribe(_REFERENCE.sub(f"({before.shown})", form, count=1), earlier)
    return None
