"""GGUFs known to call tools well, smallest first, downloadable from Hugging Face.

Every family here has a native tool format in its chat template (Hermes
``<tool_call>`` for Qwen, JSON for Llama 3.x, ``[TOOL_CALLS]`` for Mistral, and so on).
Sizes, layer counts, context lengths and cache shapes are the published ones, sizes
rounded as the Hub shows them; the exact size comes from the Hub when a download starts,
and once the file is here its own header is read instead.

SHA-256: none is written here. They could not be checked offline when this list was
made, and a wrong one would refuse a good file. The download instead checks the file
against the SHA-256 the Hub itself reports for it (the ``X-Linked-Etag`` of an LFS
file); an entry that does carry ``sha256`` is checked against both.
"""

from __future__ import annotations

import dataclasses

GB = 1000**3
MB = 1000**2


@dataclasses.dataclass(frozen=True)
class CuratedModel:
    repo_id: str
    file_name: str
    label: str
    family: str  # the tool-call format its template speaks
    quantisation: str
    size: int  # bytes, as published (approximate)
    context_length: int
    layers: int
    kv_per_token: int  # K and V, f16: 2 × layers × KV heads × head size × 2 bytes, from the config
    sha256: str | None = None  # see the module docstring
    revision: str = "main"

    @property
    def id(self) -> str:
        return f"{self.repo_id}/{self.file_name}"


CURATED: tuple[CuratedModel, ...] = (
    CuratedModel("Qwen/Qwen2.5-0.5B-Instruct-GGUF", "qwen2.5-0.5b-instruct-q4_k_m.gguf",
                 "Qwen2.5 0.5B Instruct", "hermes", "Q4_K_M", 491 * MB, 32768, 24, 2 * 24 * 2 * 64 * 2),
    CuratedModel("Qwen/Qwen2.5-1.5B-Instruct-GGUF", "qwen2.5-1.5b-instruct-q4_k_m.gguf",
                 "Qwen2.5 1.5B Instruct", "hermes", "Q4_K_M", 1120 * MB, 32768, 28, 2 * 28 * 2 * 128 * 2),
    CuratedModel("ibm-granite/granite-3.3-2b-instruct-GGUF", "granite-3.3-2b-instruct-Q4_K_M.gguf",
                 "Granite 3.3 2B Instruct", "granite", "Q4_K_M", 1550 * MB, 131072, 40, 2 * 40 * 8 * 64 * 2),
    CuratedModel("bartowski/Llama-3.2-3B-Instruct-GGUF", "Llama-3.2-3B-Instruct-Q4_K_M.gguf",
                 "Llama 3.2 3B Instruct", "llama3", "Q4_K_M", 2020 * MB, 131072, 28, 2 * 28 * 8 * 128 * 2),
    CuratedModel("Qwen/Qwen2.5-3B-Instruct-GGUF", "qwen2.5-3b-instruct-q4_k_m.gguf",
                 "Qwen2.5 3B Instruct", "hermes", "Q4_K_M", 2100 * MB, 32768, 36, 2 * 36 * 2 * 128 * 2),
    CuratedModel("bartowski/microsoft_Phi-4-mini-instruct-GGUF", "microsoft_Phi-4-mini-instruct-Q4_K_M.gguf",
                 "Phi-4-mini Instruct", "phi4", "Q4_K_M", 2490 * MB, 131072, 32, 2 * 32 * 8 * 128 * 2),
    CuratedModel("Qwen/Qwen3-4B-GGUF", "Qwen3-4B-Q4_K_M.gguf",
                 "Qwen3 4B", "hermes", "Q4_K_M", 2500 * MB, 40960, 36, 2 * 36 * 8 * 128 * 2),
    CuratedModel("bartowski/Mistral-7B-Instruct-v0.3-GGUF", "Mistral-7B-Instruct-v0.3-Q4_K_M.gguf",
                 "Mistral 7B Instruct v0.3", "mistral", "Q4_K_M", 4370 * MB, 32768, 32, 2 * 32 * 8 * 128 * 2),
    CuratedModel("bartowski/Qwen2.5-7B-Instruct-GGUF", "Qwen2.5-7B-Instruct-Q4_K_M.gguf",
                 "Qwen2.5 7B Instruct", "hermes", "Q4_K_M", 4680 * MB, 32768, 28, 2 * 28 * 4 * 128 * 2),
    CuratedModel("bartowski/Meta-Llama-3.1-8B-Instruct-GGUF", "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf",
                 "Llama 3.1 8B Instruct", "llama3", "Q4_K_M", 4920 * MB, 131072, 32, 2 * 32 * 8 * 128 * 2),
    CuratedModel("Qwen/Qwen3-8B-GGUF", "Qwen3-8B-Q4_K_M.gguf",
                 "Qwen3 8B", "hermes", "Q4_K_M", 5030 * MB, 40960, 36, 2 * 36 * 8 * 128 * 2),
)  # fmt: skip


def find(name: str) -> CuratedModel | None:
    """The curated entry named by its id (``repo/file``), its file name, or its repo id."""
    for model in CURATED:
        if name in (model.id, model.file_name, model.repo_id):
            return model
    return None
