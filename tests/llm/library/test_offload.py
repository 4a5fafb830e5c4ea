"""The GPU offload estimate's arithmetic, and what this machine (no GPU) reports."""

from __future__ import annotations

from app.llm.library.offload import (
    AUTO_LAYERS,
    GPU_MARGIN,
    RAM_MARGIN,
    GpuMemory,
    choose_layers,
    default_gpu_layers,
    gpu_memory,
    plan,
)

GIB = 1024**3


def test_layers_split_weights_and_cache_between_gpu_and_ram():
    # 33 shares of 1 GiB: 32 layers and the embeddings/output; a 1 MiB cache per token of context
    size, layers, kv_token, ctx = 33 * GIB, 32, 1024**2, 1024
    half = plan(size, layers, kv_token, ctx, 16, free_vram=None, free_ram=None)
    assert half.vram == 16 * GIB + GIB // 2 + GPU_MARGIN
    assert half.ram == int(17 * GIB * 1.1 + GIB // 2) + RAM_MARGIN
    assert half.fits_vram is None and half.fits_ram is None and half.fits
    cpu = plan(size, layers, kv_token, ctx, 0, free_vram=80 * GIB, free_ram=None)
    assert cpu.vram == 0 and cpu.fits_vram is None  # nothing asked of the GPU
    every = plan(size, layers, kv_token, ctx, -1, free_vram=40 * GIB, free_ram=4 * GIB)
    assert every.whole and every.vram == 33 * GIB + GIB + GPU_MARGIN and every.fits_vram
    assert every.ram == RAM_MARGIN and every.fits_ram
    assert plan(size, layers, kv_token, ctx, 32, None, None).ram == int(GIB * 1.1) + RAM_MARGIN


def test_the_default_layer_count_is_the_most_that_fit_in_free_vram():
    size, layers = 33 * GIB, 32  # 1 GiB a layer, no cache counted
    free = 10 * GIB + GPU_MARGIN
    assert default_gpu_layers(size, layers, None, 4096, GpuMemory(True, free)) == 10
    assert default_gpu_layers(size, layers, None, 4096, GpuMemory(True, 100 * GIB)) == -1
    assert default_gpu_layers(size, layers, None, 4096, GpuMemory(True, 32 * GIB + GPU_MARGIN)) == 32
    assert default_gpu_layers(size, layers, None, 4096, GpuMemory(True, GPU_MARGIN)) == 0
    assert default_gpu_layers(size, layers, None, 4096, GpuMemory(False, 100 * GIB)) == 0
    assert default_gpu_layers(size, layers, None, 4096, GpuMemory(True, None)) == 0


def test_the_estimate_says_what_it_does():
    text = plan(33 * GIB, 32, None, 4096, 10, free_vram=8 * GIB, free_ram=64 * GIB).describe()
    assert text.startswith("10/32 layers on the GPU, RAM ") and "VRAM 10.5 GB (does not fit)" in text
    assert plan(GIB, 10, None, 4096, 0, None, GIB // 2).describe().startswith("CPU only, RAM 1.3 GB")


def test_what_llama_cpp_reports_decides_the_default():
    import llama_cpp

    found = gpu_memory()  # the real llama.cpp installed here
    assert found.offload == bool(llama_cpp.llama_supports_gpu_offload())
    if not found.offload:  # a CPU build: no GPU device, no layers
        assert found == GpuMemory(offload=False, free=None, names=())
        assert default_gpu_layers(GIB, 24, None, 4096, found) == 0
    else:  # a GPU build (bench/gpu_check.sh): its devices and their free memory
        assert found.names and found.free and found.free > 0
        assert default_gpu_layers(GIB, 24, None, 4096, found) == -1


def _smollm2():
    from app.llm.local import catalog

    return catalog.packaged_file(catalog.SMOLLM2)  # 30 layers, 98 MB


def test_auto_chooses_every_layer_when_the_free_vram_holds_them():
    stand_in = GpuMemory(offload=True, free=8 * GIB, names=("Stand-in GPU",))  # what a GPU build reports
    choice = choose_layers(_smollm2(), AUTO_LAYERS, 4096, stand_in)
    layers, text = choice.layers, choice.estimate
    assert layers == -1
    assert text.startswith("GPU offload: all 30 layers and the output on the GPU, RAM ")
    assert text.endswith("chosen for 8.0 GB VRAM free")
    few = GpuMemory(offload=True, free=GPU_MARGIN + 60 * 1024**2)  # room for some layers, not all
    layers = choose_layers(_smollm2(), AUTO_LAYERS, 4096, few).layers
    assert 0 < layers < 30
    assert choose_layers(_smollm2(), 7, 4096, stand_in).layers == 7


def test_auto_on_a_cpu_build_is_cpu_only_and_says_so():
    choice = choose_layers(_smollm2(), AUTO_LAYERS, 4096, GpuMemory(offload=False, free=None))
    layers, text = choice.layers, choice.estimate
    assert layers == 0
    assert text.startswith("GPU offload: CPU only, RAM ")
    assert text.endswith("this llama.cpp build is CPU-only")


def test_the_estimate_is_shown_before_the_model_loads():
    import asyncio

    from app.llm.local.backend import LocalBackend, LocalOptions

    backend = LocalBackend(LocalOptions(model_path=str(_smollm2()), n_ctx=512, n_gpu_layers=AUTO_LAYERS))
    progress: list[tuple[float, str]] = []
    asyncio.run(backend.load(lambda value, text: progress.append((value, text))))
    asyncio.run(backend.aclose())
    shown = [i for i, (_, text) in enumerate(progress) if text.startswith("GPU offload: ")]
    assert shown and progress[shown[0]][0] == 0.3  # before any of the load's own progress
    assert all(value <= 0.3 for value, _ in progress[: shown[0]])
    assert progress[-1] == (1.0, "Model ready")
