"""The context a model loads with: the setting (8192 unless changed), never past what the model was
trained on, read from the GGUF's own header."""

from __future__ import annotations

from pathlib import Path

from app.llm.local import catalog
from app.llm.local.model import fitted_context
from app.llm.local.options import DEFAULT_CONTEXT, LocalOptions
from app.settings import Settings


def test_the_default_context_holds_a_reference_servers_tools_and_is_the_same_in_settings() -> None:
    assert DEFAULT_CONTEXT == Settings().n_ctx == LocalOptions().n_ctx == 8192


def test_a_context_past_the_models_training_loads_as_the_trained_length() -> None:
    smollm2 = catalog.packaged_file(catalog.SMOLLM2)  # trained on 8192 tokens
    assert fitted_context(smollm2, 32768) == 8192
    assert fitted_context(smollm2, 2048) == 2048


def test_a_file_whose_header_cannot_be_read_keeps_the_setting(tmp_path: Path) -> None:
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"not a gguf at all")
    assert fitted_context(broken, 8192) == 8192
    assert fitted_context(tmp_path / "missing.gguf", 4096) == 4096
