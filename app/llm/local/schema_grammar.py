"""GBNF grammars that make every tool call valid by construction.

One grammar per step: ``root ::= call | answer`` where a call is the marker and
a JSON object ``{"name": <an offered name>, "arguments": <that tool's schema>}``
(a union over the tools, so name and arguments always match), and an answer is
free text that does not start with ``<``. The decoder drops the grammar as soon
as the output has become an answer, so free text costs nothing extra.

Schemas go through llama-cpp-python's JSON-schema converter after light
cleaning. A tool whose schema the converter cannot handle gets a looser
grammar (any JSON object for its arguments) and is reported in ``relaxed``.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import logging
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from llama_cpp.llama_grammar import json_schema_to_gbnf

from app.core.messages import ToolSpec
from app.llm.local import backed, gemma_grammar, operands, typed
from app.llm.local.backed import BackedForms
from app.llm.local.syntaxes import CALCULON, FENCE_OPEN, CallSyntax
from app.llm.local.unbacked import without_unbacked_options

logger = logging.getLogger(__name__)

ANY_VALUE = {"type": ["string", "number", "boolean", "object", "array", "null"]}
_ANNOTATIONS = (
    "title",
    "description",
    "examples",
    "default",
    "$comment",
    "readOnly",
    "writeOnly",
    "deprecated",
)
_CONVERTER_ERRORS = (AssertionError, ValueError, KeyError, TypeError, IndexError, RecursionError)
_PREFIX = "calculon-"

Compiles = Callable[[str], bool]  # whether llama.cpp accepts a grammar text


@dataclasses.dataclass(frozen=True)
class StepGrammar:
    decide: str  # root: call | answer (| think), or call alone when a call is forced
    body: str  # root: what follows the marker, for a call that starts mid-answer
    relaxed: tuple[str, ...] = ()  # tools whose arguments are only checked to be a JSON object
    allows_calls: bool = True
    # Calculon mode: the answer stays under the grammar (its numbers must be backed); otherwise
    # the grammar is dropped once the output has become an answer.
    keeps_answer: bool = False
    result: frozenset[str] = frozenset()  # the forms of the result the answer must state, if any


@dataclasses.dataclass(frozen=True)
class ToolRules:
    """The part of a step grammar that depends only on the offered tools: built once per tool list."""

    lines: tuple[str, ...]
    relaxed: tuple[str, ...] = ()
    # the arguments rule of each tool whose fields are all required and some numeric, with them
    objects: Mapping[str, tuple[tuple[str, typed.FieldKind], ...]] = dataclasses.field(default_factory=dict)
    # what an answer may not open with: what opens a call ("<" of the markers; "{" and "`" where a
    # call may be the JSON alone or fenced; "[" of Mistral's [TOOL_CALLS])
    barred: str = "<"


_ANY = "calculon-any ::= [^\\x00]"


def _answer_rule(barred: str) -> str:
    return f"calculon-answer ::= [^{backed.class_chars(barred)}] calculon-any*"


@functools.cache
def _answer_grammar(barred: str) -> StepGrammar:
    """Free text that opens with none of ``barred``, and nothing else."""
    return StepGrammar(
        "\n".join(["root ::= calculon-answer", _answer_rule(barred), _ANY]), "", allows_calls=False
    )


# an answer and nothing else: for a step that must not call a tool again (nor open with "{" or
# "`": a model asked to answer after its call wrote the call out again as JSON, or fenced JSON)
ANSWER_ONLY = _answer_grammar("<{`")


def answer_only(
    forms: BackedForms | None,
    result: frozenset[str] = frozenset(),
    head: frozenset[str] | None = None,
    units: frozenset[str] | None = None,
    formulas: frozenset[str] = frozenset(),
    *,
    syntax: CallSyntax = CALCULON,
) -> StepGrammar:
    """A step that may only answer; in Calculon mode, with backed numbers alone, and stating
    the last tool result when it holds a number (``result``: its forms; ``head``: the numbers
    the answer may write before it; ``units``: given, the answer ends with the result and one
    of these; ``formulas``: the calculation that ran, the one formula it may write). In either
    mode the answer opens with nothing that opens a call in ``syntax`` (Calculon mode's backed
    answer bars "<", "{", "`" and "[" by itself; the one that states the result is told)."""
    if forms is None:
        return _answer_grammar("".join(dict.fromkeys(f"<{{`{_barred(syntax)}")))
    rules = ["root ::= calculon-banswer", *backed.text_rules(forms)]
    if result:
        rules = [
            "root ::= calculon-ranswer",
            *rules[1:],
            *backed.result_rules(result, forms, head, units, formulas, _barred(syntax)),
        ]
    return StepGrammar("\n".join(rules), "", allows_calls=False, keeps_answer=True, result=result)


def build_step_grammar(
    tools: Sequence[ToolSpec],
    *,
    forced: bool,
    thinks: bool,
    compiles: Compiles | None = None,
    forms: BackedForms | None = None,
    syntax: CallSyntax = CALCULON,
) -> StepGrammar:
    if forms is not None:
        tools = without_unbacked_options(tools, forms)
    return compose(tool_rules(tools, compiles, syntax), forced=forced, thinks=thinks, forms=forms)


def tool_rules(
    tools: Sequence[ToolSpec], compiles: Compiles | None = None, syntax: CallSyntax = CALCULON
) -> ToolRules:
    arguments, relaxed = {}, []
    for tool in tools:
        schema, ok = arguments_schema(tool, compiles)
        arguments[tool.name] = schema
        if not ok:
            relaxed.append(tool.name)
    # the typed-arguments rules rewrite the JSON converter's rules, which Gemma's grammar has none of
    objects = _numeric_objects(arguments.values(), syntax.arguments) if syntax.form == "json" else {}
    return ToolRules(tuple(_call_rules(arguments, syntax)), tuple(relaxed), objects, _barred(syntax))


def _barred(syntax: CallSyntax) -> str:
    openers = "".join(marker[0] for marker in syntax.openers) + ("{`" if syntax.bare else "")
    return "".join(dict.fromkeys("<" + openers))


def _numeric_objects(schemas: Iterable[Mapping[str, Any]], key: str) -> dict[str, typed.Fields]:
    objects = {}
    for i, schema in enumerate(schemas):  # the converter names the union's members alternative-0, -1, ...
        fields = typed.field_kinds(schema)
        if fields and typed.takes_operands(schema, fields):
            objects[f"alternative-{i}-{key}"] = fields
    return objects


def compose(
    rules: ToolRules,
    *,
    forced: bool,
    thinks: bool,
    forms: BackedForms | None,
    ops: operands.Operands | None = None,
) -> StepGrammar:
    """The step grammar from the cached tool rules and, in Calculon mode, this step's backed
    numbers and (``ops``) the user's numbers that the call must use."""
    lines = list(rules.lines)
    if forms is None:
        answer = [_answer_rule(rules.barred), _ANY]
    else:
        plain = backed.strict_rules(lines, forms)
        lines = _with_operands(plain, rules, ops) if ops is not None else plain
        answer = [
            "calculon-answer ::= calculon-banswer",
            _ANY,
            *backed.text_rules(forms),
        ]
    branches = ["calculon-call"] if forced else ["calculon-call", "calculon-answer"]
    if thinks and not forced:
        branches.append("calculon-think")
    decide = "\n".join([f"root ::= {' | '.join(branches)}", *lines, *answer])
    body = "\n".join(["root ::= calculon-body", *lines, *answer])
    return StepGrammar(decide, body, rules.relaxed, keeps_answer=forms is not None)


