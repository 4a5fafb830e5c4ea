"""User settings: one typed model, saved as JSON, validated, written atomically.

The model's schema says everything about a setting: its title and hint, the tab it is
edited on, its bounds and its choices. The settings dialog is generated from
``Settings.model_json_schema()``, and a value outside the schema is refused here with a
:class:`SettingsError` naming the key. Choices that depend on what is installed (the
backends, the tool encoders) come from their registries, looked up only when a value is
checked or the schema is built, so importing this module loads none of them.

The API keys are not here: it lives in the environment or the OS keyring
(see :mod:`app.secrets`), never in a plain-text file.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    ValidationError,
    field_validator,
)
from pydantic_core import ErrorDetails, core_schema

from app import paths
from app.jsonfile import JsonProblem, read_json

MAX_FILE_BYTES = 256 * 1024  # the settings take under a kilobyte


class SettingsError(ValueError):
    """Settings that cannot be used; ``problems`` words each one, ``keys`` names the settings at fault."""

    def __init__(self, problems: Sequence[str], keys: Sequence[str] = ()) -> None:
        super().__init__("; ".join(problems))
        self.problems, self.keys = list(problems), list(keys)


def backend_names() -> list[str]:
    from app.llm.registry import backend_names as registered  # the registry loads no backend

    return registered()


def builtin_model_ids() -> list[str]:
    from app.llm.local.catalog import builtin_model_ids as catalogued  # no llama.cpp behind it

    return catalogued()


def encoder_kinds() -> list[str]:
    from app.mcp.encoder_kinds import ENCODER_KINDS  # not the encoders: no numpy at start-up

    return list(ENCODER_KINDS)


@dataclasses.dataclass(frozen=True)
class OneOf:
    """A field's choices, asked of ``choices`` when a value is checked and when the schema
    is built (as its ``enum``), so a registry that grows needs no change here."""

    choices: Callable[[], Sequence[str]]

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> Any:
        return core_schema.no_info_after_validator_function(self._check, handler(source))

    def __get_pydantic_json_schema__(self, schema: Any, handler: GetJsonSchemaHandler) -> dict[str, Any]:
        described = handler(schema)
        described["enum"] = list(self.choices())
        return described

    def _check(self, value: str) -> str:
        if value not in (known := self.choices()):
            raise ValueError(f"must be one of {', '.join(known)}")
        return value


def setting(default: Any, tab: str, title: str, hint: str = "", **bounds: Any) -> Any:
    """A field as the schema describes it: ``tab`` is where the settings dialog shows it."""
    if callable(default):
        bounds["default_factory"] = default
    else:
        bounds["default"] = default
    return Field(title=title, description=hint or None, json_schema_extra={"tab": tab}, **bounds)


# Changing any of these means a different model (Settings.same_model).
_MODEL_FIELDS = (
    "backend",
    "model_path",
    "builtin_model",
    "n_gpu_layers",
    "n_ctx",
    "n_threads",
    "gemini_model",
    "openai_base_url",
    "openai_model",
)


class Settings(BaseModel):
    # strict: a JSON 1 is not True, nor "8" a count; unknown keys (a newer version's) are ignored.
    model_config = ConfigDict(strict=True, extra="ignore", validate_assignment=True, allow_inf_nan=False)

    backend: Annotated[str, OneOf(backend_names)] = setting(
        "local",
        "General",
        "Backend",
        "Where the model runs: on this machine, Google Gemini, or an OpenAI-compatible server"
        " (llama.cpp, vLLM, Ollama, LM Studio).",
    )
    model_path: str = setting("", "Local model", "GGUF file", "Empty: the built-in model below.")
    builtin_model: Annotated[str, OneOf(builtin_model_ids)] = setting(
        "smollm2-135m-instruct", "Local model", "Built-in model", "Used when no GGUF file is chosen."
    )
    n_gpu_layers: int = setting(
        -2,
        "Local model",
        "GPU layers",
        "-2 = as many as fit the free VRAM (estimated from the model's size), 0 = CPU only,"
        " -1 = every layer.",
        ge=-2,
        le=999,
    )
    n_ctx: int = setting(  # app.llm.local.options.DEFAULT_CONTEXT
        8192,
        "Local model",
        "Context size (tokens)",
        "At most what the model was trained on: a larger setting loads with that.",
        ge=256,
        le=1_048_576,
    )
    n_threads: int = setting(0, "Local model", "Threads", "0 = let llama.cpp choose.", ge=0, le=512)
    keep_conversations: bool = setting(
        True,
        "Local model",
        "Resume conversations quickly",
        "Keep the model's state after each answer (the latest two, tens of MB each in the cache folder),"
        " so a conversation continued later reads only the new message.",
    )
    tool_format: Literal["auto", "native", "calculon"] = setting(
        "auto",
        "Local model",
        "Tool-call format",
        "native: where the GGUF's chat template has a tool-call format Calculon knows, tools, calls and"
        " results are written in it. calculon: Calculon's own format. auto: native outside Calculon"
        " mode, and in it for a model of a billion parameters or more; Calculon's own for smaller"
        " ones (measured far better there on a 0.5B model).",
    )
    gemini_model: str = setting("gemini-2.5-flash", "Gemini", "Model name")
    openai_base_url: str = setting(
        "http://127.0.0.1:8080/v1",
        "OpenAI-compatible",
        "Base URL",
        "The server's OpenAI address, usually ending in /v1 (Ollama: http://127.0.0.1:11434/v1,"
        " LM Studio: http://127.0.0.1:1234/v1).",
    )
    openai_model: str = setting(
        "", "OpenAI-compatible", "Model name", "Empty: the first model the server lists."
    )
    strict: bool = setting(
        True, "General", "Calculon mode", "Check every number in an answer against tool results."
    )
    max_rounds: int = setting(8, "General", "Max steps per turn", ge=1, le=100)
    tool_threshold: int = setting(
        16, "Tools", "Offer all tools up to", "Above this many, offer only the best matches.", ge=0
    )
    top_k: int = setting(5, "Tools", "Best matches offered", ge=1, le=100)
    pinned_tools: list[str] = setting(list, "Tools", "Always offer", "Comma-separated tool names.")
    tool_encoder: Annotated[str, OneOf(encoder_kinds)] = setting(
        "static",
        "Tools",
        "Matching",
        "static: under a millisecond per step. contextual: the full embedding model,"
        " a little more accurate, about 15 ms per step on one core.",
    )
    tool_timeout_s: float = setting(30.0, "Tools", "Tool timeout (s)", gt=0, le=3600)
    startup_wait_s: float = setting(
        5.0,
        "Tools",
        "Start-up wait (s)",
        "How long ask and the command line wait for slow servers; those still starting are"
        " reported so. The window never waits: tools join as their servers are ready.",
        gt=0,
        le=600,
    )
    trusted_servers: list[str] = setting(
        list,
        "Permissions",
        "Trusted servers",
        "Comma-separated server names whose tool hints are believed (a read-only tool runs without"
        " asking). Bundled servers are always trusted.",
    )
    tool_approvals: dict[str, Literal["ask", "conversation", "always", "never"]] = setting(
        dict,
        "Permissions",
        "Tool approvals",
        "server.tool=policy, comma-separated (server.* for a whole server); policy is ask, conversation,"
        " always or never. Set when you answer always or never.",
    )
    sampling_per_minute: int = setting(
        10, "Permissions", "Sampling requests a minute", "Per server; more are refused unasked.", ge=1, le=600
    )

    history_keep_days: int = setting(
        0,
        "History",
        "Delete conversations after (days)",
        "0 keeps everything. Older conversations, except pinned ones, are deleted when Calculon starts.",
        ge=0,
        le=36500,
    )

    def __init__(self, **values: Any) -> None:
        """Every way of building settings fails the same way: a :class:`SettingsError`."""
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise _settings_error(exc) from None

    @field_validator("gemini_model")
    @classmethod
    def _model_named(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the Gemini model name is empty")
        return value

    @field_validator("openai_base_url")
    @classmethod
    def _web_address(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("the base URL must start with http:// or https://")
        return value

    def problems(self) -> list[str]:
        """What keeps valid settings from working on this machine (a file that is not there)."""
        if self.model_path and not Path(self.model_path).expanduser().is_file():
            return [f"model file not found: {self.model_path}"]
        return []

    def check_usable(self) -> None:
        if problems := self.problems():
            raise SettingsError(problems, ["model_path"])

    def same_model(self, other: Settings) -> bool:
        """Whether ``other`` names the same model, loaded the same way: otherwise the backend is
        built again."""
        return all(getattr(self, name) == getattr(other, name) for name in _MODEL_FIELDS)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Settings:
        """Known keys only; a wrong type or a value out of bounds is a SettingsError naming the key."""
        return cls(**{str(key): value for key, value in data.items()})

    @classmethod
    def salvage(cls, data: Mapping[str, Any]) -> tuple[Settings, list[str]]:
        """The valid values of ``data``, defaults for the rest, and why each default was used."""
        try:
            return cls.from_dict(data), []
        except SettingsError as exc:
            kept = {key: value for key, value in data.items() if key not in exc.keys}
            return cls.from_dict(kept), exc.problems


def _settings_error(exc: ValidationError) -> SettingsError:
    errors = exc.errors()
    return SettingsError([_worded(e) for e in errors], [str(e["loc"][0]) for e in errors if e["loc"]])


def _worded(error: ErrorDetails) -> str:
    key = error["loc"][0] if error["loc"] else "?"
    why = str(error["ctx"]["error"]) if error["type"] == "value_error" else error["msg"]
    return f"setting {key!r}: {why[:1].lower()}{why[1:]}, got {error['input']!r}"


def settings_path() -> Path:
    return paths.config_dir() / "settings.json"


def load_settings(path: Path | None = None) -> tuple[Settings, list[str]]:
    """Settings from disk and the problems found. A missing file gives defaults; a corrupt
    one gives defaults plus a message, and is left untouched on disk; a bad value gives its
    default and a message naming it, the other values are kept."""
    path = path or settings_path()
    try:
        data = read_settings_file(path)
    except FileNotFoundError:
        return Settings(), []
    except SettingsError as exc:
        return Settings(), [f"{exc}; using defaults until you save"]
    settings, problems = Settings.salvage(data)
    defaulted = [f"{path}: {problem}; using the default until you save" for problem in problems]
    return settings, defaulted + settings.problems()


def strict_settings(path: Path | None = None) -> Settings:
    """Settings from disk for the command line, where a problem in the file stops the command
    (a :class:`SettingsError` naming the file) rather than running on defaults."""
    path = path or settings_path()
    try:
        data = read_settings_file(path)
    except FileNotFoundError:
        return Settings()
    try:
        return Settings.from_dict(data)
    except SettingsError as exc:
        raise SettingsError([f"{path}: {problem}" for problem in exc.problems], exc.keys) from None


def read_settings_file(path: Path) -> dict[str, Any]:
    """The JSON object in the settings file; ``FileNotFoundError`` passes through."""
    try:
        data = read_json(path, MAX_FILE_BYTES)
    except JsonProblem as exc:
        raise SettingsError([f"{path} {exc}"]) from None
    if not isinstance(data, dict):
        raise SettingsError([f"{path} does not hold a JSON object"])
    return data


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Check, then write atomically: a crash mid-save never leaves half a file."""
    settings.check_usable()
    path = path or settings_path()
    paths.atomic_write_json(path, settings.to_dict())
    return path
