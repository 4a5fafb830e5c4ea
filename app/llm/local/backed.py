"""Numbers that cannot be invented: Calculon mode's decoding grammar for numbers.

In Calculon mode the local model may write a number, in a tool call's
arguments or in its answer, only if it is *backed*: it stands in the user's
words or in a tool result of this conversation, as written or in a form the
provenance check accepts (``1,776`` for 1776, ``0.125`` for ``12.5%``, a
correct rounding of ``0.3333…``). The model still picks the tool and the
order; it can no longer pick a number out of thin air.

The grammar is built in two parts, so a step pays only for what changed: the
tools' rules (cached per tool list, in :mod:`schema_grammar`) refer to the
primitives ``number``, ``integer`` and ``string``; :func:`argument_rules`
redefines those primitives over this step's backed numbers.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from app.core.calculator_text import ROUNDING_NOTE, without_note
from app.core.number_forms import MAX_DIGITS, exact_forms, grouped, rounded_forms
from app.core.numbers import DOTTED, find_numbers

_INTEGER = re.compile(r"-?[0-9]+")
_PLAIN_NUMBER = re.compile(r"-?[0-9][0-9,]*(?:\.[0-9]+)?")
PRIMITIVES = ("number", "integer", "string")  # the converter's rule names that are redefined here
# Numerals other than ASCII digits ("½", "²", "٣"): numbers too, that no backed form holds.
_NUMERALS = (
    "\\u00b2\\u00b3\\u00b9\\u00bc-\\u00be\\u0660-\\u0669\\u06f0-\\u06f9\\u0966-\\u096f\\u2070-\\u2079"
    "\\u2080-\\u2089\\u2150-\\u2189\\u2460-\\u249b\\u2776-\\u2793\\uff10-\\uff19"
)


@dataclasses.dataclass(frozen=True)
class BackedForms:
    """Every way a backed number may be written: in prose, and as a JSON number."""

    text: frozenset[str]
    json: frozenset[str]
    integers: frozenset[str]

    @property
    def arguments(self) -> frozenset[str]:
        """Numbers a call's text may hold (an expression): exact values, and 100 beside a
        percentage, since "15% of 240" is 240 * 15 / 100."""
        return self.json | ({"100"} if self.percent else set())

    percent: bool = False
    notes: frozenset[str] = frozenset()  # the calculator's "(rounded to 28 significant digits)", as written
    # Numbers the offered tools' own schemas name for a number field (a default, an enum value,
    # a bound): backed by the tool, for its number fields only, never for an expression or the
    # answer. Without them an optional count such as git_log's max_count had no value it could
    # take once the model wrote its key, and decoding died there.
    schema: frozenset[str] = frozenset()


def with_schema_numbers(forms: BackedForms, schemas: Iterable[Mapping[str, Any]]) -> BackedForms:
    """``forms`` with the numbers the tools' input ``schemas`` name for their number fields."""
    found: set[str] = set()
    for schema in schemas:
        found.update(_schema_numbers(schema))
    return dataclasses.replace(forms, schema=frozenset(found))


_SCHEMA_KEYS = ("default", "enum", "const", "minimum", "maximum", "examples")


def _schema_numbers(node: Any) -> Iterable[str]:
    if isinstance(node, list):
        for item in node:
            yield from _schema_numbers(item)
        return
    if not isinstance(node, Mapping):
        return
    types = node.get("type")
    numeric = {"number", "integer"} & set(types if isinstance(types, list) else [types])
    for key, value in node.items():
        if numeric and key in _SCHEMA_KEYS:
            values = value if isinstance(value, list) else [value]
            yield from (
                json.dumps(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)
            )
        elif isinstance(value, Mapping | list):
            yield from _schema_numbers(value)


