"""How much of a model fits where: the GPU layer count, estimated before loading.

llama.cpp puts each offloaded layer's weights and its share of the K/V cache on
the GPU; the rest stays in RAM. A layer's weights are taken as the file's size
over (layers + 1): the embeddings and output head are about one layer's worth.
"""

from __future__ import annotations

import ctypes
import dataclasses
import logging
from pathlib import Path

logger = logging.getLogger(__name__)

AUTO_LAYERS = -2  # the n_gpu_layers setting that asks for the count to be chosen here
GPU_MARGIN = 512 * 1024**2  # compute buffers and the CUDA context, beyond weights and cache
RAM_MARGIN = 256 * 1024**2  # as app.llm.local.model_file counts it
_GPU_TYPES = (1, 2)  # ggml_backend_dev_type: GPU, integrated GPU


@dataclasses.dataclass(frozen=True)
class GpuMemory:
    offload: bool  # this llama.cpp build can offload at all
    free: int | None  # bytes free on the GPUs llama.cpp sees; None: none reported
    names: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Plan:
    layers: int
    gpu_layers: int  # how many go to the GPU; layers + 1 when the output head goes too (-1)
    vram: int  # bytes needed on the GPU
    ram: int  # bytes needed in RAM
    fits_vram: bool | None  # None: the GPU's free memory is unknown
    fits_ram: bool | None

    @property
    def fits(self) -> bool:
        return self.fits_vram is not False and self.fits_ram is not False

    @property
    def whole(self) -> bool:
        """Every layer and the output head on the GPU: what n_gpu_layers -1 asks of llama.cpp."""
        return self.gpu_layers > self.layers

    def describe(self) -> str:
        if self.gpu_layers == 0:
            where = "CPU only"
        elif self.whole:
            where = f"all {self.layers} layers and the output on the GPU"
        else:
            where = f"{self.gpu_layers}/{self.layers} layers on the GPU"
        parts = [where, f"RAM {_gb(self.ram)}{_verdict(self.fits_ram)}"]
        if self.gpu_layers:
            parts.append(f"VRAM {_gb(self.vram)}{_verdict(self.fits_vram)}")
        return ", ".join(parts)


def plan(
    size: int, layers: int, kv_per_token: int | None, n_ctx: int, gpu_layers: int,
    free_vram: int | None, free_ram: int | None,
) -> Plan:  # fmt: skip
    """Memory for ``gpu_layers`` (-1: every layer and the output) of a ``layers``-layer model
    of ``size`` bytes."""
    layers = max(layers, 1)
    on_gpu = layers + 1 if gpu_layers < 0 else min(gpu_layers, layers + 1)
    per_layer = size / (layers + 1)
    kv = (kv_per_token or 0) * n_ctx
    share = min(on_gpu, layers) / layers  # the cache belongs to the repeating layers only
    vram = int(per_layer * on_gpu + kv * share) + (GPU_MARGIN if on_gpu else 0)
    ram = int((size - per_layer * on_gpu) * 1.1 + kv * (1 - share)) + RAM_MARGIN
    return Plan(
        layers, on_gpu, vram, ram,
        fits_vram=None if free_vram is None or not on_gpu else vram <= free_vram,
        fits_ram=None if free_ram is None else ram <= free_ram,
    )  # fmt: skip


def default_gpu_layers(size: int, layers: int, kv_per_token: int | None, n_ctx: int, gpu: GpuMemory) -> int:
    """The most layers whose weights and cache fit in the free VRAM: -1 when the whole model
    does (so RAM is not asked for it either), 0 without a usable GPU."""
    if not gpu.offload or not gpu.free:
        return 0
    if plan(size, layers, kv_per_token, n_ctx, -1, gpu.free, None).fits_vram:
        return -1
    best = 0
    for count in range(1, max(layers, 1) + 1):
        if plan(size, layers, kv_per_token, n_ctx, count, gpu.free, None).fits_vram:
            best = count
    return best


@dataclasses.dataclass(frozen=True)
class LayerChoice:
    layers: int  # the n_gpu_layers to load with
    estimate: str  # the estimate, in words, shown before loading
    ram: int | None = None  # bytes of RAM the estimate needs; None where the header was unreadable