def _with_operands(lines: list[str], rules: ToolRules, ops: operands.Operands) -> list[str]:
    """Calls that use the user's numbers as ``ops`` says; the plain backed rules when no tool can.
    A quantity no offered tool takes with its unit may still go into a number field."""
    pruned = _operand_calls(lines, rules, ops)
    if pruned is None and ops.attached:
        pruned = _operand_calls(lines, rules, dataclasses.replace(ops, attached=frozenset()))
    return pruned if pruned is not None else lines


def _operand_calls(lines: list[str], rules: ToolRules, ops: operands.Operands) -> list[str] | None:
    names = backed.arithmetic_strings(rules.lines)
    constrained, dead = operands.constrain_expressions(lines, names, ops)
    offered = bool(set(names) - dead)
    constrained, dead_objects = typed.constrain_objects(constrained, rules.objects, ops, expression=offered)
    if ops.every and ops.slots:
        dead_objects |= _inert(lines, {*rules.objects, *names})
    return operands.prune([*constrained, *operands.value_rules(ops)], dead | dead_objects)


def _inert(lines: Sequence[str], constrained: set[str]) -> set[str]:
    """The tools whose arguments the operand rules cannot reach (``get_time``'s optional
    timezone): on the one call, which must use the user's numbers, such a tool would take
    none of them ("How many km is 144 miles?" answered with the time was seen)."""
    calls = next((line for line in lines if line.startswith(operands.CALLS)), "")
    alternatives = calls[len(operands.CALLS) :].split(" | ") if calls else []
    return {alt for alt in alternatives if not any(name.startswith(f"{alt}-") for name in constrained)}


