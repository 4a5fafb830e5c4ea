"""Whether llama.cpp's grammar takes a text: the tests' check of the grammars the backend builds."""

from __future__ import annotations

import llama_cpp

from app.llm.local.sampling import GrammarSampler


def accepts(
    model: llama_cpp.Llama, grammar: str, text: str, *, special: bool = True, prefix: bool = False
) -> bool:
    """Whether ``grammar`` takes ``text``, token by token on ``model``'s own vocabulary (with
    ``special``, markers such as ``<tool_call>`` are its single tokens), and may end there; with
    ``prefix`` it need only be able to go on."""
    sampler = GrammarSampler(llama_cpp.llama_model_get_vocab(model.model), grammar)
    try:
        for token in model.tokenize(text.encode("utf-8"), add_bos=False, special=special):
            if not sampler.allows(token):
                return False
            sampler.accept(token)
        return prefix or sampler.allows(model.token_eos())
    finally:
        sampler.close()
