"""The formula Calculon mode reads in the user's words, as a typed hint for the backend.

A transcription ("12 times 7", "add 16 to that") is the user's own formula. A word problem
gets the ranker's best reading of its story. Both are written for the calculator's
``evaluate``; a question that is neither (a conversion, a lookup, one number) gets no hint,
and the model works it out as before.
"""

from __future__ import annotations

import re
from fractions import Fraction

from app.calculon.candidates import written
from app.calculon.deed import instructs_a_change
from app.calculon.ranker import ranked
from app.calculon.transcript import Transcript, transcribe, with_earlier
from app.calculon.worked import whole_groups
from app.core.backend import FormulaHint

MIN_SHARE = 0.0  # a ranked reading is offered whatever its share: it is shown as computed
_ASCII = str.maketrans({"×": "*", "÷": "/", "−": "-"})
_EVALUATE = re.compile(r"^[0-9.+*/%^() -]*$")  # what the bundled evaluate tool takes
# A question about units, time or a place is not a story's arithmetic: the model and its
# converter or clock answer it, and a ranking of its numbers would only mislead.
_NOT_A_STORY = re.compile(
    r"\b(convert|conversion|in (?:km|kilometers|miles|meters|feet|inches|cm|celsius|fahrenheit|kelvin)|"
    r"time|clock|timezone|utc|gmt|date|today|tomorrow|yesterday)\b",
    re.IGNORECASE,
)


def formula_hint(text: str, earlier: Fraction | None = None) -> FormulaHint | None:
    """The calculation ``text`` asks for, where it can be written for ``evaluate``."""
    transcript = transcribe(text, earlier)
    if transcript is not None and transcript.uses_earlier and earlier is not None:
        transcript = transcribe(with_earlier(text, written(earlier)))  # "that + 16" as "84 + 16"
    if transcript is not None:
        return _transcribed(transcript)
    if _NOT_A_STORY.search(text) or instructs_a_change(text):
        return None  # "Add a product ... priced 19.99, with 4 in stock, to the products table" is no sum
    best = ranked(text, top=4)
    if not best or best[0].probability < MIN_SHARE:
        return None
    first = best[0].candidate
    others = tuple((r.candidate.shown, round(r.probability, 3)) for r in best[1:])
    share = round(best[0].probability, 3)
    groups = whole_groups(text, first.expression)  # "how many full bags": 9 whole, 2 left over
    return FormulaHint(first.expression, first.shown, "ranked", share, others, groups=groups)


def _transcribed(transcript: Transcript) -> FormulaHint | None:
    if transcript.approximate:
        return None
    expression = transcript.shown.translate(_ASCII).replace(" mod ", " % ")  # % between numbers: mod
    if not _EVALUATE.match(expression) or not any(op in expression for op in "+-*/%^"):
        return None  # a root, a factorial, a conversion: the model picks the tool for those
    # "134 divided by 0" is made too: the small models wrote "134 * 0 = 0" for it themselves
    return FormulaHint(expression, transcript.shown, "transcription", defined=transcript.value is not None)
