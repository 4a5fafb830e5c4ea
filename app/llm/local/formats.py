"""Chat formats: turns to the prompt text a model was trained on.

The GGUF's own ``tokenizer.chat_template`` wins when there is one (rendered with
jinja2 through llama-cpp-python's formatter). Without one, a hand-written format
for the architecture: Gemma (no system role, strict user/model alternation), or
ChatML as the best general guess for anything else.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Protocol

import jinja2
from llama_cpp.llama_chat_format import Jinja2ChatFormatter

from app.core.messages import Message, ToolSpec
from app.llm.local.conversation import Turn, fold_system
from app.llm.local.native import NativeFormat, detect_syntax
from app.llm.local.syntaxes import CALCULON, CallSyntax

logger = logging.getLogger(__name__)

GEMMA_ARCHITECTURES = ("gemma", "gemma2", "gemma3", "gemma3n", "gemma-embedding")


class ChatFormat(Protocol):
    name: str
    stop: tuple[str, ...]  # text that ends the model's turn, beside the end-of-generation tokens
    thinks: bool  # whether the model thinks before answering, in its syntax's markers (<think>...</think>)
    syntax: CallSyntax  # how calls are marked in the model's output
    native: bool  # True: tools, calls and results go through the template (render_request)

    def render(self, turns: Sequence[Turn]) -> str:
        """The whole prompt, ending where the model's reply begins."""
        ...

    def render_request(self, system: str, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> str:
        """A native format's prompt with the tools in the template's own sections."""
        ...


class _PlainFormat:
    """Calculon's own tool format: the tools in the system text, calls in its own markers."""

    syntax = CALCULON
    native = False

    def render_request(self, system: str, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> str:
        raise NotImplementedError("this format renders turns only")


class GemmaFormat(_PlainFormat):
    name = "gemma"
    stop: tuple[str, ...] = ("<end_of_turn>", "<start_of_turn>")
    thinks = False

    def render(self, turns: Sequence[Turn]) -> str:
        parts = [
            f"<start_of_turn>{'model' if turn.role == 'assistant' else 'user'}\n{turn.text}<end_of_turn>\n"
            for turn in fold_system(turns)
        ]
        return "".join(parts) + "<start_of_turn>model\n"


class ChatMLFormat(_PlainFormat):
    name = "chatml"
    stop: tuple[str, ...] = ("<|im_end|>", "<|im_start|>")
    thinks = False

    def render(self, turns: Sequence[Turn]) -> str:
        parts = [f"<|im_start|>{turn.role}\n{turn.text}<|im_end|>\n" for turn in turns]
        return "".join(parts) + "<|im_start|>assistant\n"


class TemplateFormat(_PlainFormat):
    """The model's own jinja2 template. Templates that reject a system role get it
    folded into the first user turn instead."""

    name = "gguf-template"

    def __init__(self, template: str, *, bos_token: str, eos_token: str, fallback: ChatFormat):
        self._formatter = Jinja2ChatFormatter(template=template, eos_token=eos_token, bos_token=bos_token)
        self._fallback = fallback
        self.stop = tuple(t for t in (eos_token, *fallback.stop) if t)
        self.thinks = "<think>" in template

    def render(self, turns: Sequence[Turn]) -> str:
        for attempt in (list(turns), fold_system(turns)):
            messages = [{"role": turn.role, "content": turn.text} for turn in attempt]
            try:
                return self._formatter(messages=messages).prompt  # type: ignore[arg-type]
            except (ValueError, TypeError, jinja2.TemplateError) as exc:
                logger.info("chat template refused the conversation (%s); retrying", exc)
        logger.warning("the model's chat template failed twice; using the %s format", self._fallback.name)
        return self._fallback.render(turns)


def choose_format(
    metadata: Mapping[str, str], *, bos_token: str = "", eos_token: str = "", native: bool = True
) -> ChatFormat:
    """The format for a loaded model, from its GGUF metadata; its own tool-call format where
    its template has one we know and ``native`` is on."""
    architecture = metadata.get("general.architecture", "")
    fallback: ChatFormat = GemmaFormat() if architecture in GEMMA_ARCHITECTURES else ChatMLFormat()
    template = metadata.get("tokenizer.chat_template", "")
    if template:
        try:
            plain = TemplateFormat(template, bos_token=bos_token, eos_token=eos_token, fallback=fallback)
            syntax = detect_syntax(template) if native else None
            if syntax is None:
                return plain
            own = NativeFormat(template, syntax, plain, bos_token=bos_token, eos_token=eos_token)
            if own.confirmed():
                return own
            logger.info("the chat template names %s tool calls but does not render them", syntax.name)
            return plain
        except jinja2.TemplateError:
            logger.warning("the model's chat template does not parse; using the %s format", fallback.name)
    elif architecture not in GEMMA_ARCHITECTURES:
        logger.warning("model %r has no chat template; guessing the ChatML format", architecture)
    return fallback
