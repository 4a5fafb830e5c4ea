"""User settings: a typed model saved as JSON, validated, written atomically.

The Gemini key is not here: it lives in the environment or the OS keyring
(see :mod:`app.secrets`), never in a plain-text file.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Literal

from app import paths

BACKENDS = ("local", "gemini")
TOOL_ENCODERS = ("static", "contextual")


class SettingsError(ValueError):
    """Settings that cannot be used; the message names each problem."""


@dataclasses.dataclass
class Settings:
    backend: Literal["local", "gemini"] = "local"
    model_path: str = ""  # empty: the built-in model named by builtin_model
    builtin_model: str = "smollm2-135m-instruct"  # an id from app.llm.local.catalog
    n_gpu_layers: int = 0  # 0: CPU only, -1: every layer
    n_ctx: int = 4096
    n_threads: int = 0  # 0: let llama.cpp choose
    gemini_model: str = "gemini-2.5-flash"
    strict: bool = True  # Calculon mode
    max_rounds: int = 8
    tool_threshold: int = 16  # above this many tools, offer only the top-k
    top_k: int = 5
    pinned_tools: list[str] = dataclasses.field(default_factory=list)
    tool_encoder: Literal["static", "contextual"] = "static"  # how tool retrieval embeds text
    tool_timeout_s: float = 30.0

    def problems(self) -> list[str]:
        """Every reason these settings cannot be used, worded for the user."""
        found = []
        if self.backend not in BACKENDS:
            found.append(f"backend must be one of {', '.join(BACKENDS)}, not {self.backend!r}")
        if self.tool_encoder not in TOOL_ENCODERS:
            found.append(
                f"tool matching must be one of {', '.join(TOOL_ENCODERS)}, not {self.tool_encoder!r}"
            )
        if self.builtin_model not in _builtin_model_ids():
            found.append(
                f"built-in model must be one of {', '.join(_builtin_model_ids())}, not {self.builtin_model!r}"
            )
        if self.model_path and not Path(self.model_path).expanduser().is_file():
            found.append(f"model file not found: {self.model_path}")
        if self.n_gpu_layers < -1:
            found.append("GPU layers must be -1 (all), 0 (CPU only) or a positive count")
        if not 256 <= self.n_ctx <= 1_048_576:
            found.append("context size must be between 256 and 1048576 tokens")
        if self.n_threads < 0:
            found.append("threads must be 0 (automatic) or more")
        if not self.gemini_model.strip():
            found.append("the Gemini model name is empty")
        for name, low in (("max_rounds", 1), ("tool_threshold", 0), ("top_k", 1)):
            if getattr(self, name) < low:
                found.append(f"{name} must be at least {low}")
        if self.tool_timeout_s <= 0:
            found.append("the tool timeout must be positive")
        return found

    def validate(self) -> None:
        if problems := self.problems():
            raise SettingsError("; ".join(problems))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        """Known keys only; a wrong type becomes a SettingsError naming the key."""
        fields = {f.name: f for f in dataclasses.fields(cls)}
        defaults = cls()
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in fields:
                continue  # settings from a newer version: ignore rather than fail
            expected = type(getattr(defaults, key))
            if expected is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
                raise SettingsError(f"setting {key!r} should be {expected.__name__}, got {value!r}")
            values[key] = value
        return cls(**values)


def _builtin_model_ids() -> list[str]:
    from app.llm.local.catalog import builtin_model_ids  # no llama.cpp behind it

    return builtin_model_ids()


def settings_path() -> Path:
    return paths.config_dir() / "settings.json"


def load_settings(path: Path | None = None) -> tuple[Settings, list[str]]:
    """Settings from disk and the problems found. A missing file gives defaults;
    a corrupt one gives defaults plus a message, and is left untouched on disk."""
    path = path or settings_path()
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings(), []
    try:
        data = json.loads(raw)
        if not isinstance(data, dict):
            raise SettingsError("the file does not hold a JSON object")
        settings = Settings.from_dict(data)
    except (json.JSONDecodeError, SettingsError) as exc:
        return Settings(), [f"{path} could not be read ({exc}); using defaults until you save"]
    return settings, settings.problems()


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Validate, then write atomically: a crash mid-save never leaves half a file."""
    settings.validate()
    path = path or settings_path()
    atomic_write_json(path, settings.to_dict())
    return path


def atomic_write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