def backed_forms(texts: Iterable[str], *, parts: bool = True) -> BackedForms:
    """Every backed form of the numbers in ``texts``; without ``parts``, a written expression
    (``1/3``) offers only its value, not its operands (for a result that must be stated)."""
    texts = list(texts)  # read twice: a generator would be spent
    written: set[str] = set()
    values: set[Fraction] = set()
    notes: set[str] = set()
    percent = False
    for source in texts:
        percent = percent or "%" in source or "percent" in source.lower()
        notes.update(ROUNDING_NOTE.findall(source))
        # a version's parts are no quantities: the 1.5B model, asked for the downloads of versions
        # 2.1.0 and 2.0.3 together, sent 2.1 + 2.0 - 48213 + 30877
        for mention in find_numbers(DOTTED.sub(" ", without_note(source))):
            if _PLAIN_NUMBER.fullmatch(mention.text) and len(mention.text) <= MAX_DIGITS:
                written.add(mention.text)
            values.update(mention.values() if parts else (r.value for r in mention.readings))
    # Arguments take exact values only: a rounded input is a different calculation.
    exact = {f for v in values for f in exact_forms(v)} | {w.replace(",", "") for w in written}
    rounded = {f for v in values for f in rounded_forms(v)}
    text = exact | rounded | written
    text |= {grouped(f) for f in text}
    # a version or an address ("0.4.2", "192.168.1.1") is written whole: read as numbers it is
    # 0.4 and 2, and the answer's grammar stopped "version 0.4.2" at "0.4."
    text |= {m.group(0) for source in texts for m in DOTTED.finditer(without_note(source))}
    integers = {f for f in exact if "." not in f}
    return BackedForms(frozenset(text), frozenset(exact), frozenset(integers), percent, frozenset(notes))


def text_rules(forms: BackedForms) -> list[str]:
    """``calculon-banswer``: free text that does not open with "<" (that is how a tool call
    begins) and holds no "{" (a call written out as JSON, which a model shown its own call in
    the history copied as its answer), nor opens with a code fence or a list ("```json [\"divide\",
    \"17/3\"]```" from Qwen2.5), in which every run of digits is a backed number."""
    # A result's rounding note may be copied as written; its digits back nothing else.
    note = f" | {_alternatives(forms.notes)}" if forms.notes else ""
    return [
        f"calculon-num ::= {_alternatives(forms.text)}",
        "calculon-btext ::= calculon-bseg* calculon-btail?",
        f"calculon-bseg ::= [^{{0-9{_NUMERALS}\\x00] | calculon-num calculon-bafter | calculon-item{note}",
        # A numbered list's marker at the start of a line, which the answer check exempts too
        # (app.calculon.provenance): without it "we need to follow these steps:" ended there.
        'calculon-item ::= "\\n" [ \\t]* [1-9] [0-9]? [.)] " "',
        f"calculon-bafter ::= [^{{0-9{_NUMERALS}.,\\x00] | [.,] [^{{0-9{_NUMERALS}\\x00]",
        "calculon-btail ::= calculon-num [.,]?",
        f"calculon-banswer ::= [^<{{`\\[0-9{_NUMERALS}\\x00] calculon-btext"
        " | calculon-num calculon-bafter calculon-btext | calculon-btail",
    ]


_FORMULA = "()=+*^\\[\\]{}~#|@&_`\\-"  # characters of a formula or markup, not of the words after a result
_OPERATORS = "+*/×÷^()\\-"  # written before the result only inside the formula that ran


MAX_HEAD = 160  # characters (a number counts as one) an answer may write before it states the result


