"""Settings: one typed model whose schema drives validation, the dialog and the file format."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from app.llm import registry
from app.llm.local.catalog import DEFAULT_MODEL_ID, builtin_model_ids
from app.mcp.retrieval.encoders import ENCODER_KINDS
from app.settings import Settings, SettingsError, load_settings, save_settings, settings_path

# settings.json exactly as the dataclass version of Settings wrote it (before builtin_model).
OLD_FILE = {
    "backend": "gemini",
    "model_path": "",
    "n_gpu_layers": 0,
    "n_ctx": 8192,
    "n_threads": 2,
    "gemini_model": "gemini-2.5-pro",
    "strict": False,
    "max_rounds": 8,
    "tool_threshold": 16,
    "top_k": 5,
    "pinned_tools": ["add"],
    "tool_encoder": "contextual",
    "tool_timeout_s": 30,
}


def write_settings(data: object) -> None:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


# What an old file gains on loading: each setting added since, at its default.
ADDED_SINCE = {
    "builtin_model": DEFAULT_MODEL_ID,
    "startup_wait_s": 5.0,
    "trusted_servers": [],
    "tool_approvals": {},
    "sampling_per_minute": 10,
    "history_keep_days": 0,
    "openai_base_url": "http://127.0.0.1:8080/v1",
    "openai_model": "",
    "keep_conversations": True,
    "tool_format": "auto",
}
SAVED_NOW = {**OLD_FILE, "tool_timeout_s": 30.0, **ADDED_SINCE}


def test_a_file_written_by_the_previous_version_loads_unchanged():
    write_settings(OLD_FILE)
    settings, problems = load_settings()
    assert problems == []
    assert settings.to_dict() == SAVED_NOW


def test_unknown_keys_are_ignored_and_saving_writes_the_same_format():
    write_settings({**OLD_FILE, "from_a_newer_version": {"x": 1}})
    settings, problems = load_settings()
    assert problems == []
    save_settings(settings)
    assert json.loads(settings_path().read_text()) == SAVED_NOW


def test_a_wrong_type_names_the_key_and_keeps_the_other_values():
    write_settings({**OLD_FILE, "n_ctx": "2048", "strict": 1})
    settings, problems = load_settings()
    assert (settings.n_ctx, settings.strict, settings.backend) == (8192, True, "gemini")
    assert len(problems) == 2
    assert "'n_ctx'" in problems[0] and "valid integer" in problems[0] and "using the default" in problems[0]
    assert "'strict'" in problems[1] and "valid boolean" in problems[1]


def test_a_file_that_is_not_json_gives_defaults_and_says_so():
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text("{not json", encoding="utf-8")
    settings, problems = load_settings()
    assert settings == Settings()
    assert len(problems) == 1 and "holds invalid JSON" in problems[0] and "using defaults" in problems[0]


@pytest.mark.parametrize("timeout", [math.nan, math.inf, -1.0, 0.0])
def test_a_timeout_that_is_not_finite_and_positive_is_a_settings_error(timeout):
    with pytest.raises(SettingsError) as refused:
        Settings.from_dict({"tool_timeout_s": timeout})
    assert refused.value.keys == ["tool_timeout_s"]
    assert "'tool_timeout_s'" in str(refused.value)


@pytest.mark.parametrize(("n_ctx", "ok"), [(255, False), (256, True), (1_048_576, True), (1_048_577, False)])
def test_the_context_size_is_bounded(n_ctx, ok):
    if ok:
        assert Settings(n_ctx=n_ctx).n_ctx == n_ctx
    else:
        with pytest.raises(SettingsError, match="'n_ctx'"):
            Settings(n_ctx=n_ctx)


def test_a_blank_gemini_model_is_refused_in_words():
    with pytest.raises(SettingsError, match="the Gemini model name is empty"):
        Settings(gemini_model="  ")


def test_backend_choices_come_from_the_backend_registry(monkeypatch):
    with pytest.raises(SettingsError, match="must be one of local, gemini, openai"):
        Settings(backend="plugin")
    monkeypatch.setitem(registry._FACTORIES, "plugin", "somewhere:create_backend")
    assert Settings(backend="plugin").backend == "plugin"
    assert Settings.model_json_schema()["properties"]["backend"]["enum"] == [
        "local",
        "gemini",
        "openai",
        "plugin",
    ]


def test_builtin_model_choices_come_from_the_model_catalogue():
    assert Settings.model_json_schema()["properties"]["builtin_model"]["enum"] == builtin_model_ids()
    assert Settings(builtin_model=builtin_model_ids()[-1]).builtin_model == builtin_model_ids()[-1]
    with pytest.raises(SettingsError, match="'builtin_model'"):
        Settings(builtin_model="gpt-5")


def test_tool_encoder_choices_come_from_the_encoder_registry():
    assert Settings.model_json_schema()["properties"]["tool_encoder"]["enum"] == list(ENCODER_KINDS)
    with pytest.raises(SettingsError, match="'tool_encoder'"):
        Settings(tool_encoder="bag-of-words")


def test_a_missing_model_file_is_a_problem_that_blocks_saving(tmp_path):
    settings = Settings(model_path=str(tmp_path / "missing.gguf"))
    assert settings.problems() == [f"model file not found: {tmp_path / 'missing.gguf'}"]
    with pytest.raises(SettingsError, match="model file not found"):
        save_settings(settings)
    assert not settings_path().exists()


def loaded_after(code: str) -> list[str]:
    """Which heavy modules a fresh interpreter has loaded after running ``code``."""
    heavy = ("llama_cpp", "google.genai", "app.llm.local.backend", "app.mcp.retrieval")
    probe = f"import json, sys; {code}; print(json.dumps([m for m in {heavy!r} if m in sys.modules]))"
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert found.returncode == 0, found.stderr
    return json.loads(found.stdout)


def test_importing_settings_loads_no_backend_and_no_retrieval():
    assert loaded_after("from app.settings import Settings; Settings(backend='gemini')") == []


def test_the_schema_and_a_checked_encoder_load_no_backend_and_no_retrieval():
    # the encoder registry's names live apart from the encoders (numpy, the tokenizer): a fresh
    # `calculon ask` checks its settings before it starts the servers' processes
    schema = "from app.settings import Settings; Settings.model_json_schema()"
    assert loaded_after(schema) == []
    assert loaded_after("from app.settings import Settings; Settings(tool_encoder='contextual')") == []
