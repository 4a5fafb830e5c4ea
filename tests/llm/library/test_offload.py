"""The GPU offload estimate's arithmetic, and what this machine (no GPU) reports."""

from __future__ import annotations

from app.llm.library.offload import GPU_MARGIN, RAM_MARGIN, GpuMemory, default_gpu_layers, gpu_memory, plan

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
    assert every.gpu_layers == 32 and every.vram == 32 * GIB + GIB + GPU_MARGIN and every.fits_vram
    assert every.ram == int(GIB * 1.1) + RAM_MARGIN and every.fits_ram


def test_the_default_layer_count_is_the_most_that_fit_in_free_vram():
    size, layers = 33 * GIB, 32  # 1 GiB a layer, no cache counted
    free = 10 * GIB + GPU_MARGIN
    assert default_gpu_layers(size, layers, None, 4096, GpuMemory(True, free)) == 10
    assert default_gpu_layers(size, layers, None, 4096, GpuMemory(True, 100 * GIB)) == 32
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
        assert default_gpu_layers(GIB, 24, None, 4096, found) == 24