def result_rules(
    result: Iterable[str],
    forms: BackedForms,
    head: frozenset[str] | None = None,
    units: frozenset[str] | None = None,
    formulas: frozenset[str] = frozenset(),
    barred: str = "",
) -> list[str]:
    """``calculon-ranswer``: a backed answer that states the tool's result (one of its forms) and
    ends with that sentence: a small model otherwise writes "38 - 9 = 38." beside the right
    result, or runs on ("848 - 24 = 848 + 24 = ..."). Before the result, on the same line and
    within MAX_HEAD, other backed numbers (``head``: by default every backed form) and, as the
    one formula, the calculation that was run (``formulas``: its written forms); after it,
    words only (and the calculator's rounding note), to the end of the line, or, given
    ``units``, only one of them and a full stop. ``barred``: what else the answer may not open
    with (the "[" of a Mistral model's [TOOL_CALLS])."""
    result = set(result)
    note = f" | {_alternatives(forms.notes)}" if forms.notes else ""
    before = (forms.text if head is None else head) - result
    # No operator outside the formula that ran: "38 - 9 = -43." and "(23 - 23) / 12 = 2.5" were
    # written before right results, backed number by number and false as equations.
    words = f"[^<{{0-9{_NUMERALS}=≈\\n\\x00{_OPERATORS}]"
    extra = class_chars("".join(c for c in barred if c not in "<{"))
    first = f"{words[:-1]}{extra}]" if extra else words
    formula = " | calculon-rformula" if formulas else ""
    return [
        f"calculon-rnum ::= {_alternatives(result)}",
        f"calculon-hnum ::= {_alternatives(before)}",
        *([f"calculon-rformula ::= {_alternatives(formulas)}"] if formulas else []),
        # "=" and "≈" only right before the result: "38 - 9 = 38." beside it was seen, in a loop
        # and never straight after an operator: "18 * 5958" reads as a formula, not a result
        "calculon-ranswer ::= (calculon-rhead calculon-rjoin)? calculon-rnum calculon-rtail",
        f'calculon-rjoin ::= [=≈] " "? | [^<{{0-9{_NUMERALS}=≈\\n\\x00 {_OPERATORS}] " "?',
        # No "<" anywhere: "You can call this tool: <tool_call>" would end the reply before the
        # result. No line break and a bounded length: a head that lists the tools or writes code
        # ("You can use the following tools:\n- add(a, b) ...") otherwise runs into the token cap.
        f"calculon-rhead ::= ({first} | calculon-hnum calculon-hafter{formula})"
        f" calculon-hseg{{0,{MAX_HEAD}}}",
        f"calculon-hseg ::= {words} | calculon-hnum calculon-hafter{note}{formula}",
        f"calculon-hafter ::= [^<{{0-9{_NUMERALS}.,=≈\\n\\x00{_OPERATORS}] | [.,] {words}",
        # words after the result, not a formula: "91 - ( )", "1.8 is ( ) ( )" were seen
        f"calculon-rtail ::= [.,]? | [.,]? ([^0-9{_NUMERALS}.,<\\n\\x00{_FORMULA}]{note}) calculon-rrest"
        if units is None
        else _unit_tail(units, note),
        f"calculon-rrest ::= ([^0-9{_NUMERALS}<\\n\\x00{_FORMULA}]{note})*",
    ]


def _unit_tail(units: frozenset[str], note: str) -> str:
    unit = f' | " " ({_alternatives(units)}) "."?' if units else ""
    spaced = f' | " " ({note[3:]})' if note else ""
    return f'calculon-rtail ::= "."?{unit}{spaced}'


def result_units(text: str) -> frozenset[str]:
    """The words of a tool result beside its numbers ("ft" of "2500/381 ≈ 6.56 ft"), less the
    rounding note."""
    return frozenset(re.findall(r"°?[^\W\d_]+", without_note(text)))


def argument_rules(forms: BackedForms) -> list[str]:
    """The converter's ``number`` and ``integer`` primitives over backed numbers, and its ``string``
    left free: digits inside a path, a name, a date or an identifier ("task1", "2026-12-04") are
    the string's, never a number to bend to a backed one (a model wrote "task1" as "task/rt"
    when they were). A string the tool reads as arithmetic is held apart (:func:`_class_string`),
    and the answer's numbers are checked whatever the arguments were."""
    schema_integers = {n for n in forms.schema if _INTEGER.fullmatch(n)}
    return [
        f"calculon-jnum ::= {_alternatives(forms.json | forms.schema)}",
        f"calculon-anum ::= {_alternatives(forms.arguments)}",
        f"calculon-jint ::= {_alternatives(forms.integers | schema_integers)}",
        "number ::= calculon-jnum space",
        "integer ::= calculon-jint space",
        'string ::= "\\"" calculon-schar* "\\"" space',
        'calculon-schar ::= [^"\\\\\\x00-\\x1f] | "\\\\" (["\\\\/bfnrt] | "u" calculon-hex calculon-hex'
        " calculon-hex calculon-hex)",
        "calculon-hex ::= [0-9a-fA-F]",
    ]