def _call_rules(arguments: Mapping[str, Any], syntax: CallSyntax) -> list[str]:
    if syntax.form == "gemma":
        return [
            *gemma_grammar.call_rules(arguments),
            f"calculon-call ::= {_literal(syntax.open)} calculon-body",
            f"calculon-body ::= gemma-call {_literal(syntax.close)}",
            f"calculon-think ::= {_literal(syntax.think[0])} calculon-any*",
        ]
    union: dict[str, Any] = {
        "anyOf": [_call_schema(name, schema, syntax) for name, schema in arguments.items()]
    }
    union["$defs"] = {
        key: value for schema in arguments.values() for key, value in schema.get("$defs", {}).items()
    }
    converted = json_schema_to_gbnf(json.dumps(union))
    lines = [_rename_root(line) for line in converted.splitlines()]
    if any(line.startswith(_PREFIX) for line in converted.splitlines()):
        raise ValueError("a schema produced a rule name reserved for the call grammar")
    line = ' "\\n"' if syntax.newline else ""  # the JSON on its own line, as the model was trained
    close = f" {_literal(syntax.close)}" if syntax.close else ""
    payload = (
        "calculon-named" if syntax.args_marker else "calculon-list" if syntax.listed else "calculon-json"
    )
    calls = [f"{_literal(marker)} calculon-body" for marker in syntax.openers]
    if syntax.bare:
        calls += ["calculon-json", f'{json.dumps(FENCE_OPEN)} "\\n"? calculon-json "\\n"? "```"']
    return [
        *lines,
        f"calculon-call ::= {' | '.join(calls)}",
        f"calculon-body ::={line} {payload}{line}{close}",
        'calculon-list ::= "[" calculon-json ("," " "? calculon-json)* "]"',
        f"calculon-named ::= {_named_calls(list(arguments), syntax)}",
        f"calculon-think ::= {_literal(syntax.think[0])} calculon-any*",
    ]


def _named_calls(names: Sequence[str], syntax: CallSyntax) -> str:
    """``name[ARGS]{arguments}`` for each tool, its arguments under the rule the converter made for
    them (``alternative-<i>-<key>``, as for a call in one JSON object)."""
    call_id = f" {_literal(syntax.id_marker)} [a-zA-Z0-9]{{9}}" if syntax.id_marker else ""
    marker = _literal(syntax.args_marker or "[ARGS]")
    return " | ".join(
        f"{_literal(name)}{call_id} {marker} alternative-{i}-{syntax.arguments}"
        for i, name in enumerate(names)
    )


