"""The app's Calculon mode: the checks of :mod:`app.calculon` behind one object the engine holds."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from app.calculon.columns import columns_note
from app.calculon.conversion import conversion_hint
from app.calculon.counts import answers_by_count, count_note, gathered_counts
from app.calculon.deed import instructs_a_change
from app.calculon.extremes import extremes_note
from app.calculon.hint import formula_hint
from app.calculon.idle import idle_reason, overused
from app.calculon.lookup import lookup_hint
from app.calculon.provenance import CalculonVerifier
from app.calculon.ranker import ranked
from app.calculon.reading import asked_for, bracket_spans, counted_words, read
from app.calculon.stated import stated_result
from app.calculon.transcript import transcribe, with_earlier
from app.calculon.verdict import ARITHMETIC_TOOLS, asks_an_operation, judge
from app.calculon.worked import inline_result, worked_answer
from app.core.arithmetic import UserArithmetic
from app.core.backend import FormulaHint, WorkedAnswer
from app.core.calculator_text import call_formula
from app.core.named import places, without_names, without_quoted_words
from app.core.numbers import DOTTED, find_numbers
from app.core.records import CallRecord
from app.core.tools import CheckResult, TurnFacts, Verdict

# a page or a data file a question names ("miles/hour", "Ph.D" and a folder are none)
_READ_FROM = re.compile(
    r"://|\.(?:txt|md|csv|tsv|json|html?|db|sqlite|log|ya?ml|toml|xml|py)$", re.IGNORECASE
)
_CONSTANT = re.compile(r"\b(?:pi|tau|phi|e|euler)\b|[πτφ]", re.IGNORECASE)


class CalculonMode(CalculonVerifier):
    """Checks every number, then judges whether the formula that ran is established."""

    # a call's optional numbers that no one said are left out of it (app.core.unsaid)
    backs_numbers = True

    def judge(self, answer: str, check: CheckResult, facts: TurnFacts) -> Verdict:
        return judge(answer, check, facts)

    def worked(self, asked: str, inserted: tuple[str, ...] = ()) -> WorkedAnswer | None:
        """The worked-answer format for a question that asks for a calculation (app.calculon.worked)."""
        if any(_READ_FROM.search(place) for place in places(asked)):
            # "According to <page>, what would the Team plan cost for 6 users?": the price is on
            # the page, and a working can only call the calculator
            return None
        return worked_answer(DOTTED.sub(" ", without_names(asked)), inserted)

    def inline_result(self, result: str, is_error: bool, asked: str, arguments: Mapping[str, Any]) -> str:
        """How a calculator result stands in a worked answer's prose ("= 126", "≈ 9.6667")."""
        return inline_result(result, is_error, asked, str(arguments.get("expression", "")))

    def count_note(self, asked: str, result: str) -> str:
        """What the app counted (app.calculon.counts), compared (app.calculon.extremes) or listed
        (app.calculon.columns) in a tool's text, where the question asks for a count, a most or
        least, or a sum or mean."""
        return count_note(asked, result) + extremes_note(asked, result) + columns_note(asked, result)

    def idle_call(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, Any],
        calls: Sequence[CallRecord],
        asked: str = "",
    ) -> str:
        """Why a calculation made after another server's data came back works nothing out, or ""
        (app.calculon.idle); also any calculation where the app's count of that data already
        answers the question ``asked`` (app.calculon.counts)."""
        formula = call_formula(tool, arguments, shown=False)
        read = [c for c in calls if c.server != server and not c.is_error]
        if formula is None or not read:
            return ""
        done = [(call_formula(c.tool, c.arguments, shown=False), c) for c in calls if not c.is_error]
        reason = idle_reason(formula, [(f, c.result) for f, c in done if f is not None])
        if not reason and asked and any(answers_by_count(asked, c.result) for c in read):
            return f"{' '.join(formula.split())} is not needed: the app counted what the question asks"
        return reason

    def stated_result(self, answer: str, asked: str, calls: Sequence[CallRecord]) -> str:
        """The last calculation and its result, where the answer states no number (app.calculon.stated)."""
        return stated_result(answer, asked, calls)

    def overused_call(
        self, server: str, tool: str, arguments: Mapping[str, Any], calls: Sequence[CallRecord], asked: str
    ) -> str:
        """Why a calculation on data another tool read uses one of its values more often than the
        data holds it, or "" (app.calculon.idle.overused). Such a call is refused; unlike an idle
        one, the calculator stays on offer for the calculation the data needs."""
        formula = call_formula(tool, arguments, shown=False)
        if formula is None or not any(c.server != server and not c.is_error for c in calls):
            return ""
        return overused(formula, [asked, *(c.result for c in calls if not c.is_error)])

    def asks_an_operation(self, asked: str) -> bool:
        """Whether the question names an operation, not only numbers (app.calculon.verdict)."""
        return asks_an_operation(without_quoted_words(without_names(asked)))

    def asks_a_deed(self, asked: str) -> bool:
        """Whether the request puts, makes or changes a thing and asks for nothing worked out
        ("Add a product ..., priced 19.99, to the products table": app.calculon.deed)."""
        return instructs_a_change(asked)

    def calculates(self, tool: str) -> bool:
        """Whether ``tool`` (a bare name) works a number out: the calculator's and the converter's."""
        return tool in ARITHMETIC_TOOLS

    def holds_numbers(self, texts: Sequence[str]) -> bool:
        """Whether any of ``texts`` (the user's words, tool results) holds a number to calculate
        with, in digits or words, or a constant ("pi times e"); the digits of paths, URLs, file
        names and versions ("0.4.2") are none: the calculator's grammar takes no operand from them."""
        kept = (DOTTED.sub(" ", without_names(text)) for text in texts)
        return any(find_numbers(text) for text in kept) or any(_CONSTANT.search(text) for text in texts)

    def readings(self, asked: str, results: Sequence[str] = ()) -> tuple[str, ...]:
        """The question's likeliest formulas, as the calculator takes them (for a re-ask): the
        sum of the app's counts of the ``results`` first, where the question gathers them."""
        gathered = gathered_counts(asked, results)
        found = (r.candidate.expression for r in ranked(without_names(asked), top=3))
        return (gathered, *found) if gathered else tuple(found)

    def hint(self, asked: str, earlier: Fraction | None) -> FormulaHint | None:
        """The formula the user's words ask for, handed to the backend (see :mod:`app.calculon.hint`)."""
        story = DOTTED.sub(" ", without_names(asked))  # "versions 2.1.0 and 2.0.3" hold no 0 + 2 + 3
        return formula_hint(story, earlier) or conversion_hint(asked) or lookup_hint(asked)

    def arithmetic(self, asked: str, earlier: str) -> UserArithmetic:
        """The user's words as the call's grammar reads them (see :class:`UserArithmetic`), with
        ``earlier`` (the last result, as written) standing for "that" where they work on it."""
        text = with_earlier(asked, earlier) if earlier else asked
        used = earlier if text != asked else ""
        spelled = transcribe(text) is not None
        return UserArithmetic(
            text,
            used,
            spelled,
            read(text, spelled),
            tuple(bracket_spans(text)),
            counted_words(asked),
            asked_for(asked),
        )


__all__ = ["CalculonMode"]