def _alternatives(forms: Iterable[str]) -> str:
    ordered = sorted(forms, key=lambda f: (len(f), f))
    # With nothing backed, a rule that only a NUL character matches: no model writes one.
    return " | ".join(json.dumps(f) for f in ordered) if ordered else '"\\x00"'


def strict_rules(tool_rules: Iterable[str], forms: BackedForms) -> list[str]:
    """The tools' rules with their number and string primitives replaced by backed ones, and
    strings limited to one character class (the calculator's expression) limited the same way."""
    kept: list[str] = []
    for line in tool_rules:
        if line.split(" ::=", 1)[0] in PRIMITIVES:
            continue
        kept.extend(_class_string(line) or [line])
    return [*kept, *argument_rules(forms)]


_ARITHMETIC = set(".eE+*/%^() ×·÷−–-")  # a class of only these (and digits) holds arithmetic


def _expression_rules(name: str) -> list[str]:
    """A string of digits, operators and parentheses is read as arithmetic: decoded as a
    well-formed expression (operands and operators alternating, brackets balanced), with at
    least one operator: a lone number is no calculation. The operator may stand inside brackets
    around the whole: made to put one outside them, Qwen2.5-Coder-1.5B turned the mean it
    meant, ((120 + 95 + ... + 185) / 7), into ((...) / 7) * 143, then * 143 / 143."""
    return [
        f'{name} ::= "\\"" {name}-calc "\\"" space',
        f'{name}-calc ::= {name}-term ({name}-op {name}-term)+ | "-"? "(" {name}-calc ")"',
        f"{name}-expr ::= {name}-term ({name}-op {name}-term)*",
        f'{name}-term ::= "-"? (calculon-anum "%"? | "(" {name}-expr ")")',
        f'{name}-op ::= " "? ("//" | [-+*/^%]) " "?',
    ]


# What the converter writes for {"type": "string", "pattern": "^[...]*$"}.
_CLASS_STRING = re.compile(r'^(?P<name>[\w-]+) ::= "\\"" \[(?P<chars>[^\]]*)\][*+] "\\"" space$')


def arithmetic_strings(tool_rules: Iterable[str]) -> list[str]:
    """The names of the string rules that :func:`strict_rules` decodes as arithmetic."""
    return [
        m["name"] for line in tool_rules if (m := _CLASS_STRING.match(line)) and _is_arithmetic(m["chars"])
    ]


def _is_arithmetic(chars: str) -> bool:
    others = chars.replace("0-9", "")
    return "0-9" in chars and "(" in others and set(others.replace("\\-", "-")) <= _ARITHMETIC


def _class_string(line: str) -> list[str] | None:
    """``"12 * 7"`` under a class that admits digits: digits only as backed numbers, and no digit,
    decimal point or exponent straight after one (that would make another number)."""
    match = _CLASS_STRING.match(line)
    if match is None or "0-9" not in match["chars"]:
        return None
    name, others = match["name"], match["chars"].replace("0-9", "")
    if _is_arithmetic(match["chars"]):
        return _expression_rules(name)
    after = others.replace(".", "").replace("eE", "").replace("e", "").replace("E", "")
    return [
        f'{name} ::= "\\"" ({name}-char | calculon-anum {name}-after)* calculon-anum? "\\"" space',
        f"{name}-char ::= [{others}]",
        f"{name}-after ::= [{after}]",
    ]


def class_chars(text: str) -> str:
    """``text`` as the members of a GBNF character class: its own metacharacters escaped."""
    return "".join(f"\\{c}" if c in "[]^\\-" else c for c in text)