def _rename_root(line: str) -> str:
    return "calculon-json ::=" + line[len("root ::=") :] if line.startswith("root ::=") else line


def _call_schema(name: str, arguments: Mapping[str, Any], syntax: CallSyntax) -> dict[str, Any]:
    body = {key: value for key, value in arguments.items() if key != "$defs"}
    properties: dict[str, Any] = {"name": {"const": name}, syntax.arguments: body}
    if syntax.ids:
        properties["id"] = {"type": "string", "pattern": "^[a-zA-Z0-9]{9}$"}
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _literal(text: str) -> str:
    return json.dumps(text)


def arguments_schema(tool: ToolSpec, compiles: Compiles | None = None) -> tuple[dict[str, Any], bool]:
    """The tool's schema made ready for the converter, and False when it had to be loosened."""
    schema = prepare_schema(tool.input_schema, scope=_scope(tool.name))
    try:
        grammar = json_schema_to_gbnf(json.dumps(schema))
    except _CONVERTER_ERRORS as exc:
        logger.warning(
            "tool %s: schema not convertible to a grammar (%r); accepting any JSON object", tool.name, exc
        )
        return {"type": "object"}, False
    if compiles is not None and not compiles(grammar):
        logger.warning("tool %s: llama.cpp rejected its grammar; accepting any JSON object", tool.name)
        return {"type": "object"}, False
    return schema, True


def _scope(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name)


def prepare_schema(schema: Mapping[str, Any], *, scope: str) -> dict[str, Any]:
    """Strip annotations, make empty schemas mean "any value", and move ``$defs``
    under names of this tool's own, so several tools can share one grammar."""
    cleaned = _clean(copy.deepcopy(dict(schema)), scope)
    defs = {**cleaned.pop("$defs", {}), **cleaned.pop("definitions", {})}
    if defs:
        cleaned["$defs"] = {f"{scope}__{key}": value for key, value in defs.items()}
    if "type" not in cleaned and "properties" in cleaned:
        cleaned["type"] = "object"
    return cleaned


def _clean(node: Any, scope: str) -> Any:
    if isinstance(node, list):
        return [_clean(item, scope) for item in node]
    if node is True:
        return dict(ANY_VALUE)
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    named = _named_format(node)
    for key, value in node.items():
        if key in _ANNOTATIONS:
            continue
        if key in ("enum", "const"):
            out[key] = value  # data, not schema: keep as written
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: _clean(sub, scope) for name, sub in value.items()}
        elif key == "$ref" and isinstance(value, str):
            out[key] = _scoped_ref(value, scope)
        else:
            out[key] = _clean(value, scope)
    if named and out.get("type") == "string" and not {"pattern", "enum", "const", "format"} & out.keys():
        out["pattern"] = named
    if "allOf" in out and len(out["allOf"]) == 1:
        merged = {**out.pop("allOf")[0], **out}
        out = merged
    return out or dict(ANY_VALUE)


# A string's format named only in its description, as the time server's convert_time has it
# ("Time to convert in 24-hour format (HH:MM)"): held to that form. Free, Qwen2.5-Coder-1.5B
# sent "2026-12-05T09:21:20+00:00" and the call failed ("Expected HH:MM").
_NAMED_FORMATS = (
    (re.compile(r"\bHH:MM(?!:)\b"), "^([01][0-9]|2[0-3]):[0-5][0-9]$"),
    (re.compile(r"\bYYYY-MM-DD\b(?![T ]?HH)"), "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$"),
)


def _named_format(node: Mapping[str, Any]) -> str:
    description = node.get("description")
    if not isinstance(description, str):
        return ""
    return next((pattern for named, pattern in _NAMED_FORMATS if named.search(description)), "")


def _scoped_ref(ref: str, scope: str) -> str:
    for prefix in ("#/$defs/", "#/definitions/"):
        if ref.startswith(prefix):
            return f"#/$defs/{scope}__{ref[len(prefix) :]}"
    return ref