def choose_layers(path: Path, setting: int, n_ctx: int, gpu: GpuMemory | None = None) -> LayerChoice:
    """The GPU layer count to load ``path`` with, and the estimate that says why, in words.

    ``setting`` is the user's n_gpu_layers: a count, -1 for every layer, or AUTO_LAYERS
    for the most layers whose weights and cache fit the free VRAM.
    """
    from app.llm.library.gguf_info import GgufError, read_info

    gpu = gpu or gpu_memory()
    try:
        info = read_info(path)
    except (OSError, GgufError) as exc:
        logger.info("no offload estimate for %s: %s", path, exc)
        return LayerChoice(
            0 if setting == AUTO_LAYERS else setting, "GPU offload: no estimate (unreadable header)"
        )
    size, layers, kv = path.stat().st_size, info.layers or 1, info.kv_bytes_per_token()
    chosen = default_gpu_layers(size, layers, kv, n_ctx, gpu) if setting == AUTO_LAYERS else setting
    estimate = plan(size, layers, kv, n_ctx, chosen if gpu.offload else 0, gpu.free, None)
    return LayerChoice(chosen, f"GPU offload: {estimate.describe()}; {_why(setting, gpu)}", estimate.ram)


def _why(setting: int, gpu: GpuMemory) -> str:
    if not gpu.offload:
        return "this llama.cpp build is CPU-only"
    free = "free VRAM not reported" if gpu.free is None else f"{_gb(gpu.free)} VRAM free"
    return f"{'chosen for' if setting == AUTO_LAYERS else 'as set;'} {free}"


def gpu_memory() -> GpuMemory:
    """What llama.cpp reports: whether it can offload, and the GPUs' free memory."""
    try:
        import llama_cpp
    except ImportError:
        return GpuMemory(offload=False, free=None)
    offload = bool(llama_cpp.llama_supports_gpu_offload())
    try:
        devices = _ggml_devices(Path(llama_cpp.__file__).parent / "lib" / "libggml.so")
    except (OSError, AttributeError):
        logger.info("llama.cpp does not report its devices' memory", exc_info=True)
        return GpuMemory(offload=offload, free=None)
    gpus = [(name, free) for name, kind, free in devices if kind in _GPU_TYPES]
    total_free = sum(free for _, free in gpus) if gpus else None
    return GpuMemory(offload, total_free, tuple(name for name, _ in gpus))


def _ggml_devices(library: Path) -> list[tuple[str, int, int]]:
    """(name, type, free bytes) of every device ggml knows, through its C API."""
    ggml = ctypes.CDLL(str(library))
    ggml.ggml_backend_dev_count.restype = ctypes.c_size_t
    ggml.ggml_backend_dev_get.restype = ctypes.c_void_p
    ggml.ggml_backend_dev_get.argtypes = [ctypes.c_size_t]
    ggml.ggml_backend_dev_name.restype = ctypes.c_char_p
    ggml.ggml_backend_dev_name.argtypes = [ctypes.c_void_p]
    ggml.ggml_backend_dev_type.restype = ctypes.c_int
    ggml.ggml_backend_dev_type.argtypes = [ctypes.c_void_p]
    size_p = ctypes.POINTER(ctypes.c_size_t)
    ggml.ggml_backend_dev_memory.argtypes = [ctypes.c_void_p, size_p, size_p]
    found = []
    for index in range(ggml.ggml_backend_dev_count()):
        device = ggml.ggml_backend_dev_get(index)
        free, total = ctypes.c_size_t(), ctypes.c_size_t()
        ggml.ggml_backend_dev_memory(device, ctypes.byref(free), ctypes.byref(total))
        name = (ggml.ggml_backend_dev_name(device) or b"").decode(errors="replace")
        found.append((name, int(ggml.ggml_backend_dev_type(device)), int(free.value)))
    return found


def _verdict(fits: bool | None) -> str:
    return "" if fits is None else (" (fits)" if fits else " (does not fit)")


def _gb(size: float) -> str:
    return f"{size / 1024**3:.1f} GB"


if __name__ == "__main__":  # bench/gpu_check.sh: what llama.cpp reports, and the layers chosen
    import sys

    found = gpu_memory()
    print(f"devices: {', '.join(found.names) or 'none'}; offload: {found.offload}; free VRAM: {found.free}")
    choice = choose_layers(Path(sys.argv[1]), AUTO_LAYERS, int(sys.argv[2]), found)
    count, text = choice.layers, choice.estimate
    print(f"chosen layers: {count}\n{text}")
