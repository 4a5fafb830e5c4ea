"""The words of written-out arithmetic, in one place: what the transcription reads
(:mod:`app.calculon.transcript`) and nothing else.

Each operator word names one operation wherever it stands between two numbers. Words that
name an operation only through a story ("left", "remain", "spent", "shared", "each") are not
here on purpose: they are readings, and a reading is never a transcription.
"""

from __future__ import annotations

import re

# What stands for the previous answer: "add 16 to that", "and half of it?".
REFERENCE = r"(?:the |that |this )?(?:previous |last )?(?:result|answer)|that number|that|it|this"

# (token name, pattern); longer phrases before the shorter ones they start with.
_PHRASES: tuple[tuple[str, str], ...] = (
    ("sum_of", r"(?:the )?(?:sum|total) of|sum"),
    ("product_of", r"(?:the )?product of"),
    ("average_of", r"(?:the )?(?:average|arithmetic mean|mean) of"),
    ("difference_between", r"(?:the )?difference (?:between|of)"),
    ("quotient_of", r"(?:the )?quotient of"),
    ("square_root_of", r"(?:the )?square root(?: of)?|sqrt|√"),
    ("cube_root_of", r"(?:the )?cube root(?: of)?|∛"),
    ("square_of", r"(?:the )?square of"),
    ("cube_of", r"(?:the )?cube of"),
    ("factorial_of", r"(?:the )?factorial of"),
    ("half_of", r"half(?: of)?|halve"),
    ("double", r"double|twice"),
    ("triple", r"triple|thrice"),
    ("add", r"add"),
    ("subtract", r"subtract|deduct"),
    ("multiply", r"multiply"),
    ("divide", r"divide"),
    ("less_than", r"less than|fewer than"),
    ("more_than", r"more than"),
    ("plus", r"\+|plus|added to|increased by"),
    ("minus", r"-|−|–|minus|decreased by|take away|negative"),
    ("power", r"\^|\*\*|(?:raised )?to the power of|to the power"),
    ("times", r"\*|×|·|⋅|times|multiplied by|multiplied with|x"),
    ("over", r"/|÷|divided by|over"),
    ("mod", r"mod|modulo"),
    ("squared", r"squared"),
    ("cubed", r"cubed"),
    ("factorial", r"factorial|!"),
    ("ref", REFERENCE),
    ("of", r"of"),
    ("open", r"\("),
    ("close", r"\)"),
    ("comma", r","),
    ("and", r"and"),
    ("to", r"to"),
    ("from", r"from"),
    ("by", r"by"),
)

# a word may not run on into another ("tot" is no "to"); a sign may ("(that + 16)")
TOKENS = re.compile("|".join(f"(?P<{name}>{pattern})(?:(?<![a-z])|(?![a-z]))" for name, pattern in _PHRASES))

# What may open and close a written-out calculation without being part of it.
OPENING = re.compile(  # longer phrases first: the first alternative that matches wins
    r"(?:what do you get (?:if|when) you|what would|what will"
    r"|(?:what|how much)(?:'s| is| are| does| do)?(?: the (?:value|result|answer) (?:of|to))?"
    r"|whats|calculate|compute|evaluate|work out|find|solve|please|now|then|next|and|so|ok(?:ay)?"
    r"|also|can you|could you|would you|tell me|give me|i need|let's|lets|hey)(?![a-z])[ ,:]*"
)
CLOSING = re.compile(r"(?:\s*(?:[?.!=:,]|\b(?:please|thanks|thank you|equals?|be|come to|for me|is)\b))+\s*$")

# A conversion written out; the user's one number stands as "number" in these.
_UNIT = r"(?P<{}>[a-z°][a-z° ]{{0,24}}?)"
_SOURCE, _TARGET = _UNIT.format("source"), _UNIT.format("target")
UNIT_QUESTIONS = tuple(
    re.compile(p)
    for p in (
        rf"how many {_TARGET} (?:is|are|in|is in|are in|make|makes|equals?|are there in) number {_SOURCE}",
        rf"(?:convert )?number {_SOURCE} (?:in|to|into|in terms of|as) {_TARGET}",
    )
)

# Token kinds that name an operation: a message holding one asks for arithmetic, even with no digit
# in it ("Double it.", "And half of that?"), so its answer is never a mere lookup.
OPERATIONS = frozenset(
    name
    for name, _ in _PHRASES
    if name not in ("ref", "of", "open", "close", "comma", "and", "to", "from", "by")
)
