"""Where GGUFs already lie on this machine: Calculon's own folder, LM Studio's and Ollama's.

Ollama keeps its models as content-addressed blobs; a manifest per ``name:tag`` names
the blob whose media type is the model, and that blob is a plain GGUF.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path

from app import paths

logger = logging.getLogger(__name__)

OLLAMA_MODEL_LAYER = "application/vnd.ollama.image.model"


@dataclasses.dataclass(frozen=True)
class FoundFile:
    path: Path
    label: str
    source: str  # "calculon", "lm-studio" or "ollama"


def models_dir() -> Path:
    """Calculon's own models folder: downloads go here, and only files here may be removed."""
    return paths.data_dir() / "models"


def lm_studio_dirs(home: Path | None = None) -> list[Path]:
    home = home or Path.home()
    return [home / ".lmstudio" / "models", home / ".cache" / "lm-studio" / "models"]


def ollama_dir(home: Path | None = None) -> Path:
    configured = os.environ.get("OLLAMA_MODELS")
    return Path(configured).expanduser() if configured else (home or Path.home()) / ".ollama" / "models"


def scan(home: Path | None = None) -> list[FoundFile]:
    """Every GGUF in the known folders, each file once (the first place that lists it wins)."""
    found: dict[Path, FoundFile] = {}
    places = [(models_dir(), "calculon")] + [(d, "lm-studio") for d in lm_studio_dirs(home)]
    for root, source in places:
        for path in _ggufs(root):
            found.setdefault(path.resolve(), FoundFile(path, str(path.relative_to(root)), source))
    for item in ollama_models(ollama_dir(home)):
        found.setdefault(item.path.resolve(), item)
    return list(found.values())


def _ggufs(root: Path) -> Iterator[Path]:
    if not root.is_dir():
        return
    for path in sorted(root.rglob("*.gguf")):
        # mmproj files are vision projectors that ride beside a model, not models
        if path.is_file() and not path.name.lower().startswith("mmproj"):
            yield path


def ollama_models(root: Path) -> list[FoundFile]:
    manifests = root / "manifests"
    if not manifests.is_dir():
        return []
    found = []
    for manifest in sorted(p for p in manifests.rglob("*") if p.is_file()):
        blob = _model_blob(root, manifest)
        if blob is not None:
            found.append(FoundFile(blob, _ollama_name(manifests, manifest), "ollama"))
    return found


def _model_blob(root: Path, manifest: Path) -> Path | None:
    try:
        layers = json.loads(manifest.read_text(encoding="utf-8")).get("layers", [])
    except (OSError, ValueError, AttributeError):
        logger.info("unreadable Ollama manifest %s", manifest)
        return None
    for layer in layers if isinstance(layers, list) else []:
        if isinstance(layer, dict) and layer.get("mediaType") == OLLAMA_MODEL_LAYER:
            blob = root / "blobs" / str(layer.get("digest", "")).replace(":", "-")
            return blob if blob.is_file() else None
    return None


def _ollama_name(manifests: Path, manifest: Path) -> str:
    """``qwen2.5:0.5b`` for .../library/qwen2.5/0.5b; other registries keep their path."""
    parts = manifest.relative_to(manifests).parts
    if len(parts) >= 4 and parts[:2] == ("registry.ollama.ai", "library"):
        return f"{parts[2]}:{parts[3]}"
    return "/".join(parts[:-1]) + ":" + parts[-1]
