"""Which tool-call format each model family gets, decided from its real chat template (read from
llama-cpp-python's source on PyPI, tests/llm/family_templates.py): a family whose template renders
tools in a syntax Calculon knows, and renders a probe call and its result in it, is spoken to in
that syntax; every other family keeps Calculon's own format, and the trace says which."""

from __future__ import annotations

import pytest

from app.llm.local.formats import choose_format
from tests.llm.family_templates import chat_template

NATIVE_HERMES = [
    "Qwen-Qwen2.5-7B-Instruct",
    "Qwen-Qwen3-0.6B",
    "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use",
    "NousResearch-Hermes-3-Llama-3.1-8B-tool_use",
    "ibm-granite-granite-4.0",
]
# Llama 3.x, Mistral (Nemo, Small 3.2, Devstral, Ministral 3 Reasoning) and Granite 3:
# tests/llm/test_native_syntaxes.py; Gemma 4: tests/llm/test_native_gemma.py. Templates without
# tools (llama.cpp's copy of SmolLM3's renders none, nor Phi-3.5's, nor Gemma 2's; Gemma 3's, in
# the built-in model's file: test_local_native.py): Calculon's format.
CALCULONS_OWN = [
    "HuggingFaceTB-SmolLM3-3B",
    "microsoft-Phi-3.5-mini-instruct",
    "google-gemma-2-2b-it",
]


def _format(name: str):
    metadata = {"tokenizer.chat_template": chat_template(name), "general.architecture": "llama"}
    return choose_format(metadata, bos_token="<s>", eos_token="</s>")


@pytest.mark.parametrize("name", NATIVE_HERMES)
def test_a_family_whose_template_renders_hermes_calls_is_given_its_tools_in_its_own_syntax(name):
    chosen = _format(name)
    assert chosen.native and chosen.syntax.name == "hermes"


@pytest.mark.parametrize("name", CALCULONS_OWN)
def test_a_family_without_a_syntax_calculon_knows_keeps_calculons_format(name):
    chosen = _format(name)
    assert not chosen.native and chosen.syntax.name == "calculon"


def test_qwen3_is_known_to_think_before_it_answers():
    assert _format("Qwen-Qwen3-0.6B").thinks
