"""The BFCL bench's raw side: which chat format plain llama-cpp-python renders its prompts with."""

from __future__ import annotations

from pathlib import Path

from app.llm.local.loader import load_vocab
from bench import bfcl_quality as bench
from tests.llm.local_fixtures import gemma_path  # noqa: F401  # fixture

CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


class TemplateMetadataStandIn:
    """A fake ``Llama`` with only what the formatter reads: no GGUF with a chat template ships here."""

    def __init__(self) -> None:
        self.metadata = {"general.architecture": "llama", "tokenizer.chat_template": CHATML}

    def token_eos(self) -> int:
        return 2

    def token_bos(self) -> int:
        return 1

    def detokenize(self, tokens: list[int], special: bool = False) -> bytes:
        return {1: b"<s>", 2: b"<|im_end|>"}[tokens[0]]


def test_the_raw_side_renders_the_ggufs_own_chat_template():
    formatter, label, _ = bench.raw_formatter(TemplateMetadataStandIn())
    rendered = formatter(messages=bench.raw_messages("What is 2 + 3?"))
    assert label == "the GGUF's own chat template"
    assert rendered.prompt.endswith("<|im_start|>user\nWhat is 2 + 3?<|im_end|>\n<|im_start|>assistant\n")
    assert rendered.stop == ["<|im_end|>"]


def test_a_gemma_gguf_without_a_template_gets_llama_cpps_gemma_format(gemma_path: Path):  # noqa: F811
    llama = load_vocab(gemma_path)
    assert "tokenizer.chat_template" not in llama.metadata
    formatter, label, note = bench.raw_formatter(llama)
    prompt = formatter(messages=bench.raw_messages("What is 2 + 3?")).prompt
    assert prompt == "<start_of_turn>user\nWhat is 2 + 3?<end_of_turn>\n<start_of_turn>model\n"
    assert "`gemma`" in label and "drops the system message" in note
