"""A step's grammar, its tools' part built once per tool list and kept.

Converting a dozen tool schemas and checking llama.cpp takes the result costs more than a short
step, so the tools' part is kept by the list's names and schemas; a conversation's places
(app/llm/local/held_places.py) change the schemas, so the cache holds a few lists, not one.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence

from app.core.messages import ToolSpec
from app.llm.local.backed import BackedForms
from app.llm.local.operands import Operands
from app.llm.local.sampling import TokenPicker
from app.llm.local.schema_grammar import StepGrammar, ToolRules, compose, tool_rules
from app.llm.local.syntaxes import CallSyntax

logger = logging.getLogger(__name__)
MAX_TOOL_RULES = 16  # tool lists whose grammar is kept built


class StepGrammars:
    def __init__(self, picker: TokenPicker, syntax: CallSyntax, thinks: bool) -> None:
        self._picker, self._syntax, self._thinks = picker, syntax, thinks
        self._rules: dict[str, ToolRules] = {}

    def grammar_for(
        self,
        tools: Sequence[ToolSpec],
        *,
        forced: bool,
        forms: BackedForms | None = None,
        ops: Operands | None = None,
    ) -> StepGrammar:
        """The step grammar: the tools' part kept per tool list, the backed numbers per step."""
        rules = self._tool_rules(tools, forced, forms)
        if ops is not None:
            grammar = compose(rules, forced=forced, thinks=self._thinks, forms=forms, ops=ops)
            if self._picker.compiles(grammar.decide):
                return grammar
            logger.warning("the operand grammar did not compile; using the plain backed grammar")
        return compose(rules, forced=forced, thinks=self._thinks, forms=forms)

    def _tool_rules(self, tools: Sequence[ToolSpec], forced: bool, forms: BackedForms | None) -> ToolRules:
        key = json.dumps([(t.name, t.input_schema) for t in tools], sort_keys=True, default=str)
        if key in self._rules:
            return self._rules[key]
        compiles = self._picker.compiles
        rules = tool_rules(tools, compiles, self._syntax)
        if not compiles(compose(rules, forced=forced, thinks=self._thinks, forms=forms).decide):
            logger.warning("the combined tool-call grammar did not compile; relaxing every tool")
            rules = tool_rules(tools, _never, self._syntax)
        if len(self._rules) >= MAX_TOOL_RULES:
            self._rules.pop(next(iter(self._rules)))
        self._rules[key] = rules
        return rules


def _never(_grammar: str) -> bool:
    return False
