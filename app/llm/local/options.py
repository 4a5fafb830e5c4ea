"""The local model's options, and what it is called before it loads.

Kept apart from everything that imports llama.cpp: the app builds these in its own process and
hands them to the model's process (:mod:`app.llm.local.process`), which alone loads the library.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Literal

from app.llm.local import catalog

CallPolicy = Literal["numbers", "always", "auto"]
# Tokens of context a model loads with unless told, capped at what it was trained on
# (app.llm.local.model.fitted_context). 4096 was too few for a 1.5B model with a reference server's
# tools: "the prompt needs 3620 tokens and 3584 are available" on its first question.
DEFAULT_CONTEXT = 8192


@dataclasses.dataclass(frozen=True)
class LocalOptions:
    """Keyword options, named like the :class:`app.settings.Settings` fields they come from."""

    model_path: str = ""  # empty: the built-in model ``builtin_model``
    builtin_model: str = ""  # an id from app.llm.local.catalog; empty: the default
    n_gpu_layers: int = 0  # 0: CPU only, -1: every layer, -2: as many as fit the free VRAM
    n_ctx: int = DEFAULT_CONTEXT
    n_threads: int = 0  # 0: automatic
    max_tokens: int = 512  # per step
    strict: bool = True  # Calculon mode
    call_policy: CallPolicy = "numbers"  # when the first step must call a tool: numbers, always, auto
    extra_buffers: bool | None = None  # llama.cpp CPU weight repacking; None: automatic
    max_tool_calls: int | None = None  # per user message; None: 1 for the built-in model, else no limit
    save_prompt: bool = True  # keep the prompt opening's state in the cache folder (prompt_cache.py)
    # keep the state after each answer (turn_states.py): on in the app's settings; off for a
    # backend made in code, which writes tens of MB per answer only where asked to
    keep_conversations: bool = False
    # "native": the model's own tool-call format where its template has one (native.py);
    # "calculon": Calculon's own; "auto": native outside Calculon mode (see docs/benchmarks.md)
    tool_format: str = "auto"

    @classmethod
    def from_settings(cls, **options: Any) -> LocalOptions:
        """Known keys only: the registry passes every setting, most of them not ours."""
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{key: value for key, value in options.items() if key in known})

    @property
    def builtin(self) -> catalog.BuiltinModel:
        """The catalogue entry in use (the default one when a custom file is loaded)."""
        return catalog.builtin_model(self.builtin_model)

    def label(self) -> str:
        """What the model is called before it is loaded."""
        if self.model_path:
            return Path(self.model_path).name
        return f"{self.builtin.label} (built in)"
