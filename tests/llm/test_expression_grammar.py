"""The calculator's expression string decodes as arithmetic: operators between operands, brackets
balanced, one operator at least, which may stand inside brackets around the whole.

Checked with llama.cpp's own grammar engine over a real vocabulary, one character at a time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.llm.local.backed import _expression_rules
from app.llm.local.loader import load_vocab
from app.llm.local.sampling import TokenPicker
from tests.llm.local_fixtures import gemma_path  # noqa: F401

RULES = "\n".join(
    [
        "root ::= expression",
        *_expression_rules("expression"),
        'calculon-anum ::= "1" | "2" | "7" | "120" | "95"',
        'space ::= " "?',
    ]
)


@pytest.fixture(scope="module")
def vocab(gemma_path: Path) -> Any:  # noqa: F811
    return load_vocab(gemma_path)


def allowed(model: Any, text: str) -> bool:
    grammar = TokenPicker(model).grammar(RULES)
    for char in text:
        (token,) = model.tokenize(char.encode(), add_bos=False, special=False)
        if not grammar.allows(token):
            return False
        grammar.accept(token)
    return True


@pytest.mark.parametrize(
    ("text", "takes"),
    [
        ('"1 + 2"', True),
        ('"((120 + 95) / 7)"', True),  # the mean as meant: its operator inside the brackets
        ('"-(1 + 2)"', True),
        ('"(7)"', False),  # a lone number, bracketed, is still no calculation
        ('"7"', False),
        ('"(1 + 2"', False),
    ],
)
def test_an_expression_needs_an_operator_and_may_hold_it_inside_brackets(vocab, text, takes) -> None:
    assert allowed(vocab, text) is takes
